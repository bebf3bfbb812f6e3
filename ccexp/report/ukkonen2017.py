"""Report for Ukkonen (2017), Experiment 1 (Section V-A): Figure 2, Table I, win counts.

Everything written here is computed from the records; the paper's numbers
come from ``experiments/ukkonen2017/reference.csv``.  Algorithms are handled
generically: whichever of them are in the records are plotted, tabulated and
compared, and a reference row about an absent algorithm gets the verdict
"not run".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from .common import (
    STATUSES,
    with_error_bars,
    MISSING,
    NOT_RUN,
    OUTSIDE,
    WITHIN,
    code_versions,
    compare_row,
    fmt_number,
    is_missing,
    load_reference,
    markdown_table,
    ok_records,
    write_table,
)

PAPER = "ukkonen2017"
EXPERIMENT = "exp1_triplets"

# Record columns of the three generator parameters (the paper's k, a, b).
K, A, B = "dataset.k", "oracle.fraction", "oracle.noise"

# The paper's order in Table I first, then the algorithms it reports only in
# the text or not at all; unknown algorithms follow in alphabetical order.
ALGORITHM_ORDER = ("ls_ad_vc", "ls_eq_vc", "crowdclust_dpmm", "tste_dpmm", "ls_ad", "ls_eq", "triplet_approx")
DISPLAY = {
    "ls_ad_vc": "Ls-AD-VC",
    "ls_eq_vc": "Ls-EQ-VC",
    "ls_ad": "Ls-AD",
    "ls_eq": "Ls-EQ",
    "triplet_approx": "Algorithm 1",
    "crowdclust_dpmm": "CrowdClust",
    "tste_dpmm": "t-STE",
}
# Fixed colour and marker per algorithm so every figure (and every scale)
# draws an algorithm the same way.
_STYLE = {
    "ls_ad_vc": ("#d62728", "o"),
    "ls_eq_vc": ("#1f77b4", "s"),
    "ls_ad": ("#ff7f0e", "v"),
    "ls_eq": ("#17becf", "D"),
    "triplet_approx": ("#2ca02c", "^"),
    "crowdclust_dpmm": ("#9467bd", "P"),
    "tste_dpmm": ("#8c564b", "X"),
}
_SPARE_STYLE = [("#e377c2", "*"), ("#7f7f7f", "h"), ("#bcbd22", "<"), ("#000000", ">")]

# The correlation-clustering methods and the embedding baselines, as the
# paper groups them in its discussion of Figure 2.
CC_METHODS = ("ls_ad_vc", "ls_eq_vc", "ls_ad", "ls_eq")
EMBEDDINGS = ("crowdclust_dpmm", "tste_dpmm")
# The algorithms of the paper's Section V; claims about "all algorithms" or
# "other methods" are about these (our extras, e.g. Algorithm 1 run on its
# own, are reported in the note but do not decide the verdict).
PAPER_ALGORITHMS = CC_METHODS + EMBEDDINGS
TABLE1_ALGORITHMS = ("ls_ad_vc", "ls_eq_vc", "crowdclust_dpmm", "tste_dpmm")
REFERENCE_ALGORITHM = "ls_ad_vc"  # the paper's win counts pair it with each other method

TABLE1_A = (1.0, 0.1, 0.05, 0.01)
TABLE1_K = (2, 4, 8, 16)
TABLE1_B = (0.0, 0.1, 0.2)

# Figure 2's panels: (column title, fixed settings of the three rows, x variable).
FIG2_LEFT = [{K: k, B: 0.2} for k in (4, 8, 16)]
FIG2_MIDDLE = [{A: 0.01, B: b} for b in (0.0, 0.1, 0.2)]
# The paper does not name the a values of the right column; these are ours.
FIG2_RIGHT = [{K: 8, A: a} for a in (0.01, 0.1, 1.0)]

# Ties in ARI between two algorithms on the same instance (identical
# partitions give bit-identical ARI, but sums may differ in the last ulp).
ARI_TIE = 1e-12

# Thresholds that turn the paper's qualitative claims into checks.
NEAR_PERFECT = 0.95  # "(almost) perfectly", "very well", "near-perfect"
REASONABLE = 0.5  # "reasonable results"
DIFFICULT = 0.5  # "difficulties reconstructing"
NOISE_RANGE = 0.05  # "more or less unaffected by noise": max - min over b
CLOSE_SECOND = 0.1  # "close second": at most this much below Ls-AD-VC
WORKS_WELL = 0.8  # "works very well" (t-STE at b=0)
RAPID_DROP = 0.2  # "rapidly decreases": ARI lost from b=0 to the largest b


def algorithm_order(algorithms) -> list[str]:
    """Algorithms in the paper's order, unknown ones last (alphabetically)."""
    present = set(algorithms)
    known = [a for a in ALGORITHM_ORDER if a in present]
    return known + sorted(present - set(known))


def display(name: str) -> str:
    """The paper's name for an algorithm (the registry name if it has none)."""
    return DISPLAY.get(name, name)


def _styles(algorithms: list[str]) -> dict[str, tuple[str, str]]:
    spare = iter(_SPARE_STYLE * 4)
    return {a: _STYLE[a] if a in _STYLE else next(spare) for a in algorithms}


def _key(x) -> float:
    # Grid values come from yaml floats; rounding makes 0.1 from two sources equal.
    return round(float(x), 10)


# --------------------------------------------------------------------------- statistics


