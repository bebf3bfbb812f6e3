"""Results store: long-format parquet, appended as cases finish, resumable, safe to share.

Finished records go to ``parts/part-*.parquet`` (one small file per finished
task, written atomically), so a killed sweep loses at most the tasks in
flight.  On a rerun the case ids already present (in ``records.parquet`` or
in parts) are skipped.  :meth:`ResultStore.consolidate` folds the parts into
``records.parquet``.

Algorithms with a per-step history (active learning) also leave trace rows
(``case_id, step, n_queries, ari, ...``) in ``trace_parts/``, folded into
``traces.parquet`` the same way.

Several processes may share one folder (two sweeps started together, a
report drawn while a sweep runs):

- every writer names its files after its host, pid and a uuid, so no two
  writers ever write or rename the same temporary file;
- reading the parts and folding them into ``records.parquet`` happen under
  one lock (``.store.lock``, the ``filelock`` package), so a consolidation
  never reads a part another is removing, nor writes a ``records.parquet``
  that misses the parts another has just folded in.

A file that cannot be read (truncated, not parquet) is moved aside as
``NAME.corrupt`` with a warning naming it; the cases it held are then simply
missing from the store, so the next sweep recomputes them.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import time
import uuid
from pathlib import Path

import pandas as pd
from filelock import FileLock

log = logging.getLogger("ccexp")

#: seconds a store operation waits for another process's consolidation before giving up
LOCK_TIMEOUT = 600.0

# the host in temporary names: no "-" (field separator) nor "." (suffix separator)
_HOST = re.sub(r"[^A-Za-z0-9_]", "_", socket.gethostname())


def _unique_suffix() -> str:
    """``<ns>-<host>-<pid>-<uuid>``: sorts by creation time, and is never shared by two writers."""
    return f"{time.time_ns():020d}-{_HOST}-{os.getpid()}-{uuid.uuid4().hex[:12]}"


class CorruptFileWarning(UserWarning):
    """A store file could not be read and was moved aside."""


class ResultStore:
    """The records and traces of one results folder (see the module docstring).

    Parameters
    ----------
    directory : path
        The folder ``<results>/<experiment>/<label>/``; created on first write.
    """
    def __init__(self, directory: str | os.PathLike):
        self.dir = Path(directory)
        self.records_path = self.dir / "records.parquet"
        self.parts_dir = self.dir / "parts"
        self.traces_path = self.dir / "traces.parquet"
        self.trace_parts_dir = self.dir / "trace_parts"
        self.lock_path = self.dir / ".store.lock"
        self._lock: FileLock | None = None
        #: files this store moved aside as ``*.corrupt`` (their cases are no longer stored)
        self.moved_aside: list[Path] = []

    def lock(self) -> FileLock:
        """The folder's consolidation lock (one object per store: re-entrant in this process)."""
        if self._lock is None:
            self.dir.mkdir(parents=True, exist_ok=True)
            self._lock = FileLock(self.lock_path, timeout=LOCK_TIMEOUT)
        return self._lock

    def _part_files(self) -> list[Path]:
        return sorted(self.parts_dir.glob("part-*.parquet")) if self.parts_dir.exists() else []

    def has_records(self) -> bool:
        """Whether the folder holds any records: the consolidated file or parts not yet consolidated.

        A report can be drawn while a sweep still runs, from its parts; this
        says whether there is anything to draw without reading the files.
        """
        return self.records_path.exists() or bool(self._part_files())

    def _read(self, path: Path, kind: str = "records") -> pd.DataFrame | None:
        """``path`` as a frame; None if it vanished; moved aside as ``*.corrupt`` if unreadable or malformed.

        Malformed: not the schema the runner writes (:func:`schema_problem`),
        e.g. a part without ``case_id``, which a merge would fold in as a case
        of its own (issue 33, item 6).
        """
        try:
            df = pd.read_parquet(path)
            problem = schema_problem(df, kind)
            if problem:
                raise MalformedFile(f"not a {kind} file of the runner: {problem}")
            return df
        except FileNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001 - pyarrow raises ArrowInvalid, OSError, ... for a bad file
            aside = _aside_name(path)
            try:
                os.replace(path, aside)
            except FileNotFoundError:
                return None
            self.moved_aside.append(aside)
            reason = str(exc).splitlines()[0] if str(exc) else ""
            log.warning(
                "%s is unreadable (%s: %s); moved aside to %s. The cases it held are no longer in the store "
                "and the next sweep of this experiment recomputes them.",
                path, type(exc).__name__, reason[:200], aside.name,
            )
            return None

    def _load_unlocked(self) -> pd.DataFrame:
        frames = []
        for path in [self.records_path, *self._part_files()]:
            if path.exists():
                df = self._read(path)
                if df is not None and len(df):
                    frames.append(df)
        if not frames:
            return pd.DataFrame()
        return _one_per_case(pd.concat(frames, ignore_index=True))

    def load(self) -> pd.DataFrame:
        """All records stored so far (consolidated file and parts), one row per case id.

        Where a case was stored twice (a retried error, or two sweeps that
        ran it side by side), a successful record wins over an error, and
        the earlier of two records of the same kind is kept.
        """
        if not self.dir.exists():
            return pd.DataFrame()
        with self.lock():
            return self._load_unlocked()

    def done_ids(self, retry_errors: bool = False) -> set[str]:
        """Case ids stored; with ``retry_errors``, those that did not end in an error."""
        df = self.load()
        if not len(df):
            return set()
        if retry_errors and "status" in df:
            df = df[df["status"] != "error"]
        return set(df["case_id"])

    @staticmethod
    def _write_part(folder: Path, rows: list[dict]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        _write_atomic(pd.DataFrame.from_records(rows), folder / f"part-{_unique_suffix()}.parquet")

    def append(self, records: list[dict]) -> None:
        """Write ``records`` as one new part file (atomic rename; no lock needed).

        A record's ``_trace`` (a list of per-step rows) goes to the trace
        parts, keyed by the record's ``case_id``; it is written first, so a
        case counted as done always has its trace.  Other keys starting with
        ``_`` are the runner's bookkeeping and are not stored.
        """
        if not records:
            return
        traces = []
        plain = []
        for rec in records:
            trace = rec.get("_trace")
            if trace is not None:
                traces.extend({"case_id": rec["case_id"], **row} for row in trace)
            plain.append({k: v for k, v in rec.items() if not k.startswith("_")})
        if traces:
            self._write_part(self.trace_parts_dir, traces)
        self._write_part(self.parts_dir, plain)

    def _trace_part_files(self) -> list[Path]:
        return sorted(self.trace_parts_dir.glob("part-*.parquet")) if self.trace_parts_dir.exists() else []

    def _load_traces_unlocked(self) -> pd.DataFrame:
        frames = []
        for path in [self.traces_path, *self._trace_part_files()]:
            if path.exists():
                df = self._read(path, "traces")
                if df is not None and len(df):
                    frames.append(df)
        if not frames:
            return pd.DataFrame()
        df = pd.concat(frames, ignore_index=True)
        # a retried case's trace is the last one written
        return df.drop_duplicates(["case_id", "step"], keep="last").reset_index(drop=True)

    def load_traces(self) -> pd.DataFrame:
        """All trace rows stored so far, one per (case_id, step)."""
        if not self.dir.exists():
            return pd.DataFrame()
        with self.lock():
            return self._load_traces_unlocked()

    def consolidate(self) -> pd.DataFrame:
        """Merge the parts into ``records.parquet`` (and ``traces.parquet``) and remove them.

        Runs under the folder's lock: parts written meanwhile by another
        process are either folded in or left for the next consolidation,
        never removed unread.
        """
        self.dir.mkdir(parents=True, exist_ok=True)
        with self.lock():
            trace_parts = self._trace_part_files()
            # Interrupted between the rename and the unlinks, the next load sees
            # each record twice (consolidated and in a part) and keeps it once.
            if trace_parts:
                _write_atomic(self._load_traces_unlocked(), self.traces_path)
                for p in trace_parts:
                    p.unlink(missing_ok=True)
            parts = self._part_files()
            df = self._load_unlocked()
            if parts or (self.moved_aside and len(df)):
                _write_atomic(df, self.records_path)
                for p in parts:
                    p.unlink(missing_ok=True)
            self._remove_dead_temporaries()
        return df

    def _remove_dead_temporaries(self) -> None:
        """Temporary files of writers killed before their rename (never read).

        Only those of a process of this host that no longer runs: a live
        writer's temporary file is about to be renamed.
        """
        for folder in (self.dir, self.parts_dir, self.trace_parts_dir):
            if not folder.exists():
                continue
            for tmp in folder.glob(".*.tmp"):
                owner = _tmp_owner(tmp.name)
                if owner is None or (owner[0] == _HOST and not _pid_alive(owner[1])):
                    tmp.unlink(missing_ok=True)


class MalformedFile(ValueError):
    """A store file that parquet reads but whose columns are not the runner's (see :func:`schema_problem`)."""


#: columns of a record that hold numbers (a metric, a timing, the trial and its seed) when present
NUMERIC_COLUMNS = ("ari", "ami", "f_measure", "precision", "recall", "n_clusters", "objective", "fit_seconds",
                   "fit_cpu_seconds", "oracle_seconds", "trial", "seed", "step", "n_queries")


def schema_problem(df: pd.DataFrame, kind: str = "records") -> str | None:
    """Why ``df`` is not a records (or traces) file the runner wrote, in a few words; None if it is.

    Every row has a text ``case_id`` (a trace row also its ``step``); a
    ``status`` is text; the metric, timing, trial and seed columns
    (:data:`NUMERIC_COLUMNS`) hold numbers.  A file that fails is set aside
    as a truncated one is, so a merge never folds in a row without a case
    or a metric a report cannot average.
    """
    if not len(df.columns):
        return None  # an empty file: nothing to merge
    required = ("case_id", "step") if kind == "traces" else ("case_id",)
    for col in required:
        if col not in df:
            return f"no {col} column"
        if df[col].isna().any():
            return f"{int(df[col].isna().sum())} row(s) without a {col}"
    if not all(isinstance(v, str) for v in df["case_id"]):
        return f"case_id holds {df['case_id'].dtype} values, not text"
    if "status" in df and not all(isinstance(v, str) for v in df["status"].dropna()):
        return f"status holds {df['status'].dtype} values, not text"
    for col in NUMERIC_COLUMNS:
        if col in df and not pd.api.types.is_numeric_dtype(df[col]) and df[col].notna().any():
            return f"{col} holds {df[col].dtype} values, not numbers"
    return None


def _one_per_case(df: pd.DataFrame) -> pd.DataFrame:
    """One row per ``case_id``: the first non-error record, else the last error (a failed retry's)."""
    if "case_id" not in df:
        return df.reset_index(drop=True)
    if "status" not in df:
        return df.drop_duplicates("case_id", keep="first").reset_index(drop=True)
    is_error = df["status"].eq("error")
    ok = df[~is_error].drop_duplicates("case_id", keep="first")
    errors = df[is_error & ~df["case_id"].isin(ok["case_id"])].drop_duplicates("case_id", keep="last")
    return pd.concat([ok, errors]).sort_index().reset_index(drop=True)


def _aside_name(path: Path) -> Path:
    aside = path.with_name(path.name + ".corrupt")
    n = 1
    while aside.exists():
        aside = path.with_name(f"{path.name}.{n}.corrupt")
        n += 1
    return aside


def _tmp_owner(name: str) -> tuple[str, int] | None:
    """(host, pid) from ``.NAME.<ns>-<host>-<pid>-<uuid>.tmp``; None for an older or foreign name."""
    stem = name[: -len(".tmp")]
    fields = stem.rsplit(".", 1)[-1].split("-")
    if len(fields) != 4 or not fields[2].isdigit():
        return None
    return fields[1], int(fields[2])


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _write_atomic(df: pd.DataFrame, path: Path) -> None:
    """Write ``df`` to ``path`` through a temporary file and a rename.

    Readers only ever see a complete file or none: a write that fails or is
    killed leaves at most a hidden ``.NAME.<ns>-<host>-<pid>-<uuid>.tmp``,
    which no reader globs; the name is this writer's own, so two processes
    never write into, or rename, the same temporary file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{_unique_suffix()}.tmp")
    try:
        df.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through this writer's own temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{_unique_suffix()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
