"""Reproduction at scale=ci: the claims of Ukkonen (2017, Section V-A) that a small run can check.

Thresholds come from the paper's statements and reference.csv tolerances;
claims we do not reproduce at paper scale are reported in
experiments/ukkonen2017/README.md, not asserted here.
"""

import math

import pandas as pd
import pytest

from ccexp.report.common import load_reference

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def records(exp1_ci_run):
    out, _ = exp1_ci_run
    df = pd.read_parquet(out / "exp1_triplets" / "ci" / "records.parquet")
    return df[df["status"] == "ok"]


def test_ls_ad_vc_finds_exactly_k_at_a1(records):
    # Table I: Ls-AD-VC returns k clusters at a = 1 for every k and b
    a1 = records[(records.algorithm == "ls_ad_vc") & (records["oracle.fraction"] == 1.0)]
    assert len(a1)
    assert (a1["n_clusters"] == a1["dataset.k"]).all()


def test_table1_a1_cells_meet_their_pins(records):
    # includes Ls-EQ-VC's under-segmentation at a = 1 (3 to 6 clusters): judged by the page's tolerance rule
    # (one decimal, 2 SE of the difference with the paper's runs and the row's rule, capped at the nearest other
    # algorithm) and held to each gated row's pin
    from ccexp.report.common import judge
    from ccexp.report.reproduction import pin_holds

    ref = load_reference("ukkonen2017")
    cells = ref[(ref.quantity == "n_clusters_mean") & ref.algorithm.isin(["ls_ad_vc", "ls_eq_vc"]) & (ref.a == 1.0)]
    g = records.groupby(["algorithm", "dataset.k", "oracle.fraction", "oracle.noise"])["n_clusters"]
    means, sems, counts = g.mean(), g.sem().fillna(0.0), g.size()
    checked = 0
    for r in cells.itertuples():
        key = (r.algorithm, int(r.k), 1.0, float(r.b))
        if key in means.index and r.ci == "yes":
            _, st = judge(r.kind, r.value, means[key], decimals=r.decimals, sem=sems[key], cap=r.cap,
                          n=int(counts[key]), paper_n=r.paper_n, rule=r.rule if isinstance(r.rule, str) else "")
            assert pin_holds(st, r.expect), (key, st, r.expect)
            checked += 1
    assert checked >= 8  # the ci grid holds k in {4, 8} x b in {0, 0.2}, two algorithms


def test_k4_recovered_almost_perfectly_for_a_at_least_005_with_noise(records):
    # "With k = 4 ... Ls-AD-VC ... can recover f* (almost) perfectly when a >= 0.05" (b = 0.2)
    sel = records[(records.algorithm == "ls_ad_vc") & (records["dataset.k"] == 4)
                  & (records["oracle.noise"] == 0.2) & (records["oracle.fraction"] >= 0.05)]
    assert len(sel)
    assert sel.groupby("oracle.fraction")["ari"].mean().min() >= 0.95


# Section V-A: Ls-AD-VC has at least the ARI of CrowdClust in 894 of the 924 test cases (97%), of t-STE in
# 751 (81%), of Ls-AD in 813 (88%), and "outperforms" Ls-EQ-VC in 871 (94%).
PAPER_CASES = 924
PAPER_WINS = {"crowdclust_dpmm": 894, "tste_dpmm": 751, "ls_ad": 813, "ls_eq_vc": 871}


def _test_cases(records) -> int:
    """The paper's way of counting test cases: distinct instances, the trials of a = 1, b = 0 once per k
    (Table I's single a = 1, b = 0 case, run as 10 trials at paper scale and 2 at ci)."""
    inst = records.drop_duplicates("instance_id")
    full = (inst["oracle.fraction"] == 1.0) & (inst["oracle.noise"] == 0.0)
    return int((~full).sum() + inst.loc[full, "dataset.k"].nunique())


