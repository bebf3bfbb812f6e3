"""Run one instance (dataset draw + oracle draw) with all its pending algorithms.

This is the unit of parallel work: it runs in a joblib worker and returns
plain records.  Ground truth goes from the dataset to the scorer only.
"""

from __future__ import annotations

import ctypes
import inspect
import os
import signal
import socket
import sys
import time
import traceback

import numpy as np
from threadpoolctl import threadpool_limits

from ..capabilities import oracle_produces
from ..cc.contingency import adjusted_rand_fast, ari_ami
from ..data import DataChecksumError, MissingDataError
from ..metrics import adjusted_rand, score
from ..objectives import problem_objective
from ..registry import ALGORITHMS
from .grid import Case, Instance, flatten
from .objects import build, registered_target
from .provenance import peak_rss
from .seeding import seed_sequence

# Frames of a failing case's traceback kept in its record: the innermost ones, where it raised.
_TRACEBACK_FRAMES = 6

# Estimator classes whose kernels this process has compiled already.
_WARM: set[type] = set()


def warm_up(algorithms) -> None:
    """Compile (or load from numba's cache) each algorithm's kernels once per process."""
    for name in algorithms:
        cls = ALGORITHMS.get(name)
        if cls not in _WARM:
            cls.warmup()
            _WARM.add(cls)


def _instance_rngs(inst: Instance):
    ds_seq, oracle_seq = seed_sequence(inst.key).spawn(2)
    return np.random.default_rng(ds_seq), np.random.default_rng(oracle_seq)


def _target(targets: dict | None, group: str, name: str):
    """The ``_target_`` of ``name`` as the run resolved it (:attr:`RunSpec.targets`), else the registered object's."""
    own = (targets or {}).get(group) or {}
    return own[name] if name in own else registered_target(group, name)


def build_dataset(inst: Instance, targets: dict | None = None):
    """The dataset of an instance alone (its points and ground truth, as :func:`build_problem` draws them).

    ``targets``: the run's ``_target_`` of each name (:func:`ccexp.runner.config.run_targets`).
    """
    ds_rng, _ = _instance_rngs(inst)
    return build(_target(targets, "dataset", inst.dataset["name"]), inst.dataset, random_state=ds_rng)


def build_problem(inst: Instance, targets: dict | None = None):
    """The dataset and the noisy problem of an instance (same for every algorithm); ``targets`` as in :func:`build_dataset`."""
    ds_rng, oracle_rng = _instance_rngs(inst)
    dataset = build(_target(targets, "dataset", inst.dataset["name"]), inst.dataset, random_state=ds_rng)
    problem = build(_target(targets, "oracle", inst.oracle["name"]), inst.oracle, dataset, random_state=oracle_rng)
    return dataset, problem


def convergence_stop(y, rule: dict | None):
    """A callback that stops an active run once its curve has converged, or None.

    The rule may use the ground truth ``y`` (the estimator never sees it):
    stop after ``patience`` consecutive clusterings with ARI >= ``threshold``.
    The report holds a stopped curve at its last value, as the paper's
    curves stay at an ARI of 1 once reached.
    """
    if not rule or y is None:
        return None
    threshold = float(rule.get("threshold", 1.0))
    patience = int(rule.get("patience", 5))
    streak = [0]

    def callback(n_queries, labels) -> bool:
        ari = adjusted_rand_fast(y, labels)
        callback.ari.append(ari)  # one per clustering, reused by history_trace
        streak[0] = streak[0] + 1 if ari >= threshold else 0
        return streak[0] >= patience

    callback.ari = []
    return callback