def cell_stats(ok: pd.DataFrame) -> pd.DataFrame:
    """Per (algorithm, k, a, b): mean and std of ARI and of the number of clusters over trials.

    Parameters
    ----------
    ok : DataFrame
        Records with ``status == "ok"``.

    Returns
    -------
    DataFrame
        Columns ``algorithm, k, a, b, ari_mean, ari_std, n_clusters_mean,
        n_trials``; ``a`` and ``b`` rounded so they can be matched by value.
        The std is 0 for a setting run once (the deterministic a=1, b=0).
    """
    cols = ["algorithm", "k", "a", "b", "ari_mean", "ari_std", "n_clusters_mean", "n_clusters_sem", "n_trials"]
    if not len(ok):
        return pd.DataFrame(columns=cols)
    df = pd.DataFrame(
        {
            "algorithm": ok["algorithm"].astype(str).to_numpy(),
            "k": ok[K].astype(int).to_numpy(),
            "a": [_key(v) for v in ok[A]],
            "b": [_key(v) for v in ok[B]],
            "ari": ok["ari"].astype(float).to_numpy(),
            "n_clusters": ok["n_clusters"].astype(float).to_numpy(),
        }
    )
    g = df.groupby(["algorithm", "k", "a", "b"], sort=True)
    out = g.agg(
        ari_mean=("ari", "mean"),
        ari_std=("ari", "std"),
        n_clusters_mean=("n_clusters", "mean"),
        n_clusters_sem=("n_clusters", "sem"),
        n_trials=("ari", "size"),
    ).reset_index()
    out["ari_std"] = out["ari_std"].fillna(0.0)
    out["n_clusters_sem"] = out["n_clusters_sem"].fillna(0.0)  # one deterministic run: no sampling error
    return out[cols]


def win_counts(ok: pd.DataFrame, reference: str = REFERENCE_ALGORITHM) -> pd.DataFrame:
    """Instances where ``reference`` has at least the ARI of each other algorithm.

    Rows are paired by ``instance_id`` (every algorithm of an instance saw the
    same noisy triplets); an instance counts only if both algorithms have an
    ok record on it.

    Returns
    -------
    DataFrame
        Columns ``algorithm, versus, wins, paired, percent``, then the
        two-sided sign test of the paired instances: ``strict_wins, ties,
        losses`` (ties, |difference| <= ARI_TIE, are left out of the test)
        and ``sign_test_p`` (``scipy.stats.binomtest(strict_wins,
        strict_wins + losses)``); one row per other algorithm present, in
        :func:`algorithm_order`. Empty if ``reference`` is absent.
    """
    from scipy.stats import binomtest

    cols = ["algorithm", "versus", "wins", "paired", "percent", "strict_wins", "ties", "losses", "sign_test_p"]
    if not len(ok) or reference not in set(ok["algorithm"]):
        return pd.DataFrame(columns=cols)
    # Duplicate (instance, algorithm) pairs would be a store bug; keep the first.
    wide = ok.drop_duplicates(["instance_id", "algorithm"]).pivot(index="instance_id", columns="algorithm", values="ari")
    rows = []
    for other in algorithm_order(wide.columns):
        if other == reference:
            continue
        pair = wide[[reference, other]].dropna()
        wins = int((pair[reference] >= pair[other] - ARI_TIE).sum())
        n = len(pair)
        d = pair[reference] - pair[other]
        up, down = int((d > ARI_TIE).sum()), int((d < -ARI_TIE).sum())
        p = binomtest(up, up + down, 0.5, alternative="two-sided").pvalue if up + down else math.nan
        rows.append([reference, other, wins, n, 100.0 * wins / n if n else math.nan, up, n - up - down, down, p])
    return pd.DataFrame(rows, columns=cols)


@dataclass
class Context:
    """What the claim checkers and tables read: per-cell statistics and the grid."""

    stats: pd.DataFrame
    algorithms: list[str]
    ks: list[int] = field(default_factory=list)
    as_: list[float] = field(default_factory=list)
    bs: list[float] = field(default_factory=list)

    @classmethod
    def from_stats(cls, stats: pd.DataFrame) -> "Context":
        return cls(
            stats=stats,
            algorithms=algorithm_order(stats["algorithm"].unique()),
            ks=sorted(int(v) for v in stats["k"].unique()),
            as_=sorted(float(v) for v in stats["a"].unique()),
            bs=sorted(float(v) for v in stats["b"].unique()),
        )

    def value(self, algorithm: str, k, a, b, column: str = "ari_mean") -> float:
        """One statistic of one cell; NaN if the cell is not in the records."""
        s = self.stats
        m = s[(s["algorithm"] == algorithm) & (s["k"] == int(k)) & (s["a"] == _key(a)) & (s["b"] == _key(b))]
        return float(m[column].iloc[0]) if len(m) else math.nan

    @property
    def paper_algorithms(self) -> list[str]:
        """Algorithms present that the paper ran."""
        return [a for a in self.algorithms if a in PAPER_ALGORITHMS]

    @property
    def extras(self) -> list[str]:
        """Algorithms present that the paper did not run."""
        return [a for a in self.algorithms if a not in PAPER_ALGORITHMS]


# --------------------------------------------------------------------------- figures


def _select(stats: pd.DataFrame, fixed: dict) -> pd.DataFrame:
    col = {K: "k", A: "a", B: "b"}
    m = np.ones(len(stats), dtype=bool)
    for key, value in fixed.items():
        m &= (stats[col[key]] == (int(value) if key == K else _key(value))).to_numpy()
    return stats[m]


def _label(fixed: dict) -> str:
    names = {K: "k", A: "a", B: "b"}
    return ", ".join(f"{names[key]} = {fmt_number(v, 3)}" for key, v in fixed.items())


