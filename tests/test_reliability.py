"""A sweep interrupted anywhere resumes without losing or duplicating a record.

Covered here: a worker killed with SIGKILL (the driver retries the pending
tasks, or stops with a "rerun to resume" error), a case that raises, a part
file write that fails or is killed half way, and ``consolidate`` interrupted
between writing ``records.parquet`` and removing the parts.  The driver
killed with SIGKILL halfway is ``tests/test_runner.py::test_killed_sweep_completes_on_rerun``.
"""

import functools
import json
import logging
import os
import signal
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numba import njit

import ccexp
from ccexp.registry import ALGORITHMS
from ccexp.runner import sweep
from ccexp.runner import execute
from ccexp.runner.execute import interrupt_in, run_instance
from ccexp.runner.grid import expand
from ccexp.runner.store import ResultStore
from ccexp.runner.sweep import RunnerOptions, SweepInterrupted, run_sweep, sweep_spec

from _sweeps import DATASET, ORACLE, SMALL
# not results: the git commit (another commit may land in the tree between two runs), and every timing: a column
# whose name holds "seconds", the rule of scripts/compare_records.py (a new timing needs no edit here)
NOT_RESULTS = ("code_version",)


def _all_case_ids():
    return sorted(c.case_id for c in expand(SMALL, DATASET, ORACLE))


def _comparable(df):
    cols = sorted(c for c in df.columns if c not in NOT_RESULTS and "seconds" not in c)
    return df[cols].sort_values("case_id").reset_index(drop=True)


def _count_appends(monkeypatch) -> Counter:
    """Count, per case id, the records the driver hands to the store."""
    counts = Counter()
    append = ResultStore.append

    def counting(self, records):
        counts.update(r["case_id"] for r in records)
        return append(self, records)

    monkeypatch.setattr(ResultStore, "append", counting)
    return counts


# --- a worker killed with SIGKILL ---------------------------------------------------------------
# These run in loky worker processes (pickled by reference to this module).


def _killing_run_instance(marker: str | None, target: str, cases, context):
    """``run_instance``, but the worker SIGKILLs itself on ``target``'s instance
    (once, leaving ``marker``; every time if ``marker`` is None)."""
    if cases[0].instance.instance_id == target and (marker is None or not os.path.exists(marker)):
        if marker is not None:
            Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return run_instance(cases, context)


def _target_instance():
    cases = expand(SMALL, DATASET, ORACLE)
    return cases[len(cases) // 2].instance.instance_id  # one in the middle of the sweep


@pytest.mark.slow
def test_a_killed_worker_costs_a_retry_not_a_record(tmp_path, monkeypatch, caplog):
    marker = tmp_path / "killed-once"
    monkeypatch.setattr(sweep, "run_instance", functools.partial(_killing_run_instance, str(marker), _target_instance()))
    appended = _count_appends(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="ccexp"):
        res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path / "killed", RunnerOptions(n_jobs=2, progress=False))
    assert marker.exists()  # a worker did die
    assert "a worker died (TerminatedWorkerError)" in caplog.text and "retry 1 of 2" in caplog.text
    assert sorted(appended) == _all_case_ids() and set(appended.values()) == {1}  # each record written once
    assert sorted(res.records["case_id"]) == _all_case_ids()
    monkeypatch.undo()
    clean = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path / "clean", RunnerOptions(n_jobs=1, progress=False))
    pd.testing.assert_frame_equal(_comparable(res.records), _comparable(clean.records))


@pytest.mark.slow
def test_a_worker_that_keeps_dying_stops_the_sweep_and_a_rerun_resumes(tmp_path, monkeypatch):
    target = _target_instance()
    monkeypatch.setattr(sweep, "run_instance", functools.partial(_killing_run_instance, None, target))
    with pytest.raises(SweepInterrupted, match="kept dying in 1 retries.*Rerun the same command to resume"):
        run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=2, progress=False, max_retries=1))
    stored = ResultStore(tmp_path / "small" / "test").load()
    assert 0 < len(stored) < len(_all_case_ids())  # what finished is kept
    assert target not in set(stored["instance_id"])
    monkeypatch.undo()
    appended = _count_appends(monkeypatch)
    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    assert res.n_run == len(appended) == len(_all_case_ids()) - len(stored)  # only the missing cases ran
    assert sorted(res.records["case_id"]) == _all_case_ids()


# --- a case that raises -------------------------------------------------------------------------


def _deep(depth: int):
    if depth == 0:
        raise FloatingPointError("the innermost frame")
    _deep(depth - 1)


