"""FURTHEST (Gionis et al. 2007, Section 4): top-down furthest-first centres."""

from __future__ import annotations

import numpy as np

from ...registry import ALGORITHMS
from ..base import RANDOM_STATE
from . import _kernels as K
from .estimator import AggregationEstimator
from ...objectives.clusterings import EncodedClusterings, disagreement


@ALGORITHMS.register("furthest")
class Furthest(AggregationEstimator):
    """Add centres furthest-first while the cost d(C) keeps falling.

    Starts from one cluster; the first two centres are the pair furthest
    apart, each next centre the item whose distance to its nearest centre
    is largest (furthest-first traversal, Hochbaum and Shmoys 1985). Every
    item joins its nearest centre (the smallest X, i.e. the cheapest edge to
    keep; ties to the older centre). After each step the cost is computed;
    the first step that does not lower it ends the search and the previous
    clustering is returned.

    Parameters
    ----------
    p : float or None
        Missing-value coin.
    item_order : {"index", "random"}, default "index"
        ``"random"``: run on the items in an order drawn from
        ``random_state`` (labels come back in the given order); the result
        depends on the order (issue 29), so experiments run it as trials.
    random_state : int, Generator or None
        Draws the item order of ``item_order="random"``; otherwise unused.

    Attributes
    ----------
    costs_ : list of float
        d(C) after each step (one cluster first).

    Notes
    -----
    O(n^2 m) for the furthest pair, then O(n m) per centre for the
    assignment and the cost: O(n^2 m + k n m), no n x n matrix.
    """

    _parameter_constraints = {
        "p": AggregationEstimator.P_CONSTRAINT,
        "item_order": AggregationEstimator.ITEM_ORDER_CONSTRAINT,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, p=None, item_order="index", random_state=None):
        self.p = p
        self.item_order = item_order
        self.random_state = random_state

    def _cluster(self, enc: EncodedClusterings) -> np.ndarray:
        n = enc.n_items
        labels = np.zeros(n, dtype=np.int64)
        cost = disagreement(labels, enc)
        self.costs_ = [cost]
        if n < 2:
            return labels
        u, v, _ = K.furthest_pair(enc.codes, enc.q)
        best_center = np.zeros(n, dtype=np.int64)
        best_dist = np.full(n, np.inf)
        K.assign_to_new_center(enc.codes, enc.q, u, 0, best_center, best_dist)
        k = 1
        nxt = v
        while True:
            K.assign_to_new_center(enc.codes, enc.q, nxt, k, best_center, best_dist)
            k += 1
            new_cost = disagreement(best_center, enc)
            self.costs_.append(new_cost)
            if not new_cost < cost - 1e-9:
                return labels
            labels, cost = best_center.copy(), new_cost
            nxt = int(np.argmax(best_dist))
            if best_dist[nxt] <= 0.0:  # every item sits on a centre
                return labels
