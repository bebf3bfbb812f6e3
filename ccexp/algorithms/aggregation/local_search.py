"""LOCALSEARCH (Gionis et al. 2007, Section 4) with the M(v, C_i) bookkeeping."""

from __future__ import annotations

import time
import warnings
from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval

from ..._validation import check_random_state

from ...registry import ALGORITHMS
from ..base import RANDOM_STATE, validate_params
from . import _kernels as K
from .estimator import AggregationAlgorithms, AggregationEstimator
from ...objectives.clusterings import EncodedClusterings

INITS = ("singletons", "random", "one")


def local_search_labels(enc: EncodedClusterings, labels: np.ndarray, *, max_passes: int, join_ties: bool,
                        self_pair: bool):
    """Single-item moves until none lowers d(C); returns (labels, n_passes, converged).

    Every cluster keeps a histogram of its members' labels per input
    clustering, from which ``M(v, C) = sum_{u in C} X_vu`` costs O(m)
    (:func:`~ccexp.algorithms.aggregation._kernels.m_times_m`), so a pass
    is O(n k m) for k clusters and never needs the n x n weights. In the
    paper's terms, ``d(v, C_i) = M(v, C_i) + sum_{j != i} (|C_j| - M(v, C_j))``;
    its part that depends on i is ``2 M(v, C_i) - |C_i|`` (0 for a new
    singleton), which the kernel minimises.
    """
    _, lab = np.unique(np.asarray(labels), return_inverse=True)
    lab = lab.reshape(-1).astype(np.int64)
    state = K.local_search_state(enc.codes, enc.off, lab)
    for t in range(1, int(max_passes) + 1):
        moved = K.local_search_pass(enc.codes, enc.off, enc.q, state, bool(join_ties), bool(self_pair))
        if moved == 0:
            return lab, t, True
    return lab, int(max_passes), False


@ALGORITHMS.register("local_search")
class LocalSearch(AggregationEstimator):
    """LOCALSEARCH: move single items to their best cluster until none improves d(C).

    Parameters
    ----------
    init : str, default "singletons"
        ``"singletons"``, ``"one"`` (all together), ``"random"`` (uniform
        labels in ``0 .. n_init_clusters - 1``) or the registry name of
        another aggregation algorithm whose output is improved (the paper's
        post-processing use).
    n_init_clusters : int, default 10
        For ``init="random"``.
    init_params : dict or None
        Parameters of the ``init`` algorithm.
    max_passes : int, default 1000
    join_ties : bool, default False
        Let an item that is alone join its best cluster when that costs
        nothing (a move otherwise needs a strict improvement): the Votes
        record with all votes missing is at X = 1/2 from everything, so only
        this joins it (an ablation, scripts/ablate_local_search_votes.py).
    self_pair : bool, default False
        Score the moves by Section 4's d(v, C_i) = M(v, C_i) + sum_{j != i}
        (|C_j| - M(v, C_j)) with v still counted in its own cluster: every
        move then pays the pair (v, v) (1 - X_vv = 1), so an item leaves its
        cluster only for a gain above 1 (an ablation, same script).
    p : float or None
        Missing-value coin.
    item_order : {"index", "random"}, default "index"
        ``"random"``: run on the items in an order drawn from
        ``random_state`` (labels come back in the given order); the result
        depends on the order (issue 29), so experiments run it as trials.
    random_state : int, Generator or None
        For ``init="random"`` and ``item_order="random"``.

    Attributes
    ----------
    n_passes_ : int
    status_ : str
        ``"ok"``, or ``"max_passes"`` when the last pass still moved items.

    Notes
    -----
    O(n k m) per pass with k clusters (k = n in the first pass from
    singletons): the O(I n^2) of the paper without the weight matrix.
    Items are visited in the order given (``item_order``); a move needs a
    strict improvement.
    """

    _parameter_constraints = {
        "init": [AggregationAlgorithms(INITS, exclude={"local_search"})],
        "n_init_clusters": [Interval(Integral, 1, None, closed="left")],
        "init_params": [dict, None],
        "max_passes": [Interval(Integral, 1, None, closed="left")],
        "p": AggregationEstimator.P_CONSTRAINT,
        "item_order": AggregationEstimator.ITEM_ORDER_CONSTRAINT,
        "join_ties": ["boolean"],
        "self_pair": ["boolean"],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, init="singletons", n_init_clusters=10, init_params=None, max_passes=1000, p=None,
                 item_order="index", join_ties=False, self_pair=False, random_state=None):
        self.init = init
        self.n_init_clusters = n_init_clusters
        self.init_params = init_params
        self.max_passes = max_passes
        self.p = p
        self.item_order = item_order
        self.join_ties = join_ties
        self.self_pair = self_pair
        self.random_state = random_state

    def _initial(self, enc: EncodedClusterings, init, n_init_clusters, init_params, p, random_state) -> np.ndarray:
        """The start of the search: ``init`` (a name, or another aggregation algorithm's result)."""
        n = enc.n_items
        if init == "singletons":
            return np.arange(n, dtype=np.int64)
        if init == "one":
            return np.zeros(n, dtype=np.int64)
        if init == "random":
            k = int(n_init_clusters)
            rng = getattr(self, "_rng", None)  # the stream that drew the item order, if any
            return (rng if rng is not None else check_random_state(random_state)).integers(0, k, size=n)
        # another aggregation algorithm (the init constraint); its parameters are checked as its fit would
        est = ALGORITHMS.get(init)(**dict(init_params or {}))
        validate_params(est)
        est.p = p if p is not None else enc_p(enc)
        return est._fit_encoded(enc).labels_

    def _cluster(self, enc: EncodedClusterings, *, init, n_init_clusters, init_params, p, random_state, max_passes,
                 join_ties, self_pair) -> np.ndarray:
        if enc.n_items == 0:
            return np.zeros(0, dtype=np.int64)
        t0 = time.perf_counter()
        start = self._initial(enc, init, n_init_clusters, init_params, p, random_state)
        t1 = time.perf_counter()
        labels, self.n_passes_, converged = local_search_labels(enc, start, max_passes=max_passes,
                                                                join_ties=bool(join_ties),
                                                                self_pair=bool(self_pair))
        self.timings_ = {"init": t1 - t0, "local_search": time.perf_counter() - t1}
        if not converged:
            self.status_ = "max_passes"
            warnings.warn(f"local_search still moving items after max_passes={max_passes}", stacklevel=3)
        return labels


def enc_p(enc: EncodedClusterings) -> float:
    """The coin p of an encoding."""
    return 1.0 - enc.q
