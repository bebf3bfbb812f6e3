"""Report for Liu, Zhang and Wang (2011): Figures 2-5, Figure 3's table, the claims.

Everything is computed from the records; the paper reports no numbers in
its text (its results are curves), so ``experiments/liu2011/reference.csv``
holds its claims (kind ``claim``: value 1 = the claim holds) and the
qualitative facts a reader can check against Figures 2-5.  Algorithms and
datasets are handled generically: whichever are in the records are drawn,
and a claim about an absent one is "not run".
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy.stats import f as f_dist

from ..runner.store import ResultStore

from . import _liu2011_claims as more
from ._liu2011_claims import LARGE_MARGIN, _lead
from .common import code_versions, compare_row, with_error_bars, fmt_number, load_reference, markdown_table, ok_records
from .output import Report

PAPER = "liu2011"
X_COL = "problem.n_constraints"

ALGORITHM_ORDER = ("recon", "recon_svm", "kmeans_svm", "hierarchical", "kmeans")
DISPLAY = {
    "recon": "ReCon + Euclidean",
    "recon_svm": "ReCon + SVM-Metric",
    "kmeans_svm": "K-Means + SVM-Metric",
    "hierarchical": "Hierarchical + Euclidean",
    "kmeans": "K-Means + Euclidean",
}
_STYLE = {
    "recon": ("#d62728", "o", "-"),
    "recon_svm": ("#ff7f0e", "s", "-"),
    "kmeans_svm": ("#1f77b4", "^", "-"),
    "hierarchical": ("#7f7f7f", "v", "--"),
    "kmeans": ("#2ca02c", "D", "--"),
}
DATASET_ORDER = ("iris", "wine", "ionosphere", "transfusion", "digits389", "letters_ijlt", "letters3000", "digits3000")
DATASET_DISPLAY = {
    "iris": "Iris",
    "wine": "Wine",
    "ionosphere": "Ionosphere",
    "transfusion": "Transfusion",
    "digits389": "Digits-389",
    "letters_ijlt": "Letters-IJLT",
    "letters3000": "Letters-3000",
    "digits3000": "Digits-3000",
}
# Baselines that ignore the constraints (drawn flat when run at one setting only).
CONSTRAINT_FREE = ("hierarchical", "kmeans")
# "100% accuracy": a mean pairwise F-measure at least this high.
PERFECT = 0.999
#: "by large margins" (Section 5.1) read as: ahead by at least this much mean pairwise F (5 points of F);
#: :data:`LARGE_MARGIN` lives in :mod:`._liu2011_claims`, shared by the rows of issue 28.
#: "much smaller" variance (Section 5.2) read as: at most this share of the other variance.
MUCH_SMALLER_VARIANCE = 0.5
#: ... and smaller beyond sampling noise: a one-sided F-test at this level.
VARIANCE_ALPHA = 0.05

#: The check text of each claim quantity (reference.csv's ``check`` must equal it; a test compares them),
#: built from the same constants the code uses.
CHECKS = {
    "beats": (f"'by large margins' (Section 5.1) / 'significant improvements' (Section 5.2): ours = 1 if algorithm's "
              f"mean F-measure over the settings with constraints exceeds versus's by at least {LARGE_MARGIN} and by "
              f"more than 2 standard errors of the difference; a tie or a smaller lead is not a win"),
    "claim_informative_beats_random_same_amount": (
        f"'significantly higher accuracy with informative constraints' than 'randomly generated constraints of the "
        f"same amount' (Section 5.2): ReCon's mean F with informative constraints is compared with its mean F with "
        f"random constraints (recon_random, same scale) at the same number of constraints, the random curve "
        f"interpolated linearly between its two nearest settings; only amounts inside the random sweep's range count. "
        f"ours = 1 if on every dataset run in both, the lead averaged over those amounts is at least {LARGE_MARGIN} "
        f"and more than 2 standard errors of the difference (the reading of 'significant improvements' above)"),
    "claim_informative_smaller_variance": (
        f"'The variance of the performance gain was also much smaller' (Section 5.2): the gain is F with constraints "
        f"minus F without, and ReCon without constraints is deterministic on a dataset, so the gain's variance over "
        f"trials is F's. Pooled over the amounts and datasets matched as in the row above (the random variance "
        f"interpolated like its mean), ours = 1 if the variance with informative constraints is at most "
        f"{MUCH_SMALLER_VARIANCE:g} of that with random ones ('much') and a one-sided F-test of the two variances "
        f"gives p < {VARIANCE_ALPHA} (not sampling noise); needs >= 2 trials per setting on both sides"),
    "advantage_small_constraints": (
        f"'the advantage ... on the remaining five datasets was generally obvious with a small amount of "
        f"constraints': ours = 1 if, at the smallest number of constraints > 0, algorithm's mean F exceeds "
        f"versus's by at least {LARGE_MARGIN} ('obvious') and by more than 2 standard errors of the difference"),
    **more.CHECKS,
}


def _ordered(values, order):
    values = list(dict.fromkeys(values))
    return [v for v in order if v in values] + sorted(v for v in values if v not in order)


def curve_stats(ok: pd.DataFrame, value: str = "f_measure") -> pd.DataFrame:
    """Mean, std, min, max and count of ``value`` per dataset, algorithm and constraint setting.

    The setting is the oracle's ``fraction`` when present (each trial draws
    the same number), else the number of constraints; ``n_constraints`` is
    the mean number the algorithms saw.
    """
    key = "oracle.fraction" if "oracle.fraction" in ok and ok["oracle.fraction"].notna().any() else X_COL
    g = ok.groupby(["dataset", "algorithm", key])
    out = g[value].agg(["mean", "std", "min", "max", "count"]).reset_index()
    out["n_constraints"] = g[X_COL].mean().to_numpy()
    return _flat_baselines(out.rename(columns={key: "setting"}))


def _flat_baselines(stats: pd.DataFrame) -> pd.DataFrame:
    """Copy a constraint-free baseline's one setting to every setting of its dataset.

    ``recon_random`` runs ``hierarchical`` and ``kmeans`` (which never look
    at the constraints) once per dataset and trial, at 0 constraints; their
    F-measure distribution is the same at every
    number of constraints, so they are drawn and compared as flat lines
    (``count`` stays that of the one run per trial).
    """
    rows = [stats]
    for (ds, alg), sub in stats.groupby(["dataset", "algorithm"]):
        if alg not in CONSTRAINT_FREE or len(sub) != 1:
            continue
        others = stats[(stats["dataset"] == ds) & ~stats["algorithm"].isin(CONSTRAINT_FREE)]
        settings = others.groupby("setting")["n_constraints"].mean()
        settings = settings[~settings.index.isin(sub["setting"])]
        if len(settings):
            copy = sub.iloc[np.zeros(len(settings), dtype=int)].copy()
            copy["setting"] = settings.index.to_numpy()
            copy["n_constraints"] = settings.to_numpy()
            rows.append(copy)
    return pd.concat(rows, ignore_index=True).sort_values(["dataset", "algorithm", "setting"], ignore_index=True)


def _grid(n_panels: int, width: float = 3.6, height: float = 3.0):
    cols = min(3, max(1, n_panels))
    rows = int(np.ceil(n_panels / cols))
    fig = Figure(figsize=(width * cols, height * rows), constrained_layout=True)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes


def accuracy_figure(stats: pd.DataFrame, title: str) -> Figure:
    """One panel per dataset: mean pairwise F-measure against the number of constraints."""
    datasets = _ordered(stats["dataset"], DATASET_ORDER)
    fig, axes = _grid(max(1, len(datasets)))
    for ax, ds in zip(axes, datasets):
        sub = stats[stats["dataset"] == ds]
        for alg in _ordered(sub["algorithm"], ALGORITHM_ORDER):
            s = sub[sub["algorithm"] == alg].sort_values("n_constraints")
            color, marker, ls = _STYLE.get(alg, ("k", "x", ":"))
            # a constraint-free baseline is measured at 0 constraints only: one marker, a flat line
            every = [0] if alg in CONSTRAINT_FREE else None
            ax.plot(s["n_constraints"], s["mean"], color=color, marker=marker, ls=ls, ms=4, markevery=every,
                    label=DISPLAY.get(alg, alg))
        ax.set_title(DATASET_DISPLAY.get(ds, ds))
        ax.set_xlabel("number of constraints")
        ax.set_ylabel("pairwise F-measure")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    if datasets:
        axes[0].legend(fontsize=7, loc="lower right")
    fig.suptitle(title, fontsize=10)
    return fig


def figure3(stats: pd.DataFrame, algorithm: str = "recon") -> Figure | None:
    """Min / max / mean and standard deviation of one algorithm on Letters-IJLT and Digits-389."""
    datasets = [d for d in ("letters_ijlt", "digits389") if d in set(stats["dataset"])]
    sub = stats[(stats["algorithm"] == algorithm) & stats["dataset"].isin(datasets)]
    if sub.empty:
        return None
    fig = Figure(figsize=(7.5, 3.0 * len(datasets)), constrained_layout=True)
    axes = fig.subplots(len(datasets), 2, squeeze=False)
    for row, ds in enumerate(datasets):
        s = sub[sub["dataset"] == ds].sort_values("n_constraints")
        a, b = axes[row]
        a.plot(s["n_constraints"], s["max"], "g^-", ms=4, label="max")
        a.plot(s["n_constraints"], s["mean"], "ko-", ms=4, label="mean")
        a.plot(s["n_constraints"], s["min"], "rv-", ms=4, label="min")
        a.set_title(f"{DATASET_DISPLAY[ds]}: min, max, mean")
        a.set_ylim(0, 1.02)
        a.legend(fontsize=7)
        b.plot(s["n_constraints"], s["std"], "bs-", ms=4)
        b.set_title(f"{DATASET_DISPLAY[ds]}: standard deviation")
        for ax in (a, b):
            ax.set_xlabel("number of constraints")
            ax.grid(alpha=0.3)
    fig.suptitle(f"Figure 3: {DISPLAY[algorithm]} over the trials", fontsize=10)
    return fig


def figure5(ok: pd.DataFrame) -> Figure:
    """Run time of ReCon + Euclidean against the number of constraints, one panel per dataset."""
    sub = ok[ok["algorithm"] == "recon"]
    datasets = _ordered(sub["dataset"], DATASET_ORDER)
    fig, axes = _grid(max(1, len(datasets)), width=3.4)
    for ax, ds in zip(axes, datasets):
        s = sub[sub["dataset"] == ds].groupby(X_COL)
        mean = s["fit_seconds"].mean()
        ax.plot(mean.index, mean.to_numpy(), "ko-", ms=4, label="fit (total)")
        if "seconds.agglomerate" in sub:
            ax.plot(mean.index, s["seconds.agglomerate"].mean().to_numpy(), "r.--", label="agglomeration")
        ax.set_title(DATASET_DISPLAY.get(ds, ds))
        ax.set_xlabel("number of constraints")
        ax.set_ylabel("seconds")
        ax.grid(alpha=0.3)
    if datasets:
        axes[0].legend(fontsize=7)
    fig.suptitle("Figure 5: run time of ReCon + Euclidean (mean over trials)", fontsize=10)
    return fig


# --- claims ---------------------------------------------------------------------------


def _with_constraints(stats: pd.DataFrame) -> pd.DataFrame:
    return stats[stats["n_constraints"] > 0]


def dataset_means(stats: pd.DataFrame) -> pd.DataFrame:
    """Mean F over the settings with constraints (the area under the curve, normalised): dataset x algorithm."""
    return _with_constraints(stats).pivot_table(index="dataset", columns="algorithm", values="mean", aggfunc="mean")


def _claim_beats(stats, alg, other, dataset, smallest_only: bool = False):
    """1 if ``alg`` leads ``other`` on ``dataset`` by :data:`LARGE_MARGIN` and by more than 2 SE (:data:`CHECKS`).

    Over the settings with constraints (their mean F, the normalised area under the curve), or only the
    smallest number of constraints > 0 when ``smallest_only``.
    """
    s = _with_constraints(stats)
    s = s[s["dataset"] == dataset]
    if smallest_only and len(s):
        s = s[np.isclose(s["setting"].astype(float), s["setting"].astype(float).min())]
    ra, rb = s[s["algorithm"] == alg], s[s["algorithm"] == other]
    if ra.empty or rb.empty:
        return None, "not run"
    lead, se = _lead(ra, rb)
    holds = lead >= LARGE_MARGIN and lead > 2 * se
    where = "at the smallest number of constraints" if smallest_only else "over the settings with constraints"
    return int(holds), (f"mean F {where}: {fmt_number(float(ra['mean'].mean()), 3)} vs {fmt_number(float(rb['mean'].mean()), 3)}; "
                        f"lead {fmt_number(lead, 3)} (needs >= {LARGE_MARGIN} and > 2 SE = {fmt_number(2 * se, 3)})")


def _claim_share_datasets(stats, alg, other):
    """Share of datasets where ``alg`` beats ``other``: the mean F over the settings with constraints leads by
    more than 2 SE of the difference (:func:`_lead`), the winner standard of every paper's claims (issue 28).

    A lead within 2 SE is no win (it used to count: any lead did).
    """
    s = _with_constraints(stats)
    datasets = sorted(set(s.loc[s["algorithm"] == alg, "dataset"]) & set(s.loc[s["algorithm"] == other, "dataset"]))
    if not datasets:
        return None, "not run"
    wins, parts = [], []
    for ds in datasets:
        d = s[s["dataset"] == ds]
        lead, se = _lead(d[d["algorithm"] == alg], d[d["algorithm"] == other])
        if lead > 2 * se:
            wins.append(ds)
        parts.append(f"{ds} {lead:+.3f} (2 SE {2 * se:.3f})")
    return len(wins) / len(datasets), (f"wins (lead > 2 SE) on {len(wins)}/{len(datasets)}: {', '.join(wins) or 'none'}; "
                                       f"leads: {'; '.join(parts)}")


def _claim_perfect(stats, alg, dataset):
    full = stats[(stats["algorithm"] == alg) & (stats["dataset"] == dataset)
                 & np.isclose(stats["setting"].astype(float), 1.0)]
    if full.empty:
        return None, "complete set not run"
    f = float(full["mean"].iloc[0])
    return int(f >= PERFECT), f"mean F {fmt_number(f, 4)} over {int(full['count'].iloc[0])} trial(s) (100% = F >= {PERFECT})"


def _claim_improves(stats, alg, dataset):
    m = dataset_means(stats)
    zero = stats[(stats["n_constraints"] == 0) & (stats["algorithm"] == alg) & (stats["dataset"] == dataset)]
    if alg not in m or dataset not in m.index or zero.empty:
        return None, "not run"
    gain = m.loc[dataset, alg] - float(zero["mean"].iloc[0])
    return int(gain > 0), f"mean F with constraints minus F without: {fmt_number(gain, 3)}"


def _claim_seconds(ok, alg, dataset):
    sub = ok[(ok["algorithm"] == alg) & (ok["dataset"] == dataset)]
    if sub.empty:
        return None, "not run"
    t = sub.groupby(X_COL)["fit_seconds"].mean()
    return float(t.max()), f"largest mean fit time, at {int(t.idxmax())} constraints"


def same_amount(informative: pd.DataFrame, random: pd.DataFrame, algorithm: str = "recon") -> pd.DataFrame:
    """``algorithm``'s informative settings beside its random curve at the same number of constraints.

    Parameters
    ----------
    informative, random : DataFrame
        :func:`curve_stats` of ``recon_informative`` and of ``recon_random``.
    algorithm : str
        The algorithm compared (the paper's sentence is about ReCon).

    Returns
    -------
    DataFrame
        One row per (dataset, informative setting with 0 < n_constraints <= the
        largest random n_constraints): ``dataset, n_constraints, inf_mean, inf_var,
        inf_count, rand_mean, rand_var, rand_se, rand_count``.  The random
        curve's mean and variance are interpolated linearly in the number of
        constraints between its two nearest settings; ``rand_se`` is the standard
        error of that interpolated mean (the two settings' SEs weighted in
        quadrature) and ``rand_count`` the smaller of their trial counts.
    """
    cols = ["dataset", "n_constraints", "inf_mean", "inf_var", "inf_count", "rand_mean", "rand_var", "rand_se",
            "rand_count"]
    rows = []
    inf = informative[(informative["algorithm"] == algorithm) & (informative["n_constraints"] > 0)]
    rnd = random[random["algorithm"] == algorithm] if len(random) else random
    for ds, g in inf.groupby("dataset"):
        r = rnd[rnd["dataset"] == ds].sort_values("n_constraints") if len(rnd) else rnd
        if len(r) < 2:
            continue
        x = r["n_constraints"].to_numpy(float)
        var = (r["std"].fillna(0.0) ** 2).to_numpy(float)
        cnt = r["count"].to_numpy(float)
        for s in g.itertuples():
            n = float(s.n_constraints)
            if n > x[-1] + 1e-9:
                continue
            j = int(np.clip(np.searchsorted(x, n), 1, len(x) - 1))
            w = (n - x[j - 1]) / (x[j] - x[j - 1]) if x[j] > x[j - 1] else 1.0
            means = r["mean"].to_numpy(float)
            se2 = (1 - w) ** 2 * var[j - 1] / max(cnt[j - 1], 1) + w ** 2 * var[j] / max(cnt[j], 1)
            rows.append([ds, n, float(s.mean), float(0.0 if pd.isna(s.std) else s.std ** 2), int(s.count),
                         float((1 - w) * means[j - 1] + w * means[j]), float((1 - w) * var[j - 1] + w * var[j]),
                         float(np.sqrt(se2)), int(min(cnt[j - 1], cnt[j]))])
    return pd.DataFrame(rows, columns=cols)


def _claim_informative_beats_random(matched: pd.DataFrame):
    """:data:`CHECKS` ``claim_informative_beats_random_same_amount`` on :func:`same_amount`'s rows."""
    if not len(matched):
        return None, "needs recon_random's records at the same scale, with amounts overlapping the informative ones"
    parts, fails = [], []
    for ds, g in matched.groupby("dataset"):
        lead = float((g["inf_mean"] - g["rand_mean"]).mean())
        inf_se2 = g["inf_var"] / g["inf_count"].clip(lower=1)
        se = float(np.sqrt((inf_se2 + g["rand_se"] ** 2).sum())) / len(g)
        ok_ = lead >= LARGE_MARGIN and lead > 2 * se
        parts.append(f"{ds}: lead {fmt_number(lead, 3)} (2 SE {fmt_number(2 * se, 3)}, {len(g)} amounts)")
        if not ok_:
            fails.append(ds)
    return int(not fails), "; ".join(parts) + (f"; not significantly higher on {', '.join(fails)}" if fails else "")


def _claim_informative_smaller_variance(matched: pd.DataFrame):
    """:data:`CHECKS` ``claim_informative_smaller_variance`` on :func:`same_amount`'s rows."""
    m = matched[(matched["inf_count"] >= 2) & (matched["rand_count"] >= 2)] if len(matched) else matched
    if not len(m):
        return None, "needs >= 2 trials per setting with informative and with random constraints (same amounts)"
    df_inf = float((m["inf_count"] - 1).sum())
    df_rand = float((m["rand_count"] - 1).sum())
    v_inf = float(((m["inf_count"] - 1) * m["inf_var"]).sum() / df_inf)
    v_rand = float(((m["rand_count"] - 1) * m["rand_var"]).sum() / df_rand)
    if v_rand <= 0:
        return 0, f"random constraints' variance is 0 ({len(m)} amounts): informative cannot be smaller"
    ratio = v_inf / v_rand
    p = float(f_dist.cdf(ratio, df_inf, df_rand))
    holds = ratio <= MUCH_SMALLER_VARIANCE and p < VARIANCE_ALPHA
    return int(holds), (f"pooled variance of F over trials: informative {v_inf:.3g}, random {v_rand:.3g} "
                        f"(ratio {ratio:.3g}, needs <= {MUCH_SMALLER_VARIANCE:g}); one-sided F-test p = {p:.2g} "
                        f"(needs < {VARIANCE_ALPHA}); {len(m)} amounts")


def comparison_rows(experiment: str, stats: pd.DataFrame, ok: pd.DataFrame,
                    random_stats: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per reference row of ``experiment``: ours beside the paper's.

    Parameters
    ----------
    experiment : str
        ``recon_random``, ``recon_informative`` or ``recon_runtime``.
    stats : DataFrame
        :func:`curve_stats` of the experiment's ok records.
    ok : DataFrame
        The ok records (run times are read from them).
    random_stats : DataFrame, optional
        :func:`curve_stats` of ``recon_random`` at the same scale: the
        informative-vs-random claims of Section 5.2 need it ("not run" without).

    Returns
    -------
    DataFrame
        :func:`ccexp.report.common.compare_row`'s columns plus ``dataset`` and ``source``.
    """
    ref = load_reference(PAPER, experiment)
    def matched_of(algorithm):
        if random_stats is None or not len(random_stats):
            return pd.DataFrame(columns=["dataset"])
        return same_amount(stats, random_stats, algorithm)

    matched = matched_of("recon")
    rows = []
    for r in ref.itertuples():
        q, ds = r.quantity, (r.dataset if isinstance(r.dataset, str) else "")
        if q == "beats":
            ours, note = _claim_beats(stats, r.algorithm, r.versus, ds)
        elif q == "share_of_datasets_won":
            ours, note = _claim_share_datasets(stats, r.algorithm, r.versus)
        elif q == "perfect_at_complete_set":
            ours, note = _claim_perfect(stats, r.algorithm, ds)
        elif q == "advantage_small_constraints":
            ours, note = _claim_beats(stats, r.algorithm, r.versus, ds, smallest_only=True)
        elif q == "claim_informative_beats_random_same_amount":
            ours, note = _claim_informative_beats_random(matched)
        elif q == "claim_informative_smaller_variance":
            ours, note = _claim_informative_smaller_variance(matched)
        elif q == "max_mean_seconds":
            ours, note = _claim_seconds(ok, r.algorithm, ds)
        elif q in more.TABLE1:
            ours, note = more.table1(ok, q, ds)
        elif q == "most_datasets_beaten":
            ours, note = more.most_datasets_beaten(stats, r.algorithm, r.versus)
        elif q == "flat_curve":
            ours, note = more.flat_curve(stats, r.algorithm, ds)
        elif q == "runs_vary_considerably":
            ours, note = more.runs_vary_considerably(stats, r.algorithm, ds)
        elif q == "sd_lower":
            ours, note = more.sd_lower(stats, r.algorithm, r.versus, ds)
        elif q in ("informative_higher_than_random", "informative_worse_than_random"):
            ours, note = more.informative_vs_random(matched_of(r.algorithm), ds, q.split("_")[1])
        elif q == "informative_gain_limited":
            ours, note = more.informative_gain_limited(matched_of(r.algorithm))
        else:
            ours, note = None, f"unknown quantity {q!r}"
        # a ceiling (max_mean_seconds) is the reference row's rule at_most
        row = compare_row(q, r.value, ours, r.tolerance, algorithm=r.algorithm, versus=r.versus, note=note,
                          ref_id=r.ref_id)
        row["dataset"] = ds
        row["source"] = r.source
        rows.append(row)
    return pd.DataFrame(rows)


def _comparison_md(experiment: str, title: str, records, ok, not_ok, cmp, scale, extra="") -> str:
    counts = cmp["verdict"].value_counts().to_dict() if len(cmp) else {}
    shown = cmp[["quantity", "dataset", "algorithm", "versus", "paper", "ours", "ours_sem", "n_trials", "tolerance", "status", "note"]] if len(
        cmp) else cmp
    text = [
        f"# {experiment}: comparison with {PAPER} ({title})",
        "",
        f"- scale: {scale}",
        f"- cases (records): {len(records)}; non-ok: {int(not_ok.sum()) if len(not_ok) else 0}",
        f"- algorithms: {', '.join(DISPLAY.get(a, a) for a in _ordered(ok['algorithm'], ALGORITHM_ORDER))}",
        f"- datasets: {', '.join(_ordered(ok['dataset'], DATASET_ORDER))}",
        f"- code version(s): {', '.join(code_versions(records)) or 'unknown'}",
        f"- verdicts: {', '.join(f'{k}: {v}' for k, v in counts.items()) or 'none'}",
        "",
        "The paper gives curves, not numbers: each row turns one of its statements (reference.csv's source "
        "column) into a 0/1 fact or a share computed from our records (see the note). A dataset's score is its "
        "mean pairwise F-measure over the settings with at least one constraint. Rows about datasets or "
        "algorithms absent from these records are 'not run'.",
        "",
        markdown_table(with_error_bars(shown), digits=3) if len(shown) else "(no reference rows)\n",
        extra,
    ]
    return "\n".join(text)


def _mean_table(stats: pd.DataFrame) -> pd.DataFrame:
    t = stats.pivot_table(index=["dataset", "setting", "n_constraints"], columns="algorithm", values="mean").reset_index()
    return t[["dataset", "setting", "n_constraints"] + _ordered([c for c in t.columns[3:]], ALGORITHM_ORDER)]


def report_random(records: pd.DataFrame, out_dir: Path, scale: str, n_grid_instances: int | None = None) -> Report:
    """recon_random: Figure 2, Figure 3 and its table, comparison.md."""
    out = Report()
    ok, not_ok = ok_records(records)
    stats = curve_stats(ok)
    out.figure("figure2.png", accuracy_figure(stats, "Figure 2: random relative constraints (mean over trials)"), dpi=110)
    fig3 = figure3(stats)
    if fig3 is not None:
        out.figure("figure3.png", fig3, dpi=110)
    out.table("figure2_mean_f", _mean_table(stats), digits=3)
    f3 = stats[(stats["algorithm"] == "recon") & stats["dataset"].isin(["letters_ijlt", "digits389"])]
    f3 = f3[["dataset", "n_constraints", "min", "max", "mean", "std", "count"]].sort_values(["dataset", "n_constraints"])
    out.table("figure3_recon_spread", f3, digits=3)
    cmp = comparison_rows("recon_random", stats, ok)
    extra = "## Figure 3 (ReCon + Euclidean over the trials)\n\n" + (
        markdown_table(f3, digits=3) if len(f3) else "Letters-IJLT / Digits-389 not in these records.\n")
    out.compare(cmp, _comparison_md("recon_random", "Section 5.1, Figures 2 and 3", records, ok, not_ok, cmp, scale, extra))
    return out


def report_informative(records: pd.DataFrame, out_dir: Path, scale: str, n_grid_instances: int | None = None) -> Report:
    """recon_informative: Figure 4, comparison.md; reads ``recon_random``'s records beside ``out_dir``."""
    out = Report()
    ok, not_ok = ok_records(records)
    stats = curve_stats(ok)
    out.figure("figure4.png", accuracy_figure(
        stats, "Figure 4: informative constraints, random subsets and the complete set (mean over trials)"), dpi=110)
    out.table("figure4_mean_f", _mean_table(stats), digits=3)
    random_stats = random_curve_stats(out_dir)
    cmp = comparison_rows("recon_informative", stats, ok, random_stats)
    matched = same_amount(stats, random_stats) if len(random_stats) else pd.DataFrame()
    if len(matched):
        out.table("informative_vs_random_same_amount", matched, digits=4)
    extra = ("## ReCon: informative against random constraints of the same amount\n\n"
             + (markdown_table(matched, digits=4) if len(matched) else
                "recon_random has no records at this scale (or no amount in common): not compared.\n"))
    out.compare(cmp, _comparison_md("recon_informative", "Section 5.2, Figure 4", records, ok, not_ok, cmp, scale, extra))
    return out


def random_curve_stats(out_dir: Path) -> pd.DataFrame:
    """:func:`curve_stats` of ``recon_random``'s ok records in the same scale folder as ``out_dir`` (empty if none).

    ``out_dir`` is ``results/recon_informative/<label>``; the random records are
    ``results/recon_random/<label>``, read through the store (parts included).
    """
    store = ResultStore(Path(out_dir).parent.parent / "recon_random" / Path(out_dir).name)
    if not store.has_records():
        return pd.DataFrame()
    ok, _ = ok_records(store.load())
    # ReCon (claim_informative_*) and K-Means + SVM-Metric (Section 5.2's remarks on it)
    ok = ok[ok["algorithm"].isin(["recon", "kmeans_svm"])] if len(ok) else ok
    return curve_stats(ok) if len(ok) else pd.DataFrame()


def report_runtime(records: pd.DataFrame, out_dir: Path, scale: str, n_grid_instances: int | None = None) -> Report:
    """recon_runtime: Figure 5, its table, comparison.md."""
    out = Report()
    ok, not_ok = ok_records(records)
    out.figure("figure5.png", figure5(ok), dpi=110)
    cols = [c for c in ("fit_seconds", "seconds.one_tree", "seconds.agglomerate", "seconds.cut") if c in ok]
    t = ok[ok["algorithm"] == "recon"].groupby(["dataset", X_COL])[cols].agg(["mean", "max"])
    t.columns = [f"{a} {b}" for a, b in t.columns]
    t = out.table("figure5_seconds", t.reset_index(), digits=3)
    stats = curve_stats(ok)
    cmp = comparison_rows("recon_runtime", stats, ok)
    out.compare(cmp, _comparison_md("recon_runtime", "Section 5.3, Figure 5", records, ok, not_ok, cmp, scale,
                                    "## Run time (seconds)\n\n" + markdown_table(t, digits=3)))
    return out


REPORTS = {
    "recon_random": report_random,
    "recon_informative": report_informative,
    "recon_runtime": report_runtime,
}
