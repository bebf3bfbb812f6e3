"""Reports of Aronsson & Chehreghani (2024): learning curves, areas under them, the paper's claims.

Each experiment's per-step traces (``traces.parquet``: ARI / AMI after every
batch) are put on a common query grid per setting, a curve that the
runner stopped once converged being held at its last value (as the
authors' plotting code pads curves).  Figures draw the mean over
repetitions with a band of one standard deviation (the paper's shading).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from . import _aronsson2024_claims as more
from ._aronsson2024_authors import side_by_side, split_reference
from ._aronsson2024_curves import (  # noqa: F401  (re-exported)
    LABEL,
    ORDER,
    _sorted_algorithms,
    area_under_curve,
    curve_summary,
    load_traces,
    padded_curves,
    plot_panels,
    queries_to_reach,
)
from .common import compare_row, load_reference, markdown_table, ok_records
from .output import Report, comparison_page

PAPER = "aronsson2024"


# --------------------------------------------------------------------------
# comparison with the paper's claims
# --------------------------------------------------------------------------
def _comparison(out: Report, rows: list[dict], title: str, extra: str = "") -> Report:
    """Set ``out``'s comparison: ``rows`` (no csv without rows) and their page, ending with ``extra``; returns ``out``."""
    df = pd.DataFrame(rows)
    columns = ["quantity", "dataset", "gamma", "algorithm", "versus", "paper", "ours", "ours_sem", "n_trials",
               "tolerance", "status", "note"]
    intro = (f"Reference: experiments/{PAPER}/reference.csv (kind `claim`: the paper states it in words or shows it "
             "in a figure).")
    out.compare(df, comparison_page(title, df, columns, intro, "\n" + extra), csv_when_empty=False)
    return out


#: "perform very similarly" (Section 4.2): mean AUCs within this much of each other.
SIMILAR_AUC = 0.02
#: auc_order rows that read "similar" rather than "outperforms" (the paper's uncertainty / frequency sentence).
SIMILAR_PAIRS = {("acc_uncertainty", "acc_frequency"), ("acc_frequency", "acc_uncertainty")}
#: The reading of ``auc_order`` rows, stated in their check texts (a test compares them).
AUC_ORDER_CHECK = (
    "'outperforms' / 'best' / 'remarkable margin' / 'under perform': a setting (dataset, gamma or batch size) counts "
    "when algorithm's mean AUC exceeds versus's by more than 2 standard errors of the difference (over the "
    "repetitions; a tie or a lead within noise does not count); 'perform very similarly': a setting counts when "
    f"the two mean AUCs are within {SIMILAR_AUC}. ours = share of settings that count; holds when "
    "ours >= 1 - tolerance (tolerance 0: 'in all cases'; 0.25: 'overall', 'usually', 'in general')")


def _ordering_holds(auc: pd.DataFrame, better: str, worse: str) -> float:
    """Whether one setting's AUCs meet the reading of :data:`AUC_ORDER_CHECK` (NaN if either is absent).

    ``auc`` is indexed by algorithm with columns ``auc`` (mean), ``auc_std`` and ``n`` (repetitions).
    """
    if better not in auc.index or worse not in auc.index:
        return np.nan
    diff = float(auc.loc[better, "auc"] - auc.loc[worse, "auc"])
    if (better, worse) in SIMILAR_PAIRS:
        return float(abs(diff) <= SIMILAR_AUC)
    se = float(np.hypot(*[np.nan_to_num(auc.loc[a, "auc_std"]) / np.sqrt(max(int(auc.loc[a, "n"]), 1))
                          for a in (better, worse)]))
    return float(diff > 2 * se and diff > 0)


