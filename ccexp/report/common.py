"""Helpers shared by the per-paper reports.

Markdown tables are written by hand (no ``tabulate`` dependency), the
paper's numbers are read from ``experiments/<paper>/reference.csv``, and
every comparison with the paper goes through :func:`compare_row` so that all
reports use the same verdicts.
"""

from __future__ import annotations

import functools
import math
import os
from pathlib import Path
from typing import Sequence

import pandas as pd

#: Verdicts a comparison row can carry.
WITHIN = "within tolerance"
OUTSIDE = "outside tolerance"
NOT_RUN = "not run"
INDISTINGUISHABLE = "indistinguishable"
VERDICTS = (WITHIN, OUTSIDE, INDISTINGUISHABLE, NOT_RUN)

#: Status of a reference row (the reproduction page's words), in the order pages list them.
REPRODUCED = "reproduced"
WITHIN_TOLERANCE = WITHIN
DIFFERS = "differs"
STATUSES = (REPRODUCED, WITHIN_TOLERANCE, INDISTINGUISHABLE, DIFFERS, NOT_RUN)

#: The tolerance rule, as the pages state it (``TOLERANCE_RULE`` is printed at the top of
#: REPRODUCTION.md and quoted in every paper's README; :func:`judge` is its code).
TOLERANCE_RULE = (
    "A number is compared with the paper's at the precision the paper printed it. "
    "**Tolerance** = half a unit of the paper's last printed digit + 2 × the standard error of our mean "
    "over trials (a 95% interval for our sampling error; a single trial or a deterministic run counts as SE 0, "
    "so the rule never widens on a guess), but never wider than the distance from the "
    "paper's value to the nearest *different* value another method has in the same cell group "
    "(same table, quantity, dataset and setting; a method the paper prints with the same value cannot "
    "be told apart by the paper either, so it does not narrow the tolerance to zero). "
    "**reproduced**: ours rounded to the paper's printed decimals equals the paper's value; "
    "**within tolerance**: not equal, but |ours − paper| ≤ tolerance; "
    "**indistinguishable**: 2 × our standard error alone reaches the nearest other method's value, so our "
    "run cannot tell this method's number from that one (counted neither as reproduced nor as differs; "
    "a row whose |ours − paper| exceeds even half a unit + 2 SE still differs); "
    "**differs**: outside the tolerance; **not run**: the records do not cover the row. "
    "A claim (kind `claim`) is reproduced when it holds as its check text reads it, else differs. "
    "A row that needs another rule names it in `rule` with its reason (`at_most`: ours ≤ the paper's "
    "value, for a ceiling the paper states; `two_sample`: the reference value is itself a mean of N runs, "
    "the authors' stored curves, so 2 × the standard error of the difference of the two means replaces "
    "2 × our standard error)."
)

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
        tolerance, kind, source, rule, expect, ci, check``; empty strings
        where the csv has no value in a text column, NaN in a numeric one.
        ``decimals`` is the precision the paper printed (the csv's column,
        else the decimals of the value as written there); ``tolerance`` of a
        number is half a unit of it (the first term of
        :data:`TOLERANCE_RULE`; a claim keeps the csv's parameter); ``cap``
        is :func:`competitor_caps`.

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
    text_cols = ("algorithm", "versus", "dataset", "quantity", "kind", "source", "ci", "check", "rule", "expect")
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    ref = pd.read_csv(path, dtype={c: str for c in text_cols})
    for col in text_cols:
        if col not in ref:
            ref[col] = ""
        ref[col] = ref[col].fillna("")
    if "tolerance" not in ref:
        ref["tolerance"] = math.nan
    written = raw["decimals"] if "decimals" in raw else pd.Series([""] * len(raw))
    ref["decimals"] = [int(d) if str(d).strip() not in ("", "nan") else printed_decimals(v)
                       for d, v in zip(written, raw["value"])]
    ref["tolerance"] = [t if k == "claim" else half_unit(d)
                        for t, k, d in zip(ref["tolerance"], ref["kind"], ref["decimals"])]
    ref["cap"] = competitor_caps(ref, paper)
    ref.insert(0, "ref_id", [reference_id(r) for r in ref.to_dict("records")])
    ref.insert(1, "paper_id", paper)
    if ref["ref_id"].duplicated().any():
        dup = ref.loc[ref["ref_id"].duplicated(), "ref_id"].tolist()
        raise ValueError(f"{path}: rows with the same experiment, quantity and coordinates: {dup[:3]}")
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


def half_unit(decimals) -> float:
    """Half a unit of the last printed digit: 0.05 for one decimal, 500 for thousands (``decimals=-3``)."""
    return 0.5 * 10.0 ** -int(decimals)


def judge(kind: str, paper, ours, *, decimals=None, sem=None, cap=None, rule: str = "", claim_tolerance=None) -> tuple[float, str]:
    """The tolerance and status of one compared number under :data:`TOLERANCE_RULE`.

    Parameters
    ----------
    kind : str
        The reference row's kind; ``"claim"`` compares a 1/0 outcome.
    paper, ours : float
        The paper's value and our mean (``ours`` missing: not run).
    decimals : int, optional
        Decimals the paper printed (negative: a rounded count, e.g. -3 for
        "13.537 M"); default 0.
    sem : float, optional
        Standard error of our mean over trials (missing: 0, a single
        deterministic run or a count).
    cap : float, optional
        Distance from ``paper`` to the nearest different value another
        method has in the same cell group (missing: no competitor).
    rule : str
        ``""`` for the written rule; ``"at_most: <reason>"`` for a ceiling
        (ours ≤ paper + half a unit); ``"two_sample: sd=S n=N <reason>"``
        when the reference value is itself a mean of N runs with standard
        deviation S (the authors' stored runs): 2 SE of the difference of
        the two means, sqrt(SE_ours² + S²/N), replaces 2 SE of ours.
    claim_tolerance : float, optional
        A claim whose check measures a share or a ratio (not a 1/0) holds
        when ``|ours - paper| <= claim_tolerance``, the threshold its check
        text states (reference.csv's ``tolerance`` of a claim row).

    Returns
    -------
    (tolerance, status)
        ``status`` is one of :data:`STATUSES`.

    Examples
    --------
    Table I prints one decimal, so "8" is 8.0 and 7.8 is not equal to it:

    >>> judge("approx", 8, 7.8, decimals=1, sem=0.1, cap=1.0)
    (0.25, 'within tolerance')
    >>> judge("approx", 8, 7.96, decimals=1, sem=0.0)[1]
    'reproduced'

    Our spread alone reaches a competitor 0.3 away:

    >>> judge("approx", 2.15, 2.0, decimals=2, sem=0.2, cap=0.3)
    (0.3, 'indistinguishable')
    """
    sem_v = 0.0 if is_missing(sem) else float(sem)
    if kind == "claim":
        if is_missing(ours):
            return (0.0 if is_missing(claim_tolerance) else float(claim_tolerance)), NOT_RUN
        t = 0.0 if is_missing(claim_tolerance) else float(claim_tolerance)
        return t, REPRODUCED if abs(float(ours) - float(paper)) <= t + 1e-12 else DIFFERS
    d = 0 if is_missing(decimals) else int(decimals)
    half = half_unit(d)
    raw = half + 2.0 * sem_v
    cap_v = math.inf if is_missing(cap) else float(cap)
    tol = min(raw, cap_v)
    if is_missing(ours):
        return tol, NOT_RUN
    ours_v, paper_v = float(ours), float(paper)
    diff = abs(ours_v - paper_v)
    kind_of_rule = (rule or "").split(":", 1)[0].strip()
    if kind_of_rule == "at_most":
        return half, (REPRODUCED if ours_v <= paper_v + half * (1 + 1e-9) else DIFFERS)
    if kind_of_rule == "two_sample":
        # the reference value is itself a mean of n runs (the authors' stored
        # curves): 2 SE of the *difference* of two means replaces 2 SE of ours
        ref_sem = _two_sample_sem(rule)
        raw = half + 2.0 * math.sqrt(sem_v**2 + ref_sem**2)
        tol = min(raw, cap_v)
        sem_v = math.sqrt(sem_v**2 + ref_sem**2)
    elif kind_of_rule:
        raise ValueError(f"rule {rule!r}: unknown rule (valid: '', 'at_most: <reason>', 'two_sample: sd=S n=N <reason>')")
    if 2.0 * sem_v >= cap_v - _EPS and diff <= raw + _EPS:
        return tol, INDISTINGUISHABLE
    if round(ours_v, d) == round(paper_v, d) or math.isclose(round(ours_v, d), round(paper_v, d), abs_tol=half * 1e-6):
        return tol, REPRODUCED
    return tol, (WITHIN if diff <= tol + _EPS else DIFFERS)


def _two_sample_sem(rule: str) -> float:
    """The reference's own SE, ``sd / sqrt(n)``, from a ``two_sample: sd=S n=N ...`` rule.

    >>> round(_two_sample_sem("two_sample: sd=0.04 n=8 (their runs)"), 4)
    0.0141
    """
    import re

    m = re.search(r"sd=([0-9.eE+-]+)\s+n=(\d+)", rule)
    if m is None or int(m.group(2)) < 1:
        raise ValueError(f"rule {rule!r}: a two_sample rule needs 'sd=S n=N'")
    return float(m.group(1)) / math.sqrt(int(m.group(2)))


def sem_of(values) -> tuple[float, int]:
    """Standard error of the mean of ``values`` (NaN dropped) and their number; SEM 0 for one value."""
    import numpy as np

    v = np.asarray(pd.Series(values, dtype=float).dropna(), dtype=float)
    n = int(v.size)
    if n <= 1:
        return (0.0 if n == 1 else math.nan), n
    return float(v.std(ddof=1) / math.sqrt(n)), n


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
    sem=None,
    n_trials=None,
    half=None,
) -> dict:
    """One row of a comparison table, judged by :func:`judge` (:data:`TOLERANCE_RULE`).

    Parameters
    ----------
    quantity : str
        What is compared (reference.csv's ``quantity``).
    paper, ours : float
        The paper's value and ours, in the same unit; ``ours`` None or NaN
        means the setting or algorithm was not run.
    tolerance : float
        Used only for a row without a reference row (``ref_id`` empty or
        unknown): half a unit of the paper's precision.  A reference row
        brings its own printed precision, competitors' values and rule.
    algorithm, versus, k, a, b : optional
        The reference row's coordinates (empty / None where not applicable).
    note : str
        How ``ours`` was computed (threshold chosen, counts behind a
        percentage, why not run).
    ref_id : str
        The reference row's id (:func:`reference_id`): how the row's printed
        precision, cell group, rule and ``ci`` flag are found.
    sem, n_trials : float, int, optional
        Standard error of our mean over trials and the number of trials
        (missing for a claim or a deterministic count).
    half : float, optional
        Half a unit of the paper's precision in the unit compared, when a
        report compares a transformed value (a count as a percentage).

    Returns
    -------
    dict
        Keys ``ref_id, quantity, algorithm, versus, k, a, b, paper, ours,
        ours_sem, n_trials, difference, tolerance, verdict, status, note``.
    """
    ref = reference_row(ref_id)
    diff = math.nan if is_missing(ours) else float(ours) - float(paper)
    sem_v = 0.0 if is_missing(sem) else float(sem)
    if ref is None or (half is not None and ref["kind"] != "claim"):
        # no reference row, or a transformed value (a count as a percentage): its own half unit,
        # our 2 SE, no competitor cap (the transformed unit has none)
        h = float(half) if half is not None else (0.0 if is_missing(tolerance) else float(tolerance))
        tol = h + 2.0 * sem_v
        if is_missing(ours):
            status = NOT_RUN
        elif abs(diff) <= h + _EPS:
            status = REPRODUCED
        else:
            status = WITHIN if abs(diff) <= tol + _EPS else DIFFERS
    else:
        tol, status = judge(ref["kind"], paper, ours, decimals=ref["decimals"], sem=sem, cap=ref["cap"],
                            rule=ref.get("rule", ""), claim_tolerance=ref["tolerance"])
    verdict_ = {REPRODUCED: WITHIN, WITHIN: WITHIN, DIFFERS: OUTSIDE}.get(status, status)
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
        "ours_sem": math.nan if is_missing(sem) else float(sem),
        "n_trials": math.nan if is_missing(n_trials) else int(n_trials),
        "difference": diff,
        "tolerance": tol,
        "verdict": verdict_,
        "status": status,
        "note": note,
    }


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

