"""The claim checkers of issue 28 for Aronsson & Chehreghani (2024), each on hand-made runs both ways."""

import math

import numpy as np
import pandas as pd
import pytest

from ccexp.report import _aronsson2024_claims as cl
from ccexp.report.common import load_reference


def _tau_cases(means: dict, gamma=0.2, spread=(-0.01, 0.0, 0.01)):
    """Three runs per tau around the given mean AUC (SD 0.01)."""
    return pd.DataFrame([{"algorithm": "acc_maxexp", "oracle.gamma": gamma, "value": t, "auc": m + e}
                         for t, m in means.items() for e in spread])


def test_tau_below_worse_needs_every_smaller_tau_significantly_below():
    holds = _tau_cases({1: 0.5, 2: 0.6, 3: 0.65, 5: 0.7, 20: 0.7})
    assert cl.tau_below_worse(holds, "acc_maxexp")[0] == 1.0
    # the committed table's shape: tau = 2 and 3 above tau = 5
    value, note = cl.tau_below_worse(_tau_cases({1: 0.0, 2: 0.75, 3: 0.68, 5: 0.676}), "acc_maxexp")
    assert value == 0.0 and "tau 2: 0.750" in note
    # a lead within 2 SE (0.0163 for SD 0.01 and three runs) is not "worse"
    assert cl.tau_below_worse(_tau_cases({3: 0.69, 5: 0.70}), "acc_maxexp")[0] == 0.0
    assert math.isnan(cl.tau_below_worse(_tau_cases({5: 0.7, 20: 0.7}), "acc_maxexp")[0])
    assert math.isnan(cl.tau_below_worse(_tau_cases({1: 0.7, 5: 0.7}), "acc_maxexp", gamma=0.4)[0])


def test_beta_inf_worse_needs_beta_one_ahead_by_more_than_two_se():
    # the _tau_cases helper's ``value`` is the study's parameter: here beta
    assert cl.beta_inf_worse(_tau_cases({1.0: 0.75, math.inf: 0.70}), "acc_maxexp", 0.2)[0] == 1.0
    # a tie, which the old reading (beta = 1 >= beta = inf) counted as "degrades", is no degradation
    value, note = cl.beta_inf_worse(_tau_cases({1.0: 0.70, math.inf: 0.70}), "acc_maxexp", 0.2)
    assert value == 0.0 and "lead +0.000" in note
    # a lead within 2 SE (SD 0.01, three runs a side: 2 SE = 0.0163) is not enough; just beyond it is
    assert cl.beta_inf_worse(_tau_cases({1.0: 0.715, math.inf: 0.70}), "acc_maxexp", 0.2)[0] == 0.0
    assert cl.beta_inf_worse(_tau_cases({1.0: 0.717, math.inf: 0.70}), "acc_maxexp", 0.2)[0] == 1.0
    # beta = inf ahead: the claim fails; a missing side or another gamma is "not run"
    assert cl.beta_inf_worse(_tau_cases({1.0: 0.6, math.inf: 0.7}), "acc_maxexp", 0.2)[0] == 0.0
    assert math.isnan(cl.beta_inf_worse(_tau_cases({1.0: 0.7, 10.0: 0.6}), "acc_maxexp", 0.2)[0])
    assert math.isnan(cl.beta_inf_worse(_tau_cases({1.0: 0.7, math.inf: 0.6}), "acc_maxexp", 0.4)[0])


def test_tau_same_holds_only_when_every_pair_is_within_two_se():
    same = _tau_cases({1: 0.788, 2: 0.788, 5: 0.785, math.inf: 0.785}, gamma=0.0)
    assert cl.tau_same(same, "acc_maxexp", 0.0)[0] == 1.0
    value, note = cl.tau_same(_tau_cases({1: -0.001, 2: 0.788, 5: 0.785}, gamma=0.0), "acc_maxexp", 0.0)
    assert value == 0.0 and "tau 1 vs 2" in note
    assert math.isnan(cl.tau_same(_tau_cases({5: 0.7}, gamma=0.0), "acc_maxexp", 0.0)[0])


def _select(times: dict, algorithm="acc_maxexp"):
    """Two iterations per run; ``times[xi]`` lists the runs' mean selection seconds."""
    rows = []
    for xi, runs in times.items():
        for i, t in enumerate(runs):
            for step, dt in enumerate((-0.001, 0.001)):
                rows.append({"algorithm": algorithm, "algorithm.xi": xi, "case_id": f"{xi}-{i}", "step": step,
                             "seconds_select": t + dt})
    return pd.DataFrame(rows)