def figure2(stats: pd.DataFrame, path: Path) -> Path:
    """The paper's Figure 2: ARI against a, k and b (columns), three settings each (rows).

    Mean over trials with a shaded band of one standard deviation. A panel
    whose fixed setting is not in the records says so instead of plotting.
    """
    algorithms = algorithm_order(stats["algorithm"].unique()) if len(stats) else []
    styles = _styles(algorithms)
    fig = Figure(figsize=(15, 12.5), layout="constrained")
    axes = fig.subplots(3, 3, squeeze=False)
    columns = [(FIG2_LEFT, "a", "fraction of triplets a"), (FIG2_MIDDLE, "k", "number of clusters k"),
               (FIG2_RIGHT, "b", "fraction of noisy triplets b")]
    for j, (settings, xcol, xlabel) in enumerate(columns):
        for i, fixed in enumerate(settings):
            ax = axes[i, j]
            sub = _select(stats, fixed)
            ax.set_title(_label(fixed), fontsize=12)
            ax.set_xlabel(xlabel, fontsize=11)
            if j == 0:
                ax.set_ylabel("ARI", fontsize=11)
            if xcol == "a":
                ax.set_xscale("log")
            elif xcol == "k":
                ax.set_xscale("log", base=2)
            if not len(sub):
                ax.text(0.5, 0.5, "not in this scale's grid", ha="center", va="center", transform=ax.transAxes,
                        fontsize=12, color="0.4")
                ax.set_xticks([])
                ax.set_yticks([])
                ax.minorticks_off()
                continue
            xs = sorted(sub[xcol].unique())
            for alg in algorithms:
                d = sub[sub["algorithm"] == alg].sort_values(xcol)
                if not len(d):
                    continue
                color, marker = styles[alg]
                x, y, s = d[xcol].to_numpy(float), d["ari_mean"].to_numpy(), d["ari_std"].to_numpy()
                ax.plot(x, y, color=color, marker=marker, markersize=6, linewidth=1.6, alpha=0.9,
                        markerfacecolor="none" if alg not in _STYLE or alg.startswith("ls_eq") else color)
                # ARI never exceeds 1: a band above it would only show the std's symmetry.
                ax.fill_between(x, y - s, np.minimum(y + s, 1.0), color=color, alpha=0.10, linewidth=0)
            ax.set_xticks(xs)
            ax.set_xticklabels([fmt_number(v, 3) for v in xs], fontsize=10)
            ax.minorticks_off()
            ax.set_ylim(min(-0.05, float((sub["ari_mean"] - sub["ari_std"]).min()) - 0.02), 1.05)
            ax.grid(True, alpha=0.3)
            ax.tick_params(labelsize=10)
    handles = [
        Line2D([], [], color=styles[a][0], marker=styles[a][1], linewidth=1.6,
               markerfacecolor="none" if a not in _STYLE or a.startswith("ls_eq") else styles[a][0], label=display(a))
        for a in algorithms
    ]
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=12, frameon=False)
    fig.suptitle("Experiment 1: ARI (mean over trials, band = ±1 std)", fontsize=14)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path


def ari_heatmaps(stats: pd.DataFrame, path: Path) -> Path:
    """Mean ARI over the whole (a, k) grid: one row of panels per algorithm, one column per b."""
    import seaborn as sns

    algorithms = algorithm_order(stats["algorithm"].unique()) if len(stats) else []
    bs = sorted(stats["b"].unique()) if len(stats) else []
    ks = sorted(stats["k"].unique()) if len(stats) else []
    as_ = sorted(stats["a"].unique()) if len(stats) else []
    nrow, ncol = max(len(algorithms), 1), max(len(bs), 1)
    width = max(4.0, 0.75 * len(as_) + 1.6) * ncol + 1.0
    height = max(1.8, 0.42 * len(ks) + 1.3) * nrow + 0.8
    fig = Figure(figsize=(width, height), layout="constrained")
    # An Agg canvas gives the figure one cached renderer.  Without it every
    # sns.heatmap (which measures its tick labels) made a new full-size
    # renderer that stayed referenced: ~240 MB per panel, 5.3 GB for the 21
    # panels of the paper-scale grid, the peak of the main job (issue 12).
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrow, ncol, squeeze=False)
    mesh = None
    for i, alg in enumerate(algorithms):
        for j, b in enumerate(bs):
            ax = axes[i, j]
            d = stats[(stats["algorithm"] == alg) & (stats["b"] == b)]
            grid = d.pivot(index="k", columns="a", values="ari_mean").reindex(index=ks, columns=as_)
            sns.heatmap(grid, ax=ax, vmin=0.0, vmax=1.0, cmap="viridis", annot=True, fmt=".2f", cbar=False,
                        annot_kws={"fontsize": 8}, linewidths=0.5, linecolor="white",
                        xticklabels=[fmt_number(v, 3) for v in as_], yticklabels=[str(v) for v in ks])
            mesh = ax.collections[0] if ax.collections else mesh
            ax.set_title(f"{display(alg)}, b = {fmt_number(b, 3)}", fontsize=10)
            ax.set_xlabel("a" if i == nrow - 1 else "")
            ax.set_ylabel("k" if j == 0 else "")
            ax.tick_params(labelsize=8, rotation=0)
    fig.suptitle("Mean ARI over trials, whole (a, k) grid; one row per algorithm, one column per b", fontsize=12)
    if mesh is not None:
        fig.colorbar(mesh, ax=axes, shrink=0.6, label="mean ARI")
    else:
        axes[0, 0].text(0.5, 0.5, "no ok records", ha="center", va="center")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    return path


# --------------------------------------------------------------------------- Table I


def _t1_column(a: float, k: int) -> str:
    return f"a={fmt_number(a, 3)} k={k}"


def table1(ctx: Context) -> pd.DataFrame:
    """Table I: mean number of clusters, rows (b, algorithm), columns (a, k); NaN where not run."""
    rows = []
    for b in TABLE1_B:
        for alg in ctx.algorithms:
            row = {"b": b, "algorithm": alg}
            for a in TABLE1_A:
                for k in TABLE1_K:
                    row[_t1_column(a, k)] = ctx.value(alg, k, a, b, "n_clusters_mean")
            rows.append(row)
    columns = ["b", "algorithm"] + [_t1_column(a, k) for a in TABLE1_A for k in TABLE1_K]
    return pd.DataFrame(rows, columns=columns)


def _paper_table1(ref: pd.DataFrame) -> dict:
    t = ref[ref["quantity"] == "n_clusters_mean"]
    return {(r.algorithm, int(r.k), _key(r.a), _key(r.b)): float(r.value) for r in t.itertuples()}


def _table1_markdown(t1: pd.DataFrame, cell: Callable[[pd.Series, str], str]) -> str:
    rows = []
    for _, r in t1.iterrows():
        rows.append([f"b = {fmt_number(r['b'])}", display(r["algorithm"])] + [cell(r, c) for c in t1.columns[2:]])
    return markdown_table(rows, columns=["b", "algorithm", *t1.columns[2:]],
                          align=["l", "l"] + ["r"] * (len(t1.columns) - 2))


# --------------------------------------------------------------------------- claims

# (holds, note); holds is None when the claim could not be evaluated here.
ClaimResult = tuple[bool | None, str]


def _missing(what: str) -> ClaimResult:
    return None, f"{what} not in this scale's grid"


def _need(ctx: Context, *algorithms: str) -> ClaimResult | None:
    absent = [a for a in algorithms if a not in ctx.algorithms]
    return (None, f"{', '.join(absent)} not in the records") if absent else None


