"""QECC-heur (García-Soriano et al. 2020) as Aronsson & Chehreghani (2024, Section 4.1) adapt it.

QECC is a pivot algorithm that clusters while it queries: find a pivot,
ask its similarity to every unclustered item, cut out the positive ones,
repeat until the budget cannot pay for the next pivot; what is left stays
in singletons.  The heuristic variant looks for a pivot through random
pairs of unclustered items until one answers positive (so singletons do
not waste a full row of queries).  The paper reruns it *from scratch* with
the cumulative budget of every iteration of Algorithm 1 (i * B queries at
iteration i), so its curve is comparable with the active strategies; each
rerun asks the noisy oracle afresh.
"""

from __future__ import annotations

import math

import numpy as np

from ..._validation import check_random_state
from ...registry import ALGORITHMS
from ..base import RANDOM_STATE, ProblemEstimator, validate_params, validates_params_first
from .estimator import ActiveCorrelationClustering


def qecc_heur(oracle, n: int, budget: int, rng) -> tuple[np.ndarray, int]:
    """One run of QECC-heur with at most ``budget`` queries; returns (labels, queries used).

    Parameters
    ----------
    oracle : object with ``query(u, v)``
        Answers in [-1, 1]; an answer >= 0 counts as "similar" (footnote 3).
    n : int
    budget : int
    rng : numpy Generator
    """
    labels = np.full(n, -1, dtype=np.int64)
    remaining = rng.permutation(n)
    used = 0
    k = 0
    while remaining.shape[0] > 1 and budget - used >= remaining.shape[0] - 1:
        m = remaining.shape[0]
        pair = None
        # look for a positive pair among random pairs of the remaining items, one
        # pair per query (so every answer is one the budget pays for); after as
        # many draws as there are pairs, give up (all left are singletons)
        tries = 0
        limit = m * (m - 1) // 2
        while pair is None and used < budget and tries < limit:
            a = int(rng.integers(0, m))
            b = (a + int(rng.integers(1, m))) % m  # b != a
            used += 1
            tries += 1
            if oracle.query(remaining[a], remaining[b])[0] >= 0:
                pair = (a, b)
        if pair is None:
            break
        ia, ib = pair
        others = np.delete(np.arange(m), [ia, ib])
        if budget - used < others.shape[0]:
            break
        ans = oracle.query(np.full(others.shape[0], remaining[ib]), remaining[others]) if others.size else np.empty(0)
        used += int(others.shape[0])
        members = np.concatenate([[ia, ib], others[ans > 0]])
        labels[remaining[members]] = k
        k += 1
        keep = np.ones(m, dtype=bool)
        keep[members] = False
        remaining = remaining[keep]
    # what is left: singletons
    left = np.flatnonzero(labels < 0)
    labels[left] = k + np.arange(left.shape[0])
    return labels, used


@ALGORITHMS.register("qecc")
class QECC(ProblemEstimator):
    """QECC-heur rerun from scratch with the cumulative budget i * B (Aronsson & Chehreghani 2024, Section 4.1).

    Parameters
    ----------
    max_queries : int or float
        As for :class:`ActiveCorrelationClustering`: an int or a fraction of |E|.
    batch_size : int, float in (0, 1) or "auto"
        B: the budget grows by B per iteration ("auto": ceil(|E| / 1000)).
    random_state : int, Generator or None

    Attributes
    ----------
    labels_ : int64 array
        The clustering of the last rerun.
    history_ : list of dict
        ``n_queries`` (the cumulative budget i * B, the x-axis of the paper's
        curves), ``labels``, ``queries_used`` (what that rerun spent).
    n_queries_ : int
        The last cumulative budget.
    """

    reads = ("similarity",)  # capability declaration (ccexp.capabilities)
    needs_features = False

    supervision = "oracle"

    # the budget and the batch as for the active strategies (whose validation computes them)
    _parameter_constraints = {
        "max_queries": ActiveCorrelationClustering._parameter_constraints["max_queries"],
        "batch_size": ActiveCorrelationClustering._parameter_constraints["batch_size"],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, max_queries=1.0, batch_size="auto", random_state=None):
        self.max_queries = max_queries
        self.batch_size = batch_size
        self.random_state = random_state

    @validates_params_first
    def fit(self, oracle, y=None, callback=None):
        """Run against ``oracle`` (``n_items``, ``query(u, v)``; a fresh ``session()`` if it has one)."""
        validate_params(self)
        return self._fit(oracle, callback)

    @validates_params_first
    def fit_problem(self, problem, callback=None):
        validate_params(self)
        return self._fit(problem.require("oracle", type(self).__name__), callback)

    def _fit(self, oracle, callback):
        if hasattr(oracle, "session"):
            oracle = oracle.session()
        n = int(oracle.n_items)
        n_edges = n * (n - 1) // 2
        helper = ActiveCorrelationClustering(max_queries=self.max_queries, batch_size=self.batch_size)
        B, budget = helper._check_params(n_edges)
        rng = check_random_state(self.random_state)
        history = []
        labels = np.arange(n, dtype=np.int64)
        self.stop_reason_ = "budget"
        for i in range(0, math.ceil(budget / B) + 1):
            b = min(i * B, budget)
            labels, used = qecc_heur(oracle, n, b, rng)
            history.append({"n_queries": b, "labels": labels, "queries_used": used,
                            "n_clusters": int(labels.max()) + 1})
            if callback is not None and callback(b, labels):
                self.stop_reason_ = "callback"
                break
        self.labels_ = labels
        self.history_ = history
        self.n_queries_ = history[-1]["n_queries"]
        self.batch_size_ = B
        self.status_ = "ok"
        return self

    @classmethod
    def warmup(cls) -> None:
        """Nothing to compile (numpy only)."""


__all__ = ["QECC", "qecc_heur"]
