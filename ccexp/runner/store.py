"""Results store: long-format parquet, appended as cases finish, resumable.

Finished records go to ``parts/part-*.parquet`` (one small file per finished
task, written atomically), so a killed sweep loses at most the tasks in
flight.  On a rerun the case ids already present (in ``records.parquet`` or
in parts) are skipped.  :meth:`ResultStore.consolidate` folds the parts into
``records.parquet``.
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

    def append(self, records: list[dict]) -> None:
        """Write ``records`` as one new part file (atomic rename)."""
        if not records:
            return
        self.parts_dir.mkdir(parents=True, exist_ok=True)
        name = f"part-{uuid.uuid4().hex}.parquet"
        tmp = self.parts_dir / f".{name}.tmp"
        pd.DataFrame.from_records(records).to_parquet(tmp, index=False)
        os.replace(tmp, self.parts_dir / name)

    def consolidate(self) -> pd.DataFrame:
        """Merge the parts into ``records.parquet`` and remove them."""
        parts = self._part_files()
        df = self.load()
        if not parts:
            return df
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.dir / ".records.parquet.tmp"
        df.to_parquet(tmp, index=False)
        os.replace(tmp, self.records_path)
        for p in parts:
            p.unlink(missing_ok=True)
        return df
