"""Run an experiment: expand the grid, skip finished cases, run the rest in parallel.

One task is one instance (a dataset draw and its noisy supervision) with all
its pending algorithms.  Tasks run in joblib workers (loky on this machine,
Dask on a cluster, see :func:`dask_client`) and return plain records; only
this driver process writes them, to the results store, as they arrive.  So a
crash of the driver loses at most the tasks in flight, and a worker that dies
costs a retry of the tasks not yet stored (see ``max_retries``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import subprocess
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from concurrent.futures import BrokenExecutor
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed, parallel_config
from tqdm.auto import tqdm

from .execute import run_instance, warm_up
from .grid import Case, expand
from .seeding import stable_hash
from .store import ResultStore

log = logging.getLogger("ccexp")


def code_version() -> str:
    """The git commit of the code (``+dirty`` if modified), or the package version."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5
        ).stdout.strip()
        if commit:
            dirty = subprocess.run(
                ["git", "status", "--porcelain", "--untracked-files=no"], cwd=here, capture_output=True, text=True, timeout=5
            ).stdout.strip()
            return commit + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    from .. import __version__

    return __version__


class SweepInterrupted(RuntimeError):
    """Workers kept dying; the records stored so far are kept and a rerun resumes."""


#: Arguments of :class:`distributed.LocalCluster` when ``runner=dask`` gives no address
#: (``conf/runner/dask.yaml`` overrides them).  One thread per worker process:
#: the kernels hold the GIL, and a process per core is what loky does too.
LOCAL_CLUSTER_DEFAULTS = {"n_workers": None, "threads_per_worker": 1, "processes": True, "host": "127.0.0.1"}


