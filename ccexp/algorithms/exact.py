"""Every supervision kind as one correlation-clustering cost; its exact optimum and two baselines.

:func:`pair_objective` turns a :class:`~ccexp.problem.Problem` into the
:class:`~ccexp.cc.exact.PairObjective` that the project already scores it by
(``ccexp.score(..., problem=prob)["objective"]``):

* triplets: s(f, T), Problem 2 of Ukkonen (2017);
* input clusterings: d(C) of Gionis et al. (2007), from ``X_uv`` with the
  missing-value coin ``p`` (``meta["missing_p"]``, default 1/2);
* must-link / cannot-link pairs: the number of violated constraints (Zhu et
  al. 2013's supervision), a must-link costing 1 when split, a cannot-link
  1 when joined;
* a pairwise-similarity oracle (Aronsson & Chehreghani 2024): every pair
  queried once from a fresh session (so every estimator sees the same fixed
  sigma), cost = the correlation-clustering cost of Eq. 2 with weights sigma
  (minimising it maximises Delta^MaxCor, Eq. 5).

:func:`signed_weights` gives the signed weight matrix a pairwise solver
reads (triplets: the votes of Definition 2 over all triplets).

Estimators (registered): ``cc_exact`` (the proven optimum, :func:`ccexp.cc.exact.cc_exact`,
plus the LP bound), ``cc_pivot`` (KwikCluster, best of 10 orders) and
``cc_maxcor_ls`` (Algorithm 2 of Aronsson & Chehreghani on the fixed weights).
Each records ``pair_objective``, its cost under :func:`pair_objective`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ..cc import pivot, signed_graph_from_edges
from ..cc.exact import PairObjective, cc_exact, cc_lp, pair_index
from ..objectives.clusterings import dense_weights
from ..registry import ALGORITHMS
from .active.local_search import max_correlation_clustering
from .base import RANDOM_STATE, ProblemEstimator, validate_params, validates_params_first


def _fixed_similarity(problem) -> np.ndarray:
    n = problem.n_items
    iu, iv = np.triu_indices(n, 1)
    oracle = problem.oracle.session() if hasattr(problem.oracle, "session") else problem.oracle
    s = np.asarray(oracle.query(iu, iv), dtype=np.float64)
    S = np.zeros((n, n))
    S[iu, iv] = s
    S[iv, iu] = s
    return S


def _clusterings_X(problem) -> np.ndarray:
    return dense_weights(problem.clusterings, problem.meta.get("missing_p", 0.5))


def pair_objective(problem) -> PairObjective:
    """The correlation-clustering cost by which ``problem``'s supervision scores a clustering."""
    n = problem.n_items
    if problem.triplets is not None:
        return PairObjective.from_triplets(problem.triplets, n)
    if problem.clusterings is not None:
        return PairObjective.from_distances(_clusterings_X(problem))
    if problem.must_link is not None or problem.cannot_link is not None:
        P = n * (n - 1) // 2
        apart = np.zeros(P)
        together = np.zeros(P)
        for arr, target in ((problem.must_link, apart), (problem.cannot_link, together)):
            if arr is not None and len(arr):
                np.add.at(target, pair_index(n, arr[:, 0], arr[:, 1]), 1.0)
        return PairObjective(n, apart, together)
    if problem.oracle is not None:
        return PairObjective.from_weights(_fixed_similarity(problem))
    raise ValueError(f"no correlation-clustering objective for a problem with {problem.kind!r} supervision")


def signed_weights(problem) -> np.ndarray:
    """Dense signed weights (> 0 together) of ``problem``, for pairwise solvers."""
    n = problem.n_items
    if problem.triplets is not None:
        T = problem.triplets
        a, b, c = T[:, 0], T[:, 1], T[:, 2]
        m = T.shape[0]
        g = signed_graph_from_edges(
            n, np.concatenate([a, a, b]), np.concatenate([b, c, c]),
            np.concatenate([np.ones(m), -np.ones(m), -np.ones(m)]),
        )
        return g.to_dense()
    obj = pair_objective(problem)
    w = obj.apart - obj.together  # > 0: separating costs more, so "together"
    W = np.zeros((n, n))
    iu, iv = np.triu_indices(n, 1)
    W[iu, iv] = w
    W[iv, iu] = w
    return W