def test_selection_time_significant_both_ways():
    value, note = cl.selection_time_significant(_select({0.05: [0.01, 0.012, 0.011], 1.0: [0.2, 0.21, 0.19]}),
                                                "acc_maxexp")
    assert value == 1.0 and "x18.2" in note
    # slower on average but within 2 SE of the difference: not significant
    assert cl.selection_time_significant(_select({0.05: [0.01, 0.05, 0.03], 1.0: [0.02, 0.06, 0.04]}),
                                         "acc_maxexp")[0] == 0.0
    assert math.isnan(cl.selection_time_significant(_select({0.05: [0.01]}), "acc_maxexp")[0])


def _xi_auc(means: dict, algorithm="acc_maxmin"):
    return pd.DataFrame([{"algorithm": algorithm, "algorithm.xi": xi, "case_id": f"{xi}-{e}", "auc": m + e}
                         for xi, m in means.items() for e in (-0.01, 0.0, 0.01)])


def test_smaller_xi_may_be_better_needs_one_significant_lead_over_xi_one():
    assert cl.smaller_xi_better(_xi_auc({0.0: 0.2, 0.05: 0.43, 0.2: 0.44, 1.0: 0.418}), "acc_maxmin")[0] == 1.0
    # xi = 0 (uniform selection) does not count as a smaller xi of the strategy
    assert cl.smaller_xi_better(_xi_auc({0.0: 0.9, 0.05: 0.41, 1.0: 0.418}), "acc_maxmin")[0] == 0.0
    assert math.isnan(cl.smaller_xi_better(_xi_auc({0.05: 0.4}), "acc_maxmin")[0])


def _violations(last: dict):
    """``last[(algorithm, xi)]`` lists the runs' last |E_violates| (peak 100 before it)."""
    rows = []
    for (alg, xi), runs in last.items():
        for i, v in enumerate(runs):
            for q, n in ((0, 100.0), (10, float(v))):
                rows.append({"algorithm": alg, "algorithm.xi": xi, "case_id": f"{alg}{xi}{i}", "n_queries": q,
                             "n_violations": n})
    return pd.DataFrame(rows)


def test_maxmin_fixes_fewer_at_every_common_xi():
    both = {("acc_maxmin", 0.05): [50, 52, 54], ("acc_maxexp", 0.05): [10, 12, 14],
            ("acc_maxmin", np.nan): [60, 61, 62], ("acc_maxexp", np.nan): [5, 6, 7],
            ("acc_maxmin", 0.0): [1, 1, 1], ("acc_maxexp", 0.0): [90, 90, 90]}  # xi = 0 is not compared
    value, note = cl.maxmin_fixes_fewer(_violations(both))
    assert value == 1.0 and "xi default: 61 vs 6" in note
    both[("acc_maxmin", 0.05)] = [11, 13, 15]
    assert cl.maxmin_fixes_fewer(_violations(both))[0] == 0.0
    assert math.isnan(cl.maxmin_fixes_fewer(_violations({("acc_maxmin", 0.05): [1]}))[0])


def test_maxmin_faster_compares_median_queries_to_ari_one_never_reached_as_infinite():
    reach = pd.DataFrame([{"algorithm": a, "algorithm.xi": 0.05, "case_id": f"{a}{i}", "queries": q}
                          for a, qs in (("acc_maxmin", [100, 120, np.nan]), ("acc_maxexp", [150, np.nan, np.nan]))
                          for i, q in enumerate(qs)])
    assert cl.maxmin_faster(reach)[0] == 1.0  # 120 against inf
    swapped = reach.assign(algorithm=reach["algorithm"].map({"acc_maxmin": "acc_maxexp", "acc_maxexp": "acc_maxmin"}))
    assert cl.maxmin_faster(swapped)[0] == 0.0
    assert math.isnan(cl.maxmin_faster(reach[reach["algorithm"] == "acc_maxmin"])[0])


def test_xi0_reaches_perfect_is_the_mean_highest_ari():
    t = pd.DataFrame([{"algorithm": "acc_maxexp", "algorithm.xi": xi, "case_id": c, "ari": a}
                      for xi, c, a in ((0.0, "a", 0.5), (0.0, "a", 1.0), (0.0, "b", 0.9), (0.05, "c", 0.2))])
    value, note = cl.xi0_reaches_perfect(t, "acc_maxexp")
    assert value == 0.95 and "1 reach 1" in note
    assert math.isnan(cl.xi0_reaches_perfect(t, "acc_maxmin")[0])


def _noise(means: dict):
    return pd.DataFrame([{"oracle.gamma": g, "algorithm": a, "algorithm.batch_size": 0.001, "auc": m + e}
                         for (g, a), m in means.items() for e in (-0.005, 0.0, 0.005)])


