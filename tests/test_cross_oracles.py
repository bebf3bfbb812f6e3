"""The cross-supervision oracles (issue 15): one budget and one error rate for every kind of question."""

from __future__ import annotations

import numpy as np
import pytest

from ccexp.data.dataset import Dataset
from ccexp.oracles import make_problem
from ccexp.oracles.active import PairwiseSimilarityOracle
from ccexp.oracles.cross import QueryLog, n_answers, noise_parameter, pairs_to_constraints


def _dataset(n_per=(6, 5, 4), d=2, seed=0):
    y = np.repeat(np.arange(len(n_per)), n_per)
    X = np.random.default_rng(seed).normal(size=(y.size, d)) + 5.0 * y[:, None]
    return Dataset(name="toy", y=y, X=X)


# ----------------------------------------------------------------------------- eps -> each kind's noise


def test_noise_parameter_by_hand():
    # triplets and pairwise: the fraction of wrong answers is eps itself
    assert noise_parameter("triplets", 0.1) == ("noise", 0.1)
    assert noise_parameter("relative", 0.2) == ("noise", 0.2)
    assert noise_parameter("pairwise", 0.2) == ("invalid_fraction", 0.2)
    # a noisy similarity answer has a fair sign: wrong with probability gamma / 2
    assert noise_parameter("similarity", 0.1) == ("gamma", 0.2)
    assert noise_parameter("active_pairs", 0.2) == ("gamma", 0.4)
    assert noise_parameter("similarity", 0.0) == ("gamma", 0.0)


@pytest.mark.parametrize("kind, eps", [("similarity", 0.6), ("triplets", 1.5), ("pairwise", -0.1)])
def test_noise_parameter_refuses(kind, eps):
    with pytest.raises(ValueError, match="eps"):
        noise_parameter(kind, eps)


def test_noise_parameter_unknown_kind():
    with pytest.raises(ValueError, match="none"):
        noise_parameter("none", 0.1)


def test_n_answers_by_hand():
    assert n_answers(0.5, 150) == 75
    assert n_answers(20, 150) == 3000
    assert n_answers(0.001, 10) == 1  # at least one answer
    for bad in (0, -1, float("nan"), True, "1"):
        with pytest.raises(ValueError, match="budget"):
            n_answers(bad, 10)


def _wrong_triplets(T, y):
    """Informative 3-sets (two items of one class, one of another) whose named outlier is not the odd one."""
    a, b, c = y[T[:, 0]], y[T[:, 1]], y[T[:, 2]]
    informative = ((a == b) & (b != c)) | ((a == c) & (a != b)) | ((b == c) & (a != b))
    odd_is_c = (a == b) & (b != c)
    return informative, informative & ~odd_is_c


def test_cross_triplets_budget_and_noise():
    ds = _dataset()
    n = ds.n_items
    clean = make_problem("cross_triplets", ds, budget=10, eps=0.0, random_state=0)
    assert clean.triplets.shape == (10 * n, 3)
    assert clean.meta["supervision"] == "triplets" and clean.meta["n_answers"] == 10 * n
    assert clean.meta["n_clusters"] == 3 and clean.X is not None
    informative, wrong = _wrong_triplets(clean.triplets, ds.y)
    assert informative.sum() > 0 and wrong.sum() == 0
    # eps = 1: every answer's outlier swapped, so every informative answer is wrong
    flipped = make_problem("cross_triplets", ds, budget=10, eps=1.0, random_state=0)
    informative, wrong = _wrong_triplets(flipped.triplets, ds.y)
    assert np.array_equal(informative, wrong)
    # eps = 0.2: exactly round(0.2 m) answers swapped (the generator's fixed count)
    noisy = make_problem("cross_triplets", ds, budget=10, eps=0.2, random_state=0)
    assert noisy.meta["n_wrong"] == round(0.2 * 10 * n)


def test_cross_pairwise_budget_and_noise():
    ds = _dataset()
    p = make_problem("cross_pairwise", ds, budget=4, eps=0.1, random_state=3)
    ml, cl = p.must_link, p.cannot_link
    assert len(ml) + len(cl) == 4 * ds.n_items == p.meta["n_answers"]
    wrong = int((ds.y[ml[:, 0]] != ds.y[ml[:, 1]]).sum() + (ds.y[cl[:, 0]] == ds.y[cl[:, 1]]).sum())
    assert wrong == round(0.1 * 4 * ds.n_items) == p.meta["n_wrong"]
    assert p.meta["supervision"] == "pairwise"