def _claims(ref: pd.DataFrame, auc_mean: pd.DataFrame, reach: pd.DataFrame, setting: list[str],
            extra: dict | None = None) -> list[dict]:
    """Comparison rows of an experiment's reference rows.

    Parameters
    ----------
    ref : DataFrame
        The experiment's reference rows (the paper's, not the authors' stored runs).
    auc_mean : DataFrame
        Mean AUC of ARI per setting and algorithm (columns ``auc, auc_std, n``).
    reach : DataFrame
        :func:`queries_to_reach` per case.
    setting : list of str
        The columns that make a setting (without ``algorithm``).
    extra : dict, optional
        ``quantity -> (ours, note)`` for claims computed elsewhere (the
        checkers of :data:`CLAIM_CHECKS`).

    Returns
    -------
    list of dict
        :func:`ccexp.report.common.compare_row` rows: ``final_ari`` per dataset /
        gamma, ``auc_order`` as a share of settings, the ``extra`` claims.
    """
    extra = extra or {}
    rows = []
    for r in ref.itertuples():
        note = ""
        ours = np.nan
        if r.quantity in extra:
            ours, note = extra[r.quantity]
        elif r.quantity == "final_ari":
            m = reach[(reach["algorithm"] == r.algorithm)]
            if "dataset" in m and isinstance(r.dataset, str) and r.dataset:
                m = m[m["dataset"] == r.dataset]
            if "oracle.gamma" in m and not pd.isna(r.gamma):
                m = m[np.isclose(m["oracle.gamma"], r.gamma)]
            if len(m):
                ours = float(m["final"].mean())
                note = f"mean final ARI over {len(m)} runs; {int(m['queries'].notna().sum())} reach 0.99"
        elif r.quantity == "auc_order":
            # share of settings meeting AUC_ORDER_CHECK's reading
            held = []
            for _, g in auc_mean.groupby(setting, dropna=False):
                held.append(_ordering_holds(g.set_index("algorithm"), r.algorithm, r.versus))
            held = [h for h in held if not np.isnan(h)]
            if held:
                ours = float(np.mean(held))
                how = f"within {SIMILAR_AUC}" if (r.algorithm, r.versus) in SIMILAR_PAIRS else "ahead by > 2 SE"
                note = f"{int(sum(held))}/{len(held)} settings {how} in mean AUC"
        rows.append(compare_row(r.quantity, r.value, ours, r.tolerance, algorithm=r.algorithm, versus=r.versus, ref_id=r.ref_id,
                                note=note or "not run") | {"dataset": getattr(r, "dataset", ""),
                                                            "gamma": getattr(r, "gamma", np.nan)})
    return rows


#: The reading of each claim computed by a checker below (reference.csv's check text; a test compares them).
CLAIM_CHECKS = {
    "claim_batch_size_degrades_slowly": (
        "'their performance degrades only slowly as we increase the batch size' (Section 4.3, gamma = 0.2): the AUC "
        "the algorithm loses from the smallest to the largest batch size is smaller than its lead, at the smallest, "
        "over the methods the same paragraph says 'significantly under perform' (uncertainty, frequency): ours = 1 if "
        "its mean AUC at the largest B exceeds the better of uncertainty's and frequency's mean AUC at the smallest B "
        "by more than 2 standard errors of the difference"),
    "claim_violations_to_zero": (
        "'the number of violations approaches zero for maxexp as the active clustering procedure progresses' "
        "(Section 4.4, contrasted there with xi = 0, uniform selection): for every xi > 0 run of the algorithm, the "
        "mean over repetitions of the last recorded |E_violates| is 0 by the tolerance rule (at most half a unit of "
        "a count, 0.5, plus 2 standard errors) and below the mean of the runs' peaks (it fell); ours = 1 if so for "
        "every xi > 0"),
    "claim_tau20_best_at_gamma0.4": (
        "'the best performance is obtained with tau = 20' (Appendix C.2, gamma = 0.4): ours = 1 if the algorithm's "
        "mean AUC of ARI with tau = 20 exceeds its mean AUC with every other tau run by more than 2 standard errors "
        "of the difference (the reading of 'best' above: a tie or a lead within noise is not best)"),
    "claim_ami_same_conclusions": (
        "'The overall conclusions are very similar to the results with ARI' (Appendix C.1: Figures 9-10 for "
        "acc_random_init, 11-12 for acc_kmeans_init): every auc_order row of the experiment is evaluated a second "
        "time on the areas under the AMI "
        "curves; ours = share of the rows whose verdict (holds / does not hold) is the same with AMI as with ARI; "
        "holds when ours >= 1 - tolerance (0.25: the reading of 'overall' above)"),
    **more.CHECKS,
}


def _lead_over(a: pd.Series, b: pd.Series) -> tuple[float, float]:
    """Mean AUC of ``a`` minus that of ``b`` and the standard error of the difference (rows: ``auc, auc_std, n``)."""
    se = np.hypot(*[np.nan_to_num(float(x["auc_std"])) / np.sqrt(max(int(x["n"]), 1)) for x in (a, b)])
    return float(a["auc"] - b["auc"]), float(se)


