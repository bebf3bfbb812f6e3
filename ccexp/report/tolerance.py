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
#: REPRODUCTION.md, which every paper's README links to; :func:`judge` is its code).
TOLERANCE_RULE = (
    "A number is compared with the paper's at the precision the paper printed it, and with the sampling "
    "error of *both* sides. **Standard error of the difference** (SE): our standard deviation over trials "
    "× sqrt(1/n_ours + 1/paper_n), where `paper_n` is the number of runs the paper averaged, as the paper "
    "states it (reference.csv's `paper_n`; a paper value that is one run has paper_n = 1); where the paper "
    "or its authors' data give their own standard deviation (`paper_sd`), sqrt(SE_ours² + paper_sd²/paper_n); "
    "where the paper states no number of runs, our standard error alone. A single run of ours, or trials "
    "that all agree, count as SD 0: a procedure that makes a random choice (an item order, an "
    "initialisation, a seed) always runs as trials, so its spread is measured, never assumed. "
    "Where each of the paper's runs is a whole number (a row with the rule `whole_runs`: a number of "
    "clusters) and its printed mean of `paper_n` runs is not, the mean itself shows that those runs "
    "differed: the SD that stands in for the paper's is then at least the least SD that `paper_n` whole "
    "numbers with that printed mean can have (7.9 over 10 runs: nine 8s and one 7, SD 0.316), so our "
    "spread never stands in below what the paper's own number proves. "
    "**Tolerance** = half a unit of the paper's last printed digit + 2 × SE, but never reaching the nearest "
    "*different* value another method has in the same cell group (same table, quantity, dataset and "
    "setting): the bound there is strict, since ours at a competitor's value cannot tell the two apart "
    "(a method the paper prints with the same value does not narrow the tolerance to zero). "
    "**The statuses are decided in this order**, the first that applies: "
    "**not run**: the records do not cover the row; "
    "a claim (kind `claim`) is **reproduced** when it holds as its check text reads it (within the claim's "
    "own threshold where its check measures a share), else **differs**; "
    "a row with the rule `at_most` (a ceiling the paper states) is **reproduced** when ours ≤ the paper's "
    "value + half a unit, else **differs**; "
    "**indistinguishable**: 2 × SE (the same standard error of the difference) reaches the nearest other "
    "method's value and |ours − paper| ≤ half a unit + 2 × SE, so neither run can tell this method's number "
    "from that one (counted neither as reproduced nor as differs); "
    "**reproduced**: ours rounded to the paper's printed decimals equals the paper's value (a row with the "
    "rule `truncated`, a table that cut its digits rather than rounding them: ours lies in [v, v + one unit), "
    "and its distances are taken to that interval's middle); "
    "**within tolerance**: |ours − paper| ≤ the tolerance (strictly less where the competitor's value "
    "bounds it); **differs**: all else."
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


def least_sd_of_whole_runs(mean, decimals, paper_n) -> float:
    """The least SD that ``paper_n`` whole numbers whose mean prints as ``mean`` can have.

    A mean of whole numbers (a number of clusters per run) that is not itself
    whole shows that the runs differed.  Over the exact means ``j / paper_n``
    that print as ``mean`` at ``decimals`` decimals (``j`` an integer), the
    least sample SD is reached with every run at the floor or the ceiling of
    the mean: with ``f`` the mean's fractional part, ``f * paper_n`` runs at
    the ceiling, SD ``sqrt(paper_n f (1 - f) / (paper_n - 1))``.  The least
    over those means is returned; 0 when a whole number prints as ``mean``
    or for one run.

    Parameters
    ----------
    mean : float
        The paper's printed mean.
    decimals : int
        Decimals it was printed with.
    paper_n : int
        Runs it averages.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``paper_n`` is below 1, or no mean of ``paper_n`` whole numbers
        prints as ``mean``.

    Examples
    --------
    Nine 8s and one 7 (7.9), seven 8s and three 7s (7.7), and a whole mean:

    >>> round(least_sd_of_whole_runs(7.9, 1, 10), 4), round(least_sd_of_whole_runs(7.7, 1, 10), 4)
    (0.3162, 0.483)
    >>> least_sd_of_whole_runs(8.0, 1, 10), least_sd_of_whole_runs(7.0, 1, 1)
    (0.0, 0.0)

    One run cannot print as 7.9 (a reference row with a wrong ``paper_n``):

    >>> least_sd_of_whole_runs(7.9, 1, 1)
    Traceback (most recent call last):
    ...
    ValueError: mean=7.9: no mean of 1 whole numbers prints as it at 1 decimals

    2.33 over 3 runs is 7/3 (two 2s and a 3):

    >>> round(least_sd_of_whole_runs(2.33, 2, 3), 4)
    0.5774
    """
    pn = int(paper_n)
    if pn < 1 or pn != float(paper_n):
        raise ValueError(f"paper_n must be a whole number of runs >= 1, got {paper_n!r}")
    half = half_unit(decimals)
    m = float(mean)
    sums = [j for j in range(math.floor((m - half) * pn) - 1, math.ceil((m + half) * pn) + 2)
            if abs(j / pn - m) <= half * (1 + 1e-9)]
    if not sums:
        raise ValueError(f"mean={mean!r}: no mean of {pn} whole numbers prints as it at {decimals} decimals")
    if pn == 1:
        return 0.0
    least = math.inf
    for j in sums:
        f = j / pn - math.floor(j / pn + 1e-12)
        f = 0.0 if f < 1e-12 or f > 1 - 1e-12 else f
        least = min(least, math.sqrt(pn * f * (1.0 - f) / (pn - 1)))
    return least


def se_of_difference(sem=None, n=None, paper_n=None, paper_sd=None) -> float:
    """Standard error of ``ours - paper``, both being means of runs (:data:`TOLERANCE_RULE`).

    Parameters
    ----------
    sem : float, optional
        Standard error of our mean (missing: 0).
    n : int, optional
        Our number of trials; with ``sem`` it gives our SD, ``sem * sqrt(n)``.
    paper_n : int, optional
        Runs the paper averaged (missing: the paper's value is taken as exact
        and the SE is ours alone).
    paper_sd : float, optional
        The paper's (or its authors' data's) own standard deviation over its
        runs; missing: ours stands in for it.

    Returns
    -------
    float
        ``sqrt(sem**2 + sd_paper**2 / paper_n)``, i.e. our SD × sqrt(1/n + 1/paper_n)
        when ``paper_sd`` is missing.

    Raises
    ------
    ValueError
        If ``paper_n`` is below 1, or our SD is needed but ``n`` is missing
        while ``sem`` is positive.

    Examples
    --------
    A one-run paper value against our 10 trials with SD 1 (SE 0.316):

    >>> round(se_of_difference(1 / 10**0.5, 10, paper_n=1), 4)
    1.0488
    >>> round(se_of_difference(1 / 10**0.5, 10, paper_n=10), 4)
    0.4472
    >>> se_of_difference(0.2, 10), se_of_difference(0.0, 1, paper_n=1)
    (0.2, 0.0)
    """
    sem_v = 0.0 if is_missing(sem) else float(sem)
    if is_missing(paper_n):
        return sem_v
    pn = float(paper_n)
    if pn < 1:
        raise ValueError(f"paper_n must be a number of runs >= 1, got {paper_n!r}")
    if not is_missing(paper_sd):
        sd_paper = float(paper_sd)
    elif sem_v == 0.0:
        sd_paper = 0.0
    elif is_missing(n):
        raise ValueError("n (our number of trials) is needed to turn our SE into an SD when paper_n is given")
    else:
        sd_paper = sem_v * math.sqrt(float(n))
    return math.sqrt(sem_v**2 + sd_paper**2 / pn)


def judge(kind: str, paper, ours, *, decimals=None, sem=None, cap=None, rule: str = "", claim_tolerance=None,
          n=None, paper_n=None, paper_sd=None) -> tuple[float, str]:
    """The tolerance and status of one compared number under :data:`TOLERANCE_RULE`.

    The statuses are decided in the rule's stated order: not run, a claim,
    a row's own ``rule``, indistinguishable, reproduced, within tolerance,
    differs.

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
        method has in the same cell group (missing: no competitor).  Ours
        must stay strictly nearer than this.
    rule : str
        ``""`` for the written rule; ``"at_most: <reason>"`` for a ceiling
        (ours ≤ paper + half a unit); ``"two_sample: sd=S n=N <reason>"``,
        the older spelling of ``paper_sd=S, paper_n=N``; ``"truncated: <reason>"``
        when the paper cut its digits rather than rounding them (Gionis et
        al.'s Tables 2 and 3): the printed v stands for [v, v + one unit),
        ours in it is reproduced, else |ours - (v + half a unit)| is judged
        as |ours - paper| is otherwise; ``"whole_runs: <reason>"`` when each
        of the paper's ``paper_n`` runs is a whole number (a number of
        clusters): the SD standing in for the paper's is at least
        :func:`least_sd_of_whole_runs` of its printed mean.
    claim_tolerance : float, optional
        A claim whose check measures a share or a ratio (not a 1/0) holds
        when ``|ours - paper| <= claim_tolerance``, the threshold its check
        text states (reference.csv's ``tolerance`` of a claim row).
    n : int, optional
        Our number of trials (needed with ``paper_n``, see :func:`se_of_difference`).
    paper_n, paper_sd : optional
        The paper's number of runs and, where known, their SD.

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

    A one-run paper value (paper_n = 1) against 10 trials of SD 1:

    >>> tol, st = judge("approx", 10.0, 11.5, decimals=1, sem=1 / 10**0.5, n=10, paper_n=1)
    >>> round(tol, 3), st
    (2.148, 'within tolerance')

    Our spread alone reaches a competitor 0.3 away:

    >>> judge("approx", 2.15, 2.0, decimals=2, sem=0.2, cap=0.3)
    (0.3, 'indistinguishable')

    A truncated table: 30,408.906 printed as 30,408, 11.954 as 11.9:

    >>> judge("approx", 30408, 30408.906, decimals=0, rule="truncated: Table 2")[1]
    'reproduced'
    >>> judge("approx", 11.9, 11.954, decimals=1, rule="truncated: Table 2")[1]
    'reproduced'
    >>> judge("approx", 11.9, 11.88, decimals=1, rule="truncated: Table 2")[1]
    'differs'
    >>> judge("approx", 11.9, 11.88, decimals=1, sem=0.02, rule="truncated: Table 2")
    (0.09, 'within tolerance')

    Ten runs of ours that all give 8 clusters, against the paper's 7.9 over ten
    runs: the paper's runs were not all 8 (nine 8s and a 7 at the least), so
    the SE of the difference is 0.316 / sqrt(10) = 0.1, not 0:

    >>> judge("approx", 7.9, 8.0, decimals=1, sem=0.0, n=10, paper_n=10)[1]
    'differs'
    >>> tol, st = judge("approx", 7.9, 8.0, decimals=1, sem=0.0, n=10, paper_n=10, rule="whole_runs: clusters")
    >>> round(tol, 3), st
    (0.25, 'within tolerance')
    """
    if kind == "claim":
        t = 0.0 if is_missing(claim_tolerance) else float(claim_tolerance)
        if is_missing(ours):
            return t, NOT_RUN
        return t, REPRODUCED if abs(float(ours) - float(paper)) <= t + 1e-12 else DIFFERS
    kind_of_rule = (rule or "").split(":", 1)[0].strip()
    if kind_of_rule == "two_sample":
        sd_rule, n_rule = _two_sample(rule)
        paper_sd = sd_rule if is_missing(paper_sd) else paper_sd
        paper_n = n_rule if is_missing(paper_n) else paper_n
    elif kind_of_rule not in ("", "at_most", "truncated", "whole_runs"):
        raise ValueError(
            f"rule {rule!r}: unknown rule (valid: '', 'at_most: <reason>', 'two_sample: sd=S n=N <reason>', "
            "'truncated: <reason>', 'whole_runs: <reason>')"
        )
    d = 0 if is_missing(decimals) else int(decimals)
    half = half_unit(d)
    if kind_of_rule == "whole_runs" and is_missing(paper_sd) and not is_missing(paper_n):
        # the paper's printed mean of whole-number runs proves a least spread of those runs; ours stands in
        # for their SD only where it is not below that
        sem_v = 0.0 if is_missing(sem) else float(sem)
        if sem_v > 0.0 and is_missing(n):
            raise ValueError("n (our number of trials) is needed with sem under the rule whole_runs")
        ours_sd = sem_v * math.sqrt(float(n)) if sem_v > 0.0 else 0.0
        paper_sd = max(ours_sd, least_sd_of_whole_runs(paper, d, paper_n))
    se = se_of_difference(sem, n, paper_n, paper_sd)
    raw = half + 2.0 * se
    cap_v = math.inf if is_missing(cap) else float(cap)
    capped = cap_v <= raw
    tol = min(raw, cap_v)
    if is_missing(ours):
        return tol, NOT_RUN
    ours_v, paper_v = float(ours), float(paper)
    diff = abs(ours_v - paper_v)
    if kind_of_rule == "at_most":
        return half, (REPRODUCED if ours_v <= paper_v + half * (1 + 1e-9) else DIFFERS)
    truncated = kind_of_rule == "truncated"
    if truncated:
        # the paper cut its digits instead of rounding them: the printed v stands for [v, v + one unit),
        # so the distance is taken to that interval's middle, and ours inside it is the paper's number
        diff = abs(ours_v - (paper_v + half))
    if 2.0 * se >= cap_v - _EPS and diff <= raw + _EPS:
        return tol, INDISTINGUISHABLE
    if truncated:
        if paper_v - 1e-9 * half <= ours_v < paper_v + 2.0 * half * (1 - 1e-9):
            return tol, REPRODUCED
    elif round(ours_v, d) == round(paper_v, d) or math.isclose(round(ours_v, d), round(paper_v, d), abs_tol=half * 1e-6):
        return tol, REPRODUCED
    # where the competitor's value bounds the tolerance, ours must stay strictly nearer than it
    within = diff < cap_v - _EPS if capped else diff <= tol + _EPS
    return tol, (WITHIN if within else DIFFERS)


def _two_sample(rule: str) -> tuple[float, int]:
    """The reference's own SD and number of runs from a ``two_sample: sd=S n=N ...`` rule.

    >>> _two_sample("two_sample: sd=0.04 n=8 (their runs)")
    (0.04, 8)
    """
    m = re.search(r"sd=([0-9.eE+-]+)\s+n=(\d+)", rule)
    if m is None or int(m.group(2)) < 1:
        raise ValueError(f"rule {rule!r}: a two_sample rule needs 'sd=S n=N'")
    return float(m.group(1)), int(m.group(2))


def sem_of(values) -> tuple[float, int]:
    """Standard error of the mean of ``values`` (NaN dropped) and their number; SEM 0 for one value."""
    v = np.asarray(pd.Series(values, dtype=float).dropna(), dtype=float)
    n = int(v.size)
    if n <= 1:
        return (0.0 if n == 1 else math.nan), n
    return float(v.std(ddof=1) / math.sqrt(n)), n
