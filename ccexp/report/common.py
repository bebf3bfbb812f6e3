"""Helpers shared by the per-paper reports.

Markdown tables are written by hand (no ``tabulate`` dependency), the
paper's numbers are read from ``experiments/<paper>/reference.csv``, and
every comparison with the paper goes through :func:`compare_row` so that all
reports use the same verdicts.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Sequence

import pandas as pd

#: Verdicts a comparison row can carry.
WITHIN = "within tolerance"
OUTSIDE = "outside tolerance"
NOT_RUN = "not run"
VERDICTS = (WITHIN, OUTSIDE, NOT_RUN)

#: Shown in tables for a cell the records do not cover.
MISSING = "–"

# Comparisons of floats against a tolerance: a difference that equals the
# tolerance up to rounding noise of the mean counts as within.
_EPS = 1e-9


def is_missing(value) -> bool:
    """True for None and NaN (the two ways a cell can be absent)."""
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


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


def experiments_dir() -> Path:
    """The folder holding ``<paper>/reference.csv``.

    ``$CCEXP_EXPERIMENTS_DIR`` if set (an installed package has no
    ``experiments/`` beside it), else ``experiments/`` at the project root.
    """
    env = os.environ.get("CCEXP_EXPERIMENTS_DIR")
    if env:
        return Path(env)
    import ccexp

    return Path(ccexp.__file__).resolve().parents[1] / "experiments"


def load_reference(paper: str, experiment: str | None = None) -> pd.DataFrame:
    """The paper's reported numbers.

    Parameters
    ----------
    paper : str
        Folder name under :func:`experiments_dir`, e.g. ``"ukkonen2017"``.
    experiment : str, optional
        Keep only the rows of this experiment.

    Returns
    -------
    DataFrame
        ``ref_id`` (:func:`reference_id`), ``paper_id``, then the csv's
        columns: ``experiment, quantity``, the paper's coordinates (some of
        ``algorithm, versus, dataset, k, a, b, gamma``), ``value, tolerance,
        kind, source, ci, check``; empty strings where the csv has no value
        in a text column, NaN in a numeric one.

    Raises
    ------
    FileNotFoundError
        If the csv is absent, naming the path looked at.
    """
    path = experiments_dir() / paper / "reference.csv"
    if not path.is_file():
        raise FileNotFoundError(
            f"reference numbers not found: {path} (set CCEXP_EXPERIMENTS_DIR to the folder that holds {paper}/reference.csv)"
        )
    ref = pd.read_csv(path, dtype={c: str for c in ("algorithm", "versus", "dataset", "quantity", "kind", "source", "ci", "check")})
    for col in ("algorithm", "versus", "dataset", "source", "kind", "ci", "check"):
        if col not in ref:
            ref[col] = ""
        ref[col] = ref[col].fillna("")
    ref.insert(0, "ref_id", [reference_id(r) for r in ref.to_dict("records")])
    ref.insert(1, "paper_id", paper)
    if experiment is not None:
        ref = ref[ref["experiment"] == experiment]
    return ref.reset_index(drop=True)


#: Columns of a reference row that locate the number in the paper's grid (in id order).
COORDINATES = ("algorithm", "versus", "dataset", "k", "a", "b", "gamma")


def reference_id(row: dict) -> str:
    """A stable id of a reference row: experiment, quantity and the coordinates it has.

    Built from the row's content rather than its line number, so reordering
    or inserting rows in ``reference.csv`` keeps every id.

    Examples
    --------
    >>> reference_id({"experiment": "exp1_triplets", "quantity": "n_clusters_mean",
    ...               "algorithm": "ls_ad_vc", "versus": "", "k": 2.0, "a": 0.05, "b": float("nan")})
    'exp1_triplets/n_clusters_mean/ls_ad_vc/k=2/a=0.05'
    """
    parts = [str(row["experiment"]), str(row["quantity"])]
    for col in COORDINATES:
        value = row.get(col)
        if is_missing(value) or value == "":
            continue
        if col in ("algorithm", "versus", "dataset"):
            parts.append(f"vs:{value}" if col == "versus" else str(value))
        else:
            parts.append(f"{col}={fmt_number(value, digits=6)}")
    return "/".join(parts)


def verdict(ours, paper, tolerance) -> str:
    """``"within tolerance"`` if ``|ours - paper| <= tolerance``, ``"not run"`` if ours is missing."""
    if is_missing(ours):
        return NOT_RUN
    tol = 0.0 if is_missing(tolerance) else float(tolerance)
    return WITHIN if abs(float(ours) - float(paper)) <= tol + _EPS else OUTSIDE


def compare_row(
    quantity: str,
    paper,
    ours,
    tolerance,
    *,
    algorithm: str = "",
    versus: str = "",
    k=None,
    a=None,
    b=None,
    note: str = "",
    ref_id: str = "",
) -> dict:
    """One row of a comparison table.

    Parameters
    ----------
    quantity : str
        What is compared (reference.csv's ``quantity``).
    paper, ours : float
        The paper's value and ours, in the same unit; ``ours`` None or NaN
        means the setting or algorithm was not run.
    tolerance : float
        Largest absolute difference still counted as agreement.
    algorithm, versus, k, a, b : optional
        The reference row's coordinates (empty / None where not applicable).
    note : str
        How ``ours`` was computed (threshold chosen, counts behind a
        percentage, why not run).
    ref_id : str
        The reference row's id (:func:`reference_id`, column ``ref_id`` of
        :func:`load_reference`): how the reproduction page and the CI check
        find the row's ``ci`` flag and explanation.

    Returns
    -------
    dict
        Keys ``quantity, algorithm, versus, k, a, b, paper, ours,
        difference, tolerance, verdict, note``.
    """
    diff = math.nan if is_missing(ours) else float(ours) - float(paper)
    return {
        "ref_id": ref_id,
        "quantity": quantity,
        "algorithm": algorithm or "",
        "versus": versus or "",
        "k": None if is_missing(k) else k,
        "a": None if is_missing(a) else a,
        "b": None if is_missing(b) else b,
        "paper": paper,
        "ours": math.nan if is_missing(ours) else ours,
        "difference": diff,
        "tolerance": tolerance,
        "verdict": verdict(ours, paper, tolerance),
        "note": note,
    }


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