class _PairEstimator(ProblemEstimator):
    reads = ("triplets", "pairwise", "clusterings", "similarity")  # every kind with a pair objective
    needs_features = False

    supervision = "any"

    def _finish(self, problem, labels, extra=None):
        self.labels_ = np.asarray(labels, dtype=np.int64)
        self.pair_objective_ = pair_objective(problem).cost(self.labels_)
        self.record_ = {"pair_objective": self.pair_objective_, **(extra or {})}
        return self


def _graph(W):
    n = W.shape[0]
    iu, iv = np.triu_indices(n, 1)
    return signed_graph_from_edges(n, iu, iv, W[iu, iv])


@ALGORITHMS.register("cc_exact")
class CCExact(_PairEstimator):
    """The optimum of :func:`pair_objective`, by :func:`ccexp.cc.exact.cc_exact`.

    Parameters
    ----------
    time_limit : float
        Seconds; past it the best partition found is returned with its gap.
    solver : {"highs", "cpsat"}
    lp : bool
        Also solve the LP relaxation (recorded as ``lp_bound``).
    random_state : ignored (the solve is deterministic)

    Attributes
    ----------
    labels_, result_ (:class:`~ccexp.cc.exact.ExactResult`), lp_bound_,
    record_ (``pair_objective``, ``exact_optimal``, ``exact_gap``,
    ``exact_bound``, ``lp_bound``, ``exact_seconds``).
    """

    _parameter_constraints = {
        "time_limit": [Interval(Real, 0, None, closed="neither")],
        "solver": [StrOptions({"highs", "cpsat"})],
        "lp": ["boolean"],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, time_limit: float = 600.0, solver: str = "highs", lp: bool = True, random_state=None):
        self.time_limit = time_limit
        self.solver = solver
        self.lp = lp
        self.random_state = random_state

    @validates_params_first
    def fit_problem(self, problem):
        validate_params(self)
        obj = pair_objective(problem)
        W = signed_weights(problem)
        # a heuristic incumbent: KwikCluster on the signed weights
        init = pivot(_graph(W), random_state=0, n_runs=10)
        res = cc_exact(obj, time_limit=float(self.time_limit), solver=self.solver, initial_labels=init)
        self.result_ = res
        self.lp_bound_ = cc_lp(obj, time_limit=float(self.time_limit)).value if self.lp else float("nan")
        return self._finish(problem, res.labels, {
            "exact_optimal": bool(res.optimal), "exact_gap": float(res.gap),
            "exact_bound": float(res.lower_bound), "lp_bound": float(self.lp_bound_),
            "exact_seconds": float(res.time),
        })

    @classmethod
    def warmup(cls) -> None:
        return None


@ALGORITHMS.register("cc_pivot")
class CCPivot(_PairEstimator):
    """KwikCluster (Ailon et al. 2008) on :func:`signed_weights`, best of ``n_runs`` orders."""

    _parameter_constraints = {"n_runs": [Interval(Integral, 1, None, closed="left")], "random_state": RANDOM_STATE}

    def __init__(self, n_runs: int = 10, random_state=None):
        self.n_runs = n_runs
        self.random_state = random_state

    @validates_params_first
    def fit_problem(self, problem):
        validate_params(self)
        labels = pivot(_graph(signed_weights(problem)), random_state=self.random_state, n_runs=self.n_runs)
        return self._finish(problem, labels)


@ALGORITHMS.register("cc_maxcor_ls")
class CCMaxCorLS(_PairEstimator):
    """Algorithm 2 of Aronsson & Chehreghani (2024) on the fixed :func:`signed_weights`.

    The local search of the active loop, run once on a fixed sigma (T random
    restarts, the best kept), without any querying.
    """

    _parameter_constraints = {"n_restarts": [Interval(Integral, 1, None, closed="left")],
                              "random_state": RANDOM_STATE}

    def __init__(self, n_restarts: int = 3, random_state=None):
        self.n_restarts = n_restarts
        self.random_state = random_state

    @validates_params_first
    def fit_problem(self, problem):
        validate_params(self)
        labels, _ = max_correlation_clustering(signed_weights(problem), n_restarts=self.n_restarts,
                                               random_state=self.random_state)
        return self._finish(problem, labels)
