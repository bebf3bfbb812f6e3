"""dvc.yaml and params.yaml: a stage per experiment, `dvc repro` offline, `dvc status` after a change."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ccexp.__main__ import list_experiments
from ccexp.report import PAPER_OF

ROOT = Path(__file__).resolve().parents[1]


def _params():
    return yaml.safe_load((ROOT / "params.yaml").read_text())


def test_params_list_every_experiment_once_with_its_paper():
    params = _params()
    assert set(params) == {"experiments"}
    assert set(params["experiments"]) == set(list_experiments())
    for name, item in params["experiments"].items():
        assert item["paper"] == PAPER_OF[name]
        assert item["scale"] in ("paper", "quick", "ci")


def test_reproduction_stage_reads_every_comparison_and_reference():
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["reproduction"]
    deps = set(stage["deps"])
    assert {f"results/{n}/paper/comparison.csv" for n in list_experiments()} <= deps  # the paper-scale reports
    assert {f"experiments/{p}/reference.csv" for p in set(PAPER_OF.values())} <= deps


def _dvc(args, cwd, env):
    return subprocess.run([sys.executable, "-m", "dvc", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def _stale(output: str) -> set[str]:
    """The stage names ``dvc status`` lists (its unindented ``name:`` lines)."""
    return {line[:-1] for line in output.splitlines() if line.endswith(":") and not line[:1].isspace()}


@pytest.mark.slow
def test_a_fresh_clone_is_up_to_date_and_dvc_repro_reruns_only_what_a_change_touched(tmp_path):
    """Issue 32: with the committed dvc.lock, a clone's ``dvc status`` is clean (it listed every stage,
    732 lines, and ``dvc repro report@exp1_triplets`` reran the whole paper sweep)."""
    pytest.importorskip("dvc", reason="dvc is not installed (pip install 'ccexp[repro]')")
    repo = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DVC_"))}
    env.pop("CCEXP_RESULTS_DIR", None)  # the stages write to results/ of the clone

    status = _dvc(["status"], repo, env)
    assert status.returncode == 0, status.stdout + status.stderr
    assert status.stdout.strip() == "Data and pipelines are up to date.", (
        "dvc.lock does not match the committed files; regenerate it with `python scripts/dvc_lock.py` and commit "
        f"dvc.lock. Stale stages: {sorted(_stale(status.stdout))}")

    # a paper's reference numbers: its experiments' reports and the reproduction page, no sweep
    ref = repo / "experiments" / "gionis2007" / "reference.csv"
    original = ref.read_text()
    ref.write_text(original + "\n")
    gionis = {n for n, p in _params()["experiments"].items() if p["paper"] == "gionis2007"}
    expected = {f"report@{n}" for n in gionis} | {"reproduction"}
    assert _stale(_dvc(["status"], repo, env).stdout) == expected
    dry = _dvc(["repro", "--dry"], repo, env)
    assert set(re.findall(r"Running stage '([^']+)'", dry.stdout)) == expected, dry.stdout + dry.stderr
    ref.write_text(original)

    # a config change makes the sweep (and so its report) stale; another experiment's is untouched
    conf = repo / "conf" / "experiment" / "agg_robustness.yaml"
    original = conf.read_text()
    conf.write_text(original + "\n# touched\n")
    status = _dvc(["status"], repo, env)
    assert _stale(status.stdout) == {"sweep@agg_robustness"} and "conf/experiment/agg_robustness.yaml" in status.stdout
    dry = _dvc(["repro", "--dry", "report@agg_robustness"], repo, env)
    # a dry run lists the stale sweep; whether it lists the report too depends on whether DVC assumes the
    # sweep's run.json will change (it cannot know without running it); the real `dvc repro` below shows the
    # report follows its sweep.  Nothing of another experiment runs either way.
    planned = re.findall(r"Running stage '([^']+)'", dry.stdout)
    assert planned[:1] == ["sweep@agg_robustness"] and set(planned) <= {"sweep@agg_robustness", "report@agg_robustness"}
    conf.write_text(original)

    # its scale in params.yaml: `dvc repro` reruns that sweep and its report, offline, and nothing else
    params = _params()
    params["experiments"]["agg_robustness"]["scale"] = "ci"
    (repo / "params.yaml").write_text(yaml.safe_dump(params))
    status = _dvc(["status"], repo, env)
    assert _stale(status.stdout) == {"sweep@agg_robustness", "report@agg_robustness"}, status.stdout
    assert "experiments.agg_robustness.scale" in status.stdout
    run = _dvc(["repro"], repo, env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert set(re.findall(r"Running stage '([^']+)'", run.stdout)) == {"sweep@agg_robustness", "report@agg_robustness"}
    out = repo / "results" / "agg_robustness" / "ci"
    assert (out / "records.parquet").is_file() and (out / "comparison.csv").is_file() and (out / "report.md").is_file()
    status = _dvc(["status"], repo, env)
    assert status.stdout.strip() == "Data and pipelines are up to date.", status.stdout
    # the committed paper-scale report was not touched
    git = subprocess.run(["git", "status", "--porcelain", "results"], cwd=repo, capture_output=True, text=True)
    assert git.stdout == "", git.stdout


def test_the_lock_script_is_documented_where_dvc_is():
    text = (ROOT / "README.md").read_text()
    assert "python scripts/dvc_lock.py" in text and "python scripts/dvc_lock.py" in (ROOT / "dvc.yaml").read_text()
    assert (ROOT / "dvc.lock").is_file()
