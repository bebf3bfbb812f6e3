"""Liu, Zhang and Wang (2011): the reference rows added in issue 28 (Table 1 and the sentences around Figures 3 and 4).

Each checker turns one sentence of Section 5 into the 0/1 fact (or count) that
``experiments/liu2011/reference.csv`` compares with the paper; :data:`CHECKS`
holds the check text each row states, built from the same constants the code
uses.  "Large" / "significant" / "obvious" keep the reading of the older rows
(:data:`ccexp.report.liu2011.LARGE_MARGIN`: at least 0.05 of mean pairwise F
and more than 2 standard errors of the difference).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import f as f_dist

from .tables import fmt_number

#: Shared with :mod:`ccexp.report.liu2011` (which imports it from here, so the two cannot disagree).
LARGE_MARGIN = 0.05
#: "lower" variance: a one-sided F-test of the two pooled variances at this level (not sampling noise).
VARIANCE_ALPHA = 0.05

#: Table 1's columns: the record column each is read from.
TABLE1 = {"n_instances": "problem.n_items", "n_dimensions": "problem.n_features", "n_clusters": "problem.n_clusters"}

_BEATS_READING = (f"a lead of at least {LARGE_MARGIN} in mean F and more than 2 standard errors of the "
                  f"difference, the reading of 'by large margins' / 'significant improvements' in the rows above")

CHECKS = {
    "most_datasets_beaten": (
        "'In most experiments, incorporating SVM-Metric in K-Means performed significantly better than its baseline "
        "(K-Means + Euclidean Metric)' (Section 5.1): an experiment is a dataset (a panel of Figure 2; 'all but one "
        "experiments. The only exception is Iris'), 'significantly better' is " + _BEATS_READING + ", over the "
        "settings with constraints. ours = 1 if that holds on more than half of the datasets run"),
    "flat_curve": (
        "'the accuracy curves of K-Means + SVM-Metric are relatively flat ... the performance does not improve with "
        "increasing numbers of constraints fed' (Section 5.1): ours = 1 unless algorithm's mean F at the largest "
        f"number of constraints exceeds its mean F at the smallest number > 0 by at least {LARGE_MARGIN} and by more "
        "than 2 standard errors of the difference (a large improvement, read as the rows above read a large lead)"),
    "runs_vary_considerably": (
        "'the clustering quality in individual runs could vary considerably when applying different sets of randomly "
        "sampled relative constraints. An example is shown in Fig.3' (Section 5.1, Figure 3: min, max and average "
        f"of ReCon + Euclidean over 50 runs): ours = 1 if the range (max - min) of algorithm's F over the runs is at "
        f"least {LARGE_MARGIN} (the 'large' unit above) at more than half of the numbers of constraints > 0"),
    "sd_lower": (
        "'Note that the variance of using SVM-Metric alone is lower due to its \"saturation\" behavior' (Section "
        "5.1, Figure 3's standard deviations): the variance of F over the runs, pooled over the numbers of "
        "constraints > 0 (each weighted by its degrees of freedom); ours = 1 if algorithm's is below versus's and a "
        f"one-sided F-test of the two gives p < {VARIANCE_ALPHA} (not sampling noise)"),
    "informative_higher_than_random": (
        "'[K-Means + SVM-Metric] also achieved higher accuracy in Transfusion' (Section 5.2, with informative "
        "constraints, beside 'randomly generated constraints of the same amount'): algorithm's mean F with "
        "informative constraints against its mean F with random ones (recon_random, same scale) at the same "
        "numbers of constraints, matched as in claim_informative_beats_random_same_amount; ours = 1 if the lead "
        "averaged over the matched amounts is more than 2 standard errors above 0"),
    "informative_worse_than_random": (
        "'the clustering results became worse in Ionosphere' (Section 5.2, K-Means + SVM-Metric with informative "
        "constraints, beside random constraints of the same amount): matched as in informative_higher_than_random; "
        "ours = 1 if the lead averaged over the matched amounts is more than 2 standard errors below 0"),
    "informative_gain_limited": (
        "'But the overall accuracy gain [of K-Means + SVM-Metric from informative constraints] in all experiments "
        "was very limited' (Section 5.2): matched as in informative_higher_than_random; ours = 1 unless on some "
        "dataset the lead of informative over random constraints is at least "
        f"{LARGE_MARGIN} and more than 2 standard errors (a large gain, read as the rows above read a large lead)"),
}


def _lead(rows_a: pd.DataFrame, rows_b: pd.DataFrame) -> tuple[float, float]:
    """Mean of ``rows_a['mean']`` minus that of ``rows_b``, and the standard error of that difference.

    Each row is one setting's mean over ``count`` trials with standard deviation ``std``; the settings'
    means are averaged with equal weight, so var(average) = sum(std^2 / count) / m^2.
    """
    def se(r):
        var = (r["std"].fillna(0.0) ** 2 / r["count"].clip(lower=1)).sum()
        return float(np.sqrt(var)) / max(len(r), 1)
    return float(rows_a["mean"].mean() - rows_b["mean"].mean()), float(np.hypot(se(rows_a), se(rows_b)))


def large_lead(lead: float, se: float) -> bool:
    """The reading of 'by large margins' / 'significant improvements': ``lead >= 0.05`` and ``> 2 SE``."""
    return lead >= LARGE_MARGIN and lead > 2 * se


def table1(ok: pd.DataFrame, quantity: str, dataset: str):
    """Table 1's ``quantity`` (instances, dimensions or clusters) of ``dataset``, as the records state it.

    Returns ``(value, note)``; ``(None, why)`` when the dataset is not in the
    records or the records predate the column (then the run is redone).
    """
    col = TABLE1[quantity]
    sub = ok[ok["dataset"] == dataset] if len(ok) else ok
    if not len(sub):
        return None, "not run"
    if col not in sub or sub[col].isna().all():
        return None, f"the records carry no {col} (recorded since issue 28: rerun)"
    values = sorted(set(int(v) for v in sub[col].dropna()))
    if len(values) != 1:
        return None, f"{col} varies over the records: {values}"
    return values[0], f"{col} of every record"


def most_datasets_beaten(stats: pd.DataFrame, alg: str, other: str):
    """:data:`CHECKS` ``most_datasets_beaten``: ``alg`` beats ``other`` by a large lead on most datasets."""
    s = stats[stats["n_constraints"] > 0]
    won, lost = [], []
    for ds, g in s.groupby("dataset"):
        ra, rb = g[g["algorithm"] == alg], g[g["algorithm"] == other]
        if ra.empty or rb.empty:
            continue
        lead, se = _lead(ra, rb)
        (won if large_lead(lead, se) else lost).append(f"{ds} {fmt_number(lead, 3)}")
    n = len(won) + len(lost)
    if not n:
        return None, "not run"
    return int(len(won) > n / 2), (f"significantly better on {len(won)} of {n} datasets (lead in mean F): "
                                   f"{', '.join(won) or 'none'}; not on: {', '.join(lost) or 'none'}")


def flat_curve(stats: pd.DataFrame, alg: str, dataset: str):
    """:data:`CHECKS` ``flat_curve``: no large rise from the smallest number of constraints > 0 to the largest."""
    s = stats[(stats["algorithm"] == alg) & (stats["dataset"] == dataset) & (stats["n_constraints"] > 0)]
    if len(s) < 2:
        return None, "needs two numbers of constraints > 0"
    s = s.sort_values("n_constraints")
    first, last = s.iloc[[0]], s.iloc[[-1]]
    rise, se = _lead(last, first)
    return int(not large_lead(rise, se)), (
        f"mean F {fmt_number(float(first['mean'].iloc[0]), 3)} at {int(round(float(first['n_constraints'].iloc[0])))} "
        f"constraints, {fmt_number(float(last['mean'].iloc[0]), 3)} at {int(round(float(last['n_constraints'].iloc[0])))}: "
        f"rise {fmt_number(rise, 3)} (large = >= {LARGE_MARGIN} and > 2 SE = {fmt_number(2 * se, 3)})")


def runs_vary_considerably(stats: pd.DataFrame, alg: str, dataset: str):
    """:data:`CHECKS` ``runs_vary_considerably``: max - min over the runs >= 0.05 at most numbers of constraints."""
    s = stats[(stats["algorithm"] == alg) & (stats["dataset"] == dataset) & (stats["n_constraints"] > 0)]
    s = s[s["count"] >= 2]
    if s.empty:
        return None, "needs two runs per number of constraints"
    ranges = (s["max"] - s["min"]).to_numpy(float)
    wide = int((ranges >= LARGE_MARGIN).sum())
    return int(wide > len(ranges) / 2), (
        f"range of F over the runs >= {LARGE_MARGIN} at {wide} of {len(ranges)} numbers of constraints "
        f"(ranges {fmt_number(float(ranges.min()), 3)} to {fmt_number(float(ranges.max()), 3)}; "
        f"{int(s['count'].min())} runs or more each)")


def _pooled_variance(rows: pd.DataFrame) -> tuple[float, float]:
    df = (rows["count"] - 1).clip(lower=0)
    total = float(df.sum())
    return (float((df * rows["std"].fillna(0.0) ** 2).sum() / total) if total else float("nan")), total


def sd_lower(stats: pd.DataFrame, alg: str, other: str, dataset: str):
    """:data:`CHECKS` ``sd_lower``: ``alg``'s pooled variance over the runs below ``other``'s (F-test)."""
    s = stats[(stats["dataset"] == dataset) & (stats["n_constraints"] > 0) & (stats["count"] >= 2)]
    ra, rb = s[s["algorithm"] == alg], s[s["algorithm"] == other]
    if ra.empty or rb.empty:
        return None, "needs two runs per number of constraints of both"
    va, dfa = _pooled_variance(ra)
    vb, dfb = _pooled_variance(rb)
    if vb <= 0:
        return 0, f"{other}'s variance is 0: {alg}'s cannot be lower"
    p = float(f_dist.cdf(va / vb, dfa, dfb))
    return int(va < vb and p < VARIANCE_ALPHA), (
        f"pooled SD of F over the runs: {fmt_number(float(np.sqrt(va)), 4)} vs {fmt_number(float(np.sqrt(vb)), 4)} "
        f"(variance ratio {va / vb:.3g}); one-sided F-test p = {p:.2g} (needs < {VARIANCE_ALPHA})")


def informative_lead(matched: pd.DataFrame, dataset: str) -> tuple[float, float, int] | None:
    """Lead of informative over random constraints on ``dataset`` (``same_amount``'s rows): lead, SE, amounts."""
    g = matched[matched["dataset"] == dataset] if len(matched) else matched
    if not len(g):
        return None
    lead = float((g["inf_mean"] - g["rand_mean"]).mean())
    se = float(np.sqrt((g["inf_var"] / g["inf_count"].clip(lower=1) + g["rand_se"] ** 2).sum())) / len(g)
    return lead, se, len(g)


def informative_vs_random(matched: pd.DataFrame, dataset: str, direction: str):
    """:data:`CHECKS` ``informative_higher_than_random`` (``direction="higher"``) / ``..._worse_...`` (``"worse"``)."""
    got = informative_lead(matched, dataset)
    if got is None:
        return None, "needs recon_random's records at the same scale, with amounts overlapping the informative ones"
    lead, se, n = got
    holds = lead > 2 * se if direction == "higher" else lead < -2 * se
    return int(holds), f"lead of informative over random: {fmt_number(lead, 3)} (2 SE {fmt_number(2 * se, 3)}, {n} amounts)"


def informative_gain_limited(matched: pd.DataFrame):
    """:data:`CHECKS` ``informative_gain_limited``: no dataset with a large lead of informative over random."""
    if not len(matched):
        return None, "needs recon_random's records at the same scale, with amounts overlapping the informative ones"
    parts, large = [], []
    for ds in sorted(set(matched["dataset"])):
        lead, se, _ = informative_lead(matched, ds)
        parts.append(f"{ds} {fmt_number(lead, 3)}")
        if large_lead(lead, se):
            large.append(ds)
    return int(not large), ("leads: " + ", ".join(parts) + (f"; large on {', '.join(large)}" if large else ""))
