"""Report for Ukkonen (2017), Experiment 1 (Section V-A): Figure 2, Table I, win counts.

Everything written here is computed from the records; the paper's numbers
come from ``experiments/ukkonen2017/reference.csv``.  Algorithms are handled
generically: whichever of them are in the records are plotted, tabulated and
compared, and a reference row about an absent algorithm gets the verdict
"not run".
"""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from ._ukkonen2017_cells import (  # noqa: F401  (re-exported: the module's public names stay importable from here)
    A,
    ALGORITHM_ORDER,
    ARI_TIE,
    B,
    CC_METHODS,
    DISPLAY,
    EMBEDDINGS,
    EXPERIMENT,
    K,
    PAPER,
    WIN_RULES,
    paper_case_weights,
    PAPER_ALGORITHMS,
    REFERENCE_ALGORITHM,
    TABLE1_A,
    TABLE1_ALGORITHMS,
    TABLE1_B,
    TABLE1_K,
    Context,
    _key,
    algorithm_order,
    cell_stats,
    display,
    win_counts,
)
from ._ukkonen2017_claims import CLAIMS, ClaimResult  # noqa: F401
from ._ukkonen2017_exp2 import report_exp2
from ._ukkonen2017_figures import FIG2_LEFT, FIG2_MIDDLE, FIG2_RIGHT, ari_heatmaps, figure2  # noqa: F401
from .common import (
    MISSING,
    NOT_RUN,
    OUTSIDE,
    STATUSES,
    WITHIN,
    code_versions,
    compare_row,
    fmt_number,
    is_missing,
    load_reference,
    markdown_table,
    ok_records,
    with_error_bars,
)
from .output import Report


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
                n = float(w["paired"].iloc[0])
                sem = 100.0 * math.sqrt(max(ours / 100 * (1 - ours / 100), 0.0) / n)
                rule = ("a tie is no win ('outperforms')" if w["rule"].iloc[0] == "strict"
                        else "a tie counts ('at least the same')")
                note = (f"% of the paper's test cases (the 10 trials of a = 1, b = 0 count as one); {rule}; ours "
                        f"{fmt_number(w['wins'].iloc[0], 1)}/{fmt_number(n, 1)}, "
                        f"paper {fmt_number(r.value)}/{fmt_number(paper_cases)}; sign test over our instances (ties "
                        f"out): {int(w['strict_wins'].iloc[0])} wins, {int(w['losses'].iloc[0])} losses, "
                        f"{int(w['ties'].iloc[0])} ties, two-sided p = {w['sign_test_p'].iloc[0]:.2g}")
            else:
                ours = math.nan
                note = f"{r.versus if r.versus not in ctx.algorithms else r.algorithm} not in the records"
            rows.append(compare_row(r.quantity + " (%)", paper_pct, ours, None, half=half_pct, sem=sem, n_trials=n,
                                    note=note, **coords))
        elif r.quantity == "n_cases":
            note = ("test cases as the paper counts them: distinct instances, the trials of a = 1, b = 0 (where the "
                    "paper's generator is deterministic) counted once per k")
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


def _tolerance_range(rows: pd.DataFrame, unit: str) -> str:
    """The tolerance is per row (:data:`~ccexp.report.common.TOLERANCE_RULE`): say so, with its range over ``rows``.

    Examples
    --------
    >>> _tolerance_range(pd.DataFrame({"tolerance": [0.05, 0.3, 1.87]}), "clusters")
    'tolerance per cell, by the rule (half a unit of the printed digit + 2 SE, capped by the nearest other method): 0.05 to 1.87 clusters, median 0.3'

    Rows not run are left out (their tolerance has no SE of ours in it).
    """
    run = rows[rows["status"] != NOT_RUN] if "status" in rows else rows
    tol = run["tolerance"].dropna() if "tolerance" in run else pd.Series(dtype=float)
    rule = "tolerance per cell, by the rule (half a unit of the printed digit + 2 SE, capped by the nearest other method)"
    if not len(tol):
        return rule
    return (f"{rule}: {fmt_number(tol.min(), 3)} to {fmt_number(tol.max(), 3)} {unit}, "
            f"median {fmt_number(tol.median(), 3)}")


