"""The rule ``whole_runs`` (:func:`ccexp.report.tolerance.least_sd_of_whole_runs` and :func:`judge`).

A paper mean of ``paper_n`` whole-number runs (a number of clusters) that is
not itself whole shows that those runs differed; the SD that stands in for
the paper's is then at least the least SD such runs can have.  Checked against
brute force over every multiset of small whole numbers, by hand on Table I's
cells, and as properties: the rule never narrows a tolerance, never changes a
row whose paper mean is whole, and leaves a row unchanged where our SD is
already above the bound.  The Ukkonen ablations' judge is the page's.
"""

from __future__ import annotations

import itertools
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccexp.report.reference_check import ReferenceFileError, check_reference
from ccexp.report.tolerance import DIFFERS, INDISTINGUISHABLE, WITHIN, judge, least_sd_of_whole_runs

ROOT = Path(__file__).resolve().parents[1]
RULE = "whole_runs: a run's number of clusters is a whole number"


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("decimals", [1, 2])
def test_the_least_sd_is_brute_forces_minimum(n, decimals):
    # every multiset of n runs with values 0..6: for each printed mean, the least sample SD among the runs that
    # print as it equals the function's
    least: dict[float, float] = {}
    for runs in itertools.combinations_with_replacement(range(7), n):
        printed = round(float(np.mean(runs)), decimals)
        sd = float(np.std(runs, ddof=1))
        least[printed] = min(least.get(printed, math.inf), sd)
    for printed, sd in least.items():
        assert least_sd_of_whole_runs(printed, decimals, n) == pytest.approx(sd, abs=1e-12), (printed, n)


def test_table_i_cells_by_hand():
    # 7.9 of ten runs: nine 8s and a 7; 7.7: seven 8s and three 7s; 1.8: eight 2s and two 1s
    assert least_sd_of_whole_runs(7.9, 1, 10) == pytest.approx(math.sqrt(10 * 0.9 * 0.1 / 9))
    assert least_sd_of_whole_runs(7.7, 1, 10) == pytest.approx(math.sqrt(10 * 0.7 * 0.3 / 9))
    assert least_sd_of_whole_runs(1.8, 1, 10) == pytest.approx(math.sqrt(10 * 0.8 * 0.2 / 9))
    assert least_sd_of_whole_runs(16, 1, 10) == 0.0 and least_sd_of_whole_runs(4, 1, 1) == 0.0
    # Ls-AD-VC, k = 8, a = 0.1, b = 0.1: ours 8 in all 10 trials against 7.9 -> SE 0.316/sqrt(10) = 0.1
    tol, status = judge("approx", 7.9, 8.0, decimals=1, sem=0.0, n=10, paper_n=10, rule=RULE)
    assert (round(tol, 6), status) == (0.25, WITHIN)
    assert judge("approx", 7.9, 8.0, decimals=1, sem=0.0, n=10, paper_n=10)[1] == DIFFERS
    # CrowdClust, k = 2, a = 0.1, b = 0: 2.0 in every trial against 3.5 still differs (least SD 0.527)
    tol, status = judge("approx", 3.5, 2.0, decimals=1, sem=0.0, n=10, paper_n=10, rule=RULE)
    assert status == DIFFERS and tol == pytest.approx(0.05 + 2 * math.sqrt(10 * 0.25 / 9) / math.sqrt(10))
    # a competitor 0.2 away: 2 SE = 0.2 reaches it, so indistinguishable rather than within
    assert judge("approx", 2.1, 2.0, decimals=1, sem=0.0, cap=0.2, n=10, paper_n=10, rule=RULE)[1] == INDISTINGUISHABLE


def test_impossible_means_and_bad_runs_are_refused():
    with pytest.raises(ValueError, match="no mean of 1 whole numbers prints as it"):
        least_sd_of_whole_runs(7.9, 1, 1)
    with pytest.raises(ValueError, match="paper_n must be a whole number of runs >= 1"):
        least_sd_of_whole_runs(7.9, 1, 0)
    with pytest.raises(ValueError, match="paper_n must be a whole number of runs >= 1"):
        least_sd_of_whole_runs(7.9, 1, 2.5)
    with pytest.raises(ValueError, match="n .our number of trials. is needed"):
        judge("approx", 7.9, 8.0, decimals=1, sem=0.1, paper_n=10, rule=RULE)


