"""Algorithm 1 of Ukkonen (2017) as published: vertex cover, Definition 2, LP + region growing.

Lines 2-4: Approx-VC on the constraint graph (with the redundancy removal of
Section IV-B), ``T' = T \\ vc``.  Line 5: the weighted instance G_T' of
Definition 2 over the items U of T'.  Line 6: the algorithm of Assumption 1
that Corollary 1 names, Demaine, Emanuel, Fiat and Immorlica (2006): the LP
relaxation of correlation clustering (:func:`ccexp.cc.exact.cc_lp`, HiGHS
with lazily added triangle inequalities) rounded by region growing
(:func:`ccexp.cc.region_growing.region_growing`, ``c = 2``) on the LP's
shortest-path metric (:func:`ccexp.cc.region_growing.edge_metric`, an
optimal LP solution that keeps items with no evidence between them apart).  That makes the
whole an O(log |U|) approximation of s(f, T) (Theorem 2, Corollary 1),
which :class:`~ccexp.algorithms.triplets.approx.TripletApprox` (pivot +
local search on the same G_T') is not.
"""

from __future__ import annotations

import time
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from ...cc import cc_cost
from ...cc.exact import PairObjective, cc_lp
from ...cc.region_growing import edge_metric, region_growing
from ...objectives.kernels import triplet_cost
from ...registry import ALGORITHMS
from ..base import RANDOM_STATE
from . import _kernels as K
from .approx import triplet_cc_instance
from .base import TripletEstimator
from .vertex_cover import triplet_vertex_cover


@ALGORITHMS.register("triplet_approx_lp")
class TripletApproxLP(TripletEstimator):
    """Algorithm 1 with the LP region-growing solver of Demaine et al. (2006).

    Parameters
    ----------
    lp_time_limit : float
        Seconds for the LP's cutting-plane loop.  If it stops early, the
        last relaxation (fewer triangle inequalities) is rounded and
        ``lp_optimal_`` is False.
    c : float
        Constant of the region-growing rule ``cut <= c ln(n+1) vol`` (paper: 2).
    random_state : int or None
        Unused (the algorithm is deterministic: centres in index order);
        accepted for the runner's uniform call.

    Attributes
    ----------
    labels_, objective_ (s(f, T) on the full input), cc_cost_ (cost on
    G_T'), lp_bound_ (the LP optimum: a lower bound on the optimal cost of
    G_T'), lp_optimal_, n_removed_, timings_, record_ (values the runner
    records).
    """

    _parameter_constraints = {
        "lp_time_limit": [Interval(Real, 0, None, closed="neither")],
        "c": [Interval(Real, 0, None, closed="neither")],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, lp_time_limit: float = 600.0, c: float = 2.0, random_state=None):
        self.lp_time_limit = lp_time_limit
        self.c = c
        self.random_state = random_state

    def _fit(self, T, n_items):
        t0 = time.perf_counter()
        covered, _ = triplet_vertex_cover(T, n_items)
        T_kept = T[~covered]
        t1 = time.perf_counter()
        graph = triplet_cc_instance(T_kept, n_items)
        # U: the items of T' (Definition 2); every other item is a singleton
        U = np.unique(T_kept)
        labels = np.arange(n_items, dtype=np.int64)
        lp_value, lp_optimal, n_over, rounds, n_tri = 0.0, True, 0, 0, 0
        if U.size >= 2:
            W = graph.to_dense()[np.ix_(U, U)]
            lp = cc_lp(PairObjective.from_weights(W), time_limit=float(self.lp_time_limit))
            t2 = time.perf_counter()
            x = np.zeros((U.size, U.size))
            iu, iv = np.triu_indices(U.size, 1)
            x[iu, iv] = np.clip(lp.x, 0.0, 1.0)
            x[iv, iu] = x[iu, iv]
            sub, info = region_growing(edge_metric(x, W), W, c=float(self.c))
            labels[U] = n_items + sub  # ids apart from the singletons'
            lp_value, lp_optimal, n_over = lp.value, lp.optimal, info["n_over_half"]
            rounds, n_tri = lp.rounds, lp.n_triangles
        else:
            t2 = time.perf_counter()
        t3 = time.perf_counter()
        _, self.labels_ = np.unique(labels, return_inverse=True)
        self.labels_ = self.labels_.astype(np.int64)
        self.cc_cost_ = float(cc_cost(self.labels_, graph))
        self.objective_ = int(triplet_cost(T, self.labels_))
        self.n_removed_ = int(covered.sum())
        self.lp_bound_ = float(lp_value)
        self.lp_optimal_ = bool(lp_optimal)
        self.timings_ = {"vertex_cover": t1 - t0, "lp": t2 - t1, "rounding": t3 - t2}
        self.record_ = {
            "lp_bound": self.lp_bound_,
            "lp_optimal": self.lp_optimal_,
            "lp_rounds": int(rounds),
            "lp_triangles": int(n_tri),
            "cc_cost": self.cc_cost_,
            "balls_over_half": int(n_over),
        }
        return self

    @classmethod
    def warmup(cls) -> None:
        T = np.array([[0, 1, 2], [0, 2, 1], [1, 2, 0], [2, 3, 0]], dtype=np.int64)
        cls().fit(T)
