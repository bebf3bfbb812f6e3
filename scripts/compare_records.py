"""Compare the records and traces of two sweeps of the same scale, cell by cell.

A refactor that must not change behaviour (issue 16) is checked by running
every experiment at ``scale=ci`` before and after, then::

    python scripts/compare_records.py BEFORE_RESULTS AFTER_RESULTS --scale ci

Columns that measure time or name the code (``code_version``, ``*seconds*``,
``seconds.*``) are left out; everything else, including ``config_hash``, must
be equal: same rows, same values, bitwise for floats (NaN equal to NaN).
Exit status 0 when every experiment matches, 1 otherwise, with one line per
experiment and the first differing columns.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

#: columns that legitimately differ between two runs of the same code and grid
VOLATILE = ("code_version",)


def _volatile(column: str) -> bool:
    return column in VOLATILE or "seconds" in column


def _table(path: Path) -> pd.DataFrame | None:
    if not path.exists():
        return None
    frame = pd.read_parquet(path)
    frame = frame[[c for c in frame.columns if not _volatile(c)]]
    # row order depends on which worker finished first: sort by every column
    keys = sorted(frame.columns)
    order = frame[keys].astype(str).sort_values(keys, kind="stable").index
    return frame.loc[order, keys].reset_index(drop=True)


def _cells(values: np.ndarray) -> np.ndarray:
    """Cells as comparable strings; every kind of missing value reads the same."""
    def cell(x):
        if isinstance(x, (np.ndarray, list, tuple)):
            return repr(np.asarray(x).tolist())
        return "<NA>" if pd.isna(x) else repr(x)

    return np.array([cell(x) for x in values], dtype=object)


def compare_tables(before: pd.DataFrame | None, after: pd.DataFrame | None) -> list[str]:
    """Return the differences between two tables as short messages (empty if equal)."""
    if before is None and after is None:
        return []
    if before is None or after is None:
        return ["present in only one run"]
    problems = []
    if set(before.columns) != set(after.columns):
        only_b = sorted(set(before.columns) - set(after.columns))
        only_a = sorted(set(after.columns) - set(before.columns))
        problems.append(f"columns only before {only_b}, only after {only_a}")
        return problems
    if len(before) != len(after):
        return [f"{len(before)} rows before, {len(after)} after"]
    for column in before.columns:
        b, a = before[column].to_numpy(), after[column].to_numpy()
        if b.dtype.kind == "f" and a.dtype.kind == "f":
            same = (b == a) | (np.isnan(b) & np.isnan(a))
        else:
            same = _cells(b) == _cells(a)
        if not same.all():
            problems.append(f"{column}: {int((~same).sum())} of {len(b)} cells differ")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="results folder of the first sweep")
    parser.add_argument("after", type=Path, help="results folder of the second sweep")
    parser.add_argument("--scale", default="ci", help="scale folder to compare (default: ci)")
    args = parser.parse_args(argv)
    experiments = sorted(
        {p.parent.parent.name for root in (args.before, args.after)
         for p in root.glob(f"*/{args.scale}/records.parquet")}
    )
    if not experiments:
        print(f"no */{args.scale}/records.parquet under {args.before} or {args.after}")
        return 1
    failed = 0
    for name in experiments:
        messages = []
        for table in ("records.parquet", "traces.parquet"):
            for message in compare_tables(
                _table(args.before / name / args.scale / table),
                _table(args.after / name / args.scale / table),
            ):
                messages.append(f"{table}: {message}")
        failed += bool(messages)
        print(f"{name}: " + ("identical" if not messages else "; ".join(messages)))
    print(f"{len(experiments) - failed} of {len(experiments)} experiments identical")
    return int(failed > 0)


if __name__ == "__main__":
    sys.exit(main())