def batch_size_degrades_slowly(auc_mean: pd.DataFrame, algorithm: str, gamma: float = 0.2) -> tuple[float, str]:
    """:data:`CLAIM_CHECKS` ``claim_batch_size_degrades_slowly`` on the mean AUCs of ``acc_noise_batch``."""
    d = auc_mean[np.isclose(auc_mean["oracle.gamma"].astype(float), gamma) & (auc_mean["algorithm.batch_size"] >= 1)]
    sizes = sorted(d["algorithm.batch_size"].unique())
    under = [u for u in ("acc_uncertainty", "acc_frequency") if u in set(d["algorithm"])]
    if len(sizes) < 2 or algorithm not in set(d["algorithm"]) or not under:
        return np.nan, f"needs two batch sizes at gamma = {gamma:g} with {algorithm} and uncertainty or frequency"
    small, large = d[d["algorithm.batch_size"] == sizes[0]], d[d["algorithm.batch_size"] == sizes[-1]]
    me = large[large["algorithm"] == algorithm]
    rivals = small[small["algorithm"].isin(under)]
    if not len(me) or not len(rivals):
        return np.nan, "the smallest or largest batch size lacks a run"
    best = rivals.loc[rivals["auc"].idxmax()]
    lead, se = _lead_over(me.iloc[0], best)
    mine = d[d["algorithm"] == algorithm].set_index("algorithm.batch_size")["auc"]
    return float(lead > 2 * se), (
        f"{algorithm} mean AUC {mine.get(sizes[0], np.nan):.3f} at B = {int(sizes[0])} -> {float(me['auc'].iloc[0]):.3f} "
        f"at B = {int(sizes[-1])}; {best['algorithm']} at B = {int(sizes[0])}: {float(best['auc']):.3f}; lead "
        f"{lead:.3f} (needs > 2 SE = {2 * se:.3f})")


def violations_to_zero(traces: pd.DataFrame, algorithm: str) -> tuple[float, str]:
    """:data:`CLAIM_CHECKS` ``claim_violations_to_zero`` on ``acc_xi_runtime``'s traces.

    ``traces`` has ``algorithm, algorithm.xi, case_id, n_queries, n_violations``
    (NaN where a step recorded none); a missing ``algorithm.xi`` is the default.
    """
    t = traces[(traces["algorithm"] == algorithm)].dropna(subset=["n_violations"]).reset_index(drop=True)
    xi = (t["algorithm.xi"].astype(float) if "algorithm.xi" in t else pd.Series(np.nan, index=t.index)).fillna(-1.0)
    t = t.assign(xi=xi.to_numpy())[~np.isclose(xi.to_numpy(), 0.0)]
    if not len(t):
        return np.nan, f"no {algorithm} run with xi > 0 recorded |E_violates|"
    parts, holds = [], []
    for x, g in t.groupby("xi"):
        g = g.sort_values("n_queries")
        last = g.groupby("case_id")["n_violations"].last().astype(float)
        peak = g.groupby("case_id")["n_violations"].max().astype(float)
        se = float(last.std(ddof=1) / np.sqrt(len(last))) if len(last) > 1 else 0.0
        ok_ = last.mean() <= 0.5 + 2 * se and last.mean() < peak.mean()
        holds.append(ok_)
        name = "default" if x < 0 else f"{x:g}"
        parts.append(f"xi {name}: last {last.mean():.1f} (needs <= {0.5 + 2 * se:.2f}), peak {peak.mean():.1f}, "
                     f"{len(last)} runs")
    return float(all(holds)), "; ".join(parts)


def tau20_best(auc_cases: pd.DataFrame, algorithm: str, gamma: float = 0.4, tau: float = 20.0) -> tuple[float, str]:
    """:data:`CLAIM_CHECKS` ``claim_tau20_best_at_gamma0.4``: ``auc_cases`` has one AUC per case of the tau study."""
    d = auc_cases[(auc_cases["algorithm"] == algorithm) & np.isclose(auc_cases["oracle.gamma"].astype(float), gamma)]
    g = d.groupby("value")["auc"].agg(["mean", "std", "size"]).rename(columns={"mean": "auc", "std": "auc_std",
                                                                               "size": "n"})
    if tau not in g.index or len(g) < 2:
        return np.nan, f"needs tau = {tau:g} and another tau at gamma = {gamma:g}"
    leads = {v: _lead_over(g.loc[tau], g.loc[v]) for v in g.index if v != tau}
    lost = [f"tau {v:g}: lead {lead:.3f} (2 SE {2 * se:.3f})" for v, (lead, se) in leads.items() if not lead > 2 * se]
    return float(not lost), (f"mean AUC at tau = {tau:g}: {float(g.loc[tau, 'auc']):.3f} over {int(g.loc[tau, 'n'])} runs; "
                             + ("ahead of every other tau by > 2 SE" if not lost else "not ahead of " + "; ".join(lost)))


