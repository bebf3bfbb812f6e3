"""The cause ``chance``: a difference that one fresh draw of the same runs does not keep.

The rule's tolerance is half a unit plus 2 standard errors of the difference
(:data:`~ccexp.report.tolerance.TOLERANCE_RULE`): a two-sided test at about
5 % per row.  A page with a hundred rows judged over trials shows about five
that *differ* when both sides are samples of one procedure (measured for
Aronsson & Chehreghani's 108 stored-curve rows: 5.15 on average, 7 or more in
26 % of 2,000 random splits; ``experiments/aronsson2024/README.md``).  Which
rows those are cannot be argued; it can be measured, by drawing our side again.

A differing row is ``chance`` when one fresh batch of its runs (the same code,
setup and number of trials, the repetitions numbered from :data:`FRESH_OFFSET`
instead of 0, so that every random draw is new and nothing else changes),
judged alone by the same rule, is not ``differs``: the difference does not
replicate.  The fresh runs are the paper's ledger
``experiments/<paper>/fresh_seeds.csv`` (one row per run: ``ref_id, trial,
value, code_version``).  One batch per row, numbered from 1000: a row cannot be
redrawn until it passes.

A row that is not a mean over trials (a claim, a count, a win percentage)
has no per-run values to draw again; it is judged on the report of one
fresh batch of the *whole* experiment (every algorithm and setting it reads,
the same number of trials, numbered from 1000), as that report's own
``comparison.csv`` judged it.  Those verdicts are the paper's ledger
``experiments/<paper>/fresh_claims.csv`` (:data:`FRESH_CLAIM_COLUMNS`,
written by ``scripts/fresh_claims_ledger.py``).  The reason is the same: a
claim that our procedure fails on one draw and passes on the next does not
fail systematically.

Why the fresh batch alone, and not pooled with the committed runs: the
committed batch is on trial *because* it differed, so it carries the selection
(an extreme draw); a test that includes it keeps half of that extremeness.
Under the null (both sides one procedure), a row that differed at z > 2 stays
beyond 2 when pooled in about a third of cases, while an independent batch
differs in about 1 case in 20, the rule's own rate.  A real gap replicates at
the rule's power, so a systematic difference stays ``unexplained``;
:func:`pooled` is kept for the README's tables, which report both.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .causes import csv_lines
from .comparison import compare_row
from .reference import reference_row
from .tolerance import _EPS, DIFFERS, STATUSES

#: The first repetition number of a fresh batch (the committed runs are numbered 0, 1, ...).
FRESH_OFFSET = 1000

#: The columns of ``experiments/<paper>/fresh_seeds.csv``.
FRESH_COLUMNS = ("ref_id", "trial", "value", "code_version")


def load_fresh_seeds(path: str | Path) -> dict[str, dict[int, float]]:
    """The fresh runs of a paper's rows, ``{ref_id: {trial: value}}``; empty when the file is absent.

    Raises
    ------
    ValueError
        A missing column, a trial that is not an integer, a value that is
        not a finite number, or a (ref_id, trial) given twice: one line
        naming the file and its line.
    """
    out: dict[str, dict[int, float]] = {}
    for line, row in csv_lines(path, FRESH_COLUMNS):
        where = f"{path}, line {line}"
        ref_id = (row["ref_id"] or "").strip()
        try:
            trial = int(row["trial"])
        except (TypeError, ValueError):
            raise ValueError(f"{where}: trial={row['trial']!r} is not an integer") from None
        try:
            value = float(row["value"])
        except (TypeError, ValueError):
            value = math.nan
        if not ref_id or not math.isfinite(value):
            raise ValueError(f"{where}: " + ("no ref_id" if not ref_id else f"value={row['value']!r} is not a number"))
        runs = out.setdefault(ref_id, {})
        if trial in runs:
            raise ValueError(f"{where}: ref_id={ref_id!r}, trial={trial} is given twice")
        runs[trial] = value
    return out


#: The columns of ``experiments/<paper>/fresh_claims.csv``: a row's value on the report of one fresh batch of the
#: whole experiment (``first_trial``: the batch's first repetition; ``results``: the run's results label).
FRESH_CLAIM_COLUMNS = ("ref_id", "ours", "ours_sem", "n_trials", "tolerance", "status", "first_trial", "results",
                       "code_version")


def _number(text, where: str, column: str, *, required: bool, integer: bool = False):
    """A ledger cell as a float (an int with ``integer``); NaN for an empty optional one."""
    text = (text or "").strip()
    if not text and not required:
        return math.nan
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ValueError(f"{where}: {column}={text!r} is not {'an integer' if integer else 'a number'}")
    return value


def load_fresh_claims(path: str | Path) -> dict[str, dict]:
    """The fresh-batch verdicts of a paper's rows that are not means over trials, ``{ref_id: entry}``.

    Empty when the file is absent.  An entry holds the row's ``ours``,
    ``ours_sem`` and ``n_trials`` (NaN when the report gives none),
    ``tolerance``, ``status``, ``first_trial``, ``results`` and ``code_version``
    as the fresh batch's report wrote them.

    Raises
    ------
    ValueError
        A missing column, a value or tolerance that is not a finite number, a
        status the rule does not know, or a ref_id given twice: one line
        naming the file and its line.
    """
    out: dict[str, dict] = {}
    for line, row in csv_lines(path, FRESH_CLAIM_COLUMNS):
        where = f"{path}, line {line}"
        ref_id = (row["ref_id"] or "").strip()
        if not ref_id:
            raise ValueError(f"{where}: no ref_id")
        if ref_id in out:
            raise ValueError(f"{where}: ref_id={ref_id!r} is given twice (one fresh batch per row)")
        status = (row["status"] or "").strip()
        if status not in STATUSES:
            raise ValueError(f"{where}: status={status!r} is not one of {', '.join(STATUSES)}")
        out[ref_id] = {
            "ours": _number(row["ours"], where, "ours", required=True),
            "ours_sem": _number(row["ours_sem"], where, "ours_sem", required=False),
            "n_trials": _number(row["n_trials"], where, "n_trials", required=False),
            "tolerance": _number(row["tolerance"], where, "tolerance", required=True),
            "status": status,
            "first_trial": _number(row["first_trial"], where, "first_trial", required=True, integer=True),
            "results": (row["results"] or "").strip(),
            "code_version": (row["code_version"] or "").strip(),
        }
    return out


def pooled(mean: float, sem: float, n: int, fresh) -> tuple[float, float, int]:
    """Mean, standard error and number of the committed runs and the fresh ones together.

    The committed side is known by its mean, SEM (SD / sqrt(n), ``ddof=1``)
    and n; the pooled SD is the exact one of all ``n + len(fresh)`` values:
    ((n1 - 1) s1^2 + (n2 - 1) s2^2 + n1 n2 / N (m1 - m2)^2) / (N - 1).

    Examples
    --------
    The values 1, 2, 3 (mean 2, SEM 1/sqrt(3)) pooled with 4, 5:

    >>> m, s, n = pooled(2.0, 1 / 3 ** 0.5, 3, [4.0, 5.0])
    >>> round(m, 6), round(s, 6), n   # mean 3, SD sqrt(2.5), SEM sqrt(2.5 / 5)
    (3.0, 0.707107, 5)
    """
    x = np.asarray(list(fresh), dtype=float)
    n1, n2 = int(n), int(x.size)
    if n1 < 1 or n2 < 1:
        raise ValueError(f"pooled: need runs on both sides, got n={n1} committed and {n2} fresh")
    s1 = float(sem) * math.sqrt(n1) if n1 > 1 else 0.0
    m2 = float(x.mean())
    s2 = float(x.std(ddof=1)) if n2 > 1 else 0.0
    total = n1 + n2
    m = (n1 * float(mean) + n2 * m2) / total
    var = ((n1 - 1) * s1 ** 2 + (n2 - 1) * s2 ** 2 + n1 * n2 / total * (float(mean) - m2) ** 2) / (total - 1)
    return m, math.sqrt(var / total), total


#: Claims that read the data, not a run (a toy example's weights, a data set's triplet density): no fresh batch can
#: draw them again.  Every other claim reads runs, whether it names one algorithm or, as "all algorithms struggle",
#: none; ``scripts/fresh_claims_ledger.py`` takes those.
DATA_CLAIMS = frozenset({"claim_toy_weights_are_figure2s", "claim_food_density_over_100pct"})


def drawn(ref: dict) -> bool:
    """Whether the reference row ``ref`` (``algorithm``, ``kind``, ``quantity``) depends on runs that can be drawn again.

    A row naming an algorithm does; so does a claim about all of them; a data set's size, the class labels'
    cost or a claim in :data:`DATA_CLAIMS` does not.
    """
    algorithm = ref.get("algorithm")
    if isinstance(algorithm, str) and algorithm:
        return True
    return ref.get("kind") == "claim" and ref.get("quantity") not in DATA_CLAIMS


def not_a_plain_mean(row: dict) -> str | None:
    """Why ``row`` is not a mean over trials whose runs can be drawn again (None when it is one)."""
    n = row.get("n_trials")
    if n is None or (isinstance(n, float) and math.isnan(n)) or int(n) < 2:
        return "is judged over fewer than 2 trials"
    again = compare_row(row["quantity"], row["paper"], row["ours"], math.nan, ref_id=row["ref_id"], sem=row["ours_sem"],
                        n_trials=int(n))
    if not math.isclose(again["tolerance"], float(row["tolerance"]), rel_tol=1e-9, abs_tol=1e-12):
        # a transformed value (a count as a percentage) or a claim: not a plain mean over trials
        return "is not a plain mean over trials (its committed tolerance is not the rule's for its mean and SE)"
    return None


def fresh_claim_row(row: dict, entry: dict) -> tuple[dict | None, str | None]:
    """A row that is not a mean over trials, judged on its fresh batch's report (:func:`load_fresh_claims`).

    The ledger keeps the report's verdict; it is taken only when the rule
    gives that verdict again: a claim's from its value
    (:func:`~ccexp.report.comparison.compare_row`), any other row's (a count
    as a percentage, judged in the report's own unit) from its value and
    tolerance (*differs* exactly when the difference exceeds the tolerance).

    Returns
    -------
    (comparison row, None) or (None, the reason in one line)
    """
    if entry["first_trial"] != FRESH_OFFSET:
        return None, (f"needs one fresh batch numbered from {FRESH_OFFSET} in fresh_claims.csv, has one from "
                      f"{entry['first_trial']}")
    ref = reference_row(row["ref_id"])
    n = entry["n_trials"]
    if ref is not None and ref["kind"] == "claim":
        again = compare_row(row["quantity"], row["paper"], entry["ours"], math.nan, ref_id=row["ref_id"],
                            sem=entry["ours_sem"], n_trials=None if math.isnan(n) else int(n))
        given = again["status"]
    else:  # a count as a percentage: the report's own unit and tolerance; only differs / not is checked
        off = abs(entry["ours"] - float(row["paper"])) > entry["tolerance"] + _EPS
        given = entry["status"] if off == (entry["status"] == DIFFERS) else (DIFFERS if off else "not differs")
    if given != entry["status"]:
        return None, (f"has the fresh verdict {entry['status']!r} in fresh_claims.csv, but the rule gives "
                      f"{given!r} for its value {entry['ours']:.4g}")
    judged = {"ref_id": row["ref_id"], "quantity": row["quantity"], "paper": row["paper"], "ours": entry["ours"],
              "ours_sem": entry["ours_sem"], "n_trials": n, "tolerance": entry["tolerance"],
              "status": entry["status"], "batch": "report"}
    return judged, None


def fresh_row(row: dict, runs: dict[int, float] | None, claim: dict | None = None) -> tuple[dict | None, str | None]:
    """The row judged on its fresh batch alone, or why it cannot be.

    ``row`` is a joined row of :func:`ccexp.report.joined.collect` (``ref_id,
    quantity, paper, ours, ours_sem, n_trials``); ``runs`` its fresh runs
    (:func:`load_fresh_seeds`).  The fresh batch must be one batch of the
    committed number of trials, numbered ``FRESH_OFFSET ... FRESH_OFFSET + n - 1``.
    A row that is not a plain mean over trials is judged instead on
    ``claim``, its entry of :func:`load_fresh_claims` (:func:`fresh_claim_row`).

    Returns
    -------
    (comparison row, None) or (None, the reason in one line); the comparison
    row's ``batch`` is ``"runs"`` (fresh_seeds.csv) or ``"report"``
    (fresh_claims.csv).
    """
    why = not_a_plain_mean(row)
    if why:
        if claim is not None:
            return fresh_claim_row(row, claim)
        return None, why + ", and has no fresh batch in fresh_claims.csv"
    n = int(row["n_trials"])
    if not runs:
        return None, "has no fresh runs in fresh_seeds.csv"
    want = set(range(FRESH_OFFSET, FRESH_OFFSET + n))
    if set(runs) != want:
        return None, (f"needs one fresh batch of {n} runs numbered {FRESH_OFFSET}-{FRESH_OFFSET + n - 1} in "
                      f"fresh_seeds.csv, has trials {min(runs)}-{max(runs)} ({len(runs)} runs)")
    x = np.array([runs[t] for t in sorted(runs)], dtype=float)
    judged = compare_row(row["quantity"], row["paper"], float(x.mean()), math.nan, ref_id=row["ref_id"],
                         sem=float(x.std(ddof=1)) / math.sqrt(n), n_trials=n)
    return {**judged, "batch": "runs"}, None


def batch_words(judged: dict) -> str:
    """How a message names the fresh batch of a judged row: ``"10 fresh runs"`` or ``"fresh batch's report"``."""
    if judged.get("batch") == "report":
        return "fresh batch's report"
    return f"{judged['n_trials']} fresh runs"


#: Causes that claim to explain a difference: refused on a row whose difference does not replicate.
EXPLAINING = ("measured", "setup")


def explained_chance_problem(kind: str, row: dict, runs: dict[int, float] | None, claim: dict | None = None) -> str | None:
    """Why an explaining cause (``measured``, ``setup``) is refused on a row whose fresh batch does not differ.

    ``chance`` comes first: a variant that moves a row cannot be the cause of
    a difference that one fresh draw of our own setup does not keep (the
    variant's agreement is then no more than what the default gives on a new
    draw).  Rows without a fresh batch, or whose batch cannot be judged
    (:func:`fresh_row`), are not refused here; ``unexplained`` and ``paper``
    claim no explanation by our settings and are left as they are.
    """
    if kind not in EXPLAINING or not (runs or claim):
        return None
    judged, _ = fresh_row(row, runs, claim)
    if judged is None or judged["status"] == DIFFERS:
        return None
    return (f"cause {kind!r} but its {batch_words(judged)} do{'es' if judged['batch'] == 'report' else ''} not differ "
            f"({judged['ours']:.4g} against {judged['paper']:.4g}: {judged['status']}): the difference does not "
            "replicate, so its cause is 'chance'")


def chance_problem(row: dict, runs: dict[int, float] | None, claim: dict | None = None) -> str | None:
    """Why a ``chance`` row does not meet the rule (None when its fresh batch is not ``differs``)."""
    judged, why = fresh_row(row, runs, claim)
    if why:
        return f"cause 'chance' but the row {why}"
    if judged["status"] == DIFFERS:
        return (f"cause 'chance' but its {batch_words(judged)} differ{'s' if judged['batch'] == 'report' else ''} "
                f"too: {judged['ours']:.4g} against {judged['paper']:.4g} (tolerance {judged['tolerance']:.3g})")
    return None
