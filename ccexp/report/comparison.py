"""One comparison row: ours beside the paper's number, judged by the tolerance rule."""

from __future__ import annotations

import math

from .reference import reference_row
from .tables import is_missing
from .tolerance import _EPS, DIFFERS, NOT_RUN, OUTSIDE, REPRODUCED, WITHIN, judge, se_of_difference

#: The columns of a comparison row, in order: what :func:`compare_row` returns (the one list of them; a report
#: adds its own coordinate columns after them, e.g. ``dataset``).
COMPARISON_COLUMNS = ("ref_id", "quantity", "algorithm", "versus", "k", "a", "b", "paper", "ours", "ours_sem",
                      "n_trials", "difference", "tolerance", "verdict", "status", "note")
#: The columns of a comparison without rows (an experiment no paper reports,
#: :func:`ccexp.report.output.no_paper_comparison`): the judged value's, without the coordinates, the
#: trials and the status, as the committed empty ``comparison.csv`` files have them.
EMPTY_COMPARISON_COLUMNS = tuple(c for c in COMPARISON_COLUMNS
                                 if c not in ("algorithm", "versus", "k", "a", "b", "ours_sem", "n_trials", "status"))


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
        Keyed by :data:`COMPARISON_COLUMNS`, in their order.
    """
    ref = reference_row(ref_id)
    diff = math.nan if is_missing(ours) else float(ours) - float(paper)
    sem_v = 0.0 if is_missing(sem) else float(sem)
    if ref is None or (half is not None and ref["kind"] != "claim"):
        # no reference row, or a transformed value (a count as a percentage): its own half unit,
        # our 2 SE, no competitor cap (the transformed unit has none)
        h = float(half) if half is not None else (0.0 if is_missing(tolerance) else float(tolerance))
        if ref is not None:  # the paper's runs count here too (a count's percentage has the count's paper_n)
            sem_v = se_of_difference(sem_v, n_trials, ref.get("paper_n"), None)
        tol = h + 2.0 * sem_v
        if is_missing(ours):
            status = NOT_RUN
        elif abs(diff) <= h + _EPS:
            status = REPRODUCED
        else:
            status = WITHIN if abs(diff) <= tol + _EPS else DIFFERS
    else:
        tol, status = judge(ref["kind"], paper, ours, decimals=ref["decimals"], sem=sem, cap=ref["cap"],
                            rule=ref.get("rule", ""), claim_tolerance=ref["tolerance"], n=n_trials,
                            paper_n=ref.get("paper_n"), paper_sd=ref.get("paper_sd"))
    verdict_ = {REPRODUCED: WITHIN, WITHIN: WITHIN, DIFFERS: OUTSIDE}.get(status, status)
    return dict(zip(COMPARISON_COLUMNS, (
        ref_id, quantity, algorithm or "", versus or "",
        None if is_missing(k) else k, None if is_missing(a) else a, None if is_missing(b) else b,
        paper, math.nan if is_missing(ours) else ours, math.nan if is_missing(sem) else float(sem),
        math.nan if is_missing(n_trials) else int(n_trials), diff, tol, verdict_, status, note), strict=True))
