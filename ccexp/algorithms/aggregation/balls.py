"""BALLS (Gionis et al. 2007, Section 4): clusters grown as balls of radius 1/2."""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from ...registry import ALGORITHMS
from ..base import RANDOM_STATE
from . import _kernels as K
from .estimator import AggregationEstimator
from ...objectives.clusterings import EncodedClusterings, total_weights


@ALGORITHMS.register("balls")
class Balls(AggregationEstimator):
    """The BALLS algorithm; a 3-approximation with ``alpha = 1/4`` (Theorem 1).

    Vertices are visited in increasing order of total incident weight
    ``sum_v X_uv`` (ties by the items' order: index, or random with
    ``item_order="random"``). The first unclustered ``u`` takes the
    unclustered vertices S at distance at most 1/2 if their mean distance to
    ``u`` is at most ``alpha``; otherwise ``u`` stays alone.

    Parameters
    ----------
    alpha : float in (0, 1/2], default 0.4
        The paper proves the ratio 3 for 1/4 and uses 2/5 in practice.
    p : float or None
        Missing-value coin.
    item_order : {"index", "random"}, default "index"
        ``"random"``: run on the items in an order drawn from
        ``random_state`` (labels come back in the given order); the result
        depends on the order (issue 29), so experiments run it as trials.
    random_state : int, Generator or None
        Draws the item order of ``item_order="random"``; otherwise unused.

    Notes
    -----
    O(n m) for the order, O(n m) per ball: O(n^2 m) worst case, no n x n
    matrix (X_uv is evaluated from the label rows).
    """

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, 0.5, closed="right")],
        "p": AggregationEstimator.P_CONSTRAINT,
        "item_order": AggregationEstimator.ITEM_ORDER_CONSTRAINT,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, alpha=0.4, p=None, item_order="index", random_state=None):
        self.alpha = alpha
        self.p = p
        self.item_order = item_order
        self.random_state = random_state

    def _cluster(self, enc: EncodedClusterings, *, alpha) -> np.ndarray:
        alpha = float(alpha)
        order = np.argsort(total_weights(enc), kind="stable").astype(np.int64)
        return K.balls_kernel(enc.codes, enc.q, order, alpha)