def _summary_table1(cmp: pd.DataFrame) -> str:
    t = cmp[cmp["quantity"] == "n_clusters_mean"]
    lines = [f"Table I cells: {_verdict_counts(t)} ({_tolerance_range(t, 'clusters')})."]
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
    lines = [f"Win counts: {_verdict_counts(t)} ({_tolerance_range(t, 'percentage points')})."]
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


def report_exp1(records: pd.DataFrame, out_dir: Path, scale: str, n_grid_instances: int | None = None) -> Report:
    """Experiment 1's figures, tables, comparison and index.

    Parameters
    ----------
    records : DataFrame
        Long-format records of this experiment (already restricted to the
        scale's grid); rows with ``status != "ok"`` are counted, not used.
    out_dir : Path
        Unused; part of the report functions' common signature.
    scale : str
        Scale the records were run at (stated in the report).
    n_grid_instances : int, optional
        Number of instances of the scale's grid, to show how complete the
        records are.

    Returns
    -------
    Report
        ``figures/figure2.png``, ``figures/ari_heatmaps.png``, Table I (ours, and beside the paper's), the win
        counts, the comparison and ``report.md``.
    """
    out = Report()
    ok, not_ok = ok_records(records)
    stats = cell_stats(ok)
    ctx = Context.from_stats(stats)
    ref = load_reference(PAPER, EXPERIMENT)

    out.figure("figure2.png", partial(figure2, stats.copy()))
    out.figure("ari_heatmaps.png", partial(ari_heatmaps, stats.copy()))

    # Table I, ours and side by side with the paper.
    t1 = table1(ctx)
    out.table("table1", t1, md=_table1_markdown(t1, lambda r, c: fmt_number(r[c], 1)))
    paper_t1 = _paper_table1(ref)

    def _vs(r: pd.Series, c: str) -> str:
        a, k = c.split()
        key = (r["algorithm"], int(k[2:]), _key(a[2:]), _key(r["b"]))
        paper = paper_t1.get(key)
        return f"{fmt_number(r[c], 1)} ({MISSING if paper is None else fmt_number(paper, 1)})"

    out.files["tables/table1_vs_paper.md"] = (
        "Average number of clusters, ours (paper); '–' = not run here or not in the paper.\n\n"
        + _table1_markdown(t1, _vs))

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
    out.table("win_counts", wt, md=(
        f"Test cases where {display(REFERENCE_ALGORITHM)} has at least the ARI of the other algorithm (`rule` "
        "at_least: ties within " f"{ARI_TIE:g} count) or more (`rule` strict: the paper's 'outperforms' Ls-EQ-VC), "
        "paired by instance; the 10 trials of a = 1, b = 0 count as one test case of the paper's 924 (weight "
        "1/10 each), so `wins` and `paired` may be fractional. The sign test counts our instances, unweighted."
        "\n\n" + note + markdown_table(wt_md, digits=1)))

    # Comparison with every reference row.
    n_instances = int(records["instance_id"].nunique()) if "instance_id" in records and len(records) else 0
    has_grid = {A, B, K} <= set(records.columns) and len(records)
    n_test_cases = int(round(paper_case_weights(records).sum())) if has_grid else n_instances
    cmp = comparison_rows(ref, ctx, wins, n_test_cases, scale, n_grid_instances)
    versions = code_versions(records)
    status_line = (f"{int(not_ok.sum())} non-ok cases left out of the statistics ("
                   + ", ".join(f"{s}: {n}" for s, n in not_ok.items()) + ")" if len(not_ok) and not_ok.sum()
                   else "0 non-ok cases")
    header = [
        f"# {EXPERIMENT}: comparison with {PAPER} (Section V-A, Figure 2, Table I)",
        "",
        f"- scale: {scale}",
        f"- cases (records): {len(records)} over {n_instances} instances ({n_test_cases} test cases as the paper "
        "counts them: the trials of a = 1, b = 0 once per k)"
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
    out.compare(cmp, "\n".join(header) + markdown_table(with_error_bars(show), digits=3))

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
    out.text = "\n".join(index)
    return out


#: experiments this module reports (collected by ccexp.report)
REPORTS = {"exp1_triplets": report_exp1, "exp2_real_triplets": report_exp2}
