"""``runner=dask``: the same sweep on a Dask cluster gives the local run's records, case by case.

The integration tests start a ``LocalCluster`` of 2 worker processes on
127.0.0.1 and skip (naming the extra) when dask.distributed is not installed.
"""

import dataclasses
import functools
import os
import signal
import sys
import time
from collections import Counter

import pandas as pd
import pytest
from omegaconf import OmegaConf

from ccexp.runner.config import compose_config
from ccexp.runner.config import apply_scale
from ccexp.runner.grid import expand
from ccexp.runner.sweep import RunnerOptions, dask_client, run_sweep, sweep_spec

try:
    import distributed
except ImportError:  # pragma: no cover - the optional extra
    distributed = None

needs_distributed = pytest.mark.skipif(
    distributed is None, reason="runner=dask needs dask.distributed: pip install 'ccexp[dask]'"
)

# exp1_triplets at scale=ci (its grid's instances: 32 today) with a cheaper algorithm list; the
# DP mixture is in it as a randomised algorithm whose seed must travel right.
OVERRIDES = ["+experiment=exp1_triplets", "experiment.scale=ci",
             "experiment.algorithms=[ls_eq,ls_ad_vc,triplet_approx,crowdclust_dpmm]"]
# not results: the git commit (another commit may land in the tree between two runs), and every timing: a column
# whose name holds "seconds", the rule of scripts/compare_records.py (a new timing needs no edit here)
NOT_RESULTS = ("code_version",)


def _ci_sweep():
    cfg = compose_config(OVERRIDES)
    experiment = apply_scale(cfg.experiment, OVERRIDES)
    return experiment, OmegaConf.to_container(cfg.dataset, resolve=True), OmegaConf.to_container(cfg.oracle, resolve=True)


def _comparable(df: pd.DataFrame) -> pd.DataFrame:
    cols = [c for c in df.columns if c not in NOT_RESULTS and "seconds" not in c]
    return df[sorted(cols)].sort_values("case_id").reset_index(drop=True)


def _numba_cache_stats():
    """Run on a worker: (pid, cache hits, cache misses) of every ccexp numba kernel, and the warmed classes."""
    from numba.core.registry import CPUDispatcher

    from ccexp.runner import execute

    hits, compiled = 0, []
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("ccexp"):
            for obj in vars(mod).values():
                if isinstance(obj, CPUDispatcher):
                    hits += sum(obj.stats.cache_hits.values())
                    compiled += [f"{mod.__name__}.{obj.__name__}{sig}" for sig in obj.stats.cache_misses]
    return os.getpid(), hits, compiled, sorted(cls.__name__ for cls in execute._WARM)


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=":0") as c:
        yield c


@needs_distributed
@pytest.mark.slow
def test_dask_sweep_gives_the_local_records_case_by_case(tmp_path, cluster):
    experiment, dataset, oracle = _ci_sweep()
    t0 = time.perf_counter()
    local = run_sweep(sweep_spec(experiment, dataset, oracle), tmp_path / "local", RunnerOptions(n_jobs=2, progress=False))
    t_local = time.perf_counter() - t0
    t0 = time.perf_counter()
    on_dask = run_sweep(sweep_spec(experiment, dataset, oracle), tmp_path / "dask", RunnerOptions(backend="dask", address=cluster.scheduler_address, progress=False))
    t_dask = time.perf_counter() - t0
    print(f"\n{on_dask.n_cases} cases: loky (2 workers) {t_local:.1f} s, dask (2 workers) {t_dask:.1f} s")
    expected = len(expand(experiment, dataset, oracle))  # the grid's cases (4 algorithms x its instances)
    assert on_dask.n_run == local.n_run == on_dask.n_cases == expected
    a, b = _comparable(local.records), _comparable(on_dask.records)
    assert list(a["case_id"]) == list(b["case_id"])
    assert (b["status"] == "ok").all()
    assert b["ari"].nunique() > 5  # the metrics vary across cases: the comparison has teeth
    pd.testing.assert_frame_equal(a, b)  # every metric, seed and parameter, exactly

    # Workers loaded the kernels from numba's on-disk cache (the driver's
    # warm-up wrote it) once per process: no compilation on any worker,
    # however many tasks it ran.
    stats = cluster_client_run(cluster, _numba_cache_stats)
    assert len(stats) == 2
    for pid, hits, compiled, warmed in stats.values():
        assert not compiled, f"worker {pid} compiled {compiled}"
        assert hits > 0
        assert set(warmed) == {"LsEQ", "LsADVC", "TripletApprox", "CrowdClustDPMM"}


def cluster_client_run(cluster, fn):
    with distributed.Client(cluster, set_as_default=False) as client:
        return client.run(fn)


def _killing_run_instance(marker: str, target: str, cases, context):
    """``run_instance``, but the worker SIGKILLs itself on ``target``'s instance once (leaving ``marker``)."""
    from ccexp.runner.execute import run_instance

    if cases[0].instance.instance_id == target and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return run_instance(cases, context)


