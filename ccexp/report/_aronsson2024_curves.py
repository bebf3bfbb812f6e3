"""Aronsson & Chehreghani (2024): learning curves from the runner's per-step traces.

Each experiment's traces (``traces.parquet``: ARI / AMI after every batch)
are put on a common query grid per setting, a curve that the runner
stopped once converged being held at its last value (as the authors'
plotting code pads curves); the areas under them, the queries needed to
reach a level, and the panels of mean ± 1 sd that the figures draw.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import EngFormatter, MaxNLocator

from ..runner.store import ResultStore

ORDER = ["acc_maxexp", "acc_maxmin", "acc_uncertainty", "acc_frequency", "acc_uniform", "qecc", "cobras", "ncobras"]
LABEL = {"acc_maxexp": "maxexp", "acc_maxmin": "maxmin", "acc_uncertainty": "uncertainty",
         "acc_frequency": "frequency", "acc_uniform": "uniform"}


def load_traces(out_dir: Path, records: pd.DataFrame) -> pd.DataFrame:
    """The trace rows of ``records``' cases, joined with the records' setting columns."""
    traces = ResultStore(out_dir).load_traces()
    if not len(traces) or not len(records):
        return pd.DataFrame()
    # problem.n_edges with algorithm.max_queries gives each run's query budget (padded_curves)
    keep = [c for c in records.columns if c in ("case_id", "dataset", "algorithm", "trial", "problem.n_edges")
            or c.startswith(("oracle.", "algorithm."))]
    return traces.merge(records[keep], on="case_id", how="inner", suffixes=("", "_rec"))


def query_budget(max_queries, n_edges):
    """The query budget of a run, as ``ActiveCorrelationClustering._check_params`` computes it.

    ``max_queries`` is a fraction of the |E| = ``n_edges`` pairs when at most 1 (the paper's "0.5 |E|"),
    a count of queries when above 1; a float column of the records cannot tell the int 1 from the fraction
    1.0, and no experiment asks for a single query, so 1 reads as the whole of |E|. NaN when either is
    missing (a strategy without a budget, or records without ``problem.n_edges``).

    >>> query_budget(0.5, 124750), query_budget(3000, 124750), query_budget(1.0, 10)
    (62375.0, 3000.0, 10.0)
    """
    q, m = float(max_queries), float(n_edges)
    if not (np.isfinite(q) and np.isfinite(m)):
        return np.nan
    return float(np.floor(q * m)) if q <= 1 else float(np.floor(q))


def padded_curves(traces: pd.DataFrame, by: list[str], metric: str) -> pd.DataFrame:
    """One row per (setting, case, query count) on the setting's common grid, held at the last value.

    The grid of a setting is every query count that one of its runs traced, and each run's budget
    (``algorithm.max_queries`` of ``problem.n_edges``, when the traces carry both columns): a run that
    stopped early (converged, ``early_stop``) is held at its last value up to the budget, as the paper's
    curves run over the whole budget ("0.5 |E|", Figures 1-5) and the authors' plotting code pads them.
    Without the budget, a setting whose runs all stopped early would end at its last stop, and the area
    under its curve would be taken over a shorter range than the other strategies' (issue 28: the
    cut that made frequency fall below uniform on forest at gamma 0.2, 0.444 -> 0.551 held to the budget).

    Returns columns ``by + [case_id, n_queries, metric]``.
    """
    budgets = None
    if {"algorithm.max_queries", "problem.n_edges"} <= set(traces.columns):
        per_case = traces.drop_duplicates("case_id").set_index("case_id")
        budgets = pd.Series([query_budget(q, m) for q, m in zip(per_case["algorithm.max_queries"],
                                                                per_case["problem.n_edges"])],
                            index=per_case.index)
    out = []
    for key, g in traces.groupby(by, dropna=False):
        grid = g["n_queries"].unique()
        if budgets is not None:
            b = budgets.reindex(g["case_id"].unique()).dropna().to_numpy()
            # a budget below the last traced count (a last batch that overshoots) adds no point
            grid = np.union1d(grid, b[b > g["n_queries"].max()].astype(grid.dtype))
        grid = np.sort(grid)
        wide = g.pivot_table(index="n_queries", columns="case_id", values=metric, aggfunc="last").reindex(grid).ffill()
        long = wide.reset_index().melt(id_vars="n_queries", var_name="case_id", value_name=metric)
        for k, v in zip(by, key if isinstance(key, tuple) else (key,)):
            long[k] = v
        out.append(long)
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


def curve_summary(curves: pd.DataFrame, by: list[str], metric: str) -> pd.DataFrame:
    """Mean and standard deviation over cases at every query count."""
    g = curves.groupby(by + ["n_queries"], dropna=False)[metric]
    return pd.concat([g.mean().rename("mean"), g.std(ddof=0).rename("std"), g.size().rename("n")], axis=1).reset_index()


def area_under_curve(curves: pd.DataFrame, by: list[str], metric: str = "ari") -> pd.DataFrame:
    """Per case: the normalised area under the metric's curve (mean height over the query range, Figure 5)."""
    rows = []
    for key, g in curves.groupby(by + ["case_id"], dropna=False):
        g = g.sort_values("n_queries")
        x = g["n_queries"].to_numpy(dtype=float)
        y = g[metric].to_numpy(dtype=float)
        auc = float(np.trapezoid(y, x) / (x[-1] - x[0])) if x[-1] > x[0] else float(y[-1])
        rows.append(dict(zip(by + ["case_id"], key), auc=auc))
    return pd.DataFrame(rows)


