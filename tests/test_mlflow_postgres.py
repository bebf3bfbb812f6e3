"""A shared MLflow server on a real PostgreSQL (issue 32, item 5), run with docs/cluster.md's commands.

The slow test starts Debian's PostgreSQL in a folder of its own (as the
``postgres`` user), an ``mlflow server`` on it with a local artifact folder,
both on 127.0.0.1, and then, as a group of users would:

1. runs two sweeps at once with ``tracking=server`` and reads back through
   ``MlflowClient`` that every parent run, child run, metric and learning
   curve is there, and checks in the database that none is there twice;
2. stops PostgreSQL half way through a third sweep: the sweep ends (no
   hang), keeps its records and says in one line that tracking failed;
3. starts PostgreSQL again and logs the stored records with
   ``python -m ccexp.track``, twice: the server catches up without a case
   rerun, and the second call duplicates nothing.

Every shell command it runs is a line of docs/cluster.md
(:func:`test_docs_give_the_commands_the_postgres_test_runs`, default tier).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "cluster.md"

# the commands, as docs/cluster.md writes them (run by bash with the variables set)
MAKE_DATA_DIR = 'install -d -o postgres "$PGDATA"'
INITDB = 'runuser -u postgres -- "$PGBIN/initdb" -D "$PGDATA" -U postgres -A trust'
PG_START = ('runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA" -w -l "$PGDATA/server.log" '
            '-o "-p $PGPORT -k $PGDATA -c listen_addresses=127.0.0.1" start')
CREATEDB = '"$PGBIN/createdb" -h 127.0.0.1 -p "$PGPORT" -U postgres mlflow'
MLFLOW_SERVER = ('mlflow server --backend-store-uri "postgresql+psycopg://postgres@127.0.0.1:$PGPORT/mlflow" '
                 '--artifacts-destination "$MLFLOW_ARTIFACTS" --host 127.0.0.1 --port "$MLFLOW_PORT" --workers 2')
PG_STOP = 'runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA" -w -m fast stop'
_SERVER = "runner.n_jobs=1 runner.progress=false tracking=server tracking.uri=http://127.0.0.1:$MLFLOW_PORT"
SWEEP_TRIPLETS = f"python -m ccexp experiment=exp1_triplets experiment.scale=ci 'experiment.algorithms=[ls_ad_vc,ls_eq_vc]' {_SERVER}"
SWEEP_ACTIVE = f"python -m ccexp experiment=acc_noise_batch experiment.scale=ci 'experiment.algorithms=[acc_uniform,acc_maxmin]' {_SERVER}"
SWEEP_THIRD = f"python -m ccexp experiment=exp1_triplets experiment.scale=ci {_SERVER}"
CATCH_UP = "python -m ccexp.track exp1_triplets --scale ci --uri http://127.0.0.1:$MLFLOW_PORT"
COMMANDS = (MAKE_DATA_DIR, INITDB, PG_START, CREATEDB, MLFLOW_SERVER, PG_STOP, SWEEP_TRIPLETS, SWEEP_ACTIVE,
            SWEEP_THIRD, CATCH_UP)


def test_docs_give_the_commands_the_postgres_test_runs():
    text = " ".join(DOCS.read_text().split())  # a command may be wrapped across lines in the prose
    missing = [c for c in COMMANDS if c not in text]
    assert missing == [], f"docs/cluster.md does not show these commands of the test: {missing}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _bash(command: str, env: dict, cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run(["bash", "-c", command], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=kwargs.pop("timeout", 600), **kwargs)
    assert proc.returncode == 0, f"{command}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc


def _postgres_bin() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if not found:
        pytest.skip("needs PostgreSQL's server: Debian's package postgresql (apt-get install postgresql; .ci/run does)")
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        pytest.skip("runs PostgreSQL as the postgres user with runuser: needs root, as CI is")
    return str(Path(found[-1]).parent)


@pytest.fixture(scope="module")
def server():
    """PostgreSQL and an MLflow server on it, on free ports of 127.0.0.1; yields (env, folder)."""
    pgbin = _postgres_bin()
    pytest.importorskip("psycopg", reason="MLflow's PostgreSQL driver: pip install -e '.[postgres]'")
    base = Path(tempfile.mkdtemp(prefix="ccexp-pg-"))
    base.chmod(0o755)  # the postgres user reaches its data folder through it
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "CCEXP_RESULTS"))}
    env.update(PGBIN=pgbin, PGDATA=str(base / "db"), PGPORT=str(_free_port()), MLFLOW_PORT=str(_free_port()),
               MLFLOW_ARTIFACTS=str(base / "artifacts"),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # this venv's python and mlflow
    mlflow = None
    try:
        for command in (MAKE_DATA_DIR, INITDB, PG_START, CREATEDB):
            _bash(command, env, base)
        log = open(base / "mlflow-server.log", "w")  # noqa: SIM115 - closed with the server
        mlflow = subprocess.Popen(["bash", "-c", f"exec {MLFLOW_SERVER}"], env=env, cwd=base, stdout=log,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{env['MLFLOW_PORT']}/health"
        deadline = time.monotonic() + 180  # a guard against a server that never comes up, not a timing check
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if mlflow.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"mlflow server did not start:\n{(base / 'mlflow-server.log').read_text()[-3000:]}")
            time.sleep(1)
        yield env, base
    finally:
        if mlflow is not None:
            os.killpg(mlflow.pid, 15)
            mlflow.wait(timeout=60)
        subprocess.run(["bash", "-c", PG_STOP], env=env, cwd=base, capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def _client(env):
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri=f"http://127.0.0.1:{env['MLFLOW_PORT']}")


def _sql(env, query: str) -> list[tuple]:
    import psycopg

    with psycopg.connect(host="127.0.0.1", port=int(env["PGPORT"]), user="postgres", dbname="mlflow") as conn:
        return conn.execute(query).fetchall()


def _folder(work: Path, experiment: str, pattern: str) -> Path:
    [folder] = [p.parent for p in (work / "results" / experiment).glob(f"{pattern}/records.parquet")]
    return folder


def _check_logged(env, experiment: str, folder: Path) -> dict:
    """Every parent run, child run, metric and curve of ``folder``'s records is in MLflow, once.

    Returns the counts (runs, metrics, curve points) for the closing note.
    """
    from ccexp.runner.store import ResultStore
    from ccexp.runner.tracking import _key, _setting_key, mean_curves, setting_columns, summarise

    client = _client(env)
    records = pd.read_parquet(folder / "records.parquet")
    exp = client.get_experiment_by_name(experiment)
    name = f"{experiment}[scale={folder.name}]"  # a custom grid's parent shows its folder
    parents = [r for r in client.search_runs([exp.experiment_id], "tags.`ccexp.kind` = 'sweep'", max_results=1000)
               if r.info.run_name == name]
    assert len(parents) == 1, [(r.info.run_name, r.info.status) for r in parents]
    [parent] = parents
    assert parent.info.status == "FINISHED" and parent.data.metrics["n_cases"] == len(records)
    artifacts = {a.path for a in client.list_artifacts(parent.info.run_id)}
    assert {"records.parquet", "comparison.md", "tables"} <= artifacts, artifacts
    children = client.search_runs([exp.experiment_id], f"tags.mlflow.parentRunId = '{parent.info.run_id}'",
                                  max_results=1000)
    summary = summarise(records)
    expected = {}
    for row in summary.to_dict("records"):
        setting = {k: v for k, v in row.items() if k.startswith(("dataset.", "oracle.", "algorithm."))}
        expected[_setting_key({"algorithm": row["algorithm"], **setting})] = row
    by_key = {c.data.tags["ccexp.setting_key"]: c for c in children}
    assert len(children) == len(by_key) == len(expected) and set(by_key) == set(expected)
    n_metrics = n_points = 0
    traces = ResultStore(folder).load_traces()
    keys = ["algorithm"] + setting_columns(records)
    members = {_key(v if isinstance(v, tuple) else (v,)): g["case_id"].tolist()
               for v, g in records.groupby(keys, dropna=False)}
    for key, row in expected.items():
        child = by_key[key]
        assert child.info.status == "FINISHED"
        want = {k: float(v) for k, v in row.items()
                if (k.endswith(("_mean", "_std")) or k == "n_trials") and v is not None and np.isfinite(v)}
        got = {k: v for k, v in child.data.metrics.items() if not k.startswith("curve.")}
        assert got == pytest.approx(want, rel=1e-12), (child.info.run_name, set(got) ^ set(want))
        n_metrics += len(got)
        if len(traces):
            curves = mean_curves(traces, members[_key(row[k] for k in keys)])
            assert len(curves), child.info.run_name
            for metric in curves.columns:
                history = client.get_metric_history(child.info.run_id, f"curve.{metric}")
                assert [m.step for m in history] == [int(q) for q in curves.index]  # every point, once, in order
                assert [m.value for m in history] == pytest.approx(curves[metric].tolist())
                n_points += len(history)
    return {"parent": 1, "children": len(children), "metrics": n_metrics, "curve points": n_points,
            "records": len(records)}


@pytest.mark.slow
def test_two_sweeps_at_once_then_the_database_down_half_way_then_a_catch_up(server, tmp_path):
    env, base = server
    work = base / "work"
    work.mkdir()

    # 1. two sweeps at once, both logging to the server
    procs = [subprocess.Popen(["bash", "-c", cmd], env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for cmd in (SWEEP_TRIPLETS, SWEEP_ACTIVE)]
    for proc, cmd in zip(procs, (SWEEP_TRIPLETS, SWEEP_ACTIVE)):
        out, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, f"{cmd}\n{out[-2000:]}\n{err[-3000:]}"
    counts = {"exp1_triplets": _check_logged(env, "exp1_triplets", _folder(work, "exp1_triplets", "ci+custom-*")),
              "acc_noise_batch": _check_logged(env, "acc_noise_batch", _folder(work, "acc_noise_batch", "ci+custom-*"))}
    assert counts["acc_noise_batch"]["curve points"] > 0

    # 2. a third sweep; PostgreSQL stops once it has stored records and before it ends
    third = subprocess.Popen(["bash", "-c", SWEEP_THIRD], env=env, cwd=work, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    parts = work / "results" / "exp1_triplets" / "ci" / "parts"
    while third.poll() is None and not list(parts.glob("part-*.parquet")):
        time.sleep(0.2)
    assert third.poll() is None, "the third sweep ended before the database could be stopped half way"
    _bash(PG_STOP, env, base)
    out, err = third.communicate(timeout=900)  # a guard against a hang: MLflow's retries are bounded
    lines = [line for line in err.splitlines() if line.strip()]
    assert third.returncode == 1, out[-2000:] + err[-3000:]
    assert lines[-1].startswith("ccexp: tracking failed: "), err[-3000:]
    assert "python -m ccexp.track exp1_triplets --scale ci" in lines[-1]
    folder = work / "results" / "exp1_triplets" / "ci"
    records = pd.read_parquet(folder / "records.parquet")
    from ccexp.runner.config import experiment_cases

    _, cases = experiment_cases("exp1_triplets", "ci")
    assert sorted(records["case_id"]) == sorted(c.case_id for c in cases) and (records["status"] == "ok").all()
    assert (folder / "comparison.md").is_file()
    stored = {p.name: p.read_bytes() for p in (folder / "records.parquet", folder / "run.json")}

    # 3. PostgreSQL back; the stored records logged, twice: caught up once, no case rerun
    _bash(PG_START, env, base)
    first = _bash(CATCH_UP, env, work)
    counts["exp1_triplets (caught up)"] = _check_logged(env, "exp1_triplets", folder)
    again = _bash(CATCH_UP, env, work)
    assert "logged already" in again.stdout + again.stderr
    assert _check_logged(env, "exp1_triplets", folder) == counts["exp1_triplets (caught up)"]
    assert {p.name: p.read_bytes() for p in (folder / "records.parquet", folder / "run.json")} == stored
    assert "logged at" in first.stdout

    # nothing twice in the database: one row per (run, metric, step), one run per parent name
    assert _sql(env, "SELECT run_uuid, key, step, count(*) FROM metrics GROUP BY run_uuid, key, step "
                     "HAVING count(*) > 1") == []
    assert _sql(env, "SELECT r.name, count(*) FROM runs r JOIN tags t ON t.run_uuid = r.run_uuid "
                     "WHERE t.key = 'ccexp.kind' AND t.value = 'sweep' AND r.lifecycle_stage = 'active' "
                     "GROUP BY r.name HAVING count(*) > 1") == []
    [(n_runs,)] = _sql(env, "SELECT count(*) FROM runs WHERE lifecycle_stage = 'active'")
    [(n_points,)] = _sql(env, "SELECT count(*) FROM metrics")
    print(f"\nPostgreSQL-backed MLflow: {counts}; {n_runs} runs and {n_points} metric rows in the database")
    assert n_runs == sum(c["parent"] + c["children"] for c in counts.values())  # and no other run
