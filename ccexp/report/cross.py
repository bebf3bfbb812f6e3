"""Report of the cross-supervision study (issue 15): which kind of question, read by which algorithm?

One *reader* is a (kind of supervision, algorithm) pair, e.g. ``pairwise:
cop_rf`` or ``active_pairs: cop_rf`` (the same algorithm on the pairs maxmin
chose).  The x-axis is the number of answers a person gives, in answers per
item (``oracle.budget``); the active readers (``similarity``) run once to
the largest budget and are read off their trace at each budget (the
clustering after the last batch that fits); the unsupervised floor
(``none``) is one value per dataset and trial, drawn flat.

Its report holds

- ``figures/curves.png``: ARI against the answers, one panel per dataset and
  eps, one line per reader, with 95% t-bands over the trials;
- ``tables/auc.{csv,md}``: the leaderboard, the area under each reader's
  ARI curve over log(budget) (normalised to the budget range, so 1 is ARI 1
  at every budget), per dataset, averaged over eps and trials;
- ``tables/auc_by_eps.{csv,md}``: the same per dataset and eps, with the
  95% half-width over trials;
- ``tables/ranks.{csv,md}``, ``figures/critical_difference.png``: each
  reader's average rank over the datasets, the Friedman test and the
  Nemenyi post hoc (scikit-posthocs, the ``stats`` extra) drawn as a
  critical-difference diagram;
- ``report.md`` and an empty ``comparison.{csv,md}`` (no paper reports these
  numbers).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy import stats
from sklearn.metrics import auc

from ..runner.store import ResultStore
from .common import markdown_table
from .output import Report, no_paper_comparison

PAPER = "cross"

#: kinds in the order of the legend; ``none`` is the floor
KIND_ORDER = ("triplets", "relative", "pairwise", "active_pairs", "similarity", "none")
KIND_STYLE = {"triplets": "-", "relative": "--", "pairwise": "-.", "active_pairs": ":", "similarity": "-", "none": "-"}


def n_items_from_edges(n_edges) -> np.ndarray:
    """Items of an active record from its problem's number of edges: the root n of n(n-1)/2 = n_edges."""
    e = np.asarray(n_edges, dtype=float)
    return np.rint((1.0 + np.sqrt(1.0 + 8.0 * e)) / 2.0)


def supervision_of(records: pd.DataFrame) -> pd.Series:
    """The kind each record read: its ``supervision`` column (``problem.supervision`` in records written before it)."""
    if "supervision" in records:
        s = records["supervision"]
        if "problem.supervision" in records:
            s = s.fillna(records["problem.supervision"])
        return s
    if "problem.supervision" in records:
        return records["problem.supervision"]
    raise ValueError("records carry no supervision column (run the cross_* experiments with the cross_* oracles)")


def budgets_of(records: pd.DataFrame) -> list[float]:
    """The budgets (answers per item) of the sweep, read off the fixed-budget records."""
    if "oracle.budget" not in records:
        return []
    return sorted(float(b) for b in records["oracle.budget"].dropna().unique())


def active_rows(records: pd.DataFrame, traces: pd.DataFrame, budgets) -> pd.DataFrame:
    """One row per (active record, budget): the ARI of the last clustering within ``round(budget * n)`` answers.

    Parameters
    ----------
    records : DataFrame
        Records of the ``similarity`` kind (with ``case_id``, ``problem.n_edges``).
    traces : DataFrame
        Their traces (``case_id``, ``n_queries``, ``ari``), one row per clustering.
    budgets : sequence of float
        Answers per item.
    """
    rows = []
    if not len(records) or traces is None or not len(traces):
        return pd.DataFrame(rows)
    by_case = {cid: g.sort_values("n_queries") for cid, g in traces.groupby("case_id")}
    for case_id, n in zip(records["case_id"], n_items_from_edges(records["problem.n_edges"])):
        t = by_case.get(case_id)
        if t is None:
            continue
        q = t["n_queries"].to_numpy()
        a = t["ari"].to_numpy()
        for b in budgets:
            m = max(1, int(round(b * n)))
            i = int(np.searchsorted(q, m, side="right")) - 1
            if i < 0:
                continue
            rows.append({"case_id": case_id, "budget": float(b), "ari": float(a[i]), "n_answers": int(q[i])})
    return pd.DataFrame(rows)