def test_cross_similarity_gamma_is_twice_eps_and_signs_are_wrong_at_rate_eps():
    ds = _dataset(n_per=(40, 40))
    p = make_problem("cross_similarity", ds, eps=0.2, random_state=1)
    assert p.oracle.gamma == pytest.approx(0.4)
    assert p.meta["supervision"] == "similarity" and p.X is None
    rng = np.random.default_rng(0)
    u = rng.integers(0, ds.n_items, 20000)
    v = (u + rng.integers(1, ds.n_items, 20000)) % ds.n_items
    answers = p.oracle.session().query(u, v)
    truth = np.where(ds.y[u] == ds.y[v], 1.0, -1.0)
    wrong = np.mean(np.sign(answers) != truth)
    # binomial standard error sqrt(0.2 * 0.8 / 20000) = 0.0028: four of them
    assert abs(wrong - 0.2) < 0.012


# ----------------------------------------------------------------------------- active pairs -> constraints


def test_pairs_to_constraints_by_hand():
    pairs = [[0, 1], [2, 1], [1, 2], [3, 0], [4, 5], [5, 4]]
    answers = [0.9, -1.0, 0.4, -0.2, 0.3, -0.3]
    ml, cl = pairs_to_constraints(pairs, answers)
    # (1,2): -1.0 + 0.4 < 0 -> cannot-link; (4,5): a tie -> no constraint; order of first query
    assert ml.tolist() == [[0, 1]]
    assert cl.tolist() == [[1, 2], [0, 3]]
    empty_ml, empty_cl = pairs_to_constraints(np.empty((0, 2)), [])
    assert empty_ml.shape == empty_cl.shape == (0, 2)
    with pytest.raises(ValueError, match="one row per query"):
        pairs_to_constraints([[0, 1]], [1.0, 2.0])


def test_query_log_keeps_every_query():
    y = np.array([0, 0, 1, 1])
    log = QueryLog(PairwiseSimilarityOracle(y, gamma=0.0))
    log.query([0, 2], [1, 3])
    log.query([0], [2])
    assert log.n_items == 4 and log.n_queries == 3
    assert log.pairs().tolist() == [[0, 1], [2, 3], [0, 2]]
    assert log.answers().tolist() == [1.0, 1.0, -1.0]


def test_cross_active_pairs_are_the_pairs_the_strategy_queried():
    from ccexp._validation import check_random_state
    from ccexp.algorithms.active.estimator import ActiveCorrelationClustering

    ds = _dataset(n_per=(10, 10, 10))
    n = ds.n_items
    p = make_problem("cross_active_pairs", ds, budget=2, eps=0.0, strategy="maxmin", random_state=np.random.default_rng(5))
    assert p.meta["supervision"] == "active_pairs" and p.meta["n_answers"] == 2 * n
    ml, cl = p.must_link, p.cannot_link
    # eps = 0: every constraint agrees with the labels
    assert np.all(ds.y[ml[:, 0]] == ds.y[ml[:, 1]]) and np.all(ds.y[cl[:, 0]] != ds.y[cl[:, 1]])
    assert p.meta["n_wrong"] == 0 and p.meta["n_constraints"] == len(ml) + len(cl) <= 2 * n
    # the same run by hand: the constraint pairs are exactly the pairs maxmin asked
    rng = check_random_state(np.random.default_rng(5))
    oracle = PairwiseSimilarityOracle(ds.y, gamma=0.0, lam=0.1, random_state=rng)
    est = ActiveCorrelationClustering("maxmin", max_queries=2 * n, lam=0.1,
                                      random_state=int(rng.integers(0, 2**31 - 1))).fit(oracle)
    asked = {tuple(e) for e in np.argwhere(np.triu(est.query_counts_ + est.query_counts_.T) > 0)}
    got = {tuple(e) for e in np.concatenate([ml, cl]).tolist()}
    assert got == asked and est.n_queries_ == 2 * n


def test_cross_active_pairs_noise():
    ds = _dataset(n_per=(10, 10, 10))
    p = make_problem("cross_active_pairs", ds, budget=3, eps=0.2, random_state=0)
    pairs = np.concatenate([p.must_link, p.cannot_link])
    said_ml = np.r_[np.ones(len(p.must_link), bool), np.zeros(len(p.cannot_link), bool)]
    assert p.meta["n_wrong"] == int(np.sum((ds.y[pairs[:, 0]] == ds.y[pairs[:, 1]]) != said_ml))
    with pytest.raises(ValueError, match="strategy"):
        make_problem("cross_active_pairs", ds, strategy="frequency", random_state=0)


def test_cross_features_is_the_floor():
    ds = _dataset()
    p = make_problem("cross_features", ds, random_state=0)
    assert p.kind == "features" and p.meta == {"supervision": "none", "n_clusters": 3, "n_answers": 0, "eps": 0.0}
