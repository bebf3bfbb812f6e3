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
import itertools
import logging
import math
import os
import signal
import socket
import threading
import time
import warnings
from collections import defaultdict
from collections.abc import Iterable, Iterator
from concurrent.futures import BrokenExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd
from filelock import FileLock, Timeout
from joblib import Parallel, delayed, parallel_config
from tqdm.auto import tqdm

from .execute import die_with_parent, run_instance, warm_up
from .grid import LARGE_GRID, Case, count_cases, expand
from .layout import PAPER_SCALE, experiment_dir
from .compose import ConfigError
from .provenance import (earlier_runs, git_state, machine, package_versions, peak_rss, read_run_info,
                         total_wall_seconds)
from .spec import SweepSpec, dumps_run_info
from .store import ResultStore, write_text_atomic

log = logging.getLogger("ccexp")


def code_version() -> str:
    """The git commit of the code (``+dirty`` if tracked source files changed), or the package version.

    See :func:`ccexp.runner.provenance.git_state`: the results folders a run
    writes into do not make the code dirty.
    """
    return git_state()["code_version"]


class SweepBusy(RuntimeError):
    """Another sweep holds the experiment folder and this one chose not to wait."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped a sweep; the message says how many cases are stored and that a rerun resumes.

    ``signum``: the signal (a shell's exit status for it is 128 + signum).
    """

    def __init__(self, message: str, signum: int = signal.SIGINT):
        super().__init__(message)
        self.signum = int(signum)


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (``kill``, a batch scheduler's stop before its kill) stops the sweep's loop as Ctrl-C does.

    Python's default for SIGTERM ends the process at once, leaving ``run.json``
    saying ``running``; raised as a :class:`KeyboardInterrupt` in the loop it
    is recorded as ``interrupted`` instead.  Signal handlers belong to the
    main thread: called from another thread, nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum, frame):
        err = KeyboardInterrupt()
        err.signum = signum
        raise err

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


class SweepInterrupted(RuntimeError):
    """Workers kept dying; the records stored so far are kept and a rerun resumes."""


class MixedCodeError(ConfigError):
    """A resume would store records of this code beside records of another code version (one line, exit 2)."""


def _versions(records: pd.DataFrame) -> dict[str, int]:
    """Cases per code version of ``records`` (``unknown`` where a record carries none)."""
    if not len(records):
        return {}
    column = records["code_version"] if "code_version" in records else pd.Series(["unknown"] * len(records))
    return {str(k): int(v) for k, v in column.fillna("unknown").astype(str).value_counts().sort_index().items()}


def _check_resume(name: str, out_dir: Path, kept: pd.DataFrame, version: str, n_pending: int, allow: bool) -> None:
    """Refuse to add this code's records to records of another code version, unless ``allow`` (issue 33, item 2)."""
    others = {v: n for v, n in _versions(kept).items() if v != version}
    if not n_pending or not others or allow:
        if n_pending and others:
            log.warning("%s: adding records of code %s to %s made by %s (runner.allow_mixed_code=true); "
                        "the report's first line names every version", name, version, out_dir,
                        ", ".join(f"{v} ({n} cases)" for v, n in others.items()))
        return
    made = ", ".join(f"{n} cases by code {v}" for v, n in others.items())
    raise MixedCodeError(
        f"{name}: {out_dir} holds {made}, and this code is {version}: resuming would report two code versions "
        f"as one run. Rerun with runner.allow_mixed_code=true to accept the mix (the report's first line then names "
        f"both), or start afresh in another paths.results (or after deleting {out_dir})")


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
        from distributed import KilledWorker  # the dask extra, installed: dask_client checked it

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
    code_version: str | None = None  # the one the records carry (MLflow tags use it too)
    n_retried: int = 0  # cases stored with status=error that this call ran again (retry_errors)
    provenance: dict | None = None  # what run.json holds

    @property
    def n_errors(self) -> int:
        """This grid's cases whose stored record ends in an error."""
        if not len(self.records) or "status" not in self.records:
            return 0
        return int((self.records["status"] == "error").sum())

    def error_summary(self) -> str | None:
        """One line on the cases in error and how to retry them; None when there are none."""
        n = self.n_errors
        retried = (f"{self.n_retried} cases that had ended in an error were run again; " if self.n_retried else "")
        if not n:
            return f"{retried}none is in error now" if self.n_retried else None
        first = self.records.loc[self.records["status"] == "error"].iloc[0]
        msg = str(first.get("error") or "").splitlines()[0] if first.get("error") else "?"
        return (f"{retried}{n} of {self.n_cases} cases ended in an error (e.g. {first['case_id']} "
                f"[{first['algorithm']}]: {msg[:160]}); see the 'error' column of "
                f"{self.directory / 'records.parquet'}, and rerun the same command with "
                f"runner.retry_errors=true to run them again")