def queries_to_reach(curves: pd.DataFrame, by: list[str], metric: str = "ari", level: float = 0.99) -> pd.DataFrame:
    """Per case: the first query count with ``metric >= level`` (NaN if never) and the final value."""
    rows = []
    for key, g in curves.groupby(by + ["case_id"], dropna=False):
        g = g.sort_values("n_queries")
        hit = g.loc[g[metric] >= level, "n_queries"]
        rows.append(dict(zip(by + ["case_id"], key), queries=float(hit.iloc[0]) if len(hit) else np.nan,
                         final=float(g[metric].iloc[-1])))
    return pd.DataFrame(rows)


def _sorted_algorithms(names) -> list[str]:
    names = list(dict.fromkeys(names))
    return sorted(names, key=lambda a: (ORDER.index(a) if a in ORDER else len(ORDER), a))


def plot_panels(summary: pd.DataFrame, panel_by: list[str], hue: str, metric_label: str, path: Path, title: str) -> Path:
    """A grid of panels (one per ``panel_by`` value), a line with a +-1 sd band per ``hue`` value."""
    panels = list(summary.groupby(panel_by, dropna=False)) if panel_by else [((), summary)]
    ncol = min(3, len(panels))
    nrow = int(np.ceil(len(panels) / ncol))
    fig = Figure(figsize=(4.2 * ncol, 3.0 * nrow), constrained_layout=True)
    axes = fig.subplots(nrow, ncol, squeeze=False)
    for ax, (key, g) in zip(axes.flat, panels):
        hues = _sorted_algorithms(g[hue].unique()) if hue == "algorithm" else sorted(g[hue].unique(), key=str)
        for h in hues:
            d = g[(g[hue] == h) | (g[hue].isna() & pd.isna(h))].sort_values("n_queries")
            name = LABEL.get(h, h) if hue == "algorithm" else f"{hue.split('.')[-1]}={h}"
            ax.plot(d["n_queries"], d["mean"], lw=1.3, label=name)
            ax.fill_between(d["n_queries"], d["mean"] - d["std"], d["mean"] + d["std"], alpha=0.2, lw=0)
        key = key if isinstance(key, tuple) else (key,)
        ax.set_title(", ".join(f"{k.split('.')[-1]}={v}" for k, v in zip(panel_by, key)), fontsize=9)
        ax.set_xlabel("number of queries")
        # at most 5 ticks, as 50k / 100k: six-digit labels ran together on a 4-inch panel
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
        ax.set_ylabel(metric_label)
        ax.grid(True, lw=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path
