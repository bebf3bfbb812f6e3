"""Clustering aggregation (Gionis, Mannila and Tsaparas 2007): weights, cost, algorithms."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ccexp
from _brute import all_partitions
from ccexp.algorithms.aggregation import (
    Agglomerative,
    Balls,
    BestClustering,
    Furthest,
    LocalSearch,
    Sampling,
)
from ccexp.algorithms.aggregation.estimator import FIGURE1
from ccexp.cc.labels import relabel_contiguous
from ccexp.metrics import classification_error
from ccexp.objectives.clusterings import dense_weights, disagreement, encode, lower_bound, total_weights

ALL = [BestClustering, Balls, Agglomerative, Furthest, LocalSearch, Sampling]


# ------------------------------------------------------------- references
def x_reference(C, p=0.5):
    """Plain-Python X_uv: fraction of clusterings separating u, v; a missing value is a p-coin."""
    m, n = C.shape
    X = np.zeros((n, n))
    for u in range(n):
        for v in range(n):
            if u == v:
                continue
            s = 0.0
            for j in range(m):
                a, b = C[j, u], C[j, v]
                s += (1 - p) if (a < 0 or b < 0) else float(a != b)
            X[u, v] = s / m
    return X


def cost_reference(labels, X):
    n = len(labels)
    return sum(X[u, v] if labels[u] == labels[v] else 1 - X[u, v] for u in range(n) for v in range(u + 1, n))


def random_clusterings(rng, m, n, k, missing=0.0):
    C = rng.integers(0, k, size=(m, n))
    C[rng.random((m, n)) < missing] = -1
    return C


def brute_optimum(C, p=0.5):
    X = x_reference(C, p)
    return min(cost_reference(lab, X) for lab in all_partitions(C.shape[1]))


clusterings_st = st.integers(0, 2**32 - 1).map(
    lambda s: random_clusterings(np.random.default_rng(s), m=int(1 + s % 5), n=int(2 + s % 7), k=3, missing=0.2)
)


# ------------------------------------------------------- worked example
def test_figure1_weights_match_figure2():
    # Figure 2: solid 1/3, dashed 2/3, dotted 1
    X = dense_weights(FIGURE1)
    assert X[0, 2] == pytest.approx(1 / 3) and X[1, 3] == pytest.approx(1 / 3) and X[4, 5] == pytest.approx(1 / 3)
    assert X[0, 1] == pytest.approx(2 / 3) and X[2, 3] == pytest.approx(2 / 3)
    assert X[0, 4] == 1.0 and X[1, 5] == 1.0


def test_figure1_optimum_is_five_disagreements():
    best = brute_optimum(FIGURE1)
    assert 3 * best == pytest.approx(5.0)
    assert 3 * disagreement([0, 1, 0, 1, 2, 2], FIGURE1) == 5.0


@pytest.mark.parametrize("cls", ALL + [lambda: LocalSearch(init="random", random_state=1)])
def test_figure1_found_by_every_algorithm(cls):
    labels = cls().fit(FIGURE1).labels_
    assert labels.tolist() == [0, 1, 0, 1, 2, 2]  # {v1, v3}, {v2, v4}, {v5, v6}
    assert 3 * disagreement(labels, FIGURE1) == 5.0


def test_figure1_balls_quarter_keeps_singletons():
    # alpha = 1/4 "creates many singleton clusters" (Section 4): every ball here
    # has mean distance 1/3 > 1/4, so no vertex gathers one
    assert Balls(alpha=0.25).fit(FIGURE1).labels_.tolist() == [0, 1, 2, 3, 4, 5]


# ------------------------------------------------------------ weights
@settings(max_examples=60, deadline=None)
@given(clusterings_st)
def test_weights_match_reference(C):
    np.testing.assert_allclose(dense_weights(C), x_reference(C), atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(clusterings_st)
def test_weights_triangle_inequality(C):
    X = dense_weights(C)
    n = X.shape[0]
    for u, v, w in itertools.product(range(n), repeat=3):
        assert X[u, w] <= X[u, v] + X[v, w] + 1e-12


@settings(max_examples=60, deadline=None)
@given(clusterings_st, st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.3, 0.5, 1.0]))
def test_cost_and_lower_bound_match_reference(C, seed, p):
    n = C.shape[1]
    labels = np.random.default_rng(seed).integers(0, 3, size=n)
    X = x_reference(C, p)
    assert disagreement(labels, C, p) == pytest.approx(cost_reference(labels, X), abs=1e-9)
    lb = sum(min(X[u, v], 1 - X[u, v]) for u in range(n) for v in range(u + 1, n))
    assert lower_bound(C, p) == pytest.approx(lb, abs=1e-9)


def test_total_weights_match_dense():
    C = random_clusterings(np.random.default_rng(3), 6, 30, 4, missing=0.1)
    np.testing.assert_allclose(total_weights(encode(C)), dense_weights(C).sum(axis=1), atol=1e-12)


def test_cost_is_m_times_fewer_than_disagreements_of_problem1():
    # D(C) = sum_i d_V(C_i, C) = m d(C)  (Section 3) without missing values
    rng = np.random.default_rng(4)
    C = random_clusterings(rng, 4, 9, 3)
    lab = rng.integers(0, 3, 9)
    pairs = list(itertools.combinations(range(9), 2))
    D = sum((C[i, u] == C[i, v]) != (lab[u] == lab[v]) for i in range(4) for u, v in pairs)
    assert 4 * disagreement(lab, C) == pytest.approx(D)


def test_cost_invariant_under_relabelling():
    rng = np.random.default_rng(5)
    C = random_clusterings(rng, 5, 40, 4, missing=0.1)
    lab = rng.integers(0, 5, 40)
    assert disagreement(lab, C) == pytest.approx(disagreement(100 - 7 * lab, C))


# --------------------------------------------------- algorithms vs brute force
@pytest.mark.parametrize("seed", range(12))
def test_lower_bound_below_every_algorithm_and_optimum(seed):
    rng = np.random.default_rng(seed)
    C = random_clusterings(rng, int(rng.integers(2, 6)), 7, 3, missing=0.15)
    opt = brute_optimum(C)
    lb = lower_bound(C)
    assert lb <= opt + 1e-9
    for cls in ALL:
        cost = disagreement(cls().fit(C).labels_, C)
        assert lb <= cost + 1e-9 and opt <= cost + 1e-9


@pytest.mark.parametrize("seed", range(25))
def test_balls_quarter_is_3_approximation(seed):
    # Theorem 1: alpha = 1/4 gives at most 3 OPT (p = 1/2 keeps the triangle inequality)
    rng = np.random.default_rng(100 + seed)
    C = random_clusterings(rng, int(rng.integers(2, 7)), int(rng.integers(4, 8)), int(rng.integers(2, 4)), missing=0.1)
    opt = brute_optimum(C)
    assert disagreement(Balls(alpha=0.25).fit(C).labels_, C) <= 3 * opt + 1e-9


@pytest.mark.parametrize("seed", range(12))
def test_best_clustering_is_2_approximation_and_best_input(seed):
    rng = np.random.default_rng(200 + seed)
    m = int(rng.integers(2, 6))
    C = random_clusterings(rng, m, 7, 3)
    est = BestClustering().fit(C)
    costs = [disagreement(row, C) for row in C]
    assert disagreement(est.labels_, C) == pytest.approx(min(costs))
    assert disagreement(est.labels_, C) <= 2 * (1 - 1 / m) * brute_optimum(C) + 1e-9


def no_improving_move(labels, X):
    n = len(labels)
    base = cost_reference(labels, X)
    for v in range(n):
        for target in set(labels.tolist()) | {-1}:
            if target == labels[v]:
                continue
            moved = labels.copy()
            moved[v] = target if target >= 0 else labels.max() + 1
            if cost_reference(moved, X) < base - 1e-9:
                return False
    return True


@pytest.mark.parametrize("init", ["singletons", "one", "random", "agglomerative", "balls"])
@pytest.mark.parametrize("seed", range(6))
def test_local_search_ends_in_local_optimum(init, seed):
    rng = np.random.default_rng(300 + seed)
    C = random_clusterings(rng, 5, 14, 3, missing=0.1)
    est = LocalSearch(init=init, random_state=seed).fit(C)
    assert est.status_ == "ok"
    assert no_improving_move(est.labels_, x_reference(C))


@pytest.mark.parametrize("seed", range(4))
def test_local_search_state_stays_consistent_pass_after_pass(seed):
    # the pass kernel over its explicit state: after every pass the histograms, sizes and the
    # cluster-id bookkeeping are those of the labels, rebuilt from scratch
    from ccexp.algorithms.aggregation import _kernels as K

    rng = np.random.default_rng(seed)
    enc = encode(random_clusterings(rng, 5, 30, 3, missing=0.1))
    labels = rng.integers(0, 6, size=30)
    _, labels = np.unique(labels, return_inverse=True)
    state = K.local_search_state(enc.codes, enc.off, labels.astype(np.int64))
    for _ in range(4):
        K.local_search_pass(enc.codes, enc.off, enc.q, state)
        used, dense = np.unique(state.labels, return_inverse=True)  # fresh id i is used[i]
        fresh = K.local_search_state(enc.codes, enc.off, dense.astype(np.int64))
        n_active, n_free = state.count
        assert sorted(state.active[:n_active]) == used.tolist()
        assert np.all(state.pos[state.active[:n_active]] == np.arange(n_active))
        assert sorted(state.free[:n_free]) == sorted(set(range(30)) - set(used.tolist()))
        assert np.all(state.sizes[state.free[:n_free]] == 0)
        np.testing.assert_array_equal(state.sizes[used], fresh.sizes[:n_active])
        np.testing.assert_array_equal(state.hist[used], fresh.hist[:n_active])


def test_local_search_improves_its_start():
    rng = np.random.default_rng(7)
    C = random_clusterings(rng, 6, 60, 4, missing=0.1)
    for name in ["balls", "furthest", "agglomerative"]:
        start = ccexp.make_algorithm(name).fit(C).labels_
        improved = LocalSearch(init=name).fit(C).labels_
        assert disagreement(improved, C) <= disagreement(start, C) + 1e-9


@pytest.mark.parametrize("seed", range(8))
def test_agglomerative_stops_when_every_pair_of_clusters_averages_half(seed):
    rng = np.random.default_rng(400 + seed)
    C = random_clusterings(rng, 5, 25, 3, missing=0.1)
    lab = Agglomerative().fit(C).labels_
    X = dense_weights(C)
    k = lab.max() + 1
    for a in range(k):
        for b in range(a + 1, k):
            assert X[np.ix_(lab == a, lab == b)].mean() >= 0.5 - 1e-9


def test_furthest_costs_fall_until_the_last_step():
    rng = np.random.default_rng(8)
    C = random_clusterings(rng, 5, 80, 4)
    est = Furthest().fit(C)
    costs = est.costs_
    assert all(b < a for a, b in zip(costs[:-2], costs[1:-1]))
    assert disagreement(est.labels_, C) == pytest.approx(min(costs))


# ------------------------------------------------------------------ sampling
@pytest.mark.parametrize("inner", ["best_clustering", "balls", "agglomerative", "furthest", "local_search"])
def test_sampling_with_whole_set_equals_wrapped_algorithm(inner):
    C = random_clusterings(np.random.default_rng(9), 6, 120, 4, missing=0.05)
    wrapped = ccexp.make_algorithm(inner).fit(C).labels_
    sampled = Sampling(algorithm=inner, sample_size=120, random_state=0).fit(C).labels_
    np.testing.assert_array_equal(sampled, wrapped)


def test_sampling_assignment_follows_the_local_search_rule():
    # planted clusters: a sample of 60 finds them; every other item joins the sample
    # cluster minimising sum_{u in C} (2 X_vu - 1) when that is negative
    rng = np.random.default_rng(10)
    truth = np.repeat(np.arange(4), 250)
    C = np.array([np.where(rng.random(1000) < 0.1, rng.integers(0, 4, 1000), truth) for _ in range(7)])
    est = Sampling(algorithm="agglomerative", sample_size=60, random_state=0).fit(C)
    sample = np.sort(np.random.default_rng(0).choice(1000, size=60, replace=False))
    X = dense_weights(C)
    lab = est.labels_
    clusters = {c: sample[lab[sample] == c] for c in np.unique(lab[sample])}
    for v in np.setdiff1d(np.arange(1000), sample):
        gains = {c: (2 * X[v, members] - 1).sum() for c, members in clusters.items()}
        best = min(gains, key=gains.get)
        if gains[best] < 0:
            assert lab[v] == best
        else:  # left alone, then clustered with the other singletons
            assert lab[v] not in clusters
    assert ccexp.metrics.adjusted_rand(truth, lab) > 0.99
    assert {"sample", "assign", "singletons"} <= set(est.timings_)


def test_sampling_reclusters_singletons_recursively():
    rng = np.random.default_rng(11)
    C = rng.integers(0, 50, size=(5, 3000))  # no structure: most items end alone
    est = Sampling(algorithm="furthest", sample_size=200, singletons="sampling", random_state=0).fit(C)
    assert est.labels_.shape == (3000,)
    assert est.n_levels_ >= 3  # more singletons than the sample at two levels at least
    assert disagreement(est.labels_, C) >= lower_bound(C)


def test_sampling_reclusters_all_singletons_with_the_wrapped_algorithm_by_default():
    # Section 4.1: "we collect all singleton clusters and we run the clustering aggregation
    # again on this subset of nodes": FURTHEST once on every item the assignment left alone
    rng = np.random.default_rng(11)
    C = rng.integers(0, 50, size=(5, 3000))
    est = Sampling(algorithm="furthest", sample_size=200, random_state=0).fit(C)
    assert est.singletons == "aggregate" and est.n_levels_ == 2
    sample = np.sort(np.random.default_rng(0).choice(3000, size=200, replace=False))
    alone = np.flatnonzero(~np.isin(est.labels_, est.labels_[sample]))  # in no sample cluster
    assert alone.size > 200  # more singletons than the sample: "sampling" would recurse here
    again = Furthest().fit(C[:, alone]).labels_
    assert ccexp.metrics.adjusted_rand(again, est.labels_[alone]) == 1.0
    assert np.unique(again).size > 1  # a real partition, not all together or the check is empty


def test_sampling_is_reproducible():
    C = random_clusterings(np.random.default_rng(12), 5, 500, 4)
    a = Sampling(sample_size=50, random_state=3).fit(C).labels_
    b = Sampling(sample_size=50, random_state=3).fit(C).labels_
    np.testing.assert_array_equal(a, b)


# ------------------------------------------------------- API and validation
def test_objective_is_registered_for_clusterings():
    prob = ccexp.Problem(n_items=6, clusterings=FIGURE1)
    est = ccexp.make_algorithm("agglomerative").fit_problem(prob)
    s = ccexp.score(est.labels_, np.array([0, 1, 0, 1, 2, 2]), problem=prob)
    assert 3 * s["objective"] == pytest.approx(5.0)
    assert 3 * s["lower_bound"] == pytest.approx(5.0)  # every pair takes its majority here
    assert s["classification_error"] == 0.0


def test_problem_p_is_used():
    C = np.array([[0, 0, -1], [0, 1, 1]])
    prob = ccexp.Problem(n_items=3, clusterings=C, meta={"missing_p": 1.0})
    assert ccexp.score([0, 0, 0], None, problem=prob)["objective"] == pytest.approx(disagreement([0, 0, 0], C, 1.0))


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: encode(np.zeros(5, dtype=int)), "2-d"),
        (lambda: encode(np.zeros((2, 3)) + 0.5), "integer"),
        (lambda: encode(np.array([[0, -2, 1]])), "-1 for a missing"),
        (lambda: encode(np.array([[0, 1]]), p=1.5), "p must be"),
        (lambda: Balls(alpha=0.9).fit(FIGURE1), "alpha"),
        (lambda: LocalSearch(init="nope").fit(FIGURE1), "init"),
        (lambda: Sampling(algorithm="sampling").fit(FIGURE1), "algorithm"),
        (lambda: Sampling(singletons="recurse").fit(FIGURE1), "singletons"),
        (lambda: Agglomerative(max_items=3).fit(FIGURE1), "max_items"),
        (lambda: disagreement([0, 1], FIGURE1), "labels"),
    ],
)
def test_validation_errors_name_the_argument(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_classification_error_hand_checked():
    # clusters {0,1,2} (classes 0,0,1) and {3,4} (classes 1,1): one misplaced of 5
    assert classification_error([0, 0, 1, 1, 1], [5, 5, 5, 7, 7]) == pytest.approx(0.2)
    assert classification_error([0, 1, 2], [0, 1, 2]) == 0.0
    assert classification_error([0, 0, 1, 1], [0, 0, 0, 0]) == 0.5


def test_a_hook_gets_the_parameters_its_signature_names_and_a_plain_hook_reads_self():
    """The family's driver hands ``_cluster`` what it names as keyword-only (issue 30); a hook that names
    nothing (a plugin written before) still runs and reads ``self``."""
    from ccexp.algorithms.aggregation.estimator import AggregationEstimator

    class Named(AggregationEstimator):
        _parameter_constraints = {"width": [int]}

        def __init__(self, width=3):
            self.width = width

        def _cluster(self, enc, *, width):
            self.seen_ = width
            return np.arange(enc.n_items) // width

    class Plain(Named):
        def _cluster(self, enc):
            return np.arange(enc.n_items) // self.width

    est = Named(width=2).fit(FIGURE1)
    assert est.seen_ == 2 and est.labels_.tolist() == [0, 0, 1, 1, 2, 2]
    assert Plain(width=3).fit(FIGURE1).labels_.tolist() == [0, 0, 0, 1, 1, 1]