def curve_rows(records: pd.DataFrame, traces: pd.DataFrame | None = None) -> pd.DataFrame:
    """The long table of the study: dataset, eps, supervision, algorithm, reader, budget, trial, ari.

    Fixed-budget readers give one row per record; the active readers one row
    per budget (:func:`active_rows`); the unsupervised floor one row per
    budget and eps of the sweep (its value does not depend on them).
    """
    ok, _ = scored_records(records)
    if not len(ok):
        return pd.DataFrame(columns=["dataset", "eps", "supervision", "algorithm", "reader", "budget", "trial", "ari"])
    ok = ok.assign(supervision=supervision_of(ok).to_numpy())
    budgets = budgets_of(ok)
    eps_values = sorted(float(e) for e in ok["oracle.eps"].dropna().unique()) if "oracle.eps" in ok else [0.0]
    keep = ["case_id", "dataset", "supervision", "algorithm", "trial"]
    fixed = ok[ok["oracle.budget"].notna()] if "oracle.budget" in ok else ok.iloc[:0]
    parts = [fixed[keep + ["ari"]].assign(budget=fixed["oracle.budget"].astype(float), eps=fixed["oracle.eps"].astype(float))]
    active = ok[(ok["supervision"] == "similarity")]
    if len(active):
        rows = active_rows(active, traces, budgets)
        if len(rows):
            parts.append(rows.merge(active[keep + ["oracle.eps"]], on="case_id").rename(columns={"oracle.eps": "eps"}))
    floor = ok[ok["supervision"] == "none"]
    if len(floor):
        grid = pd.MultiIndex.from_product([budgets, eps_values], names=["budget", "eps"]).to_frame(index=False)
        parts.append(floor[keep + ["ari"]].merge(grid, how="cross"))
    df = pd.concat([p for p in parts if len(p)], ignore_index=True)
    df["reader"] = df["supervision"] + ": " + df["algorithm"]
    return df[["dataset", "eps", "supervision", "algorithm", "reader", "budget", "trial", "ari"]]