def _claim_exact_k_at_a1(ctx: Context, alg: str = "ls_ad_vc") -> ClaimResult:
    if (r := _need(ctx, alg)) is not None:
        return r
    if 1.0 not in ctx.as_:
        return _missing("a = 1")
    cells = [(k, b, ctx.value(alg, k, 1.0, b, "n_clusters_mean")) for k in ctx.ks for b in ctx.bs]
    cells = [c for c in cells if not math.isnan(c[2])]
    off = [f"k={k}, b={fmt_number(b)}: {fmt_number(n)}" for k, b, n in cells if abs(n - k) > 1e-9]
    note = f"mean n_clusters == k in every (k, b) cell at a=1 ({len(cells) - len(off)}/{len(cells)} cells)"
    return not off, note + (f"; off: {'; '.join(off)}" if off else "")


def _claim_ari_near1(ctx: Context, alg: str, k: int = 4, b: float = 0.2, a_min: float = 0.05) -> ClaimResult:
    if (r := _need(ctx, alg)) is not None:
        return r
    vals = [(a, ctx.value(alg, k, a, b)) for a in ctx.as_ if a >= a_min - 1e-12]
    vals = [(a, v) for a, v in vals if not math.isnan(v)]
    if not vals:
        return _missing(f"k = {k}, b = {fmt_number(b)}, a >= {fmt_number(a_min)}")
    worst = min(vals, key=lambda t: t[1])
    return worst[1] >= NEAR_PERFECT, (
        f"threshold: mean ARI >= {NEAR_PERFECT} for every a >= {fmt_number(a_min)} at k={k}, b={fmt_number(b)}; "
        f"lowest {fmt_number(worst[1], 3)} at a={fmt_number(worst[0], 3)} ({len(vals)} a values)")


def _claim_struggle_small_a(ctx: Context) -> ClaimResult:
    b = 0.2
    small = [a for a in ctx.as_ if a <= 0.01 + 1e-12]
    big_k = [k for k in ctx.ks if k >= 8]
    if b not in ctx.bs or not small or not big_k:
        return _missing("b = 0.2 with a <= 0.01 and k >= 8")
    def best(algorithms):
        vals = [(alg, k, a, ctx.value(alg, k, a, b)) for alg in algorithms for k in big_k for a in small]
        vals = [v for v in vals if not math.isnan(v[3])]
        return max(vals, key=lambda t: t[3]) if vals else None

    top = best(ctx.paper_algorithms)
    if top is None:
        return None, "none of the paper's algorithms in the records at b = 0.2, a <= 0.01, k >= 8"
    note = (f"threshold: every algorithm of the paper present has mean ARI < {DIFFICULT} at b=0.2, a <= 0.01, "
            f"k >= 8; best: {display(top[0])} {fmt_number(top[3], 3)} at k={top[1]}, a={fmt_number(top[2], 3)}")
    if (x := best(ctx.extras)) is not None:
        note += f"; not in the paper: {display(x[0])} reaches {fmt_number(x[3], 3)}"
    return top[3] < DIFFICULT, note


def _claim_reasonable_k8(ctx: Context) -> ClaimResult:
    if (r := _need(ctx, "ls_ad_vc", "tste_dpmm")) is not None:
        return r
    b = 0.2
    cells = [(alg, k, a, ctx.value(alg, k, a, b)) for alg in ("ls_ad_vc", "tste_dpmm")
             for k in ctx.ks if k >= 8 for a in ctx.as_ if a >= 0.1 - 1e-12]
    cells = [c for c in cells if not math.isnan(c[3])]
    if not cells:
        return _missing("b = 0.2, k >= 8, a >= 0.1")
    worst = min(cells, key=lambda t: t[3])
    return worst[3] >= REASONABLE, (
        f"threshold: mean ARI >= {REASONABLE} for Ls-AD-VC and t-STE at b=0.2, k >= 8, a >= 0.1; "
        f"lowest {display(worst[0])} {fmt_number(worst[3], 3)} at k={worst[1]}, a={fmt_number(worst[2], 3)}")


def _best_at(ctx: Context, k, a, b) -> dict[str, float]:
    """Mean ARI of the paper's algorithms present in one cell (absent ones left out)."""
    vals = {alg: ctx.value(alg, k, a, b) for alg in ctx.paper_algorithms}
    return {alg: v for alg, v in vals.items() if not math.isnan(v)}


def _claim_tste_best_a001_b0(ctx: Context) -> ClaimResult:
    if (r := _need(ctx, "tste_dpmm")) is not None:
        return r
    cells = {k: _best_at(ctx, k, 0.01, 0.0) for k in ctx.ks}
    cells = {k: v for k, v in cells.items() if "tste_dpmm" in v}
    if not cells:
        return _missing("a = 0.01, b = 0")
    lost = [k for k, v in cells.items() if v["tste_dpmm"] < max(v.values()) - 1e-9]
    return not lost, ("threshold: t-STE has the highest mean ARI (ties allowed) at a=0.01, b=0 for every k"
                      + (f"; not the best at k = {', '.join(map(str, lost))}" if lost else ""))


def _claim_cc_beats_embeddings(ctx: Context) -> ClaimResult:
    emb = [e for e in EMBEDDINGS if e in ctx.algorithms]
    if "ls_ad_vc" not in ctx.algorithms or not emb:
        return None, "needs ls_ad_vc and an embedding method (tste_dpmm, crowdclust_dpmm) in the records"
    noisy = [b for b in ctx.bs if b > 0]
    if 0.01 not in ctx.as_ or not noisy:
        return _missing("a = 0.01 with b > 0")
    fails, others = [], []
    for b in noisy:
        mean = {alg: np.nanmean([ctx.value(alg, k, 0.01, b) for k in ctx.ks]) for alg in ctx.algorithms}
        for e in emb:
            if not mean["ls_ad_vc"] > mean[e]:
                fails.append(f"b={fmt_number(b)}: Ls-AD-VC {fmt_number(mean['ls_ad_vc'], 3)} vs {display(e)} "
                             f"{fmt_number(mean[e], 3)}")
            for c in CC_METHODS:
                if c != "ls_ad_vc" and c in mean and not mean[c] > mean[e]:
                    others.append(f"{display(c)} <= {display(e)} at b={fmt_number(b)}")
    note = ("threshold: at a=0.01 and each b > 0, Ls-AD-VC's mean ARI averaged over k exceeds each embedding "
            "method's")
    if fails:
        note += "; fails: " + "; ".join(fails)
    note += "; other CC methods: " + ("; ".join(others) if others else "also ahead")
    return not fails, note


