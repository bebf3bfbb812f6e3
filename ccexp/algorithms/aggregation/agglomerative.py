"""AGGLOMERATIVE (Gionis et al. 2007, Section 4): average linkage stopped at 1/2."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval

from ...cc.union_find import connected_components
from ...objectives.clusterings import EncodedClusterings, condensed_weights
from ...registry import ALGORITHMS
from ..base import RANDOM_STATE
from ._linkage import average_linkage_inplace
from .estimator import AggregationEstimator


@ALGORITHMS.register("agglomerative")
class Agglomerative(AggregationEstimator):
    """Merge the two clusters of least average distance while it is below 1/2.

    Parameters
    ----------
    max_items : int, default 12000
        The n(n-1)/2 weights are materialised (8 bytes each, 0.58 GB at
        12,000 items; the linkage works on them in place); larger inputs
        raise ``ValueError``: wrap the algorithm in ``sampling``.
    p : float or None
        Missing-value coin.
    inclusive : bool, default False
        Merge while the least average distance is ``< 1/2`` (False, the
        paper's "below 1/2") or ``<= 1/2`` (True). On Votes the record with
        all 16 votes missing sits at exactly 1/2 from every item, so only the
        inclusive test can merge it (issue 29.2's ablation).
    item_order : {"index", "random"}, default "index"
        ``"random"``: run on the items in an order drawn from
        ``random_state`` (labels come back in the given order); the result
        depends on the order (issue 29), so experiments run it as trials.
    random_state : int, Generator or None
        Draws the item order of ``item_order="random"``; otherwise unused.

    Notes
    -----
    Average linkage is reducible, so the nearest-neighbour-chain algorithm
    (:func:`._linkage.average_linkage_inplace`, which gives the linkage
    matrix of :func:`scipy.cluster.hierarchy.linkage` bit for bit without
    its copy of the weights) builds the same dendrogram
    as repeatedly merging the closest pair (up to ties) in O(n^2) time; the
    merges the paper's greedy loop performs are exactly those of height
    below 1/2, since heights never decrease. O(n^2 m) for the weights.
    Equal average distances are resolved by scipy's chain (in effect by
    the items' order), which ``item_order="random"`` randomises.
    """

    _parameter_constraints = {
        "max_items": [Interval(Integral, 1, None, closed="left")],
        "p": AggregationEstimator.P_CONSTRAINT,
        "inclusive": ["boolean"],
        "item_order": AggregationEstimator.ITEM_ORDER_CONSTRAINT,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, max_items=12000, p=None, inclusive=False, item_order="index", random_state=None):
        self.max_items = max_items
        self.p = p
        self.inclusive = inclusive
        self.item_order = item_order
        self.random_state = random_state

    def _cluster(self, enc: EncodedClusterings, *, max_items, inclusive) -> np.ndarray:
        n = enc.n_items
        if n < 2:
            return np.zeros(n, dtype=np.int64)
        # the weights are ours: link them in place (scipy's linkage would copy them, issue 31)
        Z = average_linkage_inplace(condensed_weights(enc, int(max_items)))
        # node ids: items 0..n-1, merge t creates node n + t; join one
        # representative item of each side for every merge below 1/2
        a = Z[:, 0].astype(np.int64)
        b = Z[:, 1].astype(np.int64)
        rep = np.concatenate([np.arange(n, dtype=np.int64), np.empty(n - 1, dtype=np.int64)])
        for t in range(n - 1):
            rep[n + t] = rep[a[t]]
        # heights are means of multiples of q/m: compare with a margin for their rounding
        keep = Z[:, 2] <= 0.5 + 1e-12 if inclusive else Z[:, 2] < 0.5 - 1e-12
        return connected_components(n, rep[a[keep]], rep[b[keep]])
