"""MLflow tracking under attack (issue 33).

- item 12: a copied results folder wrote its MLflow artifacts into the original (the store keeps absolute
  artifact paths); now the copy's store is pointed at the copy and writes only into it;
- item 13: agg_robustness's list-valued ``oracle.methods`` (an array after parquet) made ``summarise`` raise
  ``TypeError: unhashable type``: nothing was logged, exit 1; now every experiment's ci records summarise;
- a ``tracking.uri`` of an unknown scheme, a locked or read-only ``mlflow.db``: found after the sweep; now
  before it, in one line.
"""

from __future__ import annotations

import os
import shutil
import sqlite3

import numpy as np
import pandas as pd
import pytest

from ccexp.__main__ import list_experiments
from ccexp.runner.compose import ConfigError
from ccexp.runner.config import experiment_cases
from ccexp.runner.grid import flatten
from ccexp.runner.tracking import local_uri, log_sweep, summarise
from ccexp.runner.tracking_check import check_tracking


def _records_of(cases) -> pd.DataFrame:
    """Records with the columns run_instance gives each case (parameters flattened), and made-up metrics."""
    rows = []
    for i, c in enumerate(cases):
        inst = c.instance
        rows.append({"case_id": c.case_id, "algorithm": c.algorithm, "trial": inst.trial, "status": "ok",
                     **{f"dataset.{k}": v for k, v in inst.dataset.items() if k != "name"},
                     **{f"oracle.{k}": v for k, v in inst.oracle.items() if k != "name"},
                     **{f"algorithm.{k}": v for k, v in flatten(c.params).items()},
                     "ari": (i % 7) / 7, "n_clusters": 1 + i % 3})
    return pd.DataFrame(rows)


def test_every_experiment_at_ci_summarises_from_its_stored_records(tmp_path):
    """As MLflow logging reads them: through parquet (where a list parameter comes back as an array)."""
    for name in list_experiments():
        _, cases = experiment_cases(name, "ci")
        _records_of(cases).to_parquet(tmp_path / f"{name}.parquet")
        records = pd.read_parquet(tmp_path / f"{name}.parquet")
        summary = summarise(records)
        assert summary["n_trials"].sum() == len(records), name


def test_a_list_valued_setting_is_one_group_key(tmp_path):
    _, cases = experiment_cases("agg_robustness", "ci")
    _records_of(cases).to_parquet(tmp_path / "r.parquet")
    records = pd.read_parquet(tmp_path / "r.parquet")
    assert isinstance(records["oracle.methods"].iloc[0], np.ndarray)
    summary = summarise(records)
    assert set(summary["oracle.methods"]) == {"single,complete,average,ward,kmeans"}
    assert len(summary) == records["algorithm"].nunique()


def test_agg_robustness_records_log_to_mlflow(tmp_path):
    from mlflow.tracking import MlflowClient

    _, cases = experiment_cases("agg_robustness", "ci")
    _records_of(cases).to_parquet(tmp_path / "r.parquet")
    records = pd.read_parquet(tmp_path / "r.parquet")
    uri = local_uri(tmp_path)
    log_sweep(uri, "agg_robustness", records, {"experiment": "agg_robustness", "scale": "ci"}, None, tmp_path)
    client = MlflowClient(tracking_uri=uri)
    runs = client.search_runs([client.get_experiment_by_name("agg_robustness").experiment_id])
    children = [r for r in runs if r.data.tags.get("ccexp.kind") == "setting"]
    assert len(children) == records["algorithm"].nunique()
    assert {r.data.params["oracle.methods"] for r in children} == {"single,complete,average,ward,kmeans"}


def _artifact_files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in (folder / "mlartifacts").rglob("*") if p.is_file())


def test_a_copied_results_folder_writes_only_into_itself(tmp_path):
    from mlflow.tracking import MlflowClient

    records = pd.DataFrame({"case_id": ["a", "b"], "algorithm": ["ls_eq", "ls_eq"], "dataset.k": [2, 2],
                            "ari": [1.0, 0.5], "status": ["ok", "ok"]})
    original, copy = tmp_path / "original", tmp_path / "copy"
    original.mkdir()
    log_sweep(local_uri(original), "exp", records, {"experiment": "exp", "scale": "ci"}, None, original)
    before = _artifact_files(original)
    assert before
    shutil.copytree(original, copy)
    pid = log_sweep(local_uri(copy), "exp", records, {"experiment": "exp", "scale": "ci"}, None, copy)
    assert _artifact_files(original) == before  # nothing new in the original
    assert len(_artifact_files(copy)) == 2 * len(before)  # the copy's old run and its new one
    client = MlflowClient(tracking_uri=local_uri(copy))
    exp = client.get_experiment_by_name("exp")
    assert exp.artifact_location == (copy.resolve() / "mlartifacts" / "exp").as_uri()
    for run in client.search_runs([exp.experiment_id]):  # the copied runs read their artifacts from the copy too
        assert run.info.artifact_uri.startswith((copy.resolve() / "mlartifacts").as_uri()), run.info.artifact_uri
    assert client.get_run(pid).info.artifact_uri.startswith(copy.resolve().as_uri())


def test_an_unknown_tracking_scheme_is_refused_before_the_sweep():
    with pytest.raises(ConfigError, match=r"tracking.uri=foo://bar: MLflow stores no runs at a 'foo' URI"):
        check_tracking("foo://bar")
    check_tracking("postgresql+psycopg2://user@host/db")  # a database URI is for MLflow to open


def test_a_locked_store_is_refused_before_the_sweep(tmp_path):
    db = tmp_path / "mlflow.db"
    holder = sqlite3.connect(db)
    holder.execute("CREATE TABLE t (x)")
    holder.commit()
    holder.execute("BEGIN EXCLUSIVE")  # another process writing
    try:
        with pytest.raises(ConfigError, match="mlflow.db is locked by another process"):
            check_tracking(f"sqlite:///{db}", timeout=0.5)
    finally:
        holder.rollback()
        holder.close()
    check_tracking(f"sqlite:///{db}", timeout=0.5)  # free again


def test_a_read_only_store_is_refused_before_the_sweep(tmp_path, monkeypatch):
    db = tmp_path / "mlflow.db"
    sqlite3.connect(db).close()
    if os.geteuid() == 0:  # root writes a read-only file: the check's own view of it, simulated
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(db) else real(p, mode))
    else:
        db.chmod(0o444)
    with pytest.raises(ConfigError, match="mlflow.db is read-only"):
        check_tracking(f"sqlite:///{db}")