def _claim_best_small_k(ctx: Context) -> ClaimResult:
    if (r := _need(ctx, "ls_ad_vc")) is not None:
        return r
    cells = [(k, b) for k in ctx.ks if k <= 4 for b in ctx.bs if b > 0]
    if 0.01 not in ctx.as_ or not cells:
        return _missing("a = 0.01 with k <= 4 and b > 0")
    lost = []
    for k, b in cells:
        v = _best_at(ctx, k, 0.01, b)
        if "ls_ad_vc" in v and v["ls_ad_vc"] < max(v.values()) - 1e-9:
            best = max(v, key=v.get)
            lost.append(f"k={k}, b={fmt_number(b)}: {display(best)} {fmt_number(v[best], 3)} > "
                        f"{fmt_number(v['ls_ad_vc'], 3)}")
    others = [display(a) for a in ctx.paper_algorithms if a != "ls_ad_vc"]
    return not lost, ("threshold: Ls-AD-VC has the highest mean ARI (ties allowed) at a=0.01 for every k <= 4, "
                      f"b > 0 ({len(cells)} cells; compared with {', '.join(others) or 'nothing'})"
                      + (f"; not best: {'; '.join(lost)}" if lost else ""))


def _claim_unaffected_by_noise(ctx: Context) -> ClaimResult:
    if (r := _need(ctx, "ls_ad_vc")) is not None:
        return r
    k = 8
    ranges = []
    for a in ctx.as_:
        if a < 0.1 - 1e-12:
            continue
        v = [ctx.value("ls_ad_vc", k, a, b) for b in ctx.bs]
        v = [x for x in v if not math.isnan(x)]
        if len(v) >= 2:
            ranges.append((a, max(v) - min(v)))
    if not ranges:
        return _missing("k = 8, a >= 0.1 with two or more b values")
    worst = max(ranges, key=lambda t: t[1])
    return worst[1] <= NOISE_RANGE + 1e-12, (
        f"threshold: for each a >= 0.1 at k=8, max - min of mean ARI over b <= {NOISE_RANGE}; "
        f"largest range {fmt_number(worst[1], 3)} at a={fmt_number(worst[0], 3)}")


def _claim_tste_close_second(ctx: Context) -> ClaimResult:
    if (r := _need(ctx, "ls_ad_vc", "tste_dpmm")) is not None:
        return r
    gaps = [(a, b, ctx.value("ls_ad_vc", 8, a, b) - ctx.value("tste_dpmm", 8, a, b))
            for a in ctx.as_ if a >= 0.1 - 1e-12 for b in ctx.bs]
    gaps = [g for g in gaps if not math.isnan(g[2])]
    if not gaps:
        return _missing("k = 8, a >= 0.1")
    worst = max(gaps, key=lambda t: t[2])
    return worst[2] <= CLOSE_SECOND, (
        f"threshold: t-STE's mean ARI at most {CLOSE_SECOND} below Ls-AD-VC's at k=8, a >= 0.1, every b; "
        f"largest gap {fmt_number(worst[2], 3)} at a={fmt_number(worst[0], 3)}, b={fmt_number(worst[1])}")


def _claim_tste_degrades(ctx: Context) -> ClaimResult:
    if (r := _need(ctx, "tste_dpmm")) is not None:
        return r
    noisy = [b for b in ctx.bs if b > 0]
    if 0.0 not in ctx.bs or not noisy:
        return _missing("b = 0 and b > 0")
    v0, v1 = ctx.value("tste_dpmm", 8, 0.01, 0.0), ctx.value("tste_dpmm", 8, 0.01, max(noisy))
    if math.isnan(v0) or math.isnan(v1):
        return _missing("k = 8, a = 0.01")
    return v0 >= WORKS_WELL and v0 - v1 >= RAPID_DROP, (
        f"threshold: t-STE mean ARI >= {WORKS_WELL} at b=0 and at least {RAPID_DROP} lower at b="
        f"{fmt_number(max(noisy))} (k=8, a=0.01); observed {fmt_number(v0, 3)} -> {fmt_number(v1, 3)}")


def _claim_underestimate(ctx: Context) -> ClaimResult:
    below = above = exact = 0
    algorithms = [a for a in ctx.algorithms if a in TABLE1_ALGORITHMS]
    for alg in algorithms:
        for a in TABLE1_A:
            for k in TABLE1_K:
                for b in TABLE1_B:
                    n = ctx.value(alg, k, a, b, "n_clusters_mean")
                    if math.isnan(n):
                        continue
                    if n < k - 1e-9:
                        below += 1
                    elif n > k + 1e-9:
                        above += 1
                    else:
                        exact += 1
    if below + above + exact == 0:
        return None, "no Table I algorithm (Ls-AD-VC, Ls-EQ-VC, CrowdClust, t-STE) or cell in the records"
    return below > above, (
        f"threshold: more Table I cells ({', '.join(display(a) for a in algorithms)}) with mean n_clusters < k "
        f"than > k; "
        f"below {below}, above {above}, exactly k {exact}")


def _claim_good_large_a(ctx: Context) -> ClaimResult:
    if (r := _need(ctx, "ls_ad_vc")) is not None:
        return r
    large = [a for a in ctx.as_ if a >= 0.5 - 1e-12]
    if not large:
        return _missing("a in {0.5, 1}")
    cells = [(k, a, b, ctx.value("ls_ad_vc", k, a, b)) for k in ctx.ks for a in large for b in ctx.bs]
    cells = [c for c in cells if not math.isnan(c[3])]
    worst = min(cells, key=lambda t: t[3])
    return worst[3] >= NEAR_PERFECT, (
        f"threshold: mean ARI >= {NEAR_PERFECT} for a in {{{', '.join(fmt_number(a) for a in large)}}}, every k "
        f"and b; lowest {fmt_number(worst[3], 3)} at k={worst[0]}, a={fmt_number(worst[1])}, b={fmt_number(worst[2])}")