def scored_records(records: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Records with an ARI, and the number without one (failed cases).

    Unlike the papers' reports, a status other than ``ok`` does not drop a
    record here: COP-KMeans' ``infeasible`` (one cluster, ARI 0) and
    ReCon's ``inconsistent`` (a maximal consistent subset of noisy answers)
    are what a practitioner gets from that reader, and dropping them would
    flatter it.  Only records without an ARI (``status="error"``) are left out.
    """
    if "ari" not in records:
        return records.iloc[:0], len(records)
    has = records["ari"].notna()
    if "status" in records:
        has &= records["status"] != "error"
    return records[has], int((~has).sum())


def _t_half_width(values: np.ndarray) -> float:
    """Half-width of the 95% t-interval of the mean (nan for fewer than 2 values)."""
    values = values[~np.isnan(values)]
    if values.size < 2:
        return float("nan")
    return float(stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size))


def curve_table(df: pd.DataFrame) -> pd.DataFrame:
    """Mean ARI, 95% half-width and number of trials per (dataset, eps, reader, budget)."""
    g = df.groupby(["dataset", "eps", "supervision", "algorithm", "reader", "budget"])["ari"]
    out = g.agg(mean="mean", n="count").reset_index()
    out["ci95"] = g.apply(lambda s: _t_half_width(s.to_numpy(dtype=float))).to_numpy()
    return out


def auc_per_trial(df: pd.DataFrame) -> pd.DataFrame:
    """The normalised area under each (dataset, eps, reader, trial) curve over log(budget).

    ``sklearn.metrics.auc`` (trapezoids) of ARI against log(budget), divided
    by the width of the log-budget range: the mean ARI over the curve, 1 for
    a perfect clustering at every budget.  Curves missing a budget of the
    sweep (a failed case) are left out rather than integrated over a shorter
    range.
    """
    budgets = np.sort(df["budget"].unique())
    if budgets.size < 2:
        raise ValueError(f"the area under a curve needs at least 2 budgets, got {budgets.tolist()}")
    x = np.log(budgets)
    width = x[-1] - x[0]
    rows = []
    for key, g in df.groupby(["dataset", "eps", "supervision", "algorithm", "reader", "trial"]):
        y = g.groupby("budget")["ari"].mean().reindex(budgets)
        if y.isna().any():
            continue
        rows.append(dict(zip(["dataset", "eps", "supervision", "algorithm", "reader", "trial"], key),
                         auc=float(auc(x, y.to_numpy()) / width)))
    return pd.DataFrame(rows)


def leaderboard(per_trial: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per dataset, per dataset and eps) tables of the mean AUC with 95% half-widths over trials.

    The per-dataset table averages each trial's AUC over eps first, so its
    interval is over trials too; its rows are sorted by the mean over datasets.
    """
    by_eps = per_trial.groupby(["dataset", "eps", "reader"])["auc"].agg(
        mean="mean", ci95=lambda s: _t_half_width(s.to_numpy(dtype=float)), n="count").reset_index()
    trial_mean = per_trial.groupby(["dataset", "reader", "trial"])["auc"].mean().reset_index()
    per_ds = trial_mean.groupby(["dataset", "reader"])["auc"].agg(
        mean="mean", ci95=lambda s: _t_half_width(s.to_numpy(dtype=float))).reset_index()
    wide = per_ds.pivot(index="reader", columns="dataset", values="mean")
    wide["mean over datasets"] = wide.mean(axis=1)
    wide = wide.sort_values("mean over datasets", ascending=False)
    return wide.reset_index(), by_eps


def friedman_ranking(per_trial: pd.DataFrame, alpha: float = 0.05) -> dict:
    """Ranks of the readers across datasets, the Friedman test and the Nemenyi post hoc.

    Blocks are the datasets, the measurement a reader's AUC averaged over
    eps and trials; only readers with a value on every dataset enter.  The
    Friedman statistic is ``scipy.stats.friedmanchisquare``; the pairwise
    post hoc is ``scikit_posthocs.posthoc_nemenyi_friedman`` (Demšar 2006),
    whose p-values the critical-difference diagram draws.

    Returns
    -------
    dict
        ``matrix`` (datasets x readers), ``ranks`` (average rank per reader,
        1 = best), ``statistic``, ``pvalue``, ``posthoc`` (readers x readers
        p-values, or None), ``n_blocks``, ``note`` (why a test was skipped),
        ``left_out`` (readers missing on some dataset), and ``posthoc_note``
        when scikit-posthocs (the ``stats`` extra) is not installed.
    """
    full = per_trial.groupby(["dataset", "reader"])["auc"].mean().unstack("reader")
    matrix = full.dropna(axis=1)
    out = {"matrix": matrix, "ranks": pd.Series(dtype=float), "statistic": float("nan"), "pvalue": float("nan"),
           "posthoc": None, "n_blocks": int(matrix.shape[0]), "note": "",
           "left_out": sorted(set(full.columns) - set(matrix.columns))}
    if matrix.shape[1] < 2 or matrix.shape[0] < 1:
        out["note"] = f"{matrix.shape[1]} reader(s) on every dataset: nothing to rank"
        return out
    # rank 1 = the largest AUC in each block; ties share their mean rank
    out["ranks"] = matrix.rank(axis=1, ascending=False).mean(axis=0).sort_values()
    if matrix.shape[1] < 3 or matrix.shape[0] < 2:
        out["note"] = (f"the Friedman test needs at least 3 readers and 2 datasets; "
                       f"have {matrix.shape[1]} and {matrix.shape[0]}")
        return out
    res = stats.friedmanchisquare(*[matrix[c].to_numpy() for c in matrix.columns])
    out["statistic"], out["pvalue"] = float(res.statistic), float(res.pvalue)
    try:  # the optional `stats` extra; without it the ranks and the Friedman test still stand
        import scikit_posthocs as sp
    except ImportError:
        out["posthoc_note"] = ("no Nemenyi post hoc or critical-difference diagram: they need "
                               "scikit-posthocs (pip install 'ccexp[stats]')")
        return out
    out["posthoc"] = sp.posthoc_nemenyi_friedman(matrix.to_numpy())
    out["posthoc"].index = out["posthoc"].columns = list(matrix.columns)
    return out


def _curves_figure(table: pd.DataFrame) -> Figure:
    datasets = sorted(table["dataset"].unique())
    eps_values = sorted(table["eps"].unique())
    readers = sorted(table["reader"].unique(), key=lambda r: (KIND_ORDER.index(r.split(": ")[0])
                                                              if r.split(": ")[0] in KIND_ORDER else 99, r))
    cmap = matplotlib.colormaps["tab20"]
    colour = {r: cmap(i % 20) for i, r in enumerate(readers)}
    fig = Figure(figsize=(4.2 * len(eps_values), 3.0 * len(datasets)), layout="constrained")
    axes = fig.subplots(len(datasets), len(eps_values), squeeze=False, sharex=True, sharey=True)
    for i, ds in enumerate(datasets):
        for j, eps in enumerate(eps_values):
            ax = axes[i][j]
            panel = table[(table["dataset"] == ds) & (table["eps"] == eps)]
            for r in readers:
                c = panel[panel["reader"] == r].sort_values("budget")
                if not len(c):
                    continue
                kind = r.split(": ")[0]
                ax.plot(c["budget"], c["mean"], KIND_STYLE.get(kind, "-"), color="black" if kind == "none" else colour[r],
                        lw=1.2, label=r)
                band = c["ci95"].fillna(0.0)
                ax.fill_between(c["budget"], c["mean"] - band, c["mean"] + band, alpha=0.12,
                                color="black" if kind == "none" else colour[r], lw=0)
            ax.set_xscale("log")
            ax.set_title(f"{ds}, eps = {eps:g}", fontsize=9)
            if j == 0:
                ax.set_ylabel("ARI")
            if i == len(datasets) - 1:
                ax.set_xlabel("answers per item")
    handles, labels = axes[0][0].get_legend_handles_labels()
    for row in axes:
        for ax in row:
            h, lab = ax.get_legend_handles_labels()
            for hh, ll in zip(h, lab):
                if ll not in labels:
                    handles.append(hh)
                    labels.append(ll)
    fig.legend(handles, labels, loc="outside lower center", ncol=min(4, len(labels)), fontsize=7)
    return fig


def _cd_figure(result: dict) -> Figure | None:
    if result["posthoc"] is None:
        return None
    import scikit_posthocs as sp

    ranks = result["ranks"]
    fig = Figure(figsize=(9, 0.35 * len(ranks) + 1.5), layout="constrained")
    ax = fig.subplots()
    drawn = sp.critical_difference_diagram(ranks, result["posthoc"], ax=ax, label_fmt_left="{label} ({rank:.2f})  ",
                                           label_fmt_right="  ({rank:.2f}) {label}")
    # each crossbar's points come from a set of reader names, in the order of Python's string hash (the
    # PYTHONHASHSEED of the process): drawn left to right, the same records give the same PNG
    for line in (ln for bar in drawn.get("crossbars", ()) for ln in bar):
        x, y = (np.asarray(v) for v in line.get_data())
        order = np.argsort(x, kind="stable")
        line.set_data(x[order], y[order])
    ax.set_title(f"average rank over {result['n_blocks']} datasets (AUC); bars join readers the Nemenyi test "
                 f"does not separate at 0.05 (Friedman p = {result['pvalue']:.2g})", fontsize=9)
    return fig


def report_cross(records: pd.DataFrame, out_dir: Path, scale: str, n_grid_instances=None, traces=None) -> Report:
    """The cross-supervision report (see the module docstring); the traces are read from ``out_dir`` unless given."""
    if traces is None:
        traces = ResultStore(Path(out_dir)).load_traces()
    out = Report()
    df = curve_rows(records, traces)
    lines = [f"# Cross-supervision study — scale `{scale}`", ""]
    _, n_failed = scored_records(records)
    status = records["status"].value_counts().to_dict() if "status" in records else {}
    lines += [f"{len(records)} cases ({n_failed} without an ARI; status: "
              f"{', '.join(f'{k} {v}' for k, v in sorted(status.items()))}); {df['dataset'].nunique() if len(df) else 0} datasets; "
              f"readers: {df['reader'].nunique() if len(df) else 0}.", ""]
    if len(df):
        table = out.table("curves", curve_table(df), digits=3)
        out.figure("curves.png", _curves_figure(table), dpi=90)
        lines += ["![ARI against the answers](figures/curves.png)", ""]
        per_trial = auc_per_trial(df)
        wide, by_eps = leaderboard(per_trial)
        out.table("auc", wide, digits=3)
        out.table("auc_by_eps", by_eps, digits=3)
        lines += ["## Leaderboard: area under the ARI curve (over log budget, normalised; mean over eps and trials)",
                  "", markdown_table(wide, digits=3), ""]
        result = friedman_ranking(per_trial)
        ranks = result["ranks"].rename("average rank").reset_index().rename(columns={"index": "reader"})
        out.table("ranks", ranks, digits=2)
        lines += ["## Ranking across datasets", ""]
        if result["left_out"]:
            lines += [f"Left out of the ranking (no curve on every dataset): {', '.join(result['left_out'])}.", ""]
        if result["note"]:
            lines += [result["note"] + ".", ""]
        else:
            lines += [f"Friedman test over {result['n_blocks']} datasets and {len(result['ranks'])} readers: "
                      f"chi2 = {result['statistic']:.2f}, p = {result['pvalue']:.3g}.", ""]
        if len(ranks):
            lines += [markdown_table(ranks, digits=2), ""]
        cd = _cd_figure(result)
        if cd is not None:
            out.figure("critical_difference.png", cd, dpi=110)
            lines += ["![critical difference](figures/critical_difference.png)", ""]
        elif result.get("posthoc_note"):
            lines += [result["posthoc_note"].capitalize() + ".", ""]
    out.text = "\n".join(lines)
    out.compare(*no_paper_comparison("cross_supervision", "a study of this project, issue 15", folder="cross"))
    return out


REPORTS = {"cross_supervision": report_cross}
