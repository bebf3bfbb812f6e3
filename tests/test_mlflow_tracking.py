"""MLflow tracking: what a sweep logs, the embedded SQLite store, a local ``mlflow server``, and ``tracking=off``.

Every check reads the runs back with ``MlflowClient`` and holds them against
the records they were logged from: one parent run per invocation, exactly one
child run per algorithm x setting, each child's ``ari_mean`` equal to the
mean over that setting's trials, the records as the parent's artifact.

- Default tier: a small sweep run in this process, logged by ``log_sweep``
  into a SQLite store (the same call ``python -m ccexp`` makes).
- Slow tier, no sweep of its own: ``tracking=local`` reads the ``mlflow.db``
  of the session's one ``scale=ci`` exp1 run (the ``exp1_ci_run`` fixture,
  shared with tests/test_cli.py and the reproduction tests);
  ``tracking=off`` and ``tracking=server`` rerun the command line on a copy
  of that run's finished results folder, so no case runs again and the
  whole sweep's stored records are logged (or, with ``off``, not).  The
  server test talks to 127.0.0.1 only.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from _sweeps import DATASET, ORACLE, SMALL

EXPERIMENT = "exp1_triplets"
SETTING = ["dataset.k", "oracle.fraction", "oracle.noise"]  # what the ci grid (and SMALL) sweeps
SUBPROCESS_TIMEOUT = 180  # seconds per rerun of a finished sweep (nothing left to run: a few seconds)
SERVER_START_TIMEOUT = 180  # a guard against a server that never comes up (it took over 60 s on a loaded machine)
LOCALHOST = "127.0.0.1"


def _env() -> dict[str, str]:
    """The environment of the child processes: no MLFLOW_* leaking in, no proxy for 127.0.0.1."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("MLFLOW_")}
    env["NO_PROXY"] = env["no_proxy"] = f"{LOCALHOST},localhost"
    return env


def _run_sweep(results: Path, *overrides: str) -> subprocess.CompletedProcess:
    """Run the ci sweep into ``results`` (also the working directory); print its wall time."""
    cmd = [
        sys.executable, "-m", "ccexp",
        f"+experiment={EXPERIMENT}", "experiment.scale=ci",
        "report=false", f"paths.results={results}", "runner.n_jobs=2", "runner.progress=false",
        *overrides,
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=results, env=_env(), capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT)
    seconds = time.perf_counter() - t0
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    print(f"\n[wall] {' '.join(overrides)}: {seconds:.1f} s")
    return proc


def _finished_copy(exp1_ci_run, results: Path) -> Path:
    """A copy of the shared run's finished ``exp1_triplets/ci`` folder (no MLflow store) under ``results``."""
    out, _ = exp1_ci_run
    shutil.copytree(out / EXPERIMENT / "ci", results / EXPERIMENT / "ci")
    assert not list(results.rglob("*.db"))
    return results


def _setting_key(params: dict) -> tuple:
    return (params["algorithm"], int(float(params["dataset.k"])), float(params["oracle.fraction"]), float(params["oracle.noise"]))


