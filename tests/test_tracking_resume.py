"""Logging stored records again (``python -m ccexp.track``; issue 32, item 5) never duplicates a run.

On the embedded sqlite store (the PostgreSQL server's test is in the slow
tier, tests/test_mlflow_postgres.py): a logging that stops half way (the
server's database went down) is completed by ``log_sweep(resume=True)``;
a second resume logs nothing; a custom grid's parent run names its folder.
"""

from __future__ import annotations

import os

import pytest

from ccexp.runner.sweep import RunnerOptions, run_sweep, sweep_spec
from ccexp.runner.tracking import log_sweep, sweep_key
from ccexp.track import main as track

from _sweeps import DATASET, ORACLE, SMALL


@pytest.fixture(autouse=True)
def _no_mlflow_env(monkeypatch):
    for k in [k for k in os.environ if k.upper().startswith("MLFLOW_")]:
        monkeypatch.delenv(k)


def _runs(uri, name="small"):
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    exp = client.get_experiment_by_name(name)
    runs = client.search_runs([exp.experiment_id], max_results=1000)
    parents = [r for r in runs if r.data.tags.get("ccexp.kind") == "sweep"]
    children = [r for r in runs if r.data.tags.get("ccexp.kind") == "setting"]
    return client, parents, children


def test_a_logging_stopped_half_way_is_completed_once_and_a_second_resume_logs_nothing(tmp_path, monkeypatch):
    from mlflow.tracking import MlflowClient

    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    params = {"experiment": "small", "scale": "test"}
    # the database goes away after three child runs were made (the third one half logged)
    real = MlflowClient.set_terminated
    calls = {"n": 0}

    def dying(self, run_id, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise ConnectionError("the database is gone")
        return real(self, run_id, *args, **kwargs)

    monkeypatch.setattr(MlflowClient, "set_terminated", dying)
    with pytest.raises(ConnectionError):
        log_sweep(uri, "small", res.records, params, None, tmp_path)
    monkeypatch.setattr(MlflowClient, "set_terminated", real)
    client, parents, children = _runs(uri)
    assert [p.info.status for p in parents] == ["RUNNING"] and len(children) == 3
    assert sum(c.info.status == "FINISHED" for c in children) == 2

    pid = log_sweep(uri, "small", res.records, params, None, tmp_path, resume=True)
    client, parents, children = _runs(uri)
    assert [p.info.run_id for p in parents] == [pid] and parents[0].info.status == "FINISHED"
    n_settings = 2 * 2 * 2  # 2 algorithms x k in {2, 4} x noise in {0, 0.2}
    assert len(children) == n_settings and all(c.info.status == "FINISHED" for c in children)
    assert len({c.data.tags["ccexp.setting_key"] for c in children}) == n_settings
    assert all(len(client.get_metric_history(c.info.run_id, "ari_mean")) == 1 for c in children)
    assert len(client.get_metric_history(pid, "n_cases")) == 1
    assert parents[0].data.tags["ccexp.sweep_key"] == sweep_key("small", "test", res.records)

    # again: the records are logged already, nothing is added
    assert log_sweep(uri, "small", res.records, params, None, tmp_path, resume=True) == pid
    client, parents2, children2 = _runs(uri)
    assert len(parents2) == 1 and len(children2) == n_settings
    # while a plain log_sweep (a new invocation) makes a new parent, as documented
    log_sweep(uri, "small", res.records, params, None, tmp_path)
    assert len(_runs(uri)[1]) == 2


def test_track_logs_a_folders_stored_records_and_a_custom_grid_names_its_folder(tmp_path, capsys):
    label = "ci+custom-0123456789"
    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE, label=label), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    assert res.directory.name == label
    argv = ["small", "--scale", label, "--results", str(tmp_path)]
    assert track(["small", "--scale", "ci", "--results", str(tmp_path)]) == 1  # no records there: says so
    assert "no records of small" in capsys.readouterr().err
    assert track(argv) == 0
    assert track(argv) == 0
    _, parents, children = _runs(f"sqlite:///{tmp_path / 'mlflow.db'}")
    assert [p.info.run_name for p in parents] == [f"small[scale={label}]"]
    assert len(children) == 8
    assert "logged at" in capsys.readouterr().out