def test_a_raising_case_is_recorded_with_its_innermost_frames_and_the_sweep_goes_on(tmp_path, monkeypatch):
    class Deep(ccexp.algorithms.triplets.LsADVC):
        def fit_problem(self, problem):
            _deep(8)  # deeper than the kept frames: the summary must end where it raised

    monkeypatch.setitem(ALGORITHMS._items, "ls_eq", Deep)
    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    df = res.records.set_index("algorithm")
    assert sorted(res.records["case_id"]) == _all_case_ids()
    assert (df.loc["ls_ad_vc", "status"] == "ok").all()  # the other algorithm of every instance ran
    failed = df.loc["ls_eq"]
    assert (failed["status"] == "error").all()
    for error in failed["error"]:
        assert error.splitlines()[0] == "FloatingPointError: the innermost frame"
        assert "raise FloatingPointError" in error and 'in _deep' in error
        assert len(error) < 2000  # a summary, not the whole stack
    # the errors are records like the others: a rerun runs nothing again
    assert run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False)).n_run == 0


# --- Ctrl-C or SIGTERM inside a kernel -----------------------------------------------------------


@njit(cache=False)
def _arrays(n):
    a = np.empty(n)
    for i in range(n):
        a[i] = np.sqrt(i)
    return a, a[:3].copy()


def _interrupt_during_kernels() -> BaseException:
    """What escapes a loop of array-returning numba calls when a signal handler raises KeyboardInterrupt.

    The handler is run by CPython at its next check; when that falls while the dispatcher returns, the caller
    gets a SystemError (a result with an exception set) instead: most of the time, so a few timer offsets
    find one.
    """
    def handler(signum, frame):
        raise KeyboardInterrupt("the timer's interrupt")

    _arrays(10)  # compiled before the timer runs
    previous = signal.signal(signal.SIGALRM, handler)
    try:
        for attempt in range(200):
            signal.setitimer(signal.ITIMER_REAL, 0.0003 + 1e-5 * attempt)
            try:
                while True:
                    _arrays(2000)
            except SystemError as exc:
                return exc
            except KeyboardInterrupt:
                continue  # fell between two calls: try another offset
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    pytest.fail("no interrupt came back as a SystemError in 200 tries")


def test_an_interrupt_that_comes_back_as_a_system_error_is_found_in_it():
    exc = _interrupt_during_kernels()
    assert isinstance(exc, SystemError) and "returned a result with an exception set" in str(exc)
    stop = interrupt_in(exc)
    assert isinstance(stop, KeyboardInterrupt) and str(stop) == "the timer's interrupt"
    assert interrupt_in(SystemError("a kernel's own failure")) is None
    assert interrupt_in(ValueError("x")) is None


def test_ctrl_c_inside_a_kernel_stops_the_sweep_and_records_no_error(tmp_path, monkeypatch):
    """At ``runner.n_jobs=1`` the cases run in the driver: Ctrl-C (or SIGTERM) arriving while a numba kernel
    returns used to be recorded as the case's SystemError, and the sweep went on.  Now it stops the sweep
    (``run.json``: interrupted), no error is stored, and a rerun completes every case once."""
    target = _target_instance()

    class Interrupting(ccexp.algorithms.triplets.LsADVC):
        def fit_problem(self, problem):
            if _CURRENT["instance"] == target:
                raise _interrupt_during_kernels()
            return super().fit_problem(problem)

    _CURRENT = {}
    real_build = execute.build_problem

    def tracking_build(inst, *args, **kwargs):
        _CURRENT["instance"] = inst.instance_id
        return real_build(inst, *args, **kwargs)

    monkeypatch.setattr(execute, "build_problem", tracking_build)
    monkeypatch.setitem(ALGORITHMS._items, "ls_eq", Interrupting)
    with pytest.raises(KeyboardInterrupt, match="interrupted.*stored"):
        run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    out = tmp_path / "small" / "test"
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"
    stored = ResultStore(out).load()
    assert 0 < len(stored) < len(_all_case_ids()) and (stored["status"] == "ok").all()
    assert target not in set(stored["instance_id"])  # nothing of the interrupted instance
    monkeypatch.undo()
    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    assert res.n_run == len(_all_case_ids()) - len(stored)
    assert sorted(res.records["case_id"]) == _all_case_ids() and (res.records["status"] == "ok").all()


# --- atomic parquet writes ----------------------------------------------------------------------


