"""Algorithm 1 of Ukkonen (2017): vertex cover, then correlation clustering.

Steps: a vertex cover of the constraint graph (Approx-VC with redundancy
removal, a 2-approximation: beta = 2 in Theorem 2), the triplets left over
mapped to the weighted correlation-clustering instance of Definition 2, and
that instance solved by a solver of ``ccexp.cc``.

The paper's O(log n) guarantee (Corollary 1) assumes the LP region-growing
algorithm of Demaine et al. (2006) for weighted correlation clustering.  That
LP has O(n^3) triangle constraints and is not implemented here; the solver
is KwikCluster (pivot, best of ``n_pivots`` random orders) refined by
single-item local search on the weighted cost.  KwikCluster is a
3-approximation only on complete unweighted instances (Ailon et al. 2008),
so on the sparse weighted G_T' this estimator carries no approximation
guarantee: it is Algorithm 1's pipeline, not its bound.
"""

from __future__ import annotations

import time
from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ...cc import cc_cost, cc_local_search, pivot, signed_graph_from_edges
from ...objectives.kernels import triplet_cost
from ...registry import ALGORITHMS
from ..base import RANDOM_STATE
from .base import TripletEstimator
from . import _kernels as K
from .vertex_cover import triplet_vertex_cover


def triplet_cc_instance(triplets: np.ndarray, n_items: int):
    """The correlation-clustering instance G_T' of Definition 2.

    Every remaining triplet (a, b, c) votes +1 on {a, b} and -1 on {a, c}
    and {b, c}.  On a consistent set (Lemma 1) the votes on a pair all share
    one sign, so the summed vote is +-|T'_{u,v}|: the sign gives E+ / E- and
    the magnitude the weight w(u, v) = |T'_{u,v}|.
    """
    a, b, c = triplets[:, 0], triplets[:, 1], triplets[:, 2]
    u = np.concatenate([a, a, b])
    v = np.concatenate([b, c, c])
    m = triplets.shape[0]
    w = np.concatenate([np.ones(m), -np.ones(m), -np.ones(m)])
    return signed_graph_from_edges(n_items, u, v, w)


@ALGORITHMS.register("triplet_approx")
class TripletApprox(TripletEstimator):
    """Algorithm 1 (vertex cover + Definition 2 + a correlation-clustering solver).

    Parameters
    ----------
    solver : {"pivot_ls", "pivot", "local_search"}
        ``pivot``: KwikCluster, best of ``n_pivots`` orders by weighted cost;
        ``local_search``: single-item moves from all singletons;
        ``pivot_ls`` (default): the pivot result refined by local search.
    n_pivots : int
    random_state : int or None

    Attributes
    ----------
    labels_, objective_ (s(f, T) on the full input), cc_cost_ (cost on
    G_T'), n_removed_, timings_.
    """

    _parameter_constraints = {
        "solver": [StrOptions({"pivot_ls", "pivot", "local_search"})],
        "n_pivots": [Interval(Integral, 1, None, closed="left")],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, solver="pivot_ls", n_pivots=10, random_state=None):
        self.solver = solver
        self.n_pivots = n_pivots
        self.random_state = random_state

    def _fit(self, T, n_items):
        n_pivots = int(self.n_pivots)
        t0 = time.perf_counter()
        covered, _ = triplet_vertex_cover(T, n_items)
        T_kept = T[~covered]
        t1 = time.perf_counter()
        graph = triplet_cc_instance(T_kept, n_items)
        if self.solver == "local_search":
            labels = cc_local_search(graph)
        else:
            labels = pivot(graph, random_state=self.random_state, n_runs=n_pivots)
            if self.solver == "pivot_ls":
                labels = cc_local_search(graph, labels)
        t2 = time.perf_counter()
        self.labels_ = np.asarray(labels, dtype=np.int64)
        self.cc_cost_ = float(cc_cost(self.labels_, graph))
        self.objective_ = int(triplet_cost(T, self.labels_))
        self.n_removed_ = int(covered.sum())
        self.timings_ = {"vertex_cover": t1 - t0, "correlation_clustering": t2 - t1}
        return self

    @classmethod
    def warmup(cls) -> None:
        T = np.array([[0, 1, 2], [0, 2, 1], [1, 2, 0], [2, 3, 0]], dtype=np.int64)
        cls(random_state=0).fit(T)
