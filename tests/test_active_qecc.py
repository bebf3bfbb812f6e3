"""QECC-heur baseline (García-Soriano et al. 2020) as adapted by Aronsson & Chehreghani (2024)."""

import math

import numpy as np
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
