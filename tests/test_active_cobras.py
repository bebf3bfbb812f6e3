"""COBRAS / nCOBRAS baselines of Aronsson & Chehreghani (2024): hand-checked runs, oracle accounting, seeds."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from ccexp import make_algorithm
from ccexp.algorithms.active.cobras import COBRAS, kmeans
from ccexp.oracles.active import PairwiseSimilarityOracle


class CountingOracle(PairwiseSimilarityOracle):
    """Logs every pair that reaches the oracle (sessions share the log)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.log = []

    def query(self, u, v):
        self.log.extend(zip(np.atleast_1d(u).tolist(), np.atleast_1d(v).tolist()))
        return super().query(u, v)


def _blobs(n=150, k=3, seed=0):
    X, y = make_blobs(n, n_features=4, centers=k, cluster_std=0.4, center_box=(-20, 20), random_state=seed)
    return X, y


def test_hand_checked_four_points():
    # X = 0, 1 | 10, 11.  Split level: k-means(2) gives {0,1} / {2,3}, reps 0 and 2 (ties: first item):
    # ask (0, 2) -> CL, level 1; the smaller part {0,1} splits into 0 / 1: ask (0, 1) -> ML.  Split into 2.
    # Merge: the two clusters are cannot-linked through (0, 2).  Then {0,1} splits: (0, 1) is known (ML),
    # merge re-joins 0 and 1 for free; {2,3}: ask (2, 3) -> ML, merged.  Nothing left to split: 3 queries.
    X = np.array([[0.0], [1.0], [10.0], [11.0]])
    y = np.array([0, 0, 1, 1])
    oracle = CountingOracle(y, gamma=0.0, random_state=0)
    est = COBRAS(max_queries=100, batch_size=1, random_state=0).fit(oracle, X=X)
    assert est.n_queries_ == 3
    assert set(est.constraints_) == {(0, 2), (0, 1), (2, 3)}
    assert est.stop_reason_ == "exhausted"
    assert adjusted_rand_score(y, est.labels_) == 1.0
    # nothing left to split: the curve is held at the final clustering up to the budget
    assert [h["n_queries"] for h in est.history_] == [0, 1, 2, 3, 100]
    assert est.history_[-1]["queries_used"] == 3 and np.array_equal(est.history_[-1]["labels"], est.labels_)
    # the budget stops it where it is: after (0, 2), (0, 1) COBRAS shows the clustering before the split
    est2 = COBRAS(max_queries=2, batch_size=1, random_state=0).fit(CountingOracle(y, gamma=0.0), X=X)
    assert est2.n_queries_ == 2 and est2.stop_reason_ == "budget"
    assert [h["n_queries"] for h in est2.history_] == [0, 1, 2]


def test_noiseless_blobs_reach_ari_one_within_a_modest_budget():
    X, y = _blobs()
    est = make_algorithm("cobras", max_queries=100, batch_size=5, random_state=0)
    est.fit(PairwiseSimilarityOracle(y, gamma=0.0, random_state=0), X=X)
    aris = [adjusted_rand_score(y, h["labels"]) for h in est.history_]
    assert max(aris) == 1.0
    first = next(h["n_queries"] for h, a in zip(est.history_, aris) if a == 1.0)
    assert first <= 30  # 3 well-separated blobs: a handful of queries


def test_every_query_goes_through_the_oracle_and_the_budget_holds():
    X, y = _blobs(seed=1)
    for gamma in (0.0, 0.3):
        oracle = CountingOracle(y, gamma=gamma, random_state=2, budget=60)
        est = COBRAS(max_queries=60, batch_size=7, random_state=0).fit(oracle, X=X)
        assert est.n_queries_ == len(oracle.log) <= 60
        # each pair asked once, and what COBRAS remembers is exactly what it asked
        asked = {(min(u, v), max(u, v)) for u, v in oracle.log}
        assert len(asked) == len(oracle.log) and asked == set(est.constraints_)
        steps = [h["n_queries"] for h in est.history_]
        assert steps[:-1] == list(range(0, 7 * (len(steps) - 1), 7)) and steps[-1] == est.n_queries_


class ConstantOracle:
    """Answers every query with one value."""

    def __init__(self, n, value):
        self.n_items, self.value, self.n_queries = n, value, 0

    def query(self, u, v):
        self.n_queries += len(np.atleast_1d(u))
        return np.full(len(np.atleast_1d(u)), self.value)


