"""Ukkonen (2017), Experiment 1: Figure 2 and the ARI heat maps, drawn from per-cell statistics."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ._ukkonen2017_cells import _STYLE, A, B, K, _key, _styles, algorithm_order, display
from .tables import fmt_number

# Figure 2's panels: (column title, fixed settings of the three rows, x variable).
FIG2_LEFT = [{K: k, B: 0.2} for k in (4, 8, 16)]
FIG2_MIDDLE = [{A: 0.01, B: b} for b in (0.0, 0.1, 0.2)]
# The paper does not name the a values of the right column; these are ours.
FIG2_RIGHT = [{K: 8, A: a} for a in (0.01, 0.1, 1.0)]




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
