"""Report of ``cc_gaps``: each correlation-clustering heuristic against the proven optimum and the LP bound.

On every instance, ``cc_exact`` gives the optimum OPT of the supervision's own
cost (:func:`ccexp.algorithms.exact.pair_objective`) with a proof flag, and
the LP relaxation's bound LB.  A heuristic's excess is ``(cost - OPT) / OPT``
(0 when it is optimal; instances with OPT = 0 count as optimal or not but
enter no ratio), and the integrality gap of the LP is ``(OPT - LB) / OPT``.
Only instances whose optimum is proven enter the excess over OPT.

Its report holds ``tables/gaps.{csv,md}``, ``figures/gaps.png`` and ``report.md``.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .common import markdown_table, ok_records
from .output import Report, no_paper_comparison

PAPER = "cc_gaps"

KIND = {
    "triplets": "triplets, s(f,T)",
    "clusterings_kmeans": "clusterings, d(C)",
    "pairwise": "ML/CL pairs, violations",
    "pairwise_similarity": "fixed similarities, Eq. 2",
}
DISPLAY = {
    "cc_pivot": "pivot (KwikCluster)", "cc_maxcor_ls": "active LS (Alg. 2, fixed sigma)",
    "ls_eq": "Ls-EQ", "ls_ad": "Ls-AD", "ls_eq_vc": "Ls-EQ-VC", "ls_ad_vc": "Ls-AD-VC",
    "triplet_approx": "Alg. 1 (pivot+LS)", "triplet_approx_lp": "Alg. 1 (LP, region growing)",
    "balls": "Balls", "agglomerative": "Agglomerative", "furthest": "Furthest", "local_search": "LocalSearch",
}


def gap_rows(records: pd.DataFrame) -> pd.DataFrame:
    """One row per (instance, heuristic): cost, OPT, proven, LB, excess."""
    ok, _ = ok_records(records)
    if not len(ok):
        return pd.DataFrame()
    ok = ok.copy()
    cost = ok["pair_objective"] if "pair_objective" in ok else pd.Series(np.nan, index=ok.index)
    if "objective" in ok:
        cost = cost.fillna(ok["objective"])
    ok["cost"] = cost.astype(float)
    exact = ok[ok["algorithm"] == "cc_exact"]
    # without cc_exact (experiment.algorithms=[cc_pivot, ...]) the heuristics stay, with no optimum (issue 33)
    exact = exact.assign(**{c: np.nan for c in ("exact_optimal", "lp_bound") if c not in exact}).set_index("instance_id")
    rest = ok[ok["algorithm"] != "cc_exact"]
    if "fit_seconds" not in rest:
        rest = rest.assign(fit_seconds=np.nan)
    df = rest[["instance_id", "oracle", "algorithm", "cost", "fit_seconds"]].join(
        exact[["cost", "exact_optimal", "lp_bound", "fit_seconds"]].rename(
            columns={"cost": "opt", "fit_seconds": "exact_seconds_total"}),
        on="instance_id", how="inner" if len(exact) else "left")
    df["exact_optimal"] = df["exact_optimal"].astype("boolean").fillna(False).astype(bool)
    df["kind"] = df["oracle"].map(KIND).fillna(df["oracle"])
    df["at_opt"] = np.isclose(df["cost"], df["opt"], rtol=1e-9, atol=1e-9)
    pos = df["opt"] > 0
    df["excess"] = np.where(pos, (df["cost"] - df["opt"]) / df["opt"].where(pos), np.nan)
    df["lp_gap"] = np.where(pos, (df["opt"] - df["lp_bound"]) / df["opt"].where(pos), np.nan)
    return df


def gap_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per kind and heuristic: instances, proven share, at-optimum share, excess over OPT, LP gap."""
    if not len(df):
        return pd.DataFrame()
    proven = df[df["exact_optimal"].astype(bool)]
    rows = []
    for (kind, alg), g in df.groupby(["kind", "algorithm"], sort=True):
        p = proven[(proven["kind"] == kind) & (proven["algorithm"] == alg)]
        rows.append({
            "supervision": kind,
            "algorithm": DISPLAY.get(alg, alg),
            "instances": len(g),
            "proven": len(p),
            "at_optimum_pct": 100 * p["at_opt"].mean() if len(p) else np.nan,
            "excess_mean_pct": 100 * p["excess"].mean() if len(p) else np.nan,
            "excess_max_pct": 100 * p["excess"].max() if len(p) else np.nan,
            "cost_over_lp_mean_pct": 100 * ((g["cost"] - g["lp_bound"]) / g["lp_bound"].where(g["lp_bound"] > 0)).mean(),
            "lp_gap_mean_pct": 100 * p["lp_gap"].mean() if len(p) else np.nan,
            "seconds_mean": g["fit_seconds"].mean(),
            "exact_seconds_mean": g["exact_seconds_total"].mean(),
        })
    return pd.DataFrame(rows)


