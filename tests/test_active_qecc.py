"""QECC-heur baseline (García-Soriano et al. 2020) as adapted by Aronsson & Chehreghani (2024)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_rand_score

from ccexp import make_algorithm
from ccexp.algorithms.active.qecc import qecc_heur
from ccexp.oracles.active import PairwiseSimilarityOracle


def test_qecc_with_a_perfect_oracle_and_enough_budget_recovers_the_truth():
    y = np.random.default_rng(0).permutation(np.repeat(np.arange(5), 10))
    oracle = PairwiseSimilarityOracle(y, gamma=0.0, random_state=0)
    labels, used = qecc_heur(oracle, y.size, 10**6, np.random.default_rng(0))
    assert adjusted_rand_score(y, labels) == 1.0
    assert used == oracle.n_queries  # every answer asked is counted
    # pivot rows: at most one row of n - 1 queries per cluster, plus the pair searches
    assert used < 5 * y.size + 200


def test_qecc_respects_its_budget_and_leaves_the_rest_singletons():
    y = np.repeat(np.arange(4), 25)
    for budget in (0, 10, 150, 400):
        oracle = PairwiseSimilarityOracle(y, gamma=0.3, random_state=1)
        labels, used = qecc_heur(oracle, y.size, budget, np.random.default_rng(budget))
        assert used <= budget and oracle.n_queries >= used
        assert labels.shape == (100,) and labels.min() == 0
    assert np.unique(qecc_heur(oracle, 100, 0, np.random.default_rng(0))[0]).size == 100


def test_qecc_estimator_history_is_the_cumulative_budget():
    y = np.repeat(np.arange(3), 10)
    n_edges = 30 * 29 // 2
    est = make_algorithm("qecc", max_queries=0.5, batch_size=20, random_state=0)
    est.fit(PairwiseSimilarityOracle(y, gamma=0.0, random_state=0))
    q = [h["n_queries"] for h in est.history_]
    assert q[0] == 0 and q[1] == 20 and q[-1] == math.floor(0.5 * n_edges)
    assert all(h["queries_used"] <= h["n_queries"] for h in est.history_)
    assert adjusted_rand_score(y, est.labels_) == 1.0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([0.0, 0.3, 1.0]), st.sampled_from(["paper", "authors"]))
def test_one_pair_queries_answer_and_draw_as_the_array_path(seed, gamma, preset):
    # QECC's single pairs go through a scalar path: same answers, counts and noise stream
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, size=30)
    oracle = PairwiseSimilarityOracle(y, gamma=gamma, preset=preset, random_state=seed)
    one, many = oracle.session(), oracle.session()
    for _ in range(200):
        a, b = rng.choice(30, size=2, replace=False)
        got = one.query([a], [b])
        assert got.shape == (1,) and got.dtype == np.float64
        np.testing.assert_array_equal(got, many._query_many(np.array([a]), np.array([b])))
    assert one.n_queries == many.n_queries == 200
    assert one._rng.random() == many._rng.random()


def test_one_pair_queries_check_their_input():
    oracle = PairwiseSimilarityOracle(np.repeat([0, 1], 3), gamma=0.0, budget=1, random_state=0)
    with pytest.raises(ValueError, match="distinct"):
        oracle.query([2], [2])
    with pytest.raises(ValueError, match=r"in \[0, 6\)"):
        oracle.query([0], [6])
    with pytest.raises(ValueError, match=r"in \[0, 6\)"):
        oracle.query([-1], [0])
    assert oracle.query([0], [1]).tolist() == [1.0]
    with pytest.raises(RuntimeError, match="budget exceeded"):
        oracle.query([0], [3])


def test_scalar_draws_are_the_size_one_draws():
    # qecc_heur draws its random pairs as scalars (rng.integers(0, m)); the records of before,
    # drawn with size=1 arrays, stay reproducible because numpy draws the same stream
    r1, r2 = np.random.default_rng(7), np.random.default_rng(7)
    ms = np.random.default_rng(0).integers(2, 1000, 500)
    assert [int(r1.integers(lo, m)) for m in ms for lo in (0, 1)] == \
        [int(r2.integers(lo, m, 1)[0]) for m in ms for lo in (0, 1)]
