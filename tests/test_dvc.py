"""dvc.yaml and params.yaml: a stage per experiment, `dvc repro` offline, `dvc status` after a change."""

import os
import shutil
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
    plain, traced = params["experiments"], params["traced_experiments"]
    assert not set(plain) & set(traced)
    assert set(plain) | set(traced) == set(list_experiments())
    for name, item in {**plain, **traced}.items():
        assert item["paper"] == PAPER_OF[name]
        assert item["scale"] in ("paper", "quick", "ci")
    # traced stages cache traces.parquet: exactly the experiments that write traces
    with_traces = {n for n in list_experiments()
                   if "trace_metrics" in (ROOT / "conf" / "experiment" / f"{n}.yaml").read_text()}
    assert set(traced) == with_traces


def test_reproduction_stage_reads_every_comparison_and_reference():
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["reproduction"]
    deps = set(stage["deps"])
    assert {f"results/{n}/paper/comparison.csv" for n in list_experiments()} <= deps  # the paper-scale reports
    assert {f"experiments/{p}/reference.csv" for p in set(PAPER_OF.values())} <= deps


def _dvc(args, cwd, env):
    return subprocess.run([sys.executable, "-m", "dvc", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.slow
def test_dvc_repro_offline_and_status_after_changes(tmp_path):
    pytest.importorskip("dvc", reason="dvc is not installed (pip install 'ccexp[repro]')")
    # a fresh clone of the working tree: the tracked files, committed in a new repository
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split("\0")
    repo = tmp_path / "clone"
    for f in filter(None, files):
        src = ROOT / f
        if src.is_file() and not f.startswith("results/"):
            (repo / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, repo / f)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DVC_"))}
    env.pop("CCEXP_RESULTS_DIR", None)  # the stages write to results/ of the clone
    git = dict(cwd=repo, capture_output=True, check=True, env=env)
    subprocess.run(["git", "init", "-q"], **git)
    subprocess.run(["git", "add", "-A"], **git)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "clone"], **git)

    params = yaml.safe_load((repo / "params.yaml").read_text())
    params["experiments"]["agg_robustness"]["scale"] = "ci"
    (repo / "params.yaml").write_text(yaml.safe_dump(params))

    run = _dvc(["repro", "--single-item", "sweep@agg_robustness", "report@agg_robustness"], repo, env)
    assert run.returncode == 0, run.stdout + run.stderr
    out = repo / "results" / "agg_robustness" / "ci"
    assert (out / "records.parquet").is_file() and (out / "comparison.csv").is_file() and (out / "report.md").is_file()

    status = _dvc(["status", "sweep@agg_robustness", "report@agg_robustness"], repo, env)
    assert status.returncode == 0 and "up to date" in status.stdout, status.stdout + status.stderr

    # a config change makes the sweep (and so its report) stale ...
    conf = repo / "conf" / "experiment" / "agg_robustness.yaml"
    original = conf.read_text()
    conf.write_text(original + "\n# touched\n")
    status = _dvc(["status", "sweep@agg_robustness"], repo, env)
    assert "sweep@agg_robustness" in status.stdout and "conf/experiment/agg_robustness.yaml" in status.stdout
    conf.write_text(original)
    # ... and so does its scale in params.yaml; another experiment's config does not
    params["experiments"]["agg_robustness"]["scale"] = "quick"
    (repo / "params.yaml").write_text(yaml.safe_dump(params))
    (repo / "conf" / "experiment" / "agg_census.yaml").write_text(
        (repo / "conf" / "experiment" / "agg_census.yaml").read_text() + "\n# touched\n")
    status = _dvc(["status", "sweep@agg_robustness"], repo, env)
    assert "experiments.agg_robustness.scale" in status.stdout, status.stdout
    assert "agg_census" not in status.stdout
