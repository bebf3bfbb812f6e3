"""Per-step traces through the runner, MLflow curves, and acc_noise_batch at scale=ci (Aronsson 2024)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ccexp.runner.config import experiment_cases
from ccexp.runner.execute import convergence_stop, history_trace
from ccexp.runner.store import ResultStore
from ccexp.runner.tracking import mean_curves


def test_store_keeps_traces_apart_and_consolidates_them(tmp_path):
    store = ResultStore(tmp_path)
    rec = {"case_id": "a", "ari": 1.0, "_trace": [{"step": 0, "n_queries": 0, "ari": 0.1},
                                                 {"step": 1, "n_queries": 5, "ari": 1.0}]}
    store.append([rec, {"case_id": "b", "ari": 0.5}])  # b: an algorithm without history
    assert "_trace" not in store.load().columns
    store.consolidate()
    traces = pd.read_parquet(tmp_path / "traces.parquet")
    assert traces[["case_id", "step", "n_queries"]].values.tolist() == [["a", 0, 0], ["a", 1, 5]]
    assert not list((tmp_path / "trace_parts").glob("part-*"))
    assert set(store.load()["case_id"]) == {"a", "b"}


def test_mean_curves_hold_a_stopped_curve_at_its_last_value():
    traces = pd.DataFrame({
        "case_id": ["a", "a", "b", "b", "b"],
        "n_queries": [0, 10, 0, 10, 20],
        "ari": [0.0, 1.0, 0.0, 0.5, 0.8],
    })
    c = mean_curves(traces, ["a", "b"])
    assert c["ari"].to_dict() == {0: 0.0, 10: 0.75, 20: 0.9}


def test_convergence_rule_and_history_trace():
    y = np.array([0, 0, 1, 1])
    stop = convergence_stop(y, {"threshold": 1.0, "patience": 2})
    assert [stop(0, np.array([0, 1, 0, 1])), stop(1, y), stop(2, y)] == [False, False, True]
    assert convergence_stop(None, {"threshold": 1.0}) is None and convergence_stop(y, None) is None
    rows = history_trace([{"n_queries": 0, "labels": y, "n_clusters": 2, "explored": True}], y)
    assert rows == [{"step": 0, "n_queries": 0, "ari": 1.0, "ami": 1.0, "n_clusters": 2.0, "explored": 1.0}]


@pytest.fixture(scope="module")
def noise_batch_ci(tmp_path_factory):
    from omegaconf import OmegaConf

    from ccexp.report import make_report
    from ccexp.runner.config import compose_config
    from ccexp.runner.sweep import RunnerOptions, run_sweep, sweep_spec

    out = tmp_path_factory.mktemp("acc_ci")
    experiment, _ = experiment_cases("acc_noise_batch", "ci")
    cfg = compose_config(["+experiment=acc_noise_batch"])
    dataset = OmegaConf.to_container(cfg.dataset, resolve=True)
    oracle = OmegaConf.to_container(cfg.oracle, resolve=True)
    result = run_sweep(sweep_spec(experiment, dataset, oracle), out, RunnerOptions(n_jobs=1, progress=False))
    make_report("acc_noise_batch", results_dir=out, scale="ci", records=result.records, filter_to_grid=False)
    return out, result


@pytest.mark.slow  # the acc_noise_batch ci sweep of the fixture
def test_ci_sweep_writes_traces_for_every_case(noise_batch_ci):
    out, result = noise_batch_ci
    records = result.records
    assert (records["status"] == "ok").all() and len(records) == 16  # 4 settings x (3 strategies + QECC)
    traces = pd.read_parquet(out / "acc_noise_batch" / "ci" / "traces.parquet")
    assert set(traces["case_id"]) == set(records["case_id"])
    assert {"step", "n_queries", "ari", "n_clusters", "seconds_cluster"} <= set(traces.columns)
    for cid, g in traces.groupby("case_id"):
        g = g.sort_values("step")
        assert g["n_queries"].iloc[0] == 0 and np.all(np.diff(g["n_queries"]) > 0)
        rec = records.set_index("case_id").loc[cid]
        assert g["n_queries"].iloc[-1] == rec["n_queries"]
        assert g["ari"].iloc[-1] == pytest.approx(rec["ari"])  # the last trace row is the final clustering


@pytest.mark.slow  # the acc_noise_batch ci sweep of the fixture
def test_ci_report_and_claims(noise_batch_ci):
    out, _ = noise_batch_ci
    folder = out / "acc_noise_batch" / "ci"
    assert (folder / "figures" / "acc_noise_batch_auc.png").is_file()
    assert (folder / "figures" / "acc_noise_batch_ari.png").is_file()
    auc = pd.read_csv(folder / "tables" / "auc_ari.csv")
    # Figure 5: the triangle strategies far above uniform at every noise level and batch size
    for _, g in auc.groupby(["oracle.gamma", "algorithm.batch_size"]):
        s = g.set_index("algorithm")["auc"]
        assert s["acc_maxexp"] > s["acc_uniform"] + 0.05 and s["acc_maxmin"] > s["acc_uniform"] + 0.05
    text = (folder / "comparison.md").read_text()
    assert "auc_order" in text and "acc_maxexp" in text


@pytest.mark.slow  # the acc_noise_batch ci sweep of the fixture
def test_mlflow_logs_learning_curves_with_step_queries(noise_batch_ci):
    from mlflow.tracking import MlflowClient

    from ccexp.runner.tracking import log_sweep, tracking_uri

    out, result = noise_batch_ci
    uri = tracking_uri("local", None, out)
    log_sweep(uri, "acc_noise_batch", result.records, {"experiment": "acc_noise_batch", "scale": "ci"}, None, out)
    client = MlflowClient(tracking_uri=uri)
    exp = client.get_experiment_by_name("acc_noise_batch")
    children = client.search_runs([exp.experiment_id], "tags.`ccexp.kind` = 'setting'")
    assert len(children) == 16
    hist = client.get_metric_history(children[0].info.run_id, "curve.ari")
    steps = sorted(m.step for m in hist)
    assert steps[0] == 0 and len(steps) > 10 and steps == sorted(set(steps))
