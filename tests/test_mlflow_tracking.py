"""MLflow tracking end to end: the embedded SQLite store, a local ``mlflow server``, and ``tracking=off``.

Each test runs ``python -m ccexp +experiment=exp1_triplets experiment.scale=ci``
in a subprocess (about 15 s on two cores), then reads the runs back with
``MlflowClient`` and checks them against the ``records.parquet`` the same
sweep wrote: one parent run per invocation, exactly one child run per
algorithm x setting, each child's ``ari_mean`` equal to the mean over that
setting's trials.  The server test talks to 127.0.0.1 only.
"""

from __future__ import annotations

import os
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

pytestmark = pytest.mark.slow

EXPERIMENT = "exp1_triplets"
SETTING = ["dataset.k", "oracle.fraction", "oracle.noise"]  # what the ci grid sweeps
SUBPROCESS_TIMEOUT = 180  # seconds per sweep; a ci sweep takes ~15 s on two cores
SERVER_START_TIMEOUT = 60
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


def _setting_key(params: dict) -> tuple:
    return (params["algorithm"], int(float(params["dataset.k"])), float(params["oracle.fraction"]), float(params["oracle.noise"]))


def _check_runs(client, results: Path, tmp_download: Path) -> None:
    """The parent run, its children and the records artifact agree with ``records.parquet``."""
    records = pd.read_parquet(results / EXPERIMENT / "ci" / "records.parquet")
    assert len(records) > 0
    assert (records["status"] == "ok").all(), records.loc[records["status"] != "ok", "error"].head().tolist()
    groups = records.groupby(["algorithm"] + SETTING)
    expected = {(a, int(k), float(f), float(b)): g for (a, k, f, b), g in groups}
    assert len(expected) == groups.ngroups

    exp = client.get_experiment_by_name(EXPERIMENT)
    assert exp is not None, "no MLflow experiment named after the sweep"
    runs = client.search_runs([exp.experiment_id], max_results=10_000)

    parents = [r for r in runs if r.data.tags.get("ccexp.kind") == "sweep"]
    assert len(parents) == 1, f"expected one parent run, found {len(parents)}"
    parent = parents[0]
    pid = parent.info.run_id
    assert parent.data.params["experiment"] == EXPERIMENT
    assert parent.data.params["scale"] == "ci"
    assert parent.info.status == "FINISHED"

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

    # one named child, spelled out: Ls-AD-VC at k=8, a=0.1, b=0.2
    probe = ("ls_ad_vc", 8, 0.1, 0.2)
    assert probe in expected
    [child] = [c for c in children if _setting_key(c.data.params) == probe]
    assert child.data.metrics["ari_mean"] == pytest.approx(expected[probe]["ari"].mean())
    # names and tags make the UI readable: algorithm[key=value,...], filterable by paper and scale
    assert child.info.run_name == "ls_ad_vc[k=8,fraction=0.1,noise=0.2]"
    assert parent.info.run_name == f"{EXPERIMENT}[scale=ci]"
    for run in (parent, child):
        assert run.data.tags["ccexp.paper"] == "ukkonen2017"
        assert run.data.tags["ccexp.scale"] == "ci"
        assert run.data.tags["ccexp.experiment"] == EXPERIMENT
        assert run.data.tags["ccexp.code_version"]

    artifacts = {a.path for a in client.list_artifacts(pid)}
    assert "records.parquet" in artifacts, artifacts
    local = client.download_artifacts(pid, "records.parquet", str(tmp_download))
    logged = pd.read_parquet(local)
    assert len(logged) == len(records)
    assert set(logged["case_id"]) == set(records["case_id"])


@pytest.fixture(autouse=True)
def _quiet_mlflow(monkeypatch):
    """This process reads runs back: no MLFLOW_* from the caller, no progress bars, no proxy."""
    for k in [k for k in os.environ if k.upper().startswith("MLFLOW_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    monkeypatch.setenv("NO_PROXY", f"{LOCALHOST},localhost")
    monkeypatch.setenv("no_proxy", f"{LOCALHOST},localhost")


def test_local_store(tmp_path):
    from mlflow.tracking import MlflowClient

    _run_sweep(tmp_path, "tracking=local")
    db = tmp_path / "mlflow.db"
    assert db.exists()
    client = MlflowClient(tracking_uri=f"sqlite:///{db.as_posix()}")
    download = tmp_path / "download"
    download.mkdir()
    _check_runs(client, tmp_path, download)


def test_off_writes_no_store(tmp_path):
    _run_sweep(tmp_path, "tracking=off")
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


def test_server(tmp_path, mlflow_server):
    from mlflow.tracking import MlflowClient

    proc = _run_sweep(tmp_path, "tracking=server", f"tracking.uri={mlflow_server}")
    # MLflow prints a run's URL when it ends on a server: once for the parent, not per child
    assert proc.stdout.count("View run") <= 1, proc.stdout[-2000:]
    assert not (tmp_path / "mlflow.db").exists(), "tracking=server also wrote the embedded store"
    assert not (tmp_path / "mlruns").exists()
    client = MlflowClient(tracking_uri=mlflow_server)
    download = tmp_path / "download"
    download.mkdir()
    _check_runs(client, tmp_path, download)
