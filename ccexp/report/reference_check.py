"""Validation of ``experiments/<paper>/reference.csv``: a bad row is refused in one line naming the file and the row.

:func:`check_reference` reads the csv as text (every cell a string, nothing
guessed) and raises :class:`ReferenceFileError` at the first problem:

- a column the code does not read (:data:`KNOWN_COLUMNS`), or a required one missing;
- a ``value`` that is not a finite number, a ``decimals`` that is not an integer
  in [-12, 12], a coordinate (``k, a, b, gamma``) that is not a number;
- a ``kind`` outside :data:`KINDS`, an ``expect`` pin outside
  :data:`ccexp.report.reproduction.PINS`, a ``ci`` other than ``yes`` / ``no`` / empty,
  a ``rule`` the tolerance code does not know;
- a ``tolerance`` on a table row: the rule computes a number's tolerance
  (half a unit of ``decimals``, 2 x the standard error, the competitor's cap,
  :data:`ccexp.report.tolerance.TOLERANCE_RULE`), so the column is read for
  claims only (the threshold their check states); a table row that carries
  one would look as if it widened or narrowed the rule while nothing read it
  (issue 33, item 4).  A claim's tolerance must be a number >= 0;
- two rows with the same experiment, quantity and coordinates (one
  ``ref_id``), named by both line numbers.

Row numbers are the csv's line numbers (the header is line 1), as an editor shows them.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from .causes import parse_cause
from .tolerance import least_sd_of_whole_runs

#: the columns :func:`ccexp.report.reference.load_reference` and its readers use
KNOWN_COLUMNS = (
    "experiment", "quantity", "algorithm", "versus", "dataset", "k", "a", "b", "gamma", "value", "decimals",
    "tolerance", "kind", "source", "check", "rule", "expect", "ci",
    # the reproduction page's columns of issue 28 (read by the lead's tolerance and gate code)
    "paper_n", "paper_sd", "cause", "evidence", "variant",
    # the variants of the paper's ablations.csv that move a `measured` row to the paper's number
    "moved_by",
)
REQUIRED_COLUMNS = ("experiment", "quantity", "value", "kind", "source")
#: the kinds of a reference row: a number printed in a table (approximate, exact, or derived from the
#: paper's numbers) or a claim of the text, decided by its check
KINDS = ("approx", "exact", "derived", "claim")
#: the ``expect`` pins (the status a ci-gated row must have); kept in step with reproduction.PINS
PINS = ("reproduced", "within", "indistinguishable", "differs")
NUMERIC_COORDINATES = ("k", "a", "b", "gamma")
RULES = ("at_most", "two_sample", "truncated", "whole_runs")


class ReferenceFileError(ValueError):
    """A reference.csv that cannot be read as the rules say; the message is one line naming the file and row."""


def _number(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _row_problem(row: dict) -> str | None:
    """What is wrong with one row (its cells as written), or None."""
    for col in REQUIRED_COLUMNS:
        if not row.get(col, "").strip():
            return f"{col} is empty"
    kind = row["kind"].strip()
    if kind not in KINDS:
        return f"kind {kind!r} is not one of {', '.join(KINDS)}"
    value = row["value"].strip()
    if _number(value) is None:
        return f"value {value!r} is not a finite number"
    decimals = row.get("decimals", "").strip()
    if decimals:
        if not re.fullmatch(r"[+-]?\d+", decimals) or not -12 <= int(decimals) <= 12:
            return f"decimals {decimals!r} is not an integer in [-12, 12] (the digits the paper printed)"
    tolerance = row.get("tolerance", "").strip()
    if tolerance and kind != "claim":
        return (f"tolerance {tolerance!r} on a {kind} row: the rule computes a number's tolerance from decimals, "
                f"the standard error and the competitor's cap, so only a claim's threshold goes there (leave it empty)")
    if tolerance:
        t = _number(tolerance)
        if t is None or t < 0:
            return f"tolerance {tolerance!r} is not a number >= 0 (the claim's threshold)"
    for col in NUMERIC_COORDINATES:
        cell = row.get(col, "").strip()
        if cell and _number(cell) is None:
            return f"{col} {cell!r} is not a number"
    expect = row.get("expect", "").strip()
    if expect and expect not in PINS:
        return f"expect {expect!r} is not a pin: one of {', '.join(PINS)} (or empty)"
    ci = row.get("ci", "").strip().lower()
    if ci not in ("", "yes", "no"):
        return f"ci {row['ci']!r} must be yes, no or empty"
    paper_n = row.get("paper_n", "").strip()
    if paper_n and (not re.fullmatch(r"[1-9]\d*", paper_n)):
        return f"paper_n {paper_n!r} is not a number of runs >= 1 (the runs the paper averaged; empty if it does not say)"
    paper_sd = row.get("paper_sd", "").strip()
    if paper_sd:
        sd = _number(paper_sd)
        if sd is None or sd < 0 or not paper_n:
            return f"paper_sd {paper_sd!r} must be a number >= 0, beside the paper_n it is the SD of"
    try:
        kind, _ = parse_cause(row.get("cause", ""))
    except ValueError as err:
        return str(err)
    if row.get("moved_by", "").strip() and kind != "measured":
        return f"moved_by {row['moved_by'].strip()!r} on a row whose cause is not measured (it names what moves a measured row)"
    evidence = row.get("evidence", "").strip()
    if evidence and not re.fullmatch(r"#[\w-]+", evidence):
        return f"evidence {evidence!r} is not an anchor of the paper's README (#heading-slug)"
    variant = row.get("variant", "").strip()
    if variant and not re.fullmatch(r"[A-Za-z0-9_]+", variant):
        return f"variant {variant!r} is not a variant name (letters, digits, underscores)"
    rule = row.get("rule", "").strip()
    if rule:
        name = rule.split(":", 1)[0].strip()
        if name not in RULES:
            return f"rule {rule[:40]!r}: unknown rule (valid: {', '.join(f'{r}: <reason>' for r in RULES)})"
        if name == "two_sample" and not re.search(r"sd=[0-9.eE+-]+\s+n=[1-9]\d*", rule):
            return f"rule {rule[:40]!r}: a two_sample rule needs 'sd=S n=N' with N >= 1"
        if name == "whole_runs":
            if _number(row.get("paper_n", "")) is None:
                return f"rule {rule[:40]!r}: a whole_runs rule needs paper_n (the whole-number runs the mean is of)"
            try:
                least_sd_of_whole_runs(float(row["value"]), int(_number(row.get("decimals", "")) or 0),
                                       _number(row["paper_n"]))
            except ValueError as err:
                return f"rule whole_runs: {err}"
    return None


def check_reference(path: str | Path) -> None:
    """Refuse a malformed ``reference.csv``, row by row (see the module docstring; duplicates: :func:`check_duplicates`).

    Raises
    ------
    ReferenceFileError
        In one line: ``<path>, line N (<ref id or experiment/quantity>): <what is wrong>``.
    """
    path = Path(path)
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as err:
        raise ReferenceFileError(f"{path}: not a readable csv ({str(err).splitlines()[0]})") from None
    unknown = [c for c in raw.columns if c not in KNOWN_COLUMNS]
    if unknown:
        raise ReferenceFileError(f"{path}: unknown column{'s' if len(unknown) > 1 else ''} "
                                 f"{', '.join(map(repr, unknown))}; the columns read are: {', '.join(KNOWN_COLUMNS)}")
    missing = [c for c in REQUIRED_COLUMNS if c not in raw.columns]
    if missing:
        raise ReferenceFileError(f"{path}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    for i, row in enumerate(raw.to_dict("records")):
        problem = _row_problem(row)
        if problem:
            what = f"{row.get('experiment', '')}/{row.get('quantity', '')}".strip("/")
            raise ReferenceFileError(f"{path}, line {i + 2} ({what}): {problem}")


def check_duplicates(path: str | Path, ids: list[str]) -> None:
    """Refuse two rows of ``path`` with one ``ref_id`` (``ids``: each row's, in file order), naming both lines."""
    seen: dict[str, int] = {}
    for i, rid in enumerate(ids):
        if rid in seen:
            raise ReferenceFileError(f"{path}, lines {seen[rid] + 2} and {i + 2}: the same row twice ({rid}: "
                                     f"same experiment, quantity and coordinates); keep one")
        seen[rid] = i