@needs_distributed
@pytest.mark.slow
def test_a_killed_dask_worker_loses_no_record(tmp_path, cluster, monkeypatch):
    """The scheduler reruns the dead worker's task elsewhere; each record is stored once."""
    from ccexp.runner import sweep
    from ccexp.runner.store import ResultStore

    experiment, dataset, oracle = _ci_sweep()
    experiment = dict(experiment, algorithms=["ls_eq", "ls_ad_vc"])
    cases = expand(experiment, dataset, oracle)
    marker = tmp_path / "killed-once"
    monkeypatch.setattr(sweep, "run_instance",
                        functools.partial(_killing_run_instance, str(marker), cases[len(cases) // 2].instance.instance_id))
    appended = Counter()
    append = ResultStore.append
    monkeypatch.setattr(ResultStore, "append", lambda self, records: (appended.update(r["case_id"] for r in records),
                                                                        append(self, records))[1])
    res = run_sweep(sweep_spec(experiment, dataset, oracle), tmp_path, RunnerOptions(backend="dask", address=cluster.scheduler_address, progress=False))
    assert marker.exists()  # a worker died
    assert sorted(appended) == sorted(c.case_id for c in cases) and set(appended.values()) == {1}
    assert sorted(res.records["case_id"]) == sorted(c.case_id for c in cases)


@needs_distributed
@pytest.mark.slow
def test_without_address_a_local_cluster_lives_for_the_run_only(tmp_path, monkeypatch):
    started = []

    class Recorded(distributed.LocalCluster):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            started.append((self, kwargs))

    monkeypatch.setattr(distributed, "LocalCluster", Recorded)
    experiment, dataset, oracle = _ci_sweep()
    experiment = dict(experiment, trials=1, sweep={"dataset": {"k": [4]}, "oracle": {"fraction": [0.05]}},
                      algorithms=["ls_ad_vc"])
    res = run_sweep(sweep_spec(experiment, dataset, oracle), tmp_path, RunnerOptions(backend="dask", progress=False, local_cluster={"n_workers": 1, "dashboard_address": ":0"}))
    assert res.n_run == res.n_cases == len(res.records) == len(expand(experiment, dataset, oracle)) > 0
    [(cluster, kwargs)] = started
    assert kwargs == {"n_workers": 1, "threads_per_worker": 1, "processes": True, "host": "127.0.0.1",
                      "dashboard_address": ":0"}
    assert cluster.status.name == "closed"  # the run closed the cluster it started


@needs_distributed
@pytest.mark.slow
def test_command_line_runner_dask_with_an_address(tmp_path, cluster):
    from conftest import run_cli

    args = ["+experiment=exp1_triplets", "experiment.scale=ci", "experiment.algorithms=[ls_ad_vc]", "tracking=off",
            "report=false", f"paths.results={tmp_path}", "runner=dask", f"runner.address={cluster.scheduler_address}"]
    proc = run_cli(args, cwd=tmp_path)
    assert f"at {cluster.scheduler_address}" in proc.stdout + proc.stderr  # it ran on that cluster
    # one algorithm of the seven changes the preset's grid: its own ci+custom-<hash> folder
    [folder] = (tmp_path / "exp1_triplets").glob("ci+custom-*")
    df = pd.read_parquet(folder / "records.parquet")
    experiment, dataset, oracle = _ci_sweep()
    n_instances = len({c.instance.instance_id for c in expand(experiment, dataset, oracle)})
    assert len(df) == df["case_id"].nunique() == n_instances and (df["status"] == "ok").all()


def test_runner_configs_are_run_sweep_arguments():
    """``__main__`` builds :class:`RunnerOptions` from ``cfg.runner``: every key must be one of its fields."""
    params = {f.name for f in dataclasses.fields(RunnerOptions)}
    for option in ("local", "dask"):
        keys = set(compose_config([f"runner={option}"]).runner)
        assert keys <= params, keys - params
    dask = compose_config(["runner=dask"]).runner
    assert dask.backend == "dask" and dask.address is None and dask.local_cluster.threads_per_worker == 1


def test_missing_distributed_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(ImportError, match=r"pip install 'ccexp\[dask\]'"):
        with dask_client():
            pass


def test_seeds_do_not_depend_on_where_a_case_runs():
    """The property the dask test relies on: a record is a function of its case alone."""
    from ccexp.runner.execute import run_instance

    experiment, dataset, oracle = _ci_sweep()
    cases = expand(experiment, dataset, oracle)
    cases = [c for c in cases if c.instance.instance_id == cases[-1].instance.instance_id]
    assert len(cases) == 4
    alone = [run_instance([c], {})[0] for c in cases]
    together = run_instance(cases[::-1], {})[::-1]  # the other order, in one task
    for x, y in zip(alone, together):
        assert x["case_id"] == y["case_id"]
        assert (x["ari"], x["n_clusters"], x["objective"]) == (y["ari"], y["n_clusters"], y["objective"])