def ami_agrees(ref: pd.DataFrame, auc_ari: pd.DataFrame, auc_ami: pd.DataFrame, setting: list[str]) -> tuple[float, str]:
    """:data:`CLAIM_CHECKS` ``claim_ami_same_conclusions``: share of ``auc_order`` rows with the same verdict on AMI."""
    rows = ref[ref["quantity"] == "auc_order"]
    if not len(rows) or not len(auc_ami):
        return np.nan, "no AMI traces (or no auc_order rows)"
    same, differ = 0, []
    for r in rows.itertuples():
        held = []
        for auc in (auc_ari, auc_ami):
            shares = [_ordering_holds(g.set_index("algorithm"), r.algorithm, r.versus)
                      for _, g in auc.groupby(setting, dropna=False)]
            shares = [s for s in shares if not np.isnan(s)]
            held.append(None if not shares else float(np.mean(shares)) >= float(r.value) - float(r.tolerance) - 1e-12)
        if None in held:
            continue
        if held[0] == held[1]:
            same += 1
        else:
            differ.append(f"{r.algorithm} vs {r.versus}")
    n = same + len(differ)
    if not n:
        return np.nan, "no auc_order row could be evaluated on both metrics"
    return same / n, f"{same}/{n} auc_order rows with the same verdict on AMI as on ARI" + (
        f"; differ: {', '.join(differ)}" if differ else "")


def _auc_table(curves: pd.DataFrame, setting: list[str], metric: str) -> pd.DataFrame:
    """Mean, std and count of the per-case AUC of ``metric`` per setting (columns ``auc, auc_std, n``)."""
    auc = area_under_curve(curves, setting, metric)
    out = auc.groupby(setting, dropna=False)["auc"].agg(["mean", "std", "size"]).reset_index()
    return out.rename(columns={"mean": "auc", "std": "auc_std", "size": "n"})


def _curve_report(out, records, out_dir, scale, experiment, panel_by, hue, title, metrics=("ari", "ami")):
    """Shared body: curves per panel, AUC and queries-to-0.99 tables into ``out``; returns (curves, auc, reach, setting).

    None (and ``out`` says so) without traces, read from ``out_dir``.
    """
    ok, not_ok = ok_records(records)
    traces = load_traces(Path(out_dir), ok)
    if not len(traces):
        _comparison(out, [], title, "No traces found: run the experiment first.\n")
        return None
    setting = [c for c in panel_by + [hue] if c in traces.columns]
    if "algorithm" not in setting:
        setting.append("algorithm")
    curves = {}
    for m in metrics:
        if m not in traces:
            continue
        c = padded_curves(traces, setting, m)
        curves[m] = c
        summary = curve_summary(c, setting, m)
        out.table(f"curve_{m}", summary, digits=4)
        extra = [s for s in setting if s not in panel_by and s != hue]
        plot_by = panel_by + extra
        out.figure(f"{experiment}_{m}.png", _panels(summary, plot_by, hue, m.upper(), f"{title} ({m.upper()}, {scale})"))
    c = curves["ari"]
    reach = queries_to_reach(c, setting, "ari", 0.99)
    auc_mean = _auc_table(c, setting, "ari")
    reach_mean = reach.groupby(setting, dropna=False).agg(
        queries_to_099=("queries", "median"), reached=("queries", lambda q: int(q.notna().sum())),
        final_ari=("final", "mean"), n=("final", "size")).reset_index()
    out.table("auc_ari", auc_mean, digits=3)
    out.table("queries_to_ari_099", reach_mean, digits=3)
    if len(not_ok):
        out.files["tables/not_ok.txt"] = not_ok.to_string()
    return curves, auc_mean, reach, setting


def _panels(summary: pd.DataFrame, panel_by: list[str], hue: str, ylabel: str, title: str):
    """A figure of :func:`plot_panels` (which saves into a path): a function ``draw(path)`` for :class:`Report`."""
    summary = summary.copy()
    return lambda path: plot_panels(summary, panel_by, hue, ylabel, path, title)