def test_a_part_write_that_fails_half_way_leaves_no_part_and_a_rerun_completes(tmp_path, monkeypatch):
    to_parquet = pd.DataFrame.to_parquet
    calls = []

    def dies_on_the_second_write(self, path, *args, **kwargs):
        calls.append(path)
        if len(calls) == 2:
            Path(path).write_bytes(b"PAR1\x15\x04\x15")  # the first bytes of a parquet file, then the disk fills
            raise OSError(28, "No space left on device")
        return to_parquet(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", dies_on_the_second_write)
    with pytest.raises(OSError, match="No space left"):
        run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    monkeypatch.undo()
    parts = tmp_path / "small" / "test" / "parts"
    assert [p.name for p in parts.iterdir()] == [Path(calls[0]).name.removeprefix(".").rsplit(".", 2)[0]]  # .NAME.<writer>.tmp
    store = ResultStore(tmp_path / "small" / "test")
    assert len(store.load()) == 2  # the first task's records; nothing of the failed write
    # a driver killed during a write leaves its temporary file: never read, removed by consolidate
    (parts / ".part-killed.parquet.tmp").write_bytes(b"PAR1")
    assert len(store.load()) == 2
    appended = _count_appends(monkeypatch)
    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    assert res.n_run == len(appended) == len(_all_case_ids()) - 2
    assert sorted(res.records["case_id"]) == _all_case_ids()
    assert not list(parts.iterdir())


def test_consolidate_interrupted_before_removing_the_parts_duplicates_nothing(tmp_path, monkeypatch):
    run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False, max_tasks=2))
    store = ResultStore(tmp_path / "small" / "test")
    # run_sweep consolidated; append two more tasks' worth of parts by hand
    first = store.load()
    more = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path / "other", RunnerOptions(n_jobs=1, progress=False)).records
    more = more[~more["case_id"].isin(first["case_id"])].head(4)
    store.append(more.to_dict("records"))

    class Killed(BaseException):
        pass

    def crash(self, missing_ok=False):
        raise Killed  # the driver dies right after records.parquet was replaced

    monkeypatch.setattr(Path, "unlink", crash)
    with pytest.raises(Killed):
        store.consolidate()
    monkeypatch.undo()
    on_disk = len(pd.read_parquet(store.records_path)) + sum(len(pd.read_parquet(p)) for p in store._part_files())
    assert on_disk == len(first) + 2 * len(more)  # every new record is there twice ...
    loaded = store.load()
    assert len(loaded) == loaded["case_id"].nunique() == len(first) + len(more)  # ... and read once
    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    assert res.n_run == len(_all_case_ids()) - len(first) - len(more)
    assert sorted(res.records["case_id"]) == _all_case_ids()
    assert not store._part_files()


def test_interrupted_while_storing_the_one_line_stays_the_last_word(tmp_path, monkeypatch):
    """Ctrl-C (or SIGTERM) while the driver stores a record, with tasks finished but not yet taken from
    joblib: the generator used to be closed only when the exception was freed, after ``__main__`` printed its
    line, and joblib's warning "tasks have been successfully executed but not used" became stderr's last line
    (CI, stop 55).  The sweep now closes it where it stops, and that warning never comes."""
    import gc
    import time
    import warnings

    real_store, real_run = sweep._Bookkeeping.store, sweep.run_instance
    calls, finished = [], []

    def counting_run(*args):
        out = real_run(*args)
        finished.append(1)
        return out

    def store_then_interrupt(book, records):
        calls.append(1)
        if len(calls) == 2:
            deadline = time.time() + 60
            while len(finished) <= len(calls) and time.time() < deadline:
                time.sleep(0.01)  # the other worker finishes a task meanwhile: a result ready, not taken
            time.sleep(0.1)  # joblib counts it in its callback, after the task returns
            raise KeyboardInterrupt
        return real_store(book, records)

    monkeypatch.setattr(sweep, "run_instance", counting_run)
    monkeypatch.setattr(sweep._Bookkeeping, "store", store_then_interrupt)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(KeyboardInterrupt, match="interrupted.*stored") as excinfo:
            run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path,
                      RunnerOptions(n_jobs=2, backend="threading", progress=False))
        del excinfo
        gc.collect()  # what freeing the exception at exit did: close the generator if nothing closed it
    assert len(finished) > len(calls)  # the case this test is about: a result was ready and not taken
    assert not [w for w in caught if "successfully executed" in str(w.message)], [str(w.message) for w in caught]
    assert json.loads((tmp_path / "small" / "test" / "run.json").read_text())["status"] == "interrupted"