def _claim_beats_tste_small_a(ctx: Context) -> ClaimResult:
    if (r := _need(ctx, "ls_ad_vc", "tste_dpmm")) is not None:
        return r
    b = max(ctx.bs) if ctx.bs else math.nan
    cells = [(k, a) for k in ctx.ks if k <= 4 for a in ctx.as_ if a <= 0.02 + 1e-12]
    if not cells or b <= 0:
        return _missing("b > 0 with k <= 4 and a <= 0.02")
    diffs = [ctx.value("ls_ad_vc", k, a, b) - ctx.value("tste_dpmm", k, a, b) for k, a in cells]
    diffs = [d for d in diffs if not math.isnan(d)]
    # "outperform": strictly higher; a tie is not a win (the paper does not say "at least as good")
    wins = sum(d > ARI_TIE for d in diffs)
    return wins * 2 > len(diffs), (
        f"threshold ('tends to outperform'): Ls-AD-VC's mean ARI > t-STE's (a tie is not a win) in more than half of the cells k <= 4, a <= 0.02, "
        f"b={fmt_number(b)}; {wins}/{len(diffs)} cells")


CLAIMS: dict[str, Callable[[Context], ClaimResult]] = {
    "claim_ls_ad_vc_exact_k_at_a1": _claim_exact_k_at_a1,
    "claim_all_algorithms_struggle_small_a_b0.2": _claim_struggle_small_a,
    "claim_ls_ad_vc_ari_near1_k4_a_ge_0.05_b0.2": lambda c: _claim_ari_near1(c, "ls_ad_vc"),
    "claim_crowdclust_ari_near1_k4_a_ge_0.05_b0.2": lambda c: _claim_ari_near1(c, "crowdclust_dpmm"),
    "claim_ls_ad_vc_tste_reasonable_k_ge_8_a_ge_0.1_b0.2": _claim_reasonable_k8,
    "claim_tste_best_a0.01_b0": _claim_tste_best_a001_b0,
    "claim_cc_methods_beat_embeddings_a0.01_with_noise": _claim_cc_beats_embeddings,
    "claim_ls_ad_vc_best_small_k_a0.01": _claim_best_small_k,
    "claim_ls_ad_vc_unaffected_by_noise_a_ge_0.1_k8": _claim_unaffected_by_noise,
    "claim_tste_close_second_noise_a_ge_0.1_k8": _claim_tste_close_second,
    "claim_tste_degrades_with_noise_a0.01_k8": _claim_tste_degrades,
    "claim_underestimate_k": _claim_underestimate,
    "claim_ls_ad_vc_good_large_a_any_b": _claim_good_large_a,
    "claim_ls_ad_vc_beats_tste_small_a_high_b_small_k": _claim_beats_tste_small_a,
}


# --------------------------------------------------------------------------- comparison


def _paper_n_cases(ref: pd.DataFrame) -> float:
    n = ref.loc[ref["quantity"] == "n_cases", "value"]
    return float(n.iloc[0]) if len(n) else math.nan


def comparison_rows(ref: pd.DataFrame, ctx: Context, wins: pd.DataFrame, n_instances: int, scale: str,
                    n_grid_instances: int | None) -> pd.DataFrame:
    """One comparison row per reference row (see :func:`ccexp.report.common.compare_row`)."""
    paper_cases = _paper_n_cases(ref)
    rows = []
    for r in ref.itertuples(index=False):
        coords = dict(algorithm=r.algorithm, versus=r.versus, k=None if is_missing(r.k) else int(r.k),
                      a=None if is_missing(r.a) else float(r.a), b=None if is_missing(r.b) else float(r.b),
                      ref_id=r.ref_id)
        if r.quantity == "n_clusters_mean":
            ours = ctx.value(r.algorithm, r.k, r.a, r.b, "n_clusters_mean")
            sem = ctx.value(r.algorithm, r.k, r.a, r.b, "n_clusters_sem")
            n_tr = ctx.value(r.algorithm, r.k, r.a, r.b, "n_trials")
            if math.isnan(ours):
                note = (f"{r.algorithm} not in the records" if r.algorithm not in ctx.algorithms
                        else "setting not in this scale's grid")
            else:
                note = f"clusters, mean over trials (n = {int(ctx.value(r.algorithm, r.k, r.a, r.b, 'n_trials'))})"
            rows.append(compare_row(r.quantity, r.value, ours, r.tolerance, note=note, sem=sem,
                                    n_trials=None if math.isnan(n_tr) else n_tr, **coords))
        elif r.quantity == "win_count":
            # Compared as percentages: our grid may not have the paper's 924 instances.
            # half a count of the paper's 924, in percent; our SE is the binomial one of the share
            paper_pct = 100.0 * r.value / paper_cases
            half_pct = 100.0 * r.tolerance / paper_cases
            w = wins[(wins["algorithm"] == r.algorithm) & (wins["versus"] == r.versus)] if len(wins) else wins
            sem = n = None
            if len(w) and w["paired"].iloc[0] > 0:
                ours = float(w["percent"].iloc[0])
                n = int(w["paired"].iloc[0])
                sem = 100.0 * math.sqrt(max(ours / 100 * (1 - ours / 100), 0.0) / n)
                note = (f"% of paired instances; ours {int(w['wins'].iloc[0])}/{n}, "
                        f"paper {fmt_number(r.value)}/{fmt_number(paper_cases)}; sign test (ties out): "
                        f"{int(w['strict_wins'].iloc[0])} wins, {int(w['losses'].iloc[0])} losses, "
                        f"{int(w['ties'].iloc[0])} ties, two-sided p = {w['sign_test_p'].iloc[0]:.2g}")
            else:
                ours = math.nan
                note = f"{r.versus if r.versus not in ctx.algorithms else r.algorithm} not in the records"
            rows.append(compare_row(r.quantity + " (%)", paper_pct, ours, None, half=half_pct, sem=sem, n_trials=n,
                                    note=note, **coords))
        elif r.quantity == "n_cases":
            note = "distinct noisy instances (instance_id) in the records"
            if n_grid_instances is not None:
                note += f"; scale {scale} grid has {n_grid_instances}"
            if scale != "paper":
                note += "; only scale=paper can match"
            rows.append(compare_row(r.quantity, r.value, n_instances, r.tolerance, note=note, **coords))
        elif r.quantity in CLAIMS:
            holds, note = CLAIMS[r.quantity](ctx)
            ours = math.nan if holds is None else float(bool(holds))
            rows.append(compare_row(r.quantity, r.value, ours, r.tolerance, note=note, **coords))
        else:
            rows.append(compare_row(r.quantity, r.value, None, r.tolerance,
                                    note="no checker implemented for this quantity", **coords))
    return pd.DataFrame(rows)