def _init_report(records, out_dir, scale, experiment, title) -> Report:
    out = Report()
    res = _curve_report(out, records, out_dir, scale, experiment, ["dataset", "oracle.gamma"], "algorithm", title)
    if res is None:
        return out
    curves, auc_mean, reach, setting = res
    ref = load_reference(PAPER, experiment)
    ref, ref_authors = split_reference(ref)  # rows from the authors' stored runs: _aronsson2024_authors
    by = [s for s in setting if s != "algorithm"]
    extra = {}
    if "ami" in curves:
        extra["claim_ami_same_conclusions"] = ami_agrees(ref, auc_mean, _auc_table(curves["ami"], setting, "ami"), by)
    rows = _claims(ref, auc_mean, reach, by, extra)
    authors_rows, authors_text = side_by_side(experiment, records, ref_authors, Path(out_dir), scale, out)
    rows += authors_rows
    table = markdown_table(auc_mean.pivot_table(index=["dataset", "oracle.gamma"], columns="algorithm", values="auc")
                           .reset_index(), digits=3)
    return _comparison(out, rows, title, f"## Area under the ARI curve (mean over repetitions)\n\n{table}\n{authors_text}")


def report_acc_random_init(records: pd.DataFrame, out_dir: Path, scale: str, n_grid_instances=None) -> Report:
    """Figures 1, 2, 9, 10: ARI and AMI against the number of queries, random sigma_0."""
    return _init_report(records, out_dir, scale, "acc_random_init", "acc_random_init (Figures 1, 2, 9, 10)")


def report_acc_kmeans_init(records: pd.DataFrame, out_dir: Path, scale: str, n_grid_instances=None) -> Report:
    """Figures 3, 4, 11, 12: as Figures 1-2 with sigma_0 from k-means++ on the features."""
    return _init_report(records, out_dir, scale, "acc_kmeans_init", "acc_kmeans_init (Figures 3, 4, 11, 12)")


def _reference_claims(experiment: str, ours: dict) -> list[dict]:
    """Compare the reference rows of ``experiment`` with ``ours[(quantity, algorithm, gamma)]``.

    ``gamma`` is None for a value measured at the experiment's single noise
    level, matched by every row of that quantity and algorithm.  A row whose key is absent was
    not run at this scale (e.g. a study left out of the ``ci`` grid).
    """
    rows = []
    for r in load_reference(PAPER, experiment).itertuples():
        gamma = None if pd.isna(r.gamma) else float(r.gamma)
        # a claim measured at one fixed noise level (acc_xi_runtime) is keyed without it
        ours_value = ours.get((r.quantity, r.algorithm, gamma), ours.get((r.quantity, r.algorithm, None), np.nan))
        note = r.source if not pd.isna(ours_value) else f"{r.source} — not run"
        rows.append(compare_row(r.quantity, r.value, ours_value, r.tolerance, algorithm=r.algorithm, versus=r.versus,
                                note=note, ref_id=r.ref_id) | {"dataset": r.dataset, "gamma": r.gamma})
    return rows


