"""Algorithm 1 as published (triplet_approx_lp) and the region-growing rounding."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ccexp
from _brute import all_partitions
from ccexp.algorithms.triplets import TripletApproxLP, triplet_cc_instance, triplet_vertex_cover
from ccexp.objectives.kernels import triplet_cost
from ccexp.cc import cc_cost
from ccexp.cc.exact import PairObjective, cc_lp
from ccexp.cc.region_growing import region_growing

FAST = settings(max_examples=25, deadline=None)


def _dense(lp_x, n):
    x = np.zeros((n, n))
    iu, iv = np.triu_indices(n, 1)
    x[iu, iv] = lp_x
    x[iv, iu] = lp_x
    return x


def test_integral_metric_rounds_to_its_partition():
    y = np.array([0, 0, 1, 1, 1, 2])
    x = (y[:, None] != y[None, :]).astype(float)
    W = np.where(x == 0, 1.0, -1.0)
    labels, info = region_growing(x, W)
    assert (labels[:, None] == labels[None, :]).tolist() == (y[:, None] == y[None, :]).tolist()
    assert info["radii"].tolist() == [0.0, 0.0, 0.0]


def test_rule_by_hand_single_positive_edge():
    # one + edge of weight 1 with LP distance 0.25 (not an LP optimum, a hand case):
    # F = 0.25, n = 2, I = 0.125, bound = 2 ln 3 = 2.197.
    # ball {0} at r = 0: cut 1 > 2.197 * (0.125 + 0) = 0.27 -> grow to r = 0.25,
    # ball {0, 1}: cut 0 <= ... -> one cluster.
    x = np.array([[0.0, 0.25], [0.25, 0.0]])
    W = np.array([[0.0, 1.0], [1.0, 0.0]])
    labels, info = region_growing(x, W)
    assert labels.tolist() == [0, 0]
    assert info["radii"].tolist() == [0.25]
    # a larger c accepts the singleton ball: 1 <= c ln 3 * 0.125 needs c >= 7.29
    labels, _ = region_growing(x, W, c=8.0)
    assert labels.tolist() == [0, 1]


def test_integral_lp_with_a_cut_positive_edge_keeps_its_clusters():
    # clusters {0,1,2} {3,4,5}; + inside, - across, one + edge (2,3) across:
    # the LP optimum is integral (x = 0 inside, 1 across), F = 1, I = 1/6,
    # ball of 0 at r = 0: cut 1 > 2 ln 7 * 1/6 = 0.65, but vol grows as
    # 1/6 + r, so the rule holds from r = 1/(2 ln 7) - 1/6 = 0.09 < 1/2,
    # before node 3 enters at distance 1.
    y = np.array([0, 0, 0, 1, 1, 1])
    x = (y[:, None] != y[None, :]).astype(float)
    W = np.where(x == 0, 1.0, -1.0)
    W[2, 3] = W[3, 2] = 1.0
    np.fill_diagonal(W, 0)
    labels, info = region_growing(x, W)
    assert labels.tolist() == [0, 0, 0, 1, 1, 1]
    assert info["radii"][0] == pytest.approx(1 / (2 * math.log(7)) - 1 / 6)
    assert info["n_over_half"] == 0


@given(st.integers(3, 7), st.integers(0, 10_000))
@FAST
def test_rounding_of_lp_optimum_guarantee(n, seed):
    rng = np.random.default_rng(seed)
    W = rng.choice([-2.0, -1.0, 0.0, 1.0, 2.0], size=(n, n))
    W = np.triu(W, 1) + np.triu(W, 1).T
    obj = PairObjective.from_weights(W)
    lp = cc_lp(obj)
    labels, info = region_growing(_dense(np.clip(lp.x, 0, 1), n), W)
    cost = obj.cost(labels)
    opt = min(obj.cost(p) for p in all_partitions(n))
    assert lp.value <= opt + 1e-7 <= cost + 1e-7
    # Demaine et al.: cut edges cost <= 2c ln(n+1) F, negative edges inside a
    # ball of radius r < 1/2 are paid by their LP term w (1 - x) >= w (1 - 2r)
    if info["n_over_half"] == 0 and info["radii"].size:
        rmax = info["radii"].max()
        iu, iv = np.triu_indices(n, 1)
        x = lp.x
        F = float((np.maximum(W[iu, iv], 0) * x).sum())
        neg_lp = float((np.maximum(-W[iu, iv], 0) * (1 - x)).sum())
        assert cost <= 2 * 2 * math.log(n + 1) * F + neg_lp / (1 - 2 * rmax) + 1e-7


def test_estimator_pipeline_matches_its_parts():
    ds = ccexp.load_dataset("synthetic_labels", n=24, k=3, random_state=0)
    prob = ccexp.make_problem("triplets", ds, fraction=0.3, noise=0.1, random_state=0)
    est = ccexp.make_algorithm("triplet_approx_lp").fit_problem(prob)
    T = prob.triplets
    covered, _ = triplet_vertex_cover(T, prob.n_items)
    g = triplet_cc_instance(T[~covered], prob.n_items)
    assert est.objective_ == triplet_cost(T, est.labels_)
    assert est.cc_cost_ == cc_cost(est.labels_, g)
    assert est.n_removed_ == int(covered.sum())
    assert est.lp_optimal_ and est.lp_bound_ <= est.cc_cost_ + 1e-7
    assert est.record_["lp_bound"] == est.lp_bound_


def test_noiseless_triplets_recover_the_clusters():
    ds = ccexp.load_dataset("synthetic_labels", n=30, k=3, random_state=1)
    prob = ccexp.make_problem("triplets", ds, fraction=0.5, noise=0.0, ambiguous="drop", random_state=1)
    est = TripletApproxLP().fit_problem(prob)
    assert ccexp.score(est.labels_, ds.y)["ari"] == 1.0


def test_items_outside_T_prime_are_singletons():
    T = np.array([[0, 1, 2], [0, 1, 3]])
    est = TripletApproxLP().fit(T, n_items=6)
    assert est.labels_[0] == est.labels_[1]
    assert len(set(est.labels_[[2, 3, 4, 5]].tolist())) == 4


@pytest.mark.parametrize("kwargs, match", [({"lp_time_limit": 0}, "lp_time_limit"), ({"c": -1}, "c")])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        TripletApproxLP(**kwargs).fit(np.array([[0, 1, 2]]))


@given(st.integers(3, 8), st.integers(0, 10_000))
@FAST
def test_edge_metric_is_an_optimal_lp_solution(n, seed):
    from ccexp.cc.exact import violated_triangles
    from ccexp.cc.region_growing import edge_metric

    rng = np.random.default_rng(seed)
    W = rng.choice([-2.0, -1.0, 0.0, 0.0, 1.0, 2.0], size=(n, n))
    W = np.triu(W, 1) + np.triu(W, 1).T
    obj = PairObjective.from_weights(W)
    lp = cc_lp(obj)
    D = edge_metric(_dense(np.clip(lp.x, 0, 1), n), W)
    iu, iv = np.triu_indices(n, 1)
    d = D[iu, iv]
    value = float((obj.apart * d + obj.together * (1 - d)).sum())
    assert value == pytest.approx(lp.value, abs=1e-6)
    assert violated_triangles(d, n, tol=1e-9).shape[0] == 0
    # no evidence path at all: distance 1
    from ccexp.cc import connected_components
    comp = connected_components(n, iu[W[iu, iv] != 0], iv[W[iu, iv] != 0])
    assert np.all(d[comp[iu] != comp[iv]] == 1.0)
