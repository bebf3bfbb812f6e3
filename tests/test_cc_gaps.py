"""pair_objective per supervision kind, the cc_exact / cc_pivot / cc_maxcor_ls estimators, the cc_gaps report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ccexp
from _brute import all_partitions
from ccexp.algorithms.exact import pair_objective, signed_weights
from ccexp.problem import Problem
from ccexp.report.cc_gaps import gap_rows, gap_table, report_cc_gaps
from ccexp.report.output import write_report

KINDS = [
    ("synthetic_labels", dict(n=8, k=2), "triplets", dict(fraction=0.3, noise=0.2)),
    ("agg_blobs_noise", dict(k=2, n_per_cluster=4, noise=0.0), "clusterings_kmeans", dict(k_min=2, k_max=4)),
    ("synthetic_blobs", dict(n=8, k=2, d=2), "pairwise", dict(n_constraints=12, invalid_fraction=0.25)),
    ("synthetic_blobs", dict(n=8, k=2, d=2), "pairwise_similarity", dict(gamma=0.4)),
]


def _problem(ds_name, dp, orc, op, seed=0):
    ds = ccexp.load_dataset(ds_name, random_state=seed, **dp)
    return ds, ccexp.make_problem(orc, ds, random_state=seed, **op)


@pytest.mark.parametrize("ds_name, dp, orc, op", KINDS)
def test_pair_objective_is_the_scored_objective(ds_name, dp, orc, op):
    ds, prob = _problem(ds_name, dp, orc, op)
    obj = pair_objective(prob)
    rng = np.random.default_rng(0)
    for _ in range(5):
        lab = rng.integers(0, 3, size=prob.n_items)
        scored = ccexp.score(lab, ds.y, problem=prob).get("objective")
        if scored is not None:  # the similarity oracle has no registered objective
            assert obj.cost(lab) == pytest.approx(scored)


@pytest.mark.parametrize("ds_name, dp, orc, op", KINDS)
def test_cc_exact_is_the_brute_force_optimum_and_beats_heuristics(ds_name, dp, orc, op):
    _, prob = _problem(ds_name, dp, orc, op)
    obj = pair_objective(prob)
    best = min(obj.cost(p) for p in all_partitions(prob.n_items))
    est = ccexp.make_algorithm("cc_exact", time_limit=30).fit_problem(prob)
    assert est.record_["exact_optimal"]
    assert est.pair_objective_ == pytest.approx(best)
    assert est.record_["lp_bound"] <= best + 1e-7
    for name in ("cc_pivot", "cc_maxcor_ls"):
        h = ccexp.make_algorithm(name, random_state=0).fit_problem(prob)
        assert h.pair_objective_ >= best - 1e-9


def test_similarity_objective_is_the_same_fixed_sigma_for_every_estimator():
    _, prob = _problem("synthetic_blobs", dict(n=10, k=2, d=2), "pairwise_similarity", dict(gamma=0.5))
    a = pair_objective(prob)
    b = pair_objective(prob)
    assert np.array_equal(a.apart, b.apart) and np.array_equal(a.together, b.together)


def test_signed_weights_of_triplets_are_definition2_votes():
    prob = Problem(n_items=4, triplets=np.array([[0, 1, 2], [0, 1, 3], [2, 3, 0]]))
    W = signed_weights(prob)
    # (0,1,2): +01 -02 -12; (0,1,3): +01 -03 -13; (2,3,0): +23 -02 -03
    assert (W[0, 1], W[0, 2], W[1, 2], W[0, 3], W[1, 3], W[2, 3]) == (2, -2, -1, -2, -1, 1)
    assert np.array_equal(W, W.T)


def test_pair_objective_refuses_features_only():
    with pytest.raises(ValueError, match="objective"):
        pair_objective(Problem(n_items=3, X=np.zeros((3, 2))))


def _records():
    rows = []
    for inst, (opt, lb) in enumerate([(10.0, 9.0), (4.0, 4.0)]):
        rows.append(dict(instance_id=inst, oracle="triplets", algorithm="cc_exact", pair_objective=opt,
                         exact_optimal=True, lp_bound=lb, fit_seconds=1.0, status="ok"))
        rows.append(dict(instance_id=inst, oracle="triplets", algorithm="ls_ad", objective=opt * 1.5,
                         fit_seconds=0.1, status="ok"))
        rows.append(dict(instance_id=inst, oracle="triplets", algorithm="cc_pivot", pair_objective=opt,
                         fit_seconds=0.1, status="ok"))
    return pd.DataFrame(rows)


def test_gap_table_by_hand(tmp_path):
    df = gap_rows(_records())
    t = gap_table(df).set_index("algorithm")
    assert t.loc["Ls-AD", "excess_mean_pct"] == pytest.approx(50.0)
    assert t.loc["Ls-AD", "at_optimum_pct"] == 0.0
    assert t.loc["pivot (KwikCluster)", "at_optimum_pct"] == 100.0
    # LP gap: (10 - 9) / 10 and 0 -> mean 5 %
    assert t.loc["Ls-AD", "lp_gap_mean_pct"] == pytest.approx(5.0)
    write_report(report_cc_gaps(_records(), tmp_path, "ci"), tmp_path)
    assert (tmp_path / "figures" / "gaps.png").is_file()
    assert "Ls-AD" in (tmp_path / "tables" / "gaps.md").read_text()


def test_the_report_does_without_the_exact_solver(tmp_path):
    """docs/extending.md's ``experiment.algorithms=[cc_pivot,vote_linkage]`` ran 140 cases, then the report died
    with ``KeyError: "['exact_optimal', 'lp_bound'] not in index"`` (issue 33, item 11)."""
    records = _records()
    records = records[records["algorithm"] != "cc_exact"].reset_index(drop=True)
    t = gap_table(gap_rows(records)).set_index("algorithm")
    assert t.loc["Ls-AD", "instances"] == 2 and t.loc["Ls-AD", "proven"] == 0
    assert np.isnan(t.loc["Ls-AD", "excess_mean_pct"])
    write_report(report_cc_gaps(records, tmp_path, "ci"), tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "cc_exact is not among the algorithms run" in text and "optimum proven on 0" in text
    assert not (tmp_path / "figures" / "gaps.png").exists()