def report_acc_xi_runtime(records: pd.DataFrame, out_dir: Path, scale: str, n_grid_instances=None) -> Report:
    """Figures 6, 7: ARI, selection seconds per iteration and |E_violates| against the queries, per xi."""
    out = Report()
    title = "acc_xi_runtime (Figures 6, 7)"
    ok, _ = ok_records(records)
    traces = load_traces(Path(out_dir), ok)
    if not len(traces):
        return _comparison(out, [], title, "No traces found: run the experiment first.\n")
    traces = traces.assign(n_violations=traces["n_violations"].where(traces.get("n_violations", -1) >= 0))
    setting = ["algorithm", "algorithm.xi"]
    for m, label in (("ari", "ARI"), ("seconds_select", "selection seconds"), ("n_violations", "|E_violates|")):
        if m not in traces:
            continue
        t = traces.dropna(subset=[m]) if m != "ari" else traces
        c = padded_curves(t, setting, m) if m == "ari" else t[setting + ["case_id", "n_queries", m]]
        summary = curve_summary(c, setting, m)
        out.table(f"curve_{m}", summary, digits=4)
        out.figure(f"acc_xi_runtime_{m}.png", _panels(summary, ["algorithm"], "algorithm.xi", label, f"{title}: {label} ({scale})"))
    c = padded_curves(traces, setting, "ari")
    per_case = area_under_curve(c, setting)
    auc = per_case.groupby(setting, dropna=False)["auc"].mean().reset_index()
    if "seconds_select" not in traces:
        traces = traces.assign(seconds_select=np.nan)
    sel = traces.groupby(setting, dropna=False)["seconds_select"].median().rename("median_select_seconds").reset_index()
    table = auc.merge(sel, on=setting, how="left")
    out.table("auc_and_selection_time", table, digits=4)
    ours, notes = {}, {}

    def put(quantity, alg, value_note):  # a checker's (ours, note); NaN: not run
        value, note = value_note
        notes[(quantity, alg)] = note
        if not np.isnan(value):
            ours[(quantity, alg, None)] = value

    for alg, g in table.dropna(subset=["algorithm.xi"]).groupby("algorithm"):
        g = g.set_index("algorithm.xi")
        if 0.05 in g.index:  # AUC at xi = 0.05 as a share of the best xi's
            ours[("auc_xi_0.05_over_best", alg, None)] = float(g.loc[0.05, "auc"] / g["auc"].max())
        put("claim_selection_time_xi_significant", alg, more.selection_time_significant(traces, alg))
        put("claim_smaller_xi_may_be_better", alg, more.smaller_xi_better(per_case, alg))
        put("claim_xi0_reaches_perfect_ari", alg, more.xi0_reaches_perfect(traces, alg))
    if "n_violations" in traces and "acc_maxexp" in set(traces["algorithm"]):
        put("claim_violations_to_zero", "acc_maxexp", violations_to_zero(traces, "acc_maxexp"))
        put("claim_maxmin_fixes_fewer_violations", "acc_maxmin", more.maxmin_fixes_fewer(traces))
    put("claim_maxmin_faster_to_perfect_ari", "acc_maxmin", more.maxmin_faster(queries_to_reach(c, setting, "ari", 1.0)))
    rows = _reference_claims("acc_xi_runtime", ours)
    for r in rows:
        if (r["quantity"], r["algorithm"]) in notes:
            r["note"] += "; " + notes[(r["quantity"], r["algorithm"])]
    return _comparison(out, rows, title, f"## AUC of ARI and median selection time\n\n{markdown_table(table, digits=4)}\n")


def report_acc_parameters(records: pd.DataFrame, out_dir: Path, scale: str, n_grid_instances=None) -> Report:
    """Figure 13: epsilon, tau and beta studies on the synthetic set."""
    out = Report()
    title = "acc_parameters (Figure 13)"
    ok, _ = ok_records(records)
    traces = load_traces(Path(out_dir), ok)
    if not len(traces):
        return _comparison(out, [], title, "No traces found: run the experiment first.\n")
    defaults = {"algorithm.epsilon": 0.3, "algorithm.tau": 5.0, "algorithm.beta": 1.0}
    rows, tables, cases = [], [], []
    for param in defaults:
        others = [p for p in defaults if p != param]
        mask = np.ones(len(traces), dtype=bool)
        for p in others:
            mask &= np.isclose(traces[p].astype(float), defaults[p])
        t = traces[mask]
        if param != "algorithm.epsilon":
            t = t[t["algorithm"] == "acc_maxexp"]
        if t[param].nunique() < 2:
            continue
        setting = ["oracle.gamma", "algorithm", param]
        c = padded_curves(t, setting, "ari")
        summary = curve_summary(c, setting, "ari")
        name = param.split(".")[1]
        out.figure(f"acc_parameters_{name}.png", _panels(summary, ["oracle.gamma", "algorithm"], param, "ARI",
                                                         f"{title}: {name} ({scale})"))
        per_case = area_under_curve(c, setting)
        cases.append(per_case.assign(study=name).rename(columns={param: "value"}))
        auc = per_case.groupby(setting)["auc"].mean().reset_index()
        auc.insert(0, "study", name)
        tables.append(auc.rename(columns={param: "value"}))
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    if len(table):
        out.table("auc_ari", table, digits=3)
        ours, notes = {}, {}
        all_cases = pd.concat(cases, ignore_index=True)
        beta_cases = all_cases[all_cases["study"] == "beta"]
        for gamma in sorted(beta_cases["oracle.gamma"].astype(float).unique()) if len(beta_cases) else []:
            value, notes[("claim_beta_inf_worse", gamma)] = more.beta_inf_worse(beta_cases, "acc_maxexp", gamma)
            if not np.isnan(value):
                ours[("claim_beta_inf_worse", "acc_maxexp", float(gamma))] = value
        tau_cases = all_cases[all_cases["study"] == "tau"]
        for gamma in sorted(tau_cases["oracle.gamma"].astype(float).unique()) if len(tau_cases) else []:
            for quantity, (value, note) in (("claim_tau20_best_at_gamma0.4", tau20_best(tau_cases, "acc_maxexp", gamma=gamma)),
                                            ("claim_tau_below_5_worse", more.tau_below_worse(tau_cases, "acc_maxexp", gamma)),
                                            ("claim_tau_same_at_gamma0", more.tau_same(tau_cases, "acc_maxexp", gamma))):
                notes[(quantity, gamma)] = note
                if not np.isnan(value):
                    ours[(quantity, "acc_maxexp", float(gamma))] = value
        rows = _reference_claims("acc_parameters", ours)
        for r in rows:
            key = (r["quantity"], None if pd.isna(r["gamma"]) else float(r["gamma"]))
            if key in notes:
                r["note"] += "; " + notes[key]
    return _comparison(out, rows, title, f"## AUC of ARI per study\n\n{markdown_table(table, digits=3) if len(table) else ''}\n")


