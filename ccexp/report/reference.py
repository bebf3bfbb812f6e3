"""The paper's numbers: ``experiments/<paper>/reference.csv``, its rows' ids and competitor caps.

:func:`load_reference` reads a paper's rows, with the printed precision
(``decimals``), the first term of the tolerance rule and the cap of each
row (:func:`competitor_caps`); :func:`reference_row` finds one row by its
content-derived id (:func:`reference_id`).
"""

from __future__ import annotations

import functools
import math
import os
from pathlib import Path

import pandas as pd

from .._installed import experiments_dir as installed_experiments_dir
from .reference_check import check_duplicates, check_reference
from .tables import fmt_number, is_missing
from .tolerance import half_unit


def experiments_dir() -> Path:
    """The folder holding ``<paper>/reference.csv``.

    ``$CCEXP_EXPERIMENTS_DIR`` if set, else ``experiments/`` at the project
    root, or the copy an installed wheel carries (:mod:`ccexp._installed`).
    """
    env = os.environ.get("CCEXP_EXPERIMENTS_DIR")
    if env:
        return Path(env)
    return installed_experiments_dir()


#: Papers whose ``k`` is a parameter of the method (ROCK k = 2, LIMBO k = 7), not a setting of the cell:
#: there, rows that differ only in ``k`` are different methods of one cell group.
METHOD_PARAMETERS = {"gionis2007": ("k",)}


def table_of(source: str) -> str:
    """The table or section a reference row's ``source`` names: its text before the first "(" or ":".

    Examples
    --------
    >>> table_of("Table 2 (alpha = 0.4)"), table_of("Table II: mean of the five UCI rows")
    ('Table 2', 'Table II')
    """
    text = str(source or "")
    for sep in ("(", ":"):
        text = text.split(sep, 1)[0]
    return text.strip()


def _group_key(row: dict, paper: str) -> tuple:
    params = METHOD_PARAMETERS.get(paper, ())
    setting = tuple("" if is_missing(row.get(c)) else str(row.get(c)) for c in COORDINATES
                    if c not in ("algorithm", "versus") and c not in params)
    return (row["experiment"], row["quantity"], table_of(row["source"]), *setting)


def _method_key(row: dict, paper: str) -> tuple:
    params = METHOD_PARAMETERS.get(paper, ())
    return (row.get("algorithm", ""), *("" if is_missing(row.get(c)) else str(row.get(c)) for c in params))


def competitor_caps(ref: pd.DataFrame, paper: str) -> list[float]:
    """Per row: distance from its value to the nearest *different* value of another method in its cell group.

    The cell group is the same experiment, quantity, table (:func:`table_of`
    of the source) and setting (every coordinate but the method's, see
    :data:`METHOD_PARAMETERS`).  Claims and rows without an algorithm have no
    competitors (NaN); so has a row whose group holds no other method.
    """
    rows = ref.to_dict("records")
    groups: dict[tuple, list[int]] = {}
    for i, r in enumerate(rows):
        if r["kind"] == "claim" or not r.get("algorithm"):
            continue
        groups.setdefault(_group_key(r, paper), []).append(i)
    caps = [math.nan] * len(rows)
    for idx in groups.values():
        for i in idx:
            me, v = _method_key(rows[i], paper), float(rows[i]["value"])
            dists = [abs(float(rows[j]["value"]) - v) for j in idx
                     if _method_key(rows[j], paper) != me and abs(float(rows[j]["value"]) - v) > 1e-12]
            if dists:
                caps[i] = min(dists)
    return caps


def printed_decimals(text) -> int:
    """Decimals of a number as written (``"2.40"`` -> 2, ``"8"`` -> 0)."""
    t = str(text).strip()
    return len(t.split(".", 1)[1]) if "." in t else 0


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
        ``algorithm, versus, dataset, k, a, b, gamma``), ``value, decimals,
        tolerance, kind, source, rule, expect, ci, check``, and the columns
        of issue 28: ``paper_n`` (runs the paper averaged), ``paper_sd``
        (their SD, where known), ``variant`` (the named variant whose run
        judges the row; empty: the experiment's default), ``cause`` and
        ``evidence`` (why a row that differs differs, see
        :data:`~ccexp.report.tolerance.CAUSES`); empty strings where the csv
        has no value in a text column, NaN in a numeric one.
        ``decimals`` is the precision the paper printed (the csv's column,
        else the decimals of the value as written there); ``tolerance`` of a
        number is half a unit of it (the first term of
        :data:`TOLERANCE_RULE`; a claim keeps the csv's parameter); ``cap``
        is :func:`competitor_caps`.

    Raises
    ------
    FileNotFoundError
        If the csv is absent, naming the path looked at.
    ccexp.report.reference_check.ReferenceFileError
        A malformed row, column or pin, or a row given twice, in one line naming the file and the row.
    """
    path = experiments_dir() / paper / "reference.csv"
    if not path.is_file():
        raise FileNotFoundError(
            f"reference numbers not found: {path} (set CCEXP_EXPERIMENTS_DIR to the folder that holds {paper}/reference.csv)"
        )
    check_reference(path)  # a bad cell, column or pin: one line naming the file and the row
    text_cols = ("algorithm", "versus", "dataset", "quantity", "kind", "source", "ci", "check", "rule", "expect",
                 "variant", "cause", "evidence", "moved_by")
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    ref = pd.read_csv(path, dtype={c: str for c in text_cols})
    for col in text_cols:
        if col not in ref:
            ref[col] = ""
        ref[col] = ref[col].fillna("")
    for col in ("tolerance", "paper_n", "paper_sd"):
        if col not in ref:
            ref[col] = math.nan
    written = raw["decimals"] if "decimals" in raw else pd.Series([""] * len(raw))
    ref["decimals"] = [int(d) if str(d).strip() not in ("", "nan") else printed_decimals(v)
                       for d, v in zip(written, raw["value"])]
    ref["tolerance"] = [t if k == "claim" else half_unit(d)
                        for t, k, d in zip(ref["tolerance"], ref["kind"], ref["decimals"])]
    ref["cap"] = competitor_caps(ref, paper)
    ref.insert(0, "ref_id", [reference_id(r) for r in ref.to_dict("records")])
    ref.insert(1, "paper_id", paper)
    check_duplicates(path, ref["ref_id"].tolist())
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


def reference_row(ref_id: str) -> dict | None:
    """The reference row (as :func:`load_reference` gives it) whose id is ``ref_id``; None if none."""
    if not ref_id:
        return None
    base = experiments_dir()
    for paper in sorted(p.name for p in base.iterdir() if (p / "reference.csv").is_file()) if base.is_dir() else []:
        rows = _reference_index(str(base), paper, (base / paper / "reference.csv").stat().st_mtime_ns)
        if ref_id in rows:
            return rows[ref_id]
    return None


@functools.lru_cache(maxsize=32)
def _reference_index(base: str, paper: str, mtime: int) -> dict:
    return {r["ref_id"]: r for r in load_reference(paper).to_dict("records")}