@contextlib.contextmanager
def dask_client(address: str | None = None, local_cluster: dict | None = None) -> Iterator:
    """A :class:`distributed.Client` of the scheduler at ``address``, or of a new ``LocalCluster``.

    The local cluster (``LocalCluster(**local_cluster)`` over
    :data:`LOCAL_CLUSTER_DEFAULTS`) lives as long as the ``with`` block; a
    scheduler given by address is left running.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise ImportError(
            "runner=dask needs dask.distributed, which is not installed: "
            "pip install 'ccexp[dask]' (or pip install 'dask[distributed]')"
        ) from exc
    with contextlib.ExitStack() as stack:
        # the scheduler and nannies of a LocalCluster log in this process: keep their INFO out of the sweep's log
        dask_log = logging.getLogger("distributed")
        stack.callback(dask_log.setLevel, dask_log.level)
        dask_log.setLevel(max(dask_log.getEffectiveLevel(), logging.WARNING))
        if address is None:
            kwargs = {**LOCAL_CLUSTER_DEFAULTS, **(local_cluster or {})}
            cluster = stack.enter_context(LocalCluster(**kwargs))
            address = cluster.scheduler_address
            log.info("dask: started a LocalCluster at %s (%s)", address,
                     ", ".join(f"{k}={v}" for k, v in kwargs.items()))
        client = stack.enter_context(Client(address, set_as_default=False))
        log.info("dask: %d worker threads at %s (dashboard %s)", sum(client.nthreads().values()), address,
                 client.dashboard_link)
        yield client


@contextlib.contextmanager
def _backend(backend: str, address: str | None, local_cluster: dict | None, wait_for_workers: float) -> Iterator[tuple]:
    """Activate the joblib backend; yield the exceptions that mean "a worker died"."""
    lost: tuple[type[BaseException], ...] = (BrokenExecutor,)  # loky's TerminatedWorkerError is one
    if backend != "dask":
        yield lost
        return
    with dask_client(address, local_cluster) as client:
        from distributed import KilledWorker

        with parallel_config(backend="dask", client=client, wait_for_workers_timeout=wait_for_workers):
            yield (*lost, KilledWorker)


def _by_instance(cases: Iterable[Case]) -> list[list[Case]]:
    """The tasks: cases grouped by instance, in the order of first appearance."""
    tasks: dict[str, list[Case]] = defaultdict(list)
    for c in cases:
        tasks[c.instance.instance_id].append(c)
    return list(tasks.values())


@dataclass
class SweepResult:
    records: pd.DataFrame  # the records of this grid's cases
    directory: Path
    n_cases: int
    n_run: int
    seconds: float


def run_sweep(
    experiment: dict,
    dataset: dict,
    oracle: dict,
    results_dir: str | Path,
    n_jobs: int = -1,
    backend: str = "loky",
    progress: bool = True,
    max_tasks: int | None = None,
    address: str | None = None,
    local_cluster: dict | None = None,
    wait_for_workers: float = 60.0,
    max_retries: int = 2,
) -> SweepResult:
    """Run every case of ``experiment`` not already in ``results_dir/<name>``.

    Parameters
    ----------
    experiment : dict
        A scaled experiment config (see :func:`ccexp.runner.grid.apply_scale`).
    dataset, oracle : dict
        Base configs the sweep overrides.
    results_dir : path
        Parent folder; records go to ``results_dir/<name>/records.parquet``.
    n_jobs, backend : joblib settings.  ``backend="dask"`` runs the tasks on
        a Dask cluster (``n_jobs`` is then ignored: every worker thread works).
    progress : bool
        Show a progress bar over cases.
    max_tasks : int, optional
        Stop after this many instances (for tests of resumption).
    address : str, optional
        ``backend="dask"``: the scheduler (``tcp://host:8786``); None starts a
        ``LocalCluster`` for this call and closes it at the end.
    local_cluster : dict, optional
        ``backend="dask"`` without address: ``LocalCluster`` arguments over
        :data:`LOCAL_CLUSTER_DEFAULTS`.
    wait_for_workers : float
        ``backend="dask"``: seconds to wait for a first worker to join.
    max_retries : int
        When a worker process dies (killed, out of memory), the records
        already stored are kept and the tasks still pending are run again, at
        most this many times; then :class:`SweepInterrupted` is raised (a
        rerun of the same command resumes).

    Notes
    -----
    Workers only compute: records travel back to this process, which alone
    writes the results store (and, in ``__main__``, logs to MLflow).
    """
    t_start = time.perf_counter()
    name = experiment["name"]
    out_dir = Path(results_dir) / name
    store = ResultStore(out_dir)
    cases = expand(experiment, dataset, oracle)
    case_ids = [c.case_id for c in cases]
    if len(set(case_ids)) != len(case_ids):
        raise ValueError(f"experiment {name!r} expands to duplicate cases; check its sweep")
    done = store.done_ids()
    tasks = _by_instance(c for c in cases if c.case_id not in done)
    if max_tasks is not None:
        tasks = tasks[:max_tasks]
    todo = [c for t in tasks for c in t]  # this call's cases; a retry runs those not stored yet
    context = {
        "paper": experiment.get("paper"),
        "scale": experiment.get("scale"),
        "code_version": code_version(),
        "config_hash": stable_hash(experiment),
        # active learning: the runner's convergence rule and the per-step metrics
        "early_stop": experiment.get("early_stop"),
        "trace_metrics": experiment.get("trace_metrics"),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "run.json").write_text(
        json.dumps({"experiment": name, "scale": experiment.get("scale"), **context, "n_cases": len(cases)}, indent=2)
    )
    n_pending = len(todo)
    log.info("%s: %d cases, %d done, %d to run", name, len(cases), len(done & set(case_ids)), n_pending)
    if tasks:
        # Compile the kernels in this process first: numba caches them on
        # disk, so workers load instead of compiling side by side.
        warm_up(experiment["algorithms"])
        bar = tqdm(total=n_pending, desc=name, unit="case", disable=not progress, smoothing=0.05)
        try:
            with _backend(backend, address, local_cluster, wait_for_workers) as worker_lost:
                for attempt in range(max_retries + 1):
                    try:
                        _run_tasks(tasks, context, store, bar, n_jobs, backend)
                        break
                    except worker_lost as exc:
                        # The stored records stay; whatever was in flight is run again.
                        stored = store.done_ids()
                        tasks = _by_instance(c for c in todo if c.case_id not in stored)
                        n_left = sum(len(t) for t in tasks)
                        if attempt == max_retries:
                            raise SweepInterrupted(
                                f"{name}: a worker died ({type(exc).__name__}: {exc}) and kept dying in "
                                f"{max_retries} retries; {n_pending - n_left} of {n_pending} cases are stored, "
                                f"{n_left} are not. Rerun the same command to resume."
                            ) from exc
                        log.warning("%s: a worker died (%s); running the %d cases not stored yet again (retry %d of %d)",
                                    name, type(exc).__name__, n_left, attempt + 1, max_retries)
        finally:
            bar.close()
    df = store.consolidate()
    if len(df):
        df = df[df["case_id"].isin(set(case_ids))].reset_index(drop=True)
    wall = time.perf_counter() - t_start
    # the wall time of this call and what it ran (a resumed sweep records its own part)
    run = json.loads((out_dir / "run.json").read_text())
    run.update({"wall_seconds": round(wall, 3), "n_run": n_pending, "n_jobs": n_jobs, "backend": backend})
    (out_dir / "run.json").write_text(json.dumps(run, indent=2))
    return SweepResult(df, out_dir, len(cases), n_pending, wall)


def _run_tasks(tasks, context, store, bar, n_jobs, backend) -> None:
    """Run ``tasks`` in parallel; store each task's records as soon as it returns."""
    if not tasks:
        return
    if backend == "dask":
        # The backend of dask_client's parallel_config, sized by the cluster.
        # Every task goes to the scheduler at once (tasks are small): an
        # adaptive cluster (dask-jobqueue's adapt()) scales to the whole
        # queue, not to the workers present when the sweep started.
        parallel = Parallel(n_jobs=-1, return_as="generator_unordered", batch_size=1, pre_dispatch="all")
    else:
        parallel = Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered", batch_size=1)
    for records in parallel(delayed(run_instance)(t, context) for t in tasks):
        store.append(records)
        bar.update(len(records))
        errors = [r for r in records if r.get("status") == "error"]
        for r in errors:
            log.warning("case %s (%s) failed: %s", r["case_id"], r["algorithm"], r["error"].splitlines()[0])