@contextlib.contextmanager
def _sweep_lock(out_dir: Path, name: str, wait: bool) -> Iterator[None]:
    """Hold ``out_dir/.sweep.lock`` while a sweep writes the folder.

    A second sweep of the same folder waits, saying once for whom (``wait``),
    or stops with :class:`SweepBusy`: either way two sweeps never run the
    same cases side by side nor consolidate over each other.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(out_dir / ".sweep.lock")
    owner_path = out_dir / ".sweep.owner"
    try:
        lock.acquire(timeout=0)
    except Timeout:
        try:
            owner = owner_path.read_text().strip()
        except OSError:
            owner = "another process"
        if not wait:
            raise SweepBusy(f"{name}: another sweep ({owner}) is writing {out_dir}; wait for it to end, "
                            f"or choose another paths.results") from None
        log.warning("%s: another sweep (%s) is writing %s; waiting for it to end (its records count for this one)",
                    name, owner, out_dir)
        lock.acquire()
    try:
        write_text_atomic(owner_path, f"pid {os.getpid()} on {socket.gethostname()} since {time.strftime('%H:%M:%S')}")
        yield
    finally:
        owner_path.unlink(missing_ok=True)
        lock.release()


@dataclass(frozen=True)
class RunnerOptions:
    """How a sweep runs (the ``runner.*`` keys of ``conf/runner/*.yaml``); what it runs is the :class:`SweepSpec`.

    Parameters
    ----------
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
    retry_errors : bool
        Run again the cases stored with ``status="error"`` (their new record
        replaces the error; see :meth:`ResultStore.load`).
    wait_for_lock : bool
        When another sweep is writing the same folder: wait for it to end
        (True), or raise :class:`SweepBusy` at once.
    allow_mixed_code : bool
        Resume a folder whose records of this grid were made by another code
        version (or a dirty tree).  Refused by default with
        :class:`MixedCodeError`, naming both versions; when allowed, the
        mix is recorded in ``run.json`` (``code_versions``) and shown on the
        first line of the report.
    """

    n_jobs: int = -1
    backend: str = "loky"
    progress: bool = True
    max_tasks: int | None = None
    address: str | None = None
    local_cluster: dict | None = None
    wait_for_workers: float = 60.0
    max_retries: int = 2
    retry_errors: bool = False
    wait_for_lock: bool = True
    allow_mixed_code: bool = False


def run_sweep(spec: SweepSpec, results_dir: str | Path, options: RunnerOptions | None = None,
              code: dict | None = None) -> SweepResult:
    """Run every case of ``spec`` not already in ``results_dir/<experiment>/<label>``.

    Parameters
    ----------
    spec : SweepSpec
        What runs: the expanded grid and what the records keep
        (:meth:`SweepSpec.of`, or :func:`sweep_spec` from experiment configs);
        ``run.json`` records it (:mod:`ccexp.runner.spec`).
    results_dir : path
        Parent folder; records go to ``results_dir/<experiment>/<spec.label>/records.parquet``
        (:func:`ccexp.runner.layout.experiment_dir`).
    options : RunnerOptions, optional
        How it runs; default ``RunnerOptions()``.
    code : dict, optional
        :func:`ccexp.runner.provenance.git_state` taken by the caller before
        anything was written (default: taken here, before any case runs).

    Notes
    -----
    Workers only compute: records travel back to this process, which alone
    writes the results store (and, in ``__main__``, logs to MLflow).  This
    function is the loop: each task goes to :func:`ccexp.runner.execute.run_instance`
    (joblib), and what wraps the loop (the folder's lock, the backend, the
    progress bar) are contexts and what it stores and writes to ``run.json``
    (:class:`_Bookkeeping`) is called from it, so none of them stands between
    the command line and the estimators (issue 30: a parameter reaches its use
    in few calls).
    """
    t_start = time.perf_counter()
    opt = options or RunnerOptions()
    out_dir = experiment_dir(results_dir, spec.experiment, spec.label or PAPER_SCALE)
    if len(set(spec.case_ids)) != len(spec.case_ids):
        raise ValueError(f"experiment {spec.experiment!r} expands to duplicate cases; check its sweep")
    # the code's state before this run writes anything (reports land in tracked folders)
    code = code if code is not None else git_state()
    with _sweep_lock(out_dir, spec.experiment, opt.wait_for_lock):
        book = _Bookkeeping(spec, out_dir, t_start, code, opt)
        if book.tasks:
            # Compile the kernels in this process first: numba caches them on
            # disk, so workers load instead of compiling side by side.
            warm_up(spec.algorithms)
            with contextlib.closing(book.bar), terminate_as_interrupt(), _backend(
                    opt.backend, opt.address, opt.local_cluster, opt.wait_for_workers) as worker_lost:
                try:
                    for attempt in range(opt.max_retries + 1):
                        try:
                            with _parallel(opt.backend, opt.n_jobs) as parallel:
                                # one job: the tasks run here, one after the other, as joblib's sequential backend
                                # would run them, without its frames between this loop and the task (issue 30)
                                done = (map(run_instance, book.tasks, itertools.repeat(book.context)) if parallel is None
                                        else parallel(delayed(run_instance)(t, book.context) for t in book.tasks))
                                try:
                                    for records in done:
                                        book.store(records)
                                finally:
                                    _close_quietly(done)
                            break
                        except worker_lost as exc:
                            book.worker_died(exc, attempt)  # the tasks not stored yet, or SweepInterrupted
                except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM: run.json says so; what is stored stays
                    raise book.interrupted(getattr(exc, "signum", signal.SIGINT)) from None
        return book.finish()


def sweep_spec(experiment: dict, dataset: dict, oracle: dict, algorithms: dict[str, dict] | None = None,
               label: str | None = None, targets: dict | None = None, progress: bool = False) -> SweepSpec:
    """The :class:`SweepSpec` of a scaled experiment config, its base dataset and oracle configs.

    For callers that hold configs rather than a resolved run (tests, scripts):
    ``python -m ccexp`` builds the spec from :func:`ccexp.runner.config.resolve_run`'s
    expansion instead.  ``algorithms``: each algorithm's parameters (default:
    :func:`ccexp.runner.grid.expand`'s); ``label``: the results folder
    (default the scale); ``progress``: a bar while a large grid expands.
    """
    n_cases = count_cases(experiment)
    cases = expand(experiment, dataset, oracle, algorithms=algorithms,
                   progress=n_cases if progress and n_cases >= LARGE_GRID else None)
    return SweepSpec.of(experiment, cases, label=label, targets=targets)


def _load_average() -> list[float] | None:
    """The machine's load average over 1, 5 and 15 minutes (None where the platform has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


class _Bookkeeping:
    """What one sweep of a results folder stores and records around its loop (:func:`run_sweep`).

    Built under the folder's lock: reads what is stored (a resume skips the
    cases done), refuses to mix code versions (:func:`_check_resume`),
    decides the ``tasks`` (cases grouped by instance) and writes ``run.json``
    as running.  :meth:`store` keeps each task's records as they arrive,
    :meth:`worker_died` decides what runs again, :meth:`finish` consolidates
    the store and writes ``run.json`` as finished.
    """

    #: seconds between two progress writes of ``run.json`` (a killed run's resume adds its wall time)
    every = 30.0

    def __init__(self, spec: SweepSpec, out_dir: Path, t_start: float, code: dict, opt: RunnerOptions):
        self.spec, self.out_dir, self.t_start, self.code, self.opt = spec, out_dir, t_start, code, opt
        name, cases, case_ids = spec.experiment, spec.cases, spec.case_ids
        self.grid_ids = grid_ids = set(case_ids)
        self.result_store = store = ResultStore(out_dir)
        self.previous = previous = read_run_info(out_dir / "run.json")  # of the run(s) that made the stored records
        existing = store.load()
        existing = existing[existing["case_id"].isin(grid_ids)] if len(existing) else existing
        stored = set(existing["case_id"]) if len(existing) else set()
        done = (set(existing.loc[existing["status"] != "error", "case_id"]) if opt.retry_errors and "status" in existing
                else stored)
        n_retried_ids = len((stored - done) & grid_ids)
        if store.moved_aside:
            log.warning("%s: %d unreadable store file(s) moved aside; their cases are run again", name,
                        len(store.moved_aside))
        tasks = _by_instance(c for c, i in zip(cases, case_ids) if i not in done)
        if opt.max_tasks is not None:
            tasks = tasks[:opt.max_tasks]
        self.tasks = tasks
        self.todo = todo = [c for t in tasks for c in t]  # this call's cases; a retry runs those not stored yet
        kept = existing[existing["case_id"].isin(done)] if len(existing) else existing  # records this run keeps
        _check_resume(name, out_dir, kept, code["code_version"], len(todo), opt.allow_mixed_code)
        self.n_retried = n_retried = sum(c.case_id in stored for c in todo)
        # what every task needs besides its cases; a loky worker exits when this process dies (driver_pid,
        # execute.die_with_parent)
        self.context = {**spec.worker_context(), "code_version": code["code_version"],
                        "driver_pid": os.getpid() if opt.backend in ("loky", "multiprocessing") else None}
        recorded = spec.to_json()
        self.grid = recorded.pop("grid")  # written last: the bookkeeping stays at the top of run.json
        self.info = {
            **recorded, "code_version": code["code_version"], "n_cases": len(cases),
            "status": "running", "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "n_pending": len(todo), "n_retried": n_retried, "runner": asdict(opt),
            "git": code, "machine": machine(), "packages": package_versions(),
        }
        # the runs that made the records this grid keeps: their wall times add up (issue 32)
        self.before = earlier_runs(previous) if done & grid_ids else []
        # nothing to run after a finished run: run.json stays that of the runs that made the records
        self.keep = not todo and bool(self.before) and previous.get("status") == "finished"
        # with the wall time, what says whether it was spent computing: the fits' summed wall and CPU times and
        # the machine's load average (1, 5, 15 min) when this run started and at its last write
        self.this_run = {"started_at": self.info["started_at"], "finished_at": None, "wall_seconds": 0.0, "n_run": 0,
                         "code_version": code["code_version"], "status": "running", "fit_seconds_summed": 0.0,
                         "fit_cpu_seconds_summed": 0.0, "load_average": {"start": _load_average(), "end": None}}
        if not self.keep:
            self._write(0.0, 0)
        self.n_pending = n_pending = len(todo)
        log.info("%s: %d cases, %d done, %d to run%s", name, len(cases), len(done & grid_ids), n_pending,
                 f" ({n_retried} of them after an error)" if n_retried else
                 (f"; {n_retried_ids} in error (runner.retry_errors=true runs them again)" if n_retried_ids else ""))
        self.worker_peaks: dict = {}
        self.n_stored, self.last_write = 0, time.perf_counter()
        self.bar = (tqdm(total=n_pending, desc=name, unit="case", disable=not opt.progress, smoothing=0.05)
                    if tasks else None)  # closed by run_sweep

    def _write(self, seconds: float, n_stored: int, status: str = "running") -> None:
        """``run.json`` with this run's progress (its wall time so far adds to the earlier runs')."""
        self.this_run.update(wall_seconds=round(seconds, 3), n_run=n_stored, status=status)
        self.this_run["load_average"]["end"] = _load_average()
        self.info.update(runs=[*self.before, self.this_run], wall_seconds=total_wall_seconds([*self.before, self.this_run]))
        write_text_atomic(self.out_dir / "run.json", dumps_run_info({**self.info, "grid": self.grid}))

    def store(self, records: list[dict]) -> None:
        """Store a task's records as it returns; note its worker's peak memory; log the cases in error;
        write ``run.json``'s progress at most every :attr:`every` seconds."""
        for r in records:  # the worker's (host, pid) and peak RSS after the task, not stored
            if "_worker" in r:
                key, rss = r["_worker"]
                self.worker_peaks[key] = max(self.worker_peaks.get(key, 0), rss)
        self.result_store.append(records)
        for key in ("fit_seconds", "fit_cpu_seconds"):
            total = sum(v for r in records if isinstance(v := r.get(key), float) and math.isfinite(v))
            self.this_run[f"{key}_summed"] = round(self.this_run[f"{key}_summed"] + total, 3)
        self.bar.update(len(records))
        self.n_stored += len(records)
        if time.perf_counter() - self.last_write >= self.every:
            self._write(time.perf_counter() - self.t_start, self.n_stored)
            self.last_write = time.perf_counter()
        for r in records:
            if r.get("status") == "error":
                log.warning("case %s (%s) failed: %s", r["case_id"], r["algorithm"], r["error"].splitlines()[0])

    def worker_died(self, exc: BaseException, attempt: int) -> None:
        """A worker died: the stored records stay and the tasks not stored yet run again, or :class:`SweepInterrupted`."""
        name, opt = self.spec.experiment, self.opt
        now = self.result_store.done_ids(retry_errors=opt.retry_errors)
        ran = {c.case_id for c in self.todo} - now  # not stored yet (or still only as an old error)
        self.tasks = _by_instance(c for c in self.todo if c.case_id in ran)
        n_left = sum(len(t) for t in self.tasks)
        if attempt == opt.max_retries:
            raise SweepInterrupted(
                f"{name}: a worker died ({type(exc).__name__}: {exc}) and kept dying in "
                f"{opt.max_retries} retries; {self.n_pending - n_left} of {self.n_pending} cases are stored, "
                f"{n_left} are not. Rerun the same command to resume."
            ) from exc
        log.warning("%s: a worker died (%s); running the %d cases not stored yet again (retry %d of %d)",
                    name, type(exc).__name__, n_left, attempt + 1, opt.max_retries)

    def interrupted(self, signum: int = signal.SIGINT) -> Interrupted:
        """Ctrl-C (SIGINT) or SIGTERM in the loop: ``run.json`` as ``interrupted`` with the cases stored; the
        exception to raise.

        Each task's records were stored as it returned (:meth:`store`), so a
        rerun of the same command resumes from them, as after a kill.
        """
        self.info["status"] = "interrupted"
        self._write(time.perf_counter() - self.t_start, self.n_stored, status="interrupted")
        how = "" if signum == signal.SIGINT else f" ({signal.Signals(signum).name})"
        return Interrupted(f"{self.spec.experiment}: interrupted{how}; {self.n_stored} of {self.n_pending} cases "
                           f"are stored in {self.out_dir}: rerun the same command to resume", signum)

    def finish(self) -> SweepResult:
        """Consolidate the store; ``run.json`` as finished (or as the earlier runs left it: nothing ran)."""
        df = self.result_store.consolidate()
        if len(df):
            df = df[df["case_id"].isin(self.grid_ids)].reset_index(drop=True)
        seconds = time.perf_counter() - self.t_start
        code_version = self.code["code_version"]
        result = SweepResult(df, self.out_dir, len(self.spec.cases), self.n_pending, seconds, code_version,
                             self.n_retried)
        if self.keep:
            log.info("%s: every case was stored already; %s keeps the wall time of the run(s) that made them (%.1f s)",
                     self.spec.experiment, self.out_dir / "run.json", total_wall_seconds(self.before))
            result.provenance = self.previous
            return result
        peaks = self.worker_peaks
        self.info.update({
            "code_versions": _versions(df),  # cases per code version (more than one: runner.allow_mixed_code)
            "status": "finished", "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "n_errors": result.n_errors,
            "peak_rss_bytes": {"driver": peak_rss(), "workers": max(peaks.values(), default=None),
                               "per_worker": {str(k): v for k, v in sorted(peaks.items())}},
        })
        self.this_run["finished_at"] = self.info["finished_at"]
        self._write(seconds, self.n_pending, status="finished")  # wall_seconds: the earlier runs' and this one's
        result.provenance = {**self.info, "grid": self.grid}
        return result


def _close_quietly(done: Iterator) -> None:
    """Close the loop's iterator now, in this thread, without joblib's warning about results not used.

    Interrupted while storing (Ctrl-C or SIGTERM between two records), joblib's
    generator stays alive in the traceback's frames and is closed only when
    the exception is freed: after ``__main__`` has printed its one line, so
    that joblib's "tasks have been successfully executed but not used"
    warning became the last line on stderr.  Those tasks are not lost: a
    rerun computes them again, as the one line says.
    """
    close = getattr(done, "close", None)  # map() (one job) has nothing to close
    if close is not None:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*tasks have been successfully executed", category=UserWarning)
            close()


@contextlib.contextmanager
def _parallel(backend: str, n_jobs: int) -> Iterator[Parallel | None]:
    """The joblib ``Parallel`` of one attempt: records come back as each task ends (``generator_unordered``).

    ``None`` for one job on this machine (``n_jobs=1``, any backend but Dask): the sweep then calls the tasks
    itself, in order, in this process, which is what joblib does for ``n_jobs=1``.
    """
    if backend != "dask" and n_jobs == 1:
        yield None
    elif backend == "dask":
        # The backend of dask_client's parallel_config, sized by the cluster.
        # Every task goes to the scheduler at once (tasks are small): an
        # adaptive cluster (dask-jobqueue's adapt()) scales to the whole
        # queue, not to the workers present when the sweep started.
        yield Parallel(n_jobs=-1, return_as="generator_unordered", batch_size=1, pre_dispatch="all")
    elif backend == "loky":
        # each worker exits when this process dies, from its start (execute.die_with_parent): a killed driver
        # left its workers computing for minutes (issue 33)
        with parallel_config(backend="loky", initializer=die_with_parent, initargs=(os.getpid(),)):
            yield Parallel(n_jobs=n_jobs, return_as="generator_unordered", batch_size=1)
    else:
        yield Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered", batch_size=1)
