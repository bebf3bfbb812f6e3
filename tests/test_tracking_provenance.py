"""Provenance in MLflow (issue 12, item 5): tags agree with the records, children carry their own typed params.

- a child run logs only its own algorithm's parameters (not the ``nan`` of
  the grid's other algorithms), ints as ints (``1000``, not ``1000.0``);
- ``code_version`` is the code's state before the run wrote anything: the
  reports a run writes into the (tracked) results folder do not make a clean
  checkout ``+dirty``, and MLflow's tags say what the records say;
- several first runs into one embedded sqlite store at once all succeed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from ccexp.runner.provenance import git_state
from ccexp.runner.sweep import RunnerOptions, run_sweep, sweep_spec
from ccexp.runner.tracking import log_sweep

from _sweeps import DATASET, ORACLE, SMALL

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TWO = dict(SMALL, algorithms=["ls_ad_vc", "triplet_approx"],
           sweep={"dataset": {"k": [2]}, "oracle": {"fraction": [0.05], "noise": [0.0, 0.2]}})


@pytest.fixture(autouse=True)
def _no_mlflow_env(monkeypatch):
    for k in [k for k in os.environ if k.upper().startswith("MLFLOW_")]:
        monkeypatch.delenv(k)


def test_a_child_run_logs_its_own_parameters_with_their_types(tmp_path):
    from mlflow.tracking import MlflowClient

    res = run_sweep(sweep_spec(TWO, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    pid = log_sweep(uri, "small", res.records, {"experiment": "small", "scale": "test"}, None, tmp_path)
    client = MlflowClient(tracking_uri=uri)
    exp = client.get_experiment_by_name("small")
    children = [r for r in client.search_runs([exp.experiment_id]) if r.data.tags.get("mlflow.parentRunId") == pid]
    assert len(children) == 4  # 2 algorithms x 2 noise levels
    for child in children:
        params = child.data.params
        alg = params["algorithm"]
        algo_params = {k: v for k, v in params.items() if k.startswith("algorithm.")}
        assert "nan" not in params.values(), params
        if alg == "ls_ad_vc":
            assert algo_params == {"algorithm.tie_break": "first", "algorithm.max_passes": "1000",
                                   "algorithm.vc_order": "pairs", "algorithm.redundant_order": "input",
                                   "algorithm.item_order": "index"}
        else:
            assert algo_params == {"algorithm.solver": "pivot_ls", "algorithm.n_pivots": "10"}
        assert params["dataset.k"] == "2" and params["oracle.noise"] in ("0.0", "0.2")


def _git(args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def test_git_state_ignores_the_results_a_run_writes_but_not_the_code(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "results" / "exp").mkdir(parents=True)
    (repo / "pkg" / "mod.py").write_text("x = 1\n")
    (repo / "results" / "exp" / "run.json").write_text("{}\n")
    _git(["init", "-q"], repo)
    _git(["-c", "user.email=t@t", "-c", "user.name=t", "add", "-A"], repo)
    _git(["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"], repo)
    clean = git_state(repo / "pkg")
    assert clean["dirty"] is False and not clean["code_version"].endswith("+dirty")
    assert clean["commit"] == _git(["rev-parse", "--short=12", "HEAD"], repo).strip()
    # a run rewrites its committed report: still the same code
    (repo / "results" / "exp" / "run.json").write_text('{"n": 1}\n')
    (repo / "pkg" / "new_untracked.py").write_text("")
    assert git_state(repo / "pkg") == clean
    # the code changes: dirty, and which file says so
    (repo / "pkg" / "mod.py").write_text("x = 2\n")
    dirty = git_state(repo / "pkg")
    assert dirty["dirty"] is True and dirty["code_version"] == clean["commit"] + "+dirty"
    assert dirty["dirty_files"] == ["pkg/mod.py"]


@pytest.mark.slow
def test_in_a_clean_clone_mlflow_tags_agree_with_the_records(tmp_path):
    """A fresh ``git clone`` whose first run rewrites the committed report: records and MLflow both say clean.

    Runs the clone's own code (``PYTHONPATH``), so it tests the committed
    HEAD of this checkout.
    """
    from mlflow.tracking import MlflowClient

    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    env["PYTHONPATH"] = str(clone)
    cmd = [sys.executable, "-m", "ccexp", "+experiment=exp1_triplets", "experiment.scale=ci",
           "experiment.algorithms=[ls_ad_vc]", "runner.n_jobs=1", "runner.progress=false", "tracking=local"]
    proc = subprocess.run(cmd, cwd=clone, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    records = next(clone.glob("results/exp1_triplets/**/records.parquet"))
    versions = set(pd.read_parquet(records)["code_version"])
    head = _git(["rev-parse", "--short=12", "HEAD"], clone).strip()
    assert versions == {head}, versions
    client = MlflowClient(tracking_uri=f"sqlite:///{clone / 'results' / 'mlflow.db'}")
    exp = client.get_experiment_by_name("exp1_triplets")
    runs = client.search_runs([exp.experiment_id])
    assert runs
    assert {r.data.tags["ccexp.code_version"] for r in runs} == {head}


_FIRST_USE = textwrap.dedent(
    """
    import sys
    import pandas as pd
    from ccexp.runner.tracking import log_sweep
    results, name = sys.argv[1], sys.argv[2]
    records = pd.DataFrame({"case_id": ["a", "b"], "algorithm": ["ls_eq", "ls_eq"], "dataset.k": [2, 2],
                            "ari": [1.0, 0.5], "status": ["ok", "ok"]})
    log_sweep(f"sqlite:///{results}/mlflow.db", name, records, {"experiment": name}, None, results)
    """
)


@pytest.mark.slow
def test_first_runs_into_one_sqlite_store_at_once_all_succeed(tmp_path):
    from mlflow.tracking import MlflowClient

    for rep in range(2):
        results = tmp_path / f"rep{rep}"
        results.mkdir()
        procs = [subprocess.Popen([sys.executable, "-c", _FIRST_USE, str(results), f"exp{i % 2}"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(3)]
        for p in procs:
            _, err = p.communicate(timeout=600)
            assert p.returncode == 0, err[-3000:]
        client = MlflowClient(tracking_uri=f"sqlite:///{results}/mlflow.db")
        parents = [r for name in ("exp0", "exp1")
                   for r in client.search_runs([client.get_experiment_by_name(name).experiment_id])
                   if r.data.tags.get("ccexp.kind") == "sweep"]
        assert len(parents) == 3