def _check_runs(client, records: pd.DataFrame, experiment: str, scale: str, paper: str, tmp_download: Path):
    """The parent run, its children and the records artifact agree with ``records``; returns (parent, children)."""
    assert len(records) > 0
    assert (records["status"] == "ok").all(), records.loc[records["status"] != "ok", "error"].head().tolist()
    groups = records.groupby(["algorithm"] + SETTING)
    expected = {(a, int(k), float(f), float(b)): g for (a, k, f, b), g in groups}
    assert len(expected) == groups.ngroups

    exp = client.get_experiment_by_name(experiment)
    assert exp is not None, "no MLflow experiment named after the sweep"
    runs = client.search_runs([exp.experiment_id], max_results=10_000)

    parents = [r for r in runs if r.data.tags.get("ccexp.kind") == "sweep"]
    assert len(parents) == 1, f"expected one parent run, found {len(parents)}"
    parent = parents[0]
    pid = parent.info.run_id
    assert parent.data.params["experiment"] == experiment
    assert parent.data.params["scale"] == scale
    assert parent.info.status == "FINISHED"
    assert parent.info.run_name == f"{experiment}[scale={scale}]"
    assert parent.data.metrics["n_cases"] == len(records)

    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == pid]
    assert len(runs) == 1 + len(children), "runs that are neither the parent nor its children"
    keys = Counter(_setting_key(r.data.params) for r in children)
    assert len(children) == len(expected), f"{len(children)} child runs for {len(expected)} algorithm x settings"
    assert set(keys) == set(expected)
    assert max(keys.values()) == 1, [k for k, c in keys.items() if c > 1]

    for child in children:
        key = _setting_key(child.data.params)
        group = expected[key]
        metrics = child.data.metrics
        assert child.info.status == "FINISHED"
        assert child.data.tags.get("ccexp.kind") == "setting"
        assert {"ari_mean", "n_trials"} <= set(metrics), (key, sorted(metrics))
        assert metrics["n_trials"] == len(group), key
        assert metrics["ari_mean"] == pytest.approx(group["ari"].mean(), rel=1e-9, abs=1e-12), key
        # tags make the UI filterable by paper and scale
        for run in (parent, child):
            assert run.data.tags["ccexp.paper"] == paper
            assert run.data.tags["ccexp.scale"] == scale
            assert run.data.tags["ccexp.experiment"] == experiment
            assert run.data.tags["ccexp.code_version"] == records["code_version"].iloc[0]

    artifacts = {a.path for a in client.list_artifacts(pid)}
    assert "records.parquet" in artifacts, artifacts
    local = client.download_artifacts(pid, "records.parquet", str(tmp_download))
    logged = pd.read_parquet(local)
    assert len(logged) == len(records)
    assert set(logged["case_id"]) == set(records["case_id"])
    return parent, children, expected


def _check_exp1_runs(client, results: Path, tmp_download: Path):
    """``_check_runs`` for the exp1 ci sweep under ``results``, and one named child spelled out."""
    records = pd.read_parquet(results / EXPERIMENT / "ci" / "records.parquet")
    parent, children, expected = _check_runs(client, records, EXPERIMENT, "ci", "ukkonen2017", tmp_download)
    # one named child, spelled out: Ls-AD-VC at k=8, a=0.1, b=0.2
    probe = ("ls_ad_vc", 8, 0.1, 0.2)
    assert probe in expected
    [child] = [c for c in children if _setting_key(c.data.params) == probe]
    assert child.data.metrics["ari_mean"] == pytest.approx(expected[probe]["ari"].mean())
    # names make the UI readable: algorithm[key=value,...]
    assert child.info.run_name == "ls_ad_vc[k=8,fraction=0.1,noise=0.2]"
    return parent