def history_trace(history, y, metrics=("ari", "ami"), ari=None) -> list[dict]:
    """One row per entry of an estimator's ``history_``: step, n_queries, scores, numeric extras.

    ARI and AMI come from one numba contingency table per step (equal to
    scikit-learn's to ~1e-12, ``tests/test_contingency.py``); ``ari``, the
    values the convergence rule computed for the same clusterings, is
    reused when it covers every step.
    """
    unknown = set(metrics) - {"ari", "ami"}
    if unknown:
        raise ValueError(f"trace_metrics: unknown {sorted(unknown)}; known: ['ami', 'ari']")
    known_ari = ari if ari is not None and len(ari) == len(history) else None
    rows = []
    last = last_scores = None
    for step, h in enumerate(history):
        row = {"step": step, "n_queries": int(h["n_queries"])}
        labels = h.get("labels")
        if labels is not None and y is not None:
            need_ari = "ari" in metrics and known_ari is None
            # an active run repeats its clustering in 20-45% of steps (labels numbered by first
            # appearance, so equal arrays are equal partitions): the same input, the same scores
            if last is None or not np.array_equal(labels, last):
                last, last_scores = labels, ari_ami(y, labels, ari=need_ari, ami="ami" in metrics)
            r, m = last_scores
            if known_ari is not None:
                r = known_ari[step]
            for name in metrics:
                row[name] = r if name == "ari" else m
        for k, v in h.items():
            if k not in ("labels", "n_queries") and isinstance(v, (int, float, np.integer, np.floating, bool, np.bool_)):
                row[k] = float(v)
        rows.append(row)
    return rows


#: what ``experiment.record`` may ask the records to keep besides the metrics (a report that needs it reads it
#: from the records instead of rebuilding the instance and refitting):
#:
#: - ``labels``: each case's clustering (space-separated cluster ids, item order); kept anyway when the
#:   dataset has no ground truth to score against;
#: - ``truth_objective``: the objective values of the ground-truth labels under the instance's supervision,
#:   as ``truth.<name>`` (Gionis et al.'s "Class labels" rows of Tables 2 and 3);
#: - ``inputs``: for a problem of input clusterings, each input's ARI against the ground truth and its labels,
#:   as ``input.<method>.ari`` and ``input.<method>.labels`` (Gionis et al.'s Figure 3).
RECORD_OPTIONS = ("labels", "truth_objective", "inputs")


def _labels_text(labels) -> str:
    return " ".join(map(str, np.asarray(labels).tolist()))


def instance_extras(dataset, problem, record) -> dict:
    """The instance-level values ``record`` (a subset of :data:`RECORD_OPTIONS`) asks for; see there."""
    out: dict = {}
    if dataset.y is None:
        return out
    if "truth_objective" in record:
        out.update({f"truth.{k}": v for k, v in problem_objective(dataset.y, problem).items()})
    if "inputs" in record and getattr(problem, "clusterings", None) is not None:
        rows = np.asarray(problem.clusterings)
        names = str(problem.meta.get("methods") or "").split(",")
        if len(names) != rows.shape[0]:
            names = [str(i) for i in range(rows.shape[0])]
        for name, row in zip(names, rows):
            out[f"input.{name}.ari"] = adjusted_rand(dataset.y, row)
            out[f"input.{name}.labels"] = _labels_text(row)
    return out