# ``vert`` is deprecated from Matplotlib 3.10 on, ``orientation`` is new there
_HORIZONTAL = ({"orientation": "horizontal"}
               if tuple(int(p) for p in matplotlib.__version__.split(".")[:2]) >= (3, 10) else {"vert": False})


def _figure(df: pd.DataFrame) -> Figure:
    proven = df[df["exact_optimal"].astype(bool) & df["excess"].notna()]
    kinds = [k for k in KIND.values() if k in set(proven["kind"])] or sorted(set(proven["kind"]))
    fig = Figure(figsize=(4.2 * max(len(kinds), 1), 4.6), constrained_layout=True)
    axes = fig.subplots(1, max(len(kinds), 1), squeeze=False)[0]
    for ax, kind in zip(axes, kinds):
        d = proven[proven["kind"] == kind]
        algs = sorted(d["algorithm"].unique(), key=lambda a: list(DISPLAY).index(a) if a in DISPLAY else 99)
        data = [100 * d.loc[d["algorithm"] == a, "excess"].to_numpy() for a in algs]
        ax.boxplot(data, showmeans=True, **_HORIZONTAL)
        ax.set_yticks(range(1, len(algs) + 1), [DISPLAY.get(a, a) for a in algs], fontsize=8)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_xlabel("cost above the proven optimum (%)")
        ax.set_title(kind, fontsize=10)
    fig.suptitle("Heuristics against the proven optimum (one point per instance)", fontsize=11)
    return fig


def report_cc_gaps(records: pd.DataFrame, out_dir: Path, scale: str, n_grid_instances=None) -> Report:
    """The cc_gaps report: each heuristic's cost above the proven optimum, as a table and a figure.

    Parameters
    ----------
    records : DataFrame
        Records of ``cc_gaps`` (heuristics and the exact solver on the same instances).
    out_dir : Path
        Unused (the report reads only ``records``); part of the report functions' common signature.
    scale : str
        Scale the records were run at.
    n_grid_instances : int, optional
        Unused; part of the report functions' common signature.

    Returns
    -------
    Report
        ``tables/gaps``, ``figures/gaps.png`` (with the exact solver), ``report.md`` and an empty comparison.
    """
    out = Report()
    df = gap_rows(records)
    table = out.table("gaps", gap_table(df), digits=2)
    has_exact = "algorithm" in records and (records["algorithm"] == "cc_exact").any()
    if len(df) and has_exact:
        out.figure("gaps.png", _figure(df), dpi=120)
    n_inst = df["instance_id"].nunique() if len(df) else 0
    n_proven = int(df.drop_duplicates("instance_id")["exact_optimal"].astype(bool).sum()) if len(df) else 0
    out.text = "\n".join([
        "# cc_gaps: heuristics against the proven optimum",
        "",
        f"Scale `{scale}`: {n_inst} instances, optimum proven on {n_proven}.",
        "Excess = (cost - OPT) / OPT over the proven instances; LP gap = (OPT - LB) / OPT;",
        "cost over LP = (cost - LB) / LB over all instances.",
        "",
        markdown_table(table, digits=2) if len(table) else "(no records)",
        "",
        "![gaps](figures/gaps.png)" if has_exact else
        "cc_exact is not among the algorithms run, so there is no optimum (nor LP bound) to measure the "
        "heuristics against: add it (experiment.algorithms=[cc_exact, ...]) for the gaps.",
        "",
    ])
    out.compare(*no_paper_comparison("cc_gaps", "a result of this project"))
    return out


REPORTS = {"cc_gaps": report_cc_gaps}
