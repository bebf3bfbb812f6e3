"""Table cells and files shared by the per-paper reports.

Markdown tables are written by hand (no ``tabulate`` dependency); a number
is shown compactly (:func:`fmt_number`), our mean with its error bar
(:func:`plus_minus`), and records are split into the ok ones that enter
statistics and the others (:func:`ok_records`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd


#: Shown in tables for a cell the records do not cover.
MISSING = "–"


def is_missing(value) -> bool:
    """True for None and NaN (the two ways a cell can be absent)."""
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def recorded_labels(text) -> np.ndarray | None:
    """A clustering as the runner records it (space-separated cluster ids in item order), or None when absent."""
    return None if is_missing(text) else np.array(str(text).split(), dtype=np.int64)


def fmt_number(value, digits: int = 2) -> str:
    """Format a number compactly for a table cell.

    Parameters
    ----------
    value : float, int, str or None
        NaN and None become :data:`MISSING`; strings pass through.
    digits : int
        Decimals kept for non-integral floats (trailing zeros stripped).

    Returns
    -------
    str
    """
    if isinstance(value, str):
        return value
    if is_missing(value):
        return MISSING
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) or (isinstance(value, float) and float(value).is_integer() and abs(value) < 1e15):
        return str(int(value))
    text = f"{float(value):.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _cell(value, digits: int) -> str:
    # A pipe would end the cell and a newline the row.
    return fmt_number(value, digits).replace("|", "\\|").replace("\n", " ")


def markdown_table(
    rows: pd.DataFrame | Sequence[Sequence],
    columns: Sequence[str] | None = None,
    digits: int = 2,
    align: Sequence[str] | None = None,
) -> str:
    """A GitHub-flavoured markdown table.

    Parameters
    ----------
    rows : DataFrame or sequence of sequences
        The body. A DataFrame's index is ignored (reset it first to keep it).
    columns : sequence of str, optional
        Header; defaults to the DataFrame's columns.
    digits : int
        Decimals for floats, see :func:`fmt_number`.
    align : sequence of {"l", "r", "c"}, optional
        Per-column alignment; numbers right, text left by default.

    Returns
    -------
    str
        The table, one line per row, ending with a newline.

    Examples
    --------
    >>> print(markdown_table([[1, 0.5]], columns=["a", "b"]), end="")
    | a | b |
    |--:|--:|
    | 1 | 0.5 |
    """
    if isinstance(rows, pd.DataFrame):
        columns = [str(c) for c in rows.columns] if columns is None else list(columns)
        body = rows.itertuples(index=False, name=None)
    else:
        if columns is None:
            raise ValueError("columns is required when rows is not a DataFrame")
        body = rows
    body = [list(r) for r in body]
    if any(len(r) != len(columns) for r in body):
        raise ValueError(f"every row needs {len(columns)} cells (one per column)")
    if align is None:
        align = []
        for j in range(len(columns)):
            values = [r[j] for r in body if not is_missing(r[j]) and not isinstance(r[j], str)]
            texts = [r[j] for r in body if isinstance(r[j], str) and r[j] != MISSING]
            align.append("r" if values and not texts else "l")
    rule = {"l": ":--", "r": "--:", "c": ":-:"}
    lines = [
        "| " + " | ".join(str(c).replace("|", "\\|") for c in columns) + " |",
        "|" + "|".join(rule[a] for a in align) + "|",
    ]
    lines += ["| " + " | ".join(_cell(v, digits) for v in r) + " |" for r in body]
    return "\n".join(lines) + "\n"


def write_table(df: pd.DataFrame, stem: Path, digits: int = 2, md: str | None = None) -> list[Path]:
    """Write ``df`` as ``stem.csv`` and ``stem.md``.

    Parameters
    ----------
    df : DataFrame
        Written to the csv as is (without the index) and to markdown through
        :func:`markdown_table` unless ``md`` is given.
    stem : Path
        Path without suffix; parent folders are created.
    digits : int
        Decimals in the markdown version (the csv keeps full precision).
    md : str, optional
        Markdown text to write instead of the default rendering.

    Returns
    -------
    list of Path
        The two files written.
    """
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    csv, mdp = stem.with_suffix(".csv"), stem.with_suffix(".md")
    df.to_csv(csv, index=False)
    mdp.write_text(md if md is not None else markdown_table(df, digits=digits), encoding="utf-8")
    return [csv, mdp]


def with_error_bars(cmp: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """A comparison table for markdown: ``ours`` shown as mean ± 2 SE (column renamed to say so).

    The csv keeps ``ours``, ``ours_sem`` and ``n_trials`` apart; the markdown shows them together.
    """
    if "ours" not in cmp or not len(cmp):
        return cmp
    sem = cmp["ours_sem"] if "ours_sem" in cmp else pd.Series(math.nan, index=cmp.index)
    out = cmp.assign(ours=[plus_minus(m, se, digits) for m, se in zip(cmp["ours"], sem)])
    out = out.drop(columns=[c for c in ("ours_sem",) if c in out])
    return out.rename(columns={"ours": "ours (mean ± 2 SE)"})


def plus_minus(mean, sem, digits: int = 3) -> str:
    """``mean ± 2 SE`` for a table cell (just the mean when the SEM is missing or 0)."""
    if is_missing(mean):
        return MISSING
    if is_missing(sem) or float(sem) == 0.0:
        return fmt_number(mean, digits)
    return f"{fmt_number(mean, digits)} ± {fmt_number(2.0 * float(sem), digits)}"


def ok_records(records: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    """Split records into the rows that enter statistics and a count of the others.

    Returns
    -------
    ok : DataFrame
        Rows with ``status == "ok"`` (all rows if there is no status column).
    not_ok : Series
        Count of the other rows by status (empty if none).
    """
    if "status" not in records:
        return records, pd.Series(dtype=int)
    mask = records["status"] == "ok"
    return records[mask], records.loc[~mask, "status"].fillna("missing").value_counts()


def code_versions(records: pd.DataFrame) -> list[str]:
    """Distinct code versions in the records (sorted)."""
    if "code_version" not in records or not len(records):
        return []
    return sorted(str(v) for v in records["code_version"].dropna().unique())