def _verdict_counts(rows: pd.DataFrame) -> str:
    if not len(rows):
        return "no rows"
    c = rows["status"].value_counts()
    return ", ".join(f"{int(c.get(v, 0))} {v}" for v in STATUSES)


def _summary_table1(cmp: pd.DataFrame) -> str:
    t = cmp[cmp["quantity"] == "n_clusters_mean"]
    lines = [f"Table I cells: {_verdict_counts(t)} (tolerance ±{fmt_number(t['tolerance'].max())} clusters)."]
    out = t[t["verdict"] == OUTSIDE]
    if len(out):
        lower = int((out["difference"] < 0).sum())
        lines[0] += (f" Of the cells outside tolerance, ours are lower than the paper's in {lower} and higher in "
                     f"{len(out) - lower}.")
    for alg in algorithm_order(t["algorithm"].unique()):
        d = t[t["algorithm"] == alg]
        run = d[d["verdict"] != NOT_RUN]
        if not len(run):
            lines.append(f"- {display(alg)}: not run ({len(d)} cells).")
            continue
        within = int((run["verdict"] == WITHIN).sum())
        bias = run["difference"].mean()
        worst = run.loc[run["difference"].abs().idxmax()]
        lines.append(
            f"- {display(alg)}: {within}/{len(run)} cells within tolerance; mean signed difference (ours − paper) "
            f"{bias:+.2f} clusters; largest |difference| {abs(worst['difference']):.2f} at k={fmt_number(worst['k'])}, "
            f"a={fmt_number(worst['a'])}, b={fmt_number(worst['b'])} (ours {fmt_number(worst['ours'])}, paper "
            f"{fmt_number(worst['paper'])})" + (f"; {len(d) - len(run)} cells not in this scale's grid" if len(d) > len(run) else "")
            + ".")
    return "\n".join(lines) + "\n"


def _summary_wins(cmp: pd.DataFrame, wins: pd.DataFrame) -> str:
    t = cmp[cmp["quantity"] == "win_count (%)"]
    lines = [f"Win counts: {_verdict_counts(t)} (tolerance ±{fmt_number(t['tolerance'].max(), 1)} percentage points)."]
    for r in t.itertuples():
        if r.verdict == NOT_RUN:
            lines.append(f"- vs {display(r.versus)}: not run ({r.note}).")
        else:
            lines.append(f"- vs {display(r.versus)}: ours {r.ours:.1f}% vs paper {r.paper:.1f}% ({r.verdict}).")
    extra = wins[~wins["versus"].isin(set(t["versus"]))] if len(wins) else wins
    for r in extra.itertuples():
        lines.append(f"- vs {display(r.versus)} (not in the paper): ours {r.percent:.1f}% ({r.wins}/{r.paired}).")
    return "\n".join(lines) + "\n"


def _summary_claims(cmp: pd.DataFrame) -> str:
    t = cmp[cmp["quantity"].str.startswith("claim_")]
    hold = t[t["verdict"] == WITHIN]["quantity"].tolist()
    fail = t[t["verdict"] == OUTSIDE]["quantity"].tolist()
    skip = t[t["verdict"] == NOT_RUN]["quantity"].tolist()
    lines = [f"Claims: {len(hold)} hold, {len(fail)} do not hold, {len(skip)} could not be checked "
             "(algorithm or setting absent)."]
    if fail:
        lines.append("Not holding in our records: " + ", ".join(f"`{q}`" for q in fail) + ".")
    if skip:
        lines.append("Not checked: " + ", ".join(f"`{q}`" for q in skip) + ".")
    lines.append("Each claim's threshold and the observed numbers are in its row's note.")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- entry point

FIG2_CAPTION = (
    "Figure 2 (paper Section V-A): adjusted Rand index, mean over trials (band: ±1 standard deviation). "
    "Left column: ARI vs the fraction of triplets a (log scale) at b = 0.2 for k = 4, 8, 16 (rows). "
    "Middle column: ARI vs k at a = 0.01 for b = 0, 0.1, 0.2. "
    "Right column: ARI vs the noise fraction b at k = 8 for a = 0.01, 0.1, 1 — the paper does not name the a "
    "values of its right column; these three are our choice (the text mentions a = 0.01 and a >= 0.1). "
    "Panels whose setting is not in this scale's grid say so."
)
HEATMAP_CAPTION = ("Mean ARI of every algorithm (rows of panels) over the whole (a, k) grid, one panel per noise "
                   "fraction b (columns); colour scale fixed to [0, 1].")
TABLE1_CAPTION = ("Table I: average number of clusters found, for a in {1, 0.1, 0.05, 0.01}, k in {2, 4, 8, 16} and "
                  "b in {0, 0.1, 0.2}; rows are algorithms within b. '–' marks a cell not in this scale's grid.")