def report_acc_noise_batch(records: pd.DataFrame, out_dir: Path, scale: str, n_grid_instances=None) -> Report:
    """Figure 5: area under the ARI curve against gamma (B = |E|/1000) and against B (gamma = 0.2)."""
    out = Report()
    title = "acc_noise_batch (Figure 5)"
    res = _curve_report(out, records, out_dir, scale, "acc_noise_batch", ["oracle.gamma", "algorithm.batch_size"],
                        "algorithm", title, metrics=("ari",))
    if res is None:
        return out
    curves, auc_mean, reach, setting = res
    auc_mean = auc_mean.copy()
    fig = Figure(figsize=(9, 3.2), constrained_layout=True)
    ax1, ax2 = fig.subplots(1, 2)
    fraction = auc_mean["algorithm.batch_size"] < 1  # B given as a share of |E|: the paper's |E|/1000
    by_gamma = auc_mean[fraction]
    by_b = auc_mean[np.isclose(auc_mean["oracle.gamma"], 0.2) & ~fraction]
    for a in _sorted_algorithms(auc_mean["algorithm"].unique()):
        d = by_gamma[by_gamma["algorithm"] == a].sort_values("oracle.gamma")
        ax1.errorbar(d["oracle.gamma"], d["auc"], yerr=d["auc_std"], marker="o", ms=3, capsize=2, label=LABEL.get(a, a))
        d = by_b[by_b["algorithm"] == a].assign(B=lambda t: t["algorithm.batch_size"].astype(int)).sort_values("B")
        ax2.errorbar(d["B"], d["auc"], yerr=d["auc_std"], marker="o", ms=3, capsize=2, label=LABEL.get(a, a))
    ax1.set_xlabel("noise level gamma (B = |E|/1000)")
    ax2.set_xlabel("batch size B (gamma = 0.2)")
    for ax in (ax1, ax2):
        ax.set_ylabel("AUC of ARI")
        ax.grid(True, lw=0.3)
    ax1.legend(fontsize=7)
    out.figure("acc_noise_batch_auc.png", fig, dpi=110)
    ref = load_reference(PAPER, "acc_noise_batch")
    extra = {"claim_batch_size_degrades_slowly": batch_size_degrades_slowly(auc_mean, "acc_maxexp"),
             "claim_baselines_well_only_at_zero_noise": more.baselines_well_only_at_zero(
                 area_under_curve(curves["ari"], setting), "qecc")}
    rows = _claims(ref, auc_mean, reach, [s for s in setting if s != "algorithm"], extra)
    table = markdown_table(auc_mean, digits=3)
    return _comparison(out, rows, title, f"## Area under the ARI curve\n\n{table}\n")


REPORTS = {
    "acc_random_init": report_acc_random_init,
    "acc_kmeans_init": report_acc_kmeans_init,
    "acc_noise_batch": report_acc_noise_batch,
    "acc_xi_runtime": report_acc_xi_runtime,
    "acc_parameters": report_acc_parameters,
}
