"""Results store: long-format parquet, appended as cases finish, resumable.

Finished records go to ``parts/part-*.parquet`` (one small file per finished
task, written atomically), so a killed sweep loses at most the tasks in
flight.  On a rerun the case ids already present (in ``records.parquet`` or
in parts) are skipped.  :meth:`ResultStore.consolidate` folds the parts into
``records.parquet``.

Algorithms with a per-step history (active learning) also leave trace rows
(``case_id, step, n_queries, ari, ...``) in ``trace_parts/``, folded into
``traces.parquet`` the same way.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pandas as pd


class ResultStore:
    def __init__(self, directory: str | os.PathLike):
        self.dir = Path(directory)
        self.records_path = self.dir / "records.parquet"
        self.parts_dir = self.dir / "parts"
        self.traces_path = self.dir / "traces.parquet"
        self.trace_parts_dir = self.dir / "trace_parts"

    def _part_files(self) -> list[Path]:
        return sorted(self.parts_dir.glob("part-*.parquet")) if self.parts_dir.exists() else []

    def load(self) -> pd.DataFrame:
        """All records stored so far (consolidated file and parts), one row per case id."""
        frames = []
        if self.records_path.exists():
            frames.append(pd.read_parquet(self.records_path))
        frames.extend(pd.read_parquet(p) for p in self._part_files())
        frames = [f for f in frames if len(f)]
        if not frames:
            return pd.DataFrame()
        df = pd.concat(frames, ignore_index=True)
        return df.drop_duplicates("case_id", keep="first").reset_index(drop=True)

    def done_ids(self) -> set[str]:
        df = self.load()
        return set(df["case_id"]) if len(df) else set()

    @staticmethod
    def _write_part(folder: Path, rows: list[dict]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        name = f"part-{uuid.uuid4().hex}.parquet"
        _write_atomic(pd.DataFrame.from_records(rows), folder / name)

    def append(self, records: list[dict]) -> None:
        """Write ``records`` as one new part file (atomic rename).

        A record's ``_trace`` (a list of per-step rows) goes to the trace
        parts, keyed by the record's ``case_id``; it is written first, so a
        case counted as done always has its trace.
        """
        if not records:
            return
        traces = []
        plain = []
        for rec in records:
            trace = rec.get("_trace")
            if trace is not None:
                rec = {k: v for k, v in rec.items() if k != "_trace"}
                traces.extend({"case_id": rec["case_id"], **row} for row in trace)
            plain.append(rec)
        if traces:
            self._write_part(self.trace_parts_dir, traces)
        self._write_part(self.parts_dir, plain)

    def _trace_part_files(self) -> list[Path]:
        return sorted(self.trace_parts_dir.glob("part-*.parquet")) if self.trace_parts_dir.exists() else []

    def load_traces(self) -> pd.DataFrame:
        """All trace rows stored so far, one per (case_id, step)."""
        frames = []
        if self.traces_path.exists():
            frames.append(pd.read_parquet(self.traces_path))
        frames.extend(pd.read_parquet(p) for p in self._trace_part_files())
        frames = [f for f in frames if len(f)]
        if not frames:
            return pd.DataFrame()
        df = pd.concat(frames, ignore_index=True)
        return df.drop_duplicates(["case_id", "step"], keep="first").reset_index(drop=True)

    def consolidate(self) -> pd.DataFrame:
        """Merge the parts into ``records.parquet`` (and ``traces.parquet``) and remove them."""
        trace_parts = self._trace_part_files()
        # Interrupted between the rename and the unlinks, the next load sees
        # each record twice (consolidated and in a part) and keeps it once.
        if trace_parts:
            _write_atomic(self.load_traces(), self.traces_path)
            for p in trace_parts:
                p.unlink(missing_ok=True)
        parts = self._part_files()
        df = self.load()
        if parts:
            _write_atomic(df, self.records_path)
            for p in parts:
                p.unlink(missing_ok=True)
        # temporary files of writes killed before their rename (never read)
        for folder in (self.parts_dir, self.trace_parts_dir):
            if folder.exists():
                for tmp in folder.glob(".part-*.tmp"):
                    tmp.unlink(missing_ok=True)
        return df


def _write_atomic(df: pd.DataFrame, path: Path) -> None:
    """Write ``df`` to ``path`` through a temporary file and a rename.

    Readers only ever see a complete file or none: a write that fails or is
    killed leaves at most a hidden ``.NAME.tmp``, which no reader globs.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        df.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