def report_exp1(records: pd.DataFrame, out_dir: Path, scale: str, n_grid_instances: int | None = None) -> None:
    """Write Experiment 1's figures, tables, comparison and index into ``out_dir``.

    Parameters
    ----------
    records : DataFrame
        Long-format records of this experiment (already restricted to the
        scale's grid); rows with ``status != "ok"`` are counted, not used.
    out_dir : Path
        Receives ``figures/``, ``tables/``, ``comparison.md`` and ``report.md``.
    scale : str
        Scale the records were run at (stated in the report).
    n_grid_instances : int, optional
        Number of instances of the scale's grid, to show how complete the
        records are.
    """
    out_dir = Path(out_dir)
    figures, tables = out_dir / "figures", out_dir / "tables"
    figures.mkdir(parents=True, exist_ok=True)
    tables.mkdir(parents=True, exist_ok=True)
    ok, not_ok = ok_records(records)
    stats = cell_stats(ok)
    ctx = Context.from_stats(stats)
    ref = load_reference(PAPER, EXPERIMENT)

    figure2(stats, figures / "figure2.png")
    ari_heatmaps(stats, figures / "ari_heatmaps.png")

    # Table I, ours and side by side with the paper.
    t1 = table1(ctx)
    write_table(t1, tables / "table1", md=_table1_markdown(t1, lambda r, c: fmt_number(r[c], 1)))
    paper_t1 = _paper_table1(ref)

    def _vs(r: pd.Series, c: str) -> str:
        a, k = c.split()
        key = (r["algorithm"], int(k[2:]), _key(a[2:]), _key(r["b"]))
        paper = paper_t1.get(key)
        return f"{fmt_number(r[c], 1)} ({MISSING if paper is None else fmt_number(paper, 1)})"

    (tables / "table1_vs_paper.md").write_text(
        "Average number of clusters, ours (paper); '–' = not run here or not in the paper.\n\n"
        + _table1_markdown(t1, _vs), encoding="utf-8")

    # Win counts, beside the paper's.
    wins = win_counts(ok)
    paper_cases = _paper_n_cases(ref)
    pw = ref[ref["quantity"] == "win_count"].set_index(["algorithm", "versus"])["value"]
    wt = wins.copy()
    wt["paper_wins"] = [pw.get((a, v), math.nan) for a, v in zip(wt["algorithm"], wt["versus"])]
    wt["paper_total"] = np.where(wt["paper_wins"].notna(), paper_cases, np.nan) if len(wt) else []
    wt["paper_percent"] = 100.0 * wt["paper_wins"] / paper_cases
    wt_md = wt.assign(algorithm=wt["algorithm"].map(display), versus=wt["versus"].map(display))
    note = ("" if len(wt) else f"{display(REFERENCE_ALGORITHM)} is not in the records: no win counts.\n\n")
    write_table(wt, tables / "win_counts", md=(
        f"Instances where {display(REFERENCE_ALGORITHM)} has at least the ARI of the other algorithm "
        f"(paired by instance, ties within {ARI_TIE:g}).\n\n" + note + markdown_table(wt_md, digits=1)))

    # Comparison with every reference row.
    n_instances = int(records["instance_id"].nunique()) if "instance_id" in records and len(records) else 0
    cmp = comparison_rows(ref, ctx, wins, n_instances, scale, n_grid_instances)
    cmp.to_csv(out_dir / "comparison.csv", index=False)
    versions = code_versions(records)
    status_line = (f"{int(not_ok.sum())} non-ok cases left out of the statistics ("
                   + ", ".join(f"{s}: {n}" for s, n in not_ok.items()) + ")" if len(not_ok) and not_ok.sum()
                   else "0 non-ok cases")
    header = [
        f"# {EXPERIMENT}: comparison with {PAPER} (Section V-A, Figure 2, Table I)",
        "",
        f"- scale: {scale}",
        f"- cases (records): {len(records)} over {n_instances} instances"
        + (f" (the scale's grid has {n_grid_instances} instances)" if n_grid_instances is not None else ""),
        f"- algorithms: {', '.join(display(a) for a in ctx.algorithms) or 'none'}",
        f"- {status_line}",
        f"- code version(s): {', '.join(versions) or 'unknown'}",
        f"- verdicts: {_verdict_counts(cmp)}",
        "",
        "A reference row about an algorithm or setting absent from these records is 'not run'. Win counts are "
        "compared as percentages of paired instances (the paper: count/924); Table I cells in clusters; a claim "
        "is 1 if it holds in our records under the threshold stated in its note, 0 if not.",
        "",
        "## Summary",
        "",
        "### Table I (average number of clusters)",
        "",
        _summary_table1(cmp),
        "### Win counts (Section V-A)",
        "",
        _summary_wins(cmp, wins),
        "### Qualitative claims (Figure 2 text, Table I)",
        "",
        _summary_claims(cmp),
        "## All reference rows",
        "",
        "",
    ]
    show = cmp.assign(algorithm=cmp["algorithm"].map(lambda a: display(a) if a else ""),
                      versus=cmp["versus"].map(lambda a: display(a) if a else ""))
    (out_dir / "comparison.md").write_text("\n".join(header) + markdown_table(with_error_bars(show), digits=3), encoding="utf-8")

    # The index.
    index = [
        f"# {EXPERIMENT} ({PAPER}, Section V-A) — scale {scale}",
        "",
        f"{len(records)} cases, {n_instances} instances; {status_line}; code version(s): {', '.join(versions) or 'unknown'}.",
        "",
        "## Figures",
        "",
        f"- [figures/figure2.png](figures/figure2.png) — {FIG2_CAPTION}",
        "",
        "  ![Figure 2](figures/figure2.png)",
        "",
        f"- [figures/ari_heatmaps.png](figures/ari_heatmaps.png) — {HEATMAP_CAPTION}",
        "",
        "## Tables",
        "",
        f"- [tables/table1.md](tables/table1.md) ([csv](tables/table1.csv)) — {TABLE1_CAPTION}",
        "- [tables/table1_vs_paper.md](tables/table1_vs_paper.md) — the same, each cell as 'ours (paper)'.",
        f"- [tables/win_counts.md](tables/win_counts.md) ([csv](tables/win_counts.csv)) — number of instances where "
        f"{display(REFERENCE_ALGORITHM)} has at least the ARI of each other algorithm present, beside the paper's "
        "count out of 924.",
        "",
        "## Comparison with the paper",
        "",
        f"- [comparison.md](comparison.md) ([csv](comparison.csv)) — every row of "
        f"experiments/{PAPER}/reference.csv with our value and a verdict: {_verdict_counts(cmp)}.",
        "",
    ]
    (out_dir / "report.md").write_text("\n".join(index), encoding="utf-8")


# Experiment 2 (real crowdsourced triplets) lives in its own module.
from ._ukkonen2017_exp2 import report_exp2  # noqa: E402

#: experiments this module reports (collected by ccexp.report)
REPORTS = {"exp1_triplets": report_exp1, "exp2_real_triplets": report_exp2}