@pytest.mark.parametrize("other", sorted(PAPER_WINS))
def test_win_share_against_the_papers_count(records, other):
    """Compared as shares of the paired instances (the ci grid has 30 of the paper's 924).

    The tolerance rule of reference.csv (experiments/ukkonen2017/README.md): half a count of 924, in
    percent, plus 2 binomial standard errors of our share.  Against Ls-AD our share is 30/30: above the
    paper's 88% by more than that (a share of 1 has no binomial spread), so the paper's claim, a large
    majority, holds while its number does not; reference.csv pins that row ``differs`` (at paper scale it is
    846/924 = 91.6%, within tolerance).
    """
    from ccexp.report.ukkonen2017 import win_counts

    w = win_counts(records).set_index("versus").loc[other]
    assert w["paired"] == _test_cases(records)  # every instance has both algorithms
    paper = 100.0 * PAPER_WINS[other] / PAPER_CASES
    ours = 100.0 * w["wins"] / w["paired"]
    sem = 100.0 * math.sqrt(ours / 100 * (1 - ours / 100) / w["paired"])
    tolerance = 100.0 * 0.5 / PAPER_CASES + 2 * sem
    if other == "ls_ad":
        assert ours > paper + tolerance, (ours, paper, tolerance)  # more wins than the paper, never fewer
    else:
        assert abs(ours - paper) <= tolerance, (ours, paper, tolerance)


def test_comparison_judges_every_reference_row(exp1_ci_run, records):
    """comparison.csv has each reference row once, with the paper's value, our value from the records, and a
    status that meets the row's pin where it is ci-gated."""
    from ccexp.report.common import NOT_RUN, STATUSES, VERDICTS, is_missing
    from ccexp.report.reproduction import pin_holds

    out, _ = exp1_ci_run
    cmp = pd.read_csv(out / "exp1_triplets" / "ci" / "comparison.csv", keep_default_na=False, na_values=[""])
    ref = load_reference("ukkonen2017", "exp1_triplets")
    assert cmp["ref_id"].is_unique
    assert set(cmp["ref_id"]) == set(ref["ref_id"])
    cmp = cmp.set_index("ref_id")
    counts = {"n_clusters_mean": 0, "win_count": 0, "claim": 0}
    for r in ref.itertuples():
        c = cmp.loc[r.ref_id]
        assert c["status"] in STATUSES and c["verdict"] in VERDICTS, r.ref_id
        assert (c["status"] == NOT_RUN) == (c["verdict"] == NOT_RUN) == is_missing(c["ours"]), r.ref_id
        if r.ci == "yes":
            assert pin_holds(c["status"], r.expect), (r.ref_id, c["status"], r.expect)
        if r.quantity == "n_clusters_mean":
            # Table I: the mean number of clusters over the trials of one (algorithm, k, a, b) cell
            assert c["quantity"] == r.quantity and c["paper"] == pytest.approx(r.value), r.ref_id
            cell = records[(records.algorithm == r.algorithm) & (records["dataset.k"] == r.k)
                           & (records["oracle.fraction"] == r.a) & (records["oracle.noise"] == r.b)]
            if len(cell):
                assert c["ours"] == pytest.approx(cell["n_clusters"].mean()), r.ref_id
                assert c["n_trials"] == len(cell), r.ref_id
            else:
                assert c["status"] == NOT_RUN, r.ref_id  # a cell of the paper's grid only
            counts["n_clusters_mean"] += 1
        elif r.quantity == "win_count":
            # compared in percent of the paired instances (see test_win_share_against_the_papers_count)
            assert c["quantity"] == "win_count (%)", r.ref_id
            assert c["paper"] == pytest.approx(100.0 * r.value / PAPER_CASES), r.ref_id
            assert r.versus in PAPER_WINS and r.value == PAPER_WINS[r.versus]
            counts["win_count"] += 1
        elif r.quantity == "n_cases":
            assert c["paper"] == PAPER_CASES and c["ours"] == _test_cases(records)
        else:
            # a claim of Section V-A: ours is 1 (holds) or 0 (does not) on the records
            assert r.kind == "claim" and c["quantity"] == r.quantity and c["paper"] == r.value == 1, r.ref_id
            assert c["ours"] in (0.0, 1.0), r.ref_id
            counts["claim"] += 1
    # Table I; Section V-A: 14 claims, plus the 3 Section V results given rows in issue 13 (the README lists all 23)
    assert counts == {"n_clusters_mean": 192, "win_count": 4, "claim": 17}