def test_baselines_well_only_at_zero_noise_both_ways():
    strategies = ("acc_maxexp", "acc_maxmin", "acc_uncertainty", "acc_frequency", "acc_uniform")
    good = {**{(0.0, s): 0.6 for s in strategies}, (0.0, "qecc"): 0.68,
            **{(0.2, s): 0.5 for s in strategies}, (0.2, "qecc"): 0.29}
    assert cl.baselines_well_only_at_zero(_noise(good), "qecc")[0] == 1.0
    # the committed table's gamma = 0.1: QECC 0.54 above uniform's 0.48
    value, note = cl.baselines_well_only_at_zero(_noise({**good, (0.1, "acc_uniform"): 0.48, (0.1, "acc_maxexp"): 0.69,
                                                         (0.1, "qecc"): 0.54}), "qecc")
    assert value == 0.0 and "not below acc_uniform" in note
    # below maxexp by more than 2 SE at gamma = 0: not "well"
    assert cl.baselines_well_only_at_zero(_noise({**good, (0.0, "qecc"): 0.4}), "qecc")[0] == 0.0
    only_b = _noise(good).assign(**{"algorithm.batch_size": 25})
    assert math.isnan(cl.baselines_well_only_at_zero(only_b, "qecc")[0])


def test_every_new_reading_is_a_reference_rows_check():
    ref = load_reference("aronsson2024")
    for quantity, text in cl.CHECKS.items():
        rows = ref[ref["quantity"] == quantity]
        assert len(rows) and (rows["check"] == text).all(), quantity


def _two_runs(max_queries=0.5, n_edges=200):
    """Two runs of one setting with a budget of 100 queries: one stops at 40 (ARI 1), one runs to 100."""
    from ccexp.report._aronsson2024_curves import padded_curves  # noqa: F401  (imported by the tests)

    rows = [("a", 0, 0.0), ("a", 20, 0.5), ("a", 40, 1.0),
            ("b", 0, 0.0), ("b", 20, 0.25), ("b", 40, 0.5), ("b", 100, 0.5)]
    t = pd.DataFrame(rows, columns=["case_id", "n_queries", "ari"])
    return t.assign(algorithm="acc_maxexp", **{"algorithm.max_queries": max_queries, "problem.n_edges": n_edges})


def test_a_run_that_stopped_early_is_held_to_its_budget_in_the_curve_and_its_area():
    """Issue 28 (the AUC cut): by hand, run a is 0 -> 0.5 -> 1 over [0, 40] and 1 up to the budget 100:
    trapezoids 5 + 15 + 60 = 80 over 100 = 0.8 (b runs to 100, so the setting's grid reaches it anyway);
    a alone, cut where it stopped, gives 20 / 40 = 0.5 (the behaviour before the fix)."""
    from ccexp.report._aronsson2024_curves import area_under_curve, padded_curves

    t = _two_runs()
    auc = area_under_curve(padded_curves(t, ["algorithm"], "ari"), ["algorithm"]).set_index("case_id")["auc"]
    assert auc["a"] == pytest.approx(0.8)
    # b by hand: 2.5 + 7.5 + 30 over 100
    assert auc["b"] == pytest.approx(0.4)
    alone = t[t.case_id == "a"]
    curve = padded_curves(alone, ["algorithm"], "ari")
    assert curve["n_queries"].max() == 100 and curve.loc[curve.n_queries == 100, "ari"].item() == 1.0
    assert area_under_curve(curve, ["algorithm"])["auc"].item() == pytest.approx(0.8)
    # without the budget's columns the curve ends where the run stopped (the behaviour before the fix)
    cut = padded_curves(alone.drop(columns=["problem.n_edges"]), ["algorithm"], "ari")
    assert area_under_curve(cut, ["algorithm"])["auc"].item() == pytest.approx(0.5)


def test_the_budget_reads_a_count_above_one_and_a_fraction_up_to_one():
    from ccexp.report._aronsson2024_curves import padded_curves, query_budget

    assert query_budget(0.5, 201) == 100 and query_budget(300, 10_000) == 300 and query_budget(1.0, 7) == 7
    assert np.isnan(query_budget(np.nan, 10)) and np.isnan(query_budget(0.5, np.nan))
    t = _two_runs(max_queries=150)
    assert padded_curves(t, ["algorithm"], "ari")["n_queries"].max() == 150


def test_every_comparison_of_one_sentence_reads_it_with_one_tolerance():
    """Issue 28 item 4: acc_kmeans_init read 'The overall conclusion is very similar ..., i.e., maxexp and then
    maxmin yield the best results with a remarkable margin' with tolerance 0.25 for one comparison and 0 for
    another. The auc_order rows of one sentence (same experiment, variant and source) share one tolerance."""
    ref = load_reference("aronsson2024")
    rows = ref[ref["quantity"] == "auc_order"]
    for (exp, variant, source), g in rows.groupby(["experiment", rows["variant"].fillna(""), "source"]):
        assert g["tolerance"].nunique(dropna=False) == 1, (exp, variant, source, sorted(g["tolerance"]))
    overall = rows[(rows["experiment"] == "acc_kmeans_init") & rows["source"].str.contains("overall conclusion")]
    assert len(overall) >= 3 and (overall["tolerance"] == 0.25).all()
