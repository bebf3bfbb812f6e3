"""The command line end to end at scale=ci (the run is shared via the ``exp1_ci_run`` fixture)."""

import shutil
import subprocess
import sys

import pandas as pd
import pytest

from ccexp.runner.config import experiment_cases

pytestmark = pytest.mark.slow


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


def test_rerun_skips_finished_cases(exp1_ci_run, tmp_path):
    out, _ = exp1_ci_run
    copy = tmp_path / "copy"
    shutil.copytree(out / "exp1_triplets" / "ci", copy / "exp1_triplets" / "ci")
    from conftest import run_cli

    proc = run_cli(["+experiment=exp1_triplets", "experiment.scale=ci", f"paths.results={copy}",
                    "tracking=off", "report=false"], cwd=tmp_path)
    assert "0 to run" in proc.stderr + proc.stdout


def test_console_script_finds_the_installed_configs(tmp_path):
    exe = shutil.which("ccexp") or str(sys.executable).replace("python", "ccexp")
    proc = subprocess.run([exe, "+experiment=exp1_triplets", "--cfg", "job"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "name: exp1_triplets" in proc.stdout


def test_no_experiment_lists_the_available_ones(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ccexp"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    line = next(l for l in proc.stderr.splitlines() if l.startswith("available experiments: "))
    assert "exp1_triplets" in line.split(": ", 1)[1].split(", ")


def test_unknown_algorithm_in_an_experiment_lists_valid_ones(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "ccexp", "+experiment=exp1_triplets", "experiment.scale=ci", "tracking=off",
         "experiment.algorithms=[ls_ad_vx]", f"paths.results={tmp_path}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode != 0
    assert "unknown algorithm 'ls_ad_vx'; valid algorithms are: " in proc.stderr