def test_must_link_is_an_answer_above_zero():
    X, _ = _blobs(n=40, seed=3)
    # 0 is not > 0: every answer is a cannot-link, nothing ever merges
    apart = COBRAS(max_queries=60, batch_size=10, random_state=0).fit(ConstantOracle(40, 0.0), X=X)
    assert apart.history_[-1]["n_clusters"] == apart.history_[-1]["n_superinstances"] > 1
    # the smallest positive answer is a must-link: everything stays one cluster
    together = COBRAS(max_queries=60, batch_size=10, random_state=0).fit(ConstantOracle(40, 1e-12), X=X)
    assert np.unique(together.labels_).size == 1 and together.n_queries_ > 0


def test_determinism_from_random_state():
    X, y = _blobs(seed=4)
    oracle = PairwiseSimilarityOracle(y, gamma=0.2, random_state=5)
    a = COBRAS(max_queries=80, batch_size=8, random_state=3).fit(oracle, X=X)
    b = COBRAS(max_queries=80, batch_size=8, random_state=3).fit(oracle, X=X)
    assert a.constraints_ == b.constraints_
    assert all(np.array_equal(h1["labels"], h2["labels"]) for h1, h2 in zip(a.history_, b.history_))
    assert len(a.history_) == len(b.history_)


def test_callback_stops_and_features_are_required():
    X, y = _blobs(seed=6)
    seen = []
    est = COBRAS(max_queries=100, batch_size=4, random_state=0).fit(
        PairwiseSimilarityOracle(y, gamma=0.0), X=X, callback=lambda q, lab: seen.append(q) or q >= 8)
    assert est.stop_reason_ == "callback" and seen[-1] == 8 and est.history_[-1]["n_queries"] == 8
    with pytest.raises(ValueError, match="features"):
        COBRAS().fit(PairwiseSimilarityOracle(y), X=None)


def test_kmeans_agrees_with_scikit_learn_on_separated_blobs():
    from sklearn.cluster import KMeans

    X, y = _blobs(n=90, k=3, seed=7)
    ours = kmeans(X, 3, 5, np.random.default_rng(0))
    theirs = KMeans(3, n_init=5, random_state=0).fit(X).labels_
    assert adjusted_rand_score(ours, theirs) == 1.0


# --------------------------------------------------------------------------
# simplified nCOBRAS
# --------------------------------------------------------------------------
def test_ncobras_with_gamma_zero_is_cobras_query_for_query():
    from ccexp.algorithms.active.ncobras import NCOBRAS

    X, y = _blobs(seed=8)
    oracle = PairwiseSimilarityOracle(y, gamma=0.3, random_state=1)  # noisy answers, noise handling off
    a = COBRAS(max_queries=90, batch_size=9, random_state=2).fit(oracle, X=X)
    b = NCOBRAS(max_queries=90, batch_size=9, gamma=0.0, random_state=2).fit(oracle, X=X)
    assert a.constraints_ == b.constraints_ and b.n_requeries_ == 0
    assert len(a.history_) == len(b.history_)
    assert all(np.array_equal(h1["labels"], h2["labels"]) for h1, h2 in zip(a.history_, b.history_))


def test_ncobras_reasks_inconsistent_answers_through_the_oracle():
    X, y = _blobs(seed=9)
    oracle = CountingOracle(y, gamma=0.3, random_state=4, budget=150)
    est = make_algorithm("ncobras", max_queries=150, batch_size=10, gamma=0.3, random_state=0).fit(oracle, X=X)
    assert est.n_queries_ == len(oracle.log) <= 150
    assert est.n_inconsistent_ > 0 and est.n_requeries_ > 0
    # every extra answer asks a pair already asked; the distinct pairs are the accepted constraints
    asked = {(min(u, v), max(u, v)) for u, v in oracle.log}
    assert asked == set(est.constraints_)
    assert len(oracle.log) - len(asked) == est.n_requeries_
    # determinism
    again = make_algorithm("ncobras", max_queries=150, batch_size=10, gamma=0.3, random_state=0).fit(oracle, X=X)
    assert again.constraints_ == est.constraints_


def test_ncobras_with_a_noiseless_oracle_never_reasks():
    X, y = _blobs(seed=10)
    est = make_algorithm("ncobras", max_queries=100, batch_size=5, gamma=0.2, random_state=0).fit(
        PairwiseSimilarityOracle(y, gamma=0.0, random_state=0), X=X)
    assert est.n_inconsistent_ == 0 and est.n_requeries_ == 0
    assert max(adjusted_rand_score(y, h["labels"]) for h in est.history_) == 1.0