def interrupt_in(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM (a :class:`KeyboardInterrupt`) that ``exc`` stands for, if any; else None.

    A signal handler that raises while a numba function returns its arrays
    leaves CPython with a result and an exception at once: the caller gets
    ``SystemError("... returned a result with an exception set")``, whose
    ``__cause__`` (sometimes two ``SystemError`` deep) is the interrupt.
    Measured: of 200 timer-raised interrupts during calls of an array-returning
    kernel, 160 came back as a ``SystemError``.  Recorded as the case's error,
    that Ctrl-C was lost: the sweep went on, and the case stayed failed for
    good (a rerun retries errors only with ``runner.retry_errors=true``).
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def _error_record(rec: dict, exc: BaseException, where: str = "") -> dict:
    """``rec`` with ``status="error"`` and the exception with the innermost frames of its traceback."""
    rec["status"] = "error"
    what = f" (while {where})" if where else ""
    rec["error"] = f"{type(exc).__name__}: {exc}{what}\n{traceback.format_exc(limit=-_TRACEBACK_FRAMES)}"
    return rec


_GUARDED: list[int] = []  # the driver this worker process already dies with
#: prctl's option number (linux/prctl.h)
PR_SET_PDEATHSIG = 1


def die_with_parent(driver_pid: int | None) -> None:
    """Make this worker process exit when the driver ``driver_pid``, its parent, dies (once per process).

    A loky worker outlived a ``kill -9`` of its driver by minutes, computing
    a case nobody would store (issue 33, item 15).  On Linux the kernel
    sends the worker SIGKILL when its parent dies (``prctl(PR_SET_PDEATHSIG)``,
    no GIL needed, so also in the middle of a numba kernel); a parent already
    gone by then (the worker was still importing) ends the worker at once.
    Called as the loky workers' initializer and again as each task starts;
    nothing is done in the driver itself (a sequential run), where
    ``driver_pid`` is None (a Dask worker, whose parent is its nanny), or,
    for the kernel's guard, off Linux.
    """
    if driver_pid is None or driver_pid in _GUARDED or os.getpid() == driver_pid:
        return
    if os.getppid() != driver_pid:  # a worker the driver started, and the driver is gone already
        os._exit(1)
    if sys.platform != "linux":
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return
    except (OSError, AttributeError):
        return
    _GUARDED.append(driver_pid)
    if os.getppid() != driver_pid:  # the driver died before the guard was set
        os._exit(1)


#: BLAS / OpenMP threads of a case.  One, for two reasons (issue 31).  Speed: a sweep runs one case per core
#: (loky workers, or the driver itself at ``runner.n_jobs=1``, often beside other sweeps), and a second thread
#: per case oversubscribes the cores (COBRAS on a loaded 2-core machine: 3x the CPU time with 2 threads).
#: Results: OpenBLAS splits a product among its threads by blocks of the output, and an element's rounding
#: depends on the block it falls in, so a product of the same matrices differs in its last bits between one
#: and two threads (COBRAS's centroid distances at a few hundred super-instances).  joblib's loky workers
#: already ran with one thread each (``cpu_count() // n_jobs`` on this machine), the driver at
#: ``n_jobs=1`` with two: now the records are the same at every ``n_jobs``, and equal to those of the
#: committed ``n_jobs=2`` runs.
CASE_THREADS = 1


def run_instance(cases: list[Case], context: dict) -> list[dict]:
    """Run ``cases`` (all of one instance) and return one record per case.

    The task of a sweep (:func:`ccexp.runner.sweep.run_sweep` hands it to
    joblib): it builds the instance's dataset and problem, then for each case
    instantiates the estimator from the case's config (:func:`~ccexp.runner.objects.build`)
    and fits it, so a parameter of the command line reaches the estimator's
    ``fit_problem`` from here (issue 30).

    A failing algorithm yields a record with ``status="error"`` and an
    ``error`` summary (exception, message and the innermost frames of the
    traceback), so one bad case never stops a sweep; so does an instance
    that cannot be built (out of memory, an oracle refusing the setting),
    for each of its cases.  A missing or modified data file is raised: it
    concerns every case of the sweep and is fixed before a rerun, not
    recorded as done.

    Every case runs with one BLAS and one OpenMP thread (:data:`CASE_THREADS`),
    whatever ``runner.n_jobs`` is: see there.
    """
    with threadpool_limits(limits=CASE_THREADS):
        die_with_parent(context.get("driver_pid"))
        inst = cases[0].instance
        warm_up({c.algorithm for c in cases})
        base = _instance_record(inst, cases[0].experiment, context)
        t0 = time.perf_counter()
        try:
            dataset, problem = build_problem(inst, context.get("targets"))
        except (MissingDataError, DataChecksumError):
            raise  # every case of the sweep reads that file: fixed before a rerun, not recorded as done
        except Exception as exc:  # noqa: BLE001 - out of memory, an oracle refusing this setting: each case records it
            if (stop := interrupt_in(exc)) is not None:
                raise stop from None  # Ctrl-C or SIGTERM, not this instance's failure
            return [_error_record(_case_record(base, c), exc, "building the instance") for c in cases]
        base["oracle_seconds"] = time.perf_counter() - t0
        record = set(context.get("record") or ())
        base.update(_problem_record(inst, dataset, problem, record))
        records = []
        for case in cases:
            rec = _case_record(base, case)
            try:
                est = build(_target(context.get("targets"), "algorithm", case.algorithm), case.params,
                            random_state=case.algorithm_seed)
                callback = convergence_stop(dataset.y, context.get("early_stop"))
                takes = callback is not None and "callback" in inspect.signature(est.fit_problem).parameters
                t1, c1 = time.perf_counter(), time.process_time()
                est.fit_problem(problem, **({"callback": callback} if takes else {}))
                rec["fit_seconds"] = time.perf_counter() - t1
                # the CPU time of this process's threads during the fit (BLAS and numba threads included): beside
                # the wall time it tells a fit that computed from one that waited for a core on a loaded machine
                rec["fit_cpu_seconds"] = time.process_time() - c1
                _record_fit(rec, est, dataset, problem, record, context.get("trace_metrics"), callback if takes else None)
            except Exception as exc:  # noqa: BLE001 - recorded, never silent (MemoryError included)
                if (stop := interrupt_in(exc)) is not None:
                    raise stop from None  # Ctrl-C or SIGTERM inside a kernel: stop the sweep, store nothing
                rec = _error_record(rec, exc)
            records.append(rec)
    # this process's peak RSS so far, for run.json (the store drops keys starting with "_")
    if records:
        records[0]["_worker"] = (f"{socket.gethostname()}:{os.getpid()}", peak_rss())
    return records


def _instance_record(inst: Instance, experiment: str, context: dict) -> dict:
    """What every record of an instance starts with: the experiment, the instance and its settings."""
    return {
        "experiment": experiment,
        "paper": context.get("paper"),
        "scale": context.get("scale"),
        "dataset": inst.dataset["name"],
        "oracle": inst.oracle["name"],
        "trial": inst.trial,
        "seed": inst.seed,
        "instance_id": inst.instance_id,
        "code_version": context.get("code_version"),
        "config_hash": context.get("config_hash"),
        **{f"dataset.{k}": v for k, v in inst.dataset.items() if k != "name"},
        **{f"oracle.{k}": v for k, v in inst.oracle.items() if k != "name"},
    }


def _problem_record(inst: Instance, dataset, problem, record: set) -> dict:
    """What the built problem adds to its instance's records (the supervision read, its meta, ``record``'s extras)."""
    # the kind of answers the case read (issue 15): the problem's own word where it gives one (the cross
    # study's "active_pairs"), else what the oracle declares it produces; a reader may restate it
    # (``record_``), as recon_triplets does ("relative")
    out = {"supervision": problem.meta.get("supervision") or oracle_produces(inst.oracle["name"])}
    out.update({f"problem.{k}": v for k, v in problem.meta.items() if k != "supervision"})
    out.update(instance_extras(dataset, problem, record))
    return out


def _case_record(base: dict, case: Case) -> dict:
    """A case's record before it runs: the instance's ``base``, the case, the algorithm's parameters."""
    rec = dict(base, case_id=case.case_id, algorithm=case.algorithm, algorithm_seed=case.algorithm_seed)
    rec.update({f"algorithm.{k}": v for k, v in flatten(case.params).items()})
    return rec


def _record_fit(rec: dict, est, dataset, problem, record: set, trace_metrics, callback) -> None:
    """Add to a case's record ``rec`` what its fitted estimator gives: the scores, and what it reports of its run.

    In place, key by key: a step that raises leaves the keys written before it in the error's record.
    """
    rec.update(score(est.labels_, dataset.y, problem=problem))
    if dataset.y is None:  # no ground truth to score against: keep the clustering itself
        sizes = np.unique(est.labels_, return_counts=True)[1]
        rec["cluster_sizes"] = " ".join(map(str, sorted(sizes.tolist(), reverse=True)))
    if dataset.y is None or "labels" in record:
        rec["labels"] = _labels_text(est.labels_)
    for name, seconds in (getattr(est, "timings_", None) or {}).items():
        rec[f"seconds.{name}"] = seconds
    for attr in ("n_removed_", "n_passes_"):
        if hasattr(est, attr):
            rec[attr.rstrip("_")] = int(getattr(est, attr))
    # values an estimator asks to be recorded (e.g. an LP bound)
    rec.update(getattr(est, "record_", None) or {})
    if getattr(est, "history_", None) is not None:
        # per-step trace, written to traces.parquet by the sweep
        rec["n_queries"] = int(est.history_[-1]["n_queries"]) if est.history_ else 0
        rec["stop_reason"] = getattr(est, "stop_reason_", None)
        rec["_trace"] = history_trace(est.history_, dataset.y, tuple(trace_metrics or ("ari", "ami")),
                                      ari=getattr(callback, "ari", None))
    rec["status"] = getattr(est, "status_", "ok")
