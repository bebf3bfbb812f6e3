"""The command line: refusals (one line, exit 2), --help, paths.data, and end to end at scale=ci.

The end-to-end run is shared via the ``exp1_ci_run`` fixture (slow tier), as
is the run that reads paths.data; the refusals stop before any case runs and
take a few seconds each (two in the default tier, the rest in the slow one).
"""

import os
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from ccexp.runner.config import experiment_cases

from conftest import require_data


def _ccexp(args, cwd, env=None, timeout=120):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "ccexp", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=full_env)


# One refusal of each path (a ConfigError of ours, a HydraException of Hydra's) in the default tier; the
# messages themselves are checked in-process in tests/test_config.py; the other spellings in the slow tier.
_SLOW = pytest.mark.slow


@pytest.mark.parametrize("args, expected", [
    (["report=flase"], "report must be true or false, got 'flase'"),
    pytest.param(["experiment.trials=0"], "experiment.trials must be >= 1, got 0", marks=_SLOW),
    pytest.param(["experiment.algorithms=[]"], "experiment.algorithms must be a non-empty list", marks=_SLOW),
    pytest.param(["oracle.noise=0.1"], "oracle.noise is swept by exp1_triplets over [0.0, 0.1, 0.2]; "
                                       "to fix it write experiment.sweep.oracle.noise=[0.1]", marks=_SLOW),
    (["algorithm.no_such_param=3"], "Could not override 'algorithm.no_such_param'"),
])
def test_what_the_user_typed_wrong_ends_in_one_line_and_exit_2(tmp_path, args, expected):
    """argparse style: no traceback, nothing run, nothing written."""
    proc = _ccexp(["experiment=exp1_triplets", "tracking=off", f"paths.results={tmp_path / 'r'}", *args], tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines == [lines[0]] and lines[0].startswith("ccexp: error: "), proc.stderr
    assert expected in lines[0]
    assert not (tmp_path / "r").exists()


def test_help_is_ccexps_own_page(tmp_path):
    from ccexp._installed import paper_time
    from ccexp.runner.config import experiment_description, list_options

    proc = _ccexp(["--help"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for name in list_options("experiment"):  # every experiment, one line each with its description
        lines = [line for line in out.splitlines()
                 if line.split()[:1] == [name] and experiment_description(name, width=80) in line]
        assert len(lines) == 1, name
        # and its paper-scale run time, from the run.json the README's table is checked against (issue 32)
        time = paper_time(name)
        assert (time or "not run") in lines[0], (name, time)
    for scale in ("paper", "quick", "ci"):
        assert f"\n  {scale} " in out
    for key in ("experiment.scale=", "experiment.trials=", "experiment.algorithms=", "experiment.sweep.",
                "algorithm.PARAM=", "runner.n_jobs=", "tracking=", "report=false", "paths.results=", "paths.data="):
        assert key in out, key
    assert "<paths.results>/<experiment>/<scale>/" in out and "+custom-" in out
    assert "Powered by Hydra" not in out


@pytest.mark.slow
def test_paths_data_is_where_files_are_read(tmp_path):
    """paths.data wins over $CCEXP_DATA_DIR (at 52ceb95 only the variable counted)."""
    src = require_data("iris/iris.data")
    data = tmp_path / "mydata"
    (data / "iris").mkdir(parents=True)
    shutil.copy(src, data / "iris" / "iris.data")
    args = ["experiment=coprf_perfect", "experiment.scale=ci", "experiment.sweep.dataset.name=[iris]",
            "experiment.algorithms=[spectral]", "tracking=off", "report=false", "runner.n_jobs=1",
            "runner.progress=false", f"paths.results={tmp_path / 'r'}", f"paths.data={data}"]
    proc = _ccexp(args, tmp_path, env={"CCEXP_DATA_DIR": str(tmp_path / "empty")}, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [folder] = (tmp_path / "r" / "coprf_perfect").iterdir()
    assert folder.name.startswith("ci+custom-")  # a changed grid never goes to the preset's folder
    df = pd.read_parquet(folder / "records.parquet")
    assert set(df["dataset"]) == {"iris"} and (df["status"] == "ok").all()


@pytest.mark.slow
def test_main_command_writes_records_report_and_mlflow(exp1_ci_run):
    out, proc = exp1_ci_run
    folder = out / "exp1_triplets" / "ci"
    df = pd.read_parquet(folder / "records.parquet")
    _, cases = experiment_cases("exp1_triplets", "ci")
    assert sorted(df["case_id"]) == sorted(c.case_id for c in cases)
    assert (df["status"] == "ok").all()
    for col in ("experiment", "case_id", "paper", "dataset", "algorithm", "trial", "seed", "oracle.fraction",
                "oracle.noise", "dataset.k", "ari", "ami", "f_measure", "n_clusters", "objective", "fit_seconds",
                "code_version", "config_hash"):
        assert col in df.columns, col
    assert df["ari"].between(-1, 1).all()
    assert (folder / "figures" / "figure2.png").stat().st_size > 10_000
    assert (folder / "tables" / "table1.md").exists()
    assert "within tolerance" in (folder / "comparison.md").read_text()
    assert (out / "mlflow.db").stat().st_size > 0
    assert "exp1_triplets" in proc.stderr + proc.stdout  # the progress bar and the log name the experiment


@pytest.mark.slow
def test_rerun_skips_finished_cases(exp1_ci_run, tmp_path):
    out, _ = exp1_ci_run
    copy = tmp_path / "copy"
    shutil.copytree(out / "exp1_triplets" / "ci", copy / "exp1_triplets" / "ci")
    from conftest import run_cli

    run_json = copy / "exp1_triplets" / "ci" / "run.json"
    before = run_json.read_bytes()
    proc = run_cli(["+experiment=exp1_triplets", "experiment.scale=ci", f"paths.results={copy}",
                    "tracking=off", "report=false"], cwd=tmp_path)
    assert "0 to run" in proc.stderr + proc.stdout
    # run.json still says how long the run that made the records took (issue 32: it became 0.431 s)
    assert run_json.read_bytes() == before


@pytest.mark.slow
def test_the_sweeps_report_is_the_report_commands_byte_for_byte(exp1_ci_run, tmp_path):
    """Issue 32: the report written at the end of a sweep dropped a line that ``python -m ccexp.report`` writes."""
    out, _ = exp1_ci_run
    copy = tmp_path / "copy" / "exp1_triplets" / "ci"
    shutil.copytree(out / "exp1_triplets" / "ci", copy)

    def report_files(folder):
        return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
                if p.is_file() and p.suffix in (".md", ".csv", ".png")}

    swept = report_files(copy)
    proc = subprocess.run([sys.executable, "-m", "ccexp.report", "exp1_triplets", "--results", str(tmp_path / "copy"),
                           "--scale", "ci"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    again = report_files(copy)
    assert {"comparison.md", "comparison.csv", "report.md", "tables/table1.csv"} <= set(swept)
    assert sorted(again) == sorted(swept)
    assert [f for f in swept if again[f] != swept[f]] == []
    assert "the scale's grid has" in (copy / "comparison.md").read_text()


def test_console_script_finds_the_installed_configs(tmp_path):
    exe = shutil.which("ccexp") or str(sys.executable).replace("python", "ccexp")
    proc = subprocess.run([exe, "experiment=exp1_triplets", "--cfg", "job"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "name: exp1_triplets" in proc.stdout


def test_no_experiment_lists_the_available_ones(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ccexp"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert proc.returncode == 2
    [line] = proc.stderr.splitlines()
    assert line.startswith("ccexp: error: choose an experiment: python -m ccexp experiment=NAME; available experiments: ")
    assert "exp1_triplets" in line.split("available experiments: ", 1)[1].split(", ")


def test_unknown_algorithm_in_an_experiment_lists_valid_ones(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "ccexp", "+experiment=exp1_triplets", "experiment.scale=ci", "tracking=off",
         "experiment.algorithms=[ls_ad_vx]", f"paths.results={tmp_path}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("ccexp: error: unknown algorithm 'ls_ad_vx'; valid algorithms are: ")