@settings(max_examples=300, deadline=None)
@given(paper_tenths=st.integers(5, 200), ours=st.floats(0.5, 20), sd=st.floats(0, 3), n=st.integers(1, 20),
       paper_n=st.integers(1, 20), cap=st.one_of(st.none(), st.floats(0.01, 5)))
def test_the_rule_never_narrows_and_is_inert_where_it_proves_nothing(paper_tenths, ours, sd, n, paper_n, cap):
    paper = paper_tenths / 10
    try:
        least = least_sd_of_whole_runs(paper, 1, paper_n)
    except ValueError:
        return  # no paper_n whole numbers print as this mean: a reference row the checker refuses
    sem = sd / math.sqrt(n) if n > 1 else 0.0
    plain = judge("approx", paper, ours, decimals=1, sem=sem, cap=cap, n=n, paper_n=paper_n)
    whole = judge("approx", paper, ours, decimals=1, sem=sem, cap=cap, n=n, paper_n=paper_n, rule=RULE)
    assert whole[0] >= plain[0] - 1e-12
    order = {DIFFERS: 0, WITHIN: 1, "reproduced": 1, INDISTINGUISHABLE: 2}
    assert order[whole[1]] >= order[plain[1]]
    if least == 0.0 or (n > 1 and sd >= least):
        assert whole == plain


def test_reference_check_refuses_a_whole_runs_row_that_cannot_be(tmp_path):
    head = "experiment,quantity,algorithm,k,value,decimals,kind,source,rule,paper_n\n"
    good = tmp_path / "good.csv"
    good.write_text(head + f"exp1_triplets,n_clusters_mean,ls_ad_vc,8,7.9,1,approx,Table I,\"{RULE}\",10\n")
    check_reference(good)
    bad = tmp_path / "bad.csv"
    bad.write_text(head + f"exp1_triplets,n_clusters_mean,ls_ad_vc,8,7.9,1,approx,Table I,\"{RULE}\",1\n")
    with pytest.raises(ReferenceFileError, match="rule whole_runs: mean=7.9: no mean of 1 whole numbers"):
        check_reference(bad)
    missing = tmp_path / "missing.csv"
    missing.write_text(head + f"exp1_triplets,n_clusters_mean,ls_ad_vc,8,7.9,1,approx,Table I,\"{RULE}\",\n")
    with pytest.raises(ReferenceFileError, match="a whole_runs rule needs paper_n"):
        check_reference(missing)


def test_every_table_i_row_carries_the_rule():
    ref = pd.read_csv(ROOT / "experiments" / "ukkonen2017" / "reference.csv")
    table = ref[(ref["experiment"] == "exp1_triplets") & (ref["quantity"] == "n_clusters_mean")]
    assert len(table) == 192 and (table["rule"].str.split(":").str[0] == "whole_runs").all()


def test_the_ablation_judge_gives_the_committed_reports_statuses():
    # the Ukkonen ablations judge their cells with the page's judge: on the committed report's own means and
    # SEs, it must give every Table I row the status the report gives it
    sys.path.insert(0, str(ROOT / "experiments" / "ukkonen2017"))
    from ablation_baselines import judge_cell, paper_table

    ref = paper_table("any")
    cmp_ = pd.read_csv(ROOT / "results" / "exp1_triplets" / "paper" / "comparison.csv")
    cmp_ = cmp_[cmp_["quantity"] == "n_clusters_mean"]
    word = {"within tolerance": "within"}
    for r in cmp_.itertuples():
        others = ref[(ref["k"] == r.k) & np.isclose(ref["a"], r.a) & np.isclose(ref["b"], r.b)
                     & (ref["algorithm"] != r.algorithm)]["value"].astype(float).tolist()
        paper_n = 1 if (r.a == 1.0 and r.b == 0.0) else 10
        sd = r.ours_sem * math.sqrt(r.n_trials)
        assert judge_cell(r.paper, others, r.ours, sd, int(r.n_trials), paper_n) == word.get(r.status, r.status), r.ref_id