@pytest.fixture(autouse=True)
def _quiet_mlflow(monkeypatch):
    """This process reads runs back: no MLFLOW_* from the caller, no progress bars, no proxy."""
    for k in [k for k in os.environ if k.upper().startswith("MLFLOW_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    monkeypatch.setenv("NO_PROXY", f"{LOCALHOST},localhost")
    monkeypatch.setenv("no_proxy", f"{LOCALHOST},localhost")


def test_logged_runs_agree_with_the_stored_records(tmp_path):
    """Default tier: a small sweep, logged as ``python -m ccexp`` logs it (same call, same parameters)."""
    from mlflow.tracking import MlflowClient

    from ccexp.runner.sweep import RunnerOptions, run_sweep, sweep_spec
    from ccexp.runner.tracking import log_sweep

    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE, label="test"), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    uri = f"sqlite:///{(tmp_path / 'mlflow.db').as_posix()}"
    params = {"experiment": SMALL["name"], "paper": SMALL["paper"], "scale": SMALL["scale"], "results_label": "test",
              "n_cases": res.n_cases, "algorithms": ",".join(SMALL["algorithms"]), "trials": SMALL["trials"],
              "code_version": res.code_version}
    pid = log_sweep(uri, SMALL["name"], res.records, params, None, tmp_path)
    download = tmp_path / "download"
    download.mkdir()
    client = MlflowClient(tracking_uri=uri)
    parent, children, expected = _check_runs(client, res.records, SMALL["name"], "test", "ukkonen2017", download)
    assert parent.info.run_id == pid
    # 2 algorithms x 2 k x 2 noise levels; noise 0 is a single-trial setting
    assert len(children) == 8
    assert {int(c.data.metrics["n_trials"]) for c in children} == {1, 2}
    assert {c.info.run_name for c in children if c.data.params["algorithm"] == "ls_eq"} == {
        f"ls_eq[k={k},noise={b}]" for k in (2, 4) for b in ("0", "0.2")}


@pytest.mark.slow
def test_local_store(exp1_ci_run, tmp_path):
    """The shared run's ``tracking=local`` store: the runs of its sweep, and its report as artifacts."""
    from mlflow.tracking import MlflowClient

    out, _ = exp1_ci_run
    db = out / "mlflow.db"
    assert db.exists()
    client = MlflowClient(tracking_uri=f"sqlite:///{db.as_posix()}")
    download = tmp_path / "download"
    download.mkdir()
    parent = _check_exp1_runs(client, out, download)
    artifacts = {a.path for a in client.list_artifacts(parent.info.run_id)}
    assert {"comparison.md", "figures", "tables"} <= artifacts, artifacts  # the run wrote its report


@pytest.mark.slow
def test_off_writes_no_store(exp1_ci_run, tmp_path):
    _finished_copy(exp1_ci_run, tmp_path)
    proc = _run_sweep(tmp_path, "tracking=off")
    assert "0 to run" in proc.stderr + proc.stdout
    assert (tmp_path / EXPERIMENT / "ci" / "records.parquet").exists()
    assert not (tmp_path / "mlflow.db").exists()
    assert not list(tmp_path.rglob("*.db")), list(tmp_path.rglob("*.db"))
    assert not (tmp_path / "mlruns").exists()
    assert not (tmp_path / "mlartifacts").exists()


# ---------------------------------------------------------------- the server


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOCALHOST, 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM the server's process group, then SIGKILL if it has not gone within 20 s."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture
def mlflow_server(tmp_path_factory):
    """A ``mlflow server`` on 127.0.0.1 with a SQLite backend; yields its URI, stops it afterwards."""
    root = tmp_path_factory.mktemp("mlflow-server")
    port = _free_port()
    uri = f"http://{LOCALHOST}:{port}"
    cmd = [
        sys.executable, "-m", "mlflow", "server",
        "--host", LOCALHOST, "--port", str(port), "--workers", "1",
        "--backend-store-uri", f"sqlite:///{(root / 'srv.db').as_posix()}",
        "--artifacts-destination", str(root / "srv-artifacts"),
    ]
    log_path = root / "server.log"
    t0 = time.perf_counter()
    with open(log_path, "wb") as log_file:
        proc = subprocess.Popen(cmd, cwd=root, env=_env(), stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy, 127.0.0.1 only
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(f"mlflow server exited with {proc.returncode}:\n{log_path.read_text()[-6000:]}")
            try:
                with opener.open(f"{uri}/health", timeout=5) as resp:
                    if resp.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"mlflow server did not answer {uri}/health in {SERVER_START_TIMEOUT} s:\n{log_path.read_text()[-6000:]}")
            time.sleep(0.5)
        print(f"\n[wall] mlflow server up in {time.perf_counter() - t0:.1f} s")
        yield uri
    finally:
        _stop(proc)


@pytest.mark.slow
def test_server(exp1_ci_run, tmp_path, mlflow_server):
    from mlflow.tracking import MlflowClient

    _finished_copy(exp1_ci_run, tmp_path)
    proc = _run_sweep(tmp_path, "tracking=server", f"tracking.uri={mlflow_server}")
    assert "0 to run" in proc.stderr + proc.stdout  # the stored records are logged, nothing is run again
    # MLflow prints a run's URL when it ends on a server: once for the parent, not per child
    assert proc.stdout.count("View run") <= 1, proc.stdout[-2000:]
    assert not (tmp_path / "mlflow.db").exists(), "tracking=server also wrote the embedded store"
    assert not (tmp_path / "mlruns").exists()
    client = MlflowClient(tracking_uri=mlflow_server)
    download = tmp_path / "download"
    download.mkdir()
    _check_exp1_runs(client, tmp_path, download)
