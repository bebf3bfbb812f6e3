"""The tolerance rule (:data:`TOLERANCE_RULE`) and its code, :func:`judge`.

A compared number is judged at the paper's printed precision plus our
sampling error, capped by the nearest competitor's value (issue 13); the
statuses a reference row can carry are the constants below.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from .tables import is_missing


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

# Comparisons of floats against a tolerance: a difference that equals the
# tolerance up to rounding noise of the mean counts as within.
_EPS = 1e-9


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
    m = re.search(r"sd=([0-9.eE+-]+)\s+n=(\d+)", rule)
    if m is None or int(m.group(2)) < 1:
        raise ValueError(f"rule {rule!r}: a two_sample rule needs 'sd=S n=N'")
    return float(m.group(1)) / math.sqrt(int(m.group(2)))


def sem_of(values) -> tuple[float, int]:
    """Standard error of the mean of ``values`` (NaN dropped) and their number; SEM 0 for one value."""
    v = np.asarray(pd.Series(values, dtype=float).dropna(), dtype=float)
    n = int(v.size)
    if n <= 1:
        return (0.0 if n == 1 else math.nan), n
    return float(v.std(ddof=1) / math.sqrt(n)), n
