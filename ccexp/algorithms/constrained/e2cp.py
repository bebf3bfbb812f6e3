"""E2CP: exhaustive and efficient constraint propagation (Lu and Ip, ECCV 2010).

The constraints form Z (z_ij = z_ji = +1 for a must-link, -1 for a
cannot-link, 0 otherwise).  With L = D^{-1/2} W D^{-1/2} of a k-NN affinity
W, the vertical then horizontal propagations F_v <- a L F_v + (1 - a) Z and
F_h <- a F_h L + (1 - a) F_v* converge to the closed form

    F* = (1 - a)^2 (I - a L)^{-1} Z (I - a L)^{-1},

and the affinity is adjusted by the propagated constraints

    w~_ij = 1 - (1 - F*_ij)(1 - w_ij)  if F*_ij >= 0,
    w~_ij = (1 + F*_ij) w_ij           otherwise,

before NJW spectral clustering.  ``forest_e2cp`` (Zhu et al. 2013,
Section III) runs the same propagation on a clustering-forest affinity.
"""

from __future__ import annotations

import time
from numbers import Real

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.spatial.distance import cdist
from sklearn.utils._param_validation import Interval, StrOptions

from ...registry import ALGORITHMS
from ..base import hook_params
from .forest import CUTS, PSEUDO, THRESHOLDS, forest_affinity, warmup as forest_warmup
from .spectral import (
    BANDWIDTHS, COMMON_CONSTRAINTS, LAPLACIANS, POSITIVE_INT, PairwiseEstimator, blas_threads, gaussian_knn_affinity,
    knn_graph, knn_mask, njw_spectral, prepare_features,
)


def constraint_matrix(n: int, must_link, cannot_link) -> np.ndarray:
    """Z of Lu and Ip: +1 on must-link, -1 on cannot-link pairs (symmetric)."""
    Z = np.zeros((n, n))
    for pairs, value in ((must_link, 1.0), (cannot_link, -1.0)):
        if len(pairs):
            Z[pairs[:, 0], pairs[:, 1]] = value
            Z[pairs[:, 1], pairs[:, 0]] = value
    return Z


def e2cp_propagate(W: np.ndarray, Z: np.ndarray, alpha: float = 0.8) -> np.ndarray:
    """F* = (1 - a)^2 (I - a L)^{-1} Z (I - a L)^{-1}, L = D^{-1/2} W D^{-1/2}.

    I - a L is symmetric positive definite for 0 <= a < 1 (L's eigenvalues
    lie in [-1, 1]), so both solves share one Cholesky factorisation.
    Isolated points get degree 1.  O(n^3).
    """
    if not (0.0 <= alpha < 1.0):
        raise ValueError(f"alpha must be in [0, 1), got {alpha!r}")
    n = W.shape[0]
    L = normalized_affinity(W)
    with blas_threads(n):
        fac = cho_factor(np.eye(n) - alpha * L)
        F = cho_solve(fac, Z)  # (I - aL)^{-1} Z
        F = cho_solve(fac, F.T).T  # ... (I - aL)^{-1}  (symmetric inverse)
    return (1.0 - alpha) ** 2 * F


#: How F* enters the adjustment: as the closed form gives it (the default), divided by its largest magnitude so
#: that the strongest propagated constraint is +-1, or without the closed form's (1 - a)^2 factor (clipped to
#: [-1, 1]) (issue 34's ablation, experiments/zhu2013/README.md).
F_SCALES = ("none", "max", "no_factor")

#: How the directed k-NN graph is made symmetric before the propagation: an edge of weight w_ij wherever either point
#: lists the other (``"max"``, the default, SPClust's graph), or W = (W + W^T) / 2, so that a one-way edge keeps half
#: its weight (``"mean"``, the construction of the third-party E2CPs read for issue 34).
GRAPH_SYMS = ("max", "mean")

#: The affinity that Lu and Ip's adjustment and the spectral step read: the graph's weights W (the default), or the
#: normalised L = D^{-1/2} W D^{-1/2} that the propagation runs on (issue 34's sensitivity check, no source).
ADJUST_ON = ("w", "lbar")


def scale_propagation(F: np.ndarray, f_scale: str = "none", alpha: float | None = None) -> np.ndarray:
    """F* as given (``"none"``), F* / max |F*| (``"max"``) or F* / (1 - a)^2 clipped to [-1, 1] (``"no_factor"``).

    Lu and Ip's adjustment reads f*_ij in [-1, 1] as the strength of a
    propagated must-link (> 0) or cannot-link (< 0).  The closed form's
    (1 - a)^2 factor keeps |F*| far below 1 (at most 0.06-0.13 on Zhu et
    al.'s five UCI datasets with a = 0.8), so the adjusted affinity stays
    within a few per cent of W; ``"max"`` rescales it to the full range
    (unchanged when F* is all zero); ``"no_factor"`` is the propagation
    iterated without the (1 - a) weights (F <- a L F + Z), which can exceed
    1 in magnitude and is clipped so that the adjusted affinity stays in
    [0, 1].  ``alpha`` is required for ``"no_factor"``.
    """
    if f_scale not in F_SCALES:
        raise ValueError(f"f_scale must be one of {F_SCALES}, got {f_scale!r}")
    if f_scale == "max":
        top = float(np.abs(F).max())
        if top > 0:
            return F / top
    if f_scale == "no_factor":
        if alpha is None or not (0.0 <= alpha < 1.0):
            raise ValueError(f"alpha must be in [0, 1) for f_scale='no_factor', got {alpha!r}")
        return np.clip(F / (1.0 - alpha) ** 2, -1.0, 1.0)
    return F


def mean_symmetrize(W: np.ndarray, directed: np.ndarray) -> np.ndarray:
    """W restricted to the k-NN graph symmetrised as (W_knn + W_knn^T) / 2.

    ``W`` is symmetric and nonzero on ``directed | directed.T`` (the
    default graph); a pair listed by both points keeps w_ij, a pair listed
    by one of them gets w_ij / 2 (Lu and Ip's construction as the
    third-party E2CPs implement it).
    """
    return W * (directed.astype(np.float64) + directed.T) / 2.0


def normalized_affinity(W: np.ndarray) -> np.ndarray:
    """L = D^{-1/2} W D^{-1/2} (isolated points get degree 1), as in :func:`e2cp_propagate`."""
    deg = W.sum(axis=1)
    s = 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0))
    return s[:, None] * W * s[None, :]


def e2cp_adjust(W: np.ndarray, F: np.ndarray) -> np.ndarray:
    """The constraint-adjusted affinity of Lu and Ip (Section 4 of their paper)."""
    return np.where(F >= 0, 1.0 - (1.0 - F) * (1.0 - W), (1.0 + F) * W)


class _E2CPBase(PairwiseEstimator):
    def _base_affinity(self, Xs, random_state):  # pragma: no cover - overridden
        """(W, extra timings): the graph E2CP adjusts; a subclass declares the parameters it reads as keyword-only."""
        raise NotImplementedError

    def _fit(self, X, ml, cl, k):
        t0 = time.perf_counter()
        Xs = prepare_features(X, self.scale)
        if self.graph_sym not in GRAPH_SYMS:
            raise ValueError(f"graph_sym must be one of {GRAPH_SYMS}, got {self.graph_sym!r}")
        if self.adjust_on not in ADJUST_ON:
            raise ValueError(f"adjust_on must be one of {ADJUST_ON}, got {self.adjust_on!r}")
        kw = {}
        for name in hook_params(type(self)._base_affinity):  # read here and handed on (issue 30)
            kw[name] = getattr(self, name)
        W, extra = self._base_affinity(Xs, self.random_state, **kw)
        t1 = time.perf_counter()
        F = e2cp_propagate(W, constraint_matrix(Xs.shape[0], ml, cl), float(self.alpha))
        F = scale_propagation(F, self.f_scale, float(self.alpha))
        Wt = e2cp_adjust(W if self.adjust_on == "w" else normalized_affinity(W), F)
        np.fill_diagonal(Wt, 0.0)
        t2 = time.perf_counter()
        # Forest+E2CP has no laplacian option: it keeps NJW's, as COP-RF
        self.labels_ = njw_spectral(Wt, k, self.n_init, self.random_state, laplacian=getattr(self, "laplacian", "sym"))
        self.timings_ = {**extra, "affinity": t1 - t0, "propagation": t2 - t1, "spectral": time.perf_counter() - t2}
        self.status_ = "ok"
        return self


@ALGORITHMS.register("e2cp")
class E2CP(_E2CPBase):
    """E2CP (Lu and Ip 2010) on the Gaussian k-NN affinity, then NJW spectral clustering.

    Parameters
    ----------
    n_clusters : int, optional
        k; by default ``problem.meta["n_clusters"]``.
    alpha : float in [0, 1)
        Propagation weight a.
    n_neighbors : int
        k-NN graph of the Gaussian affinity.
    scale : {"symmetric", "none"}
    n_init : int
        k-means restarts of the spectral step.
    random_state : int or None
    bandwidth, laplacian
        As :class:`~.spectral.SpectralClustering` (issue 34's ablation; the
        defaults are SPClust's, so the three share one graph).
    f_scale : {"none", "max", "no_factor"}
        F* as the closed form gives it (the default), rescaled to
        max |F*| = 1, or without the (1 - a)^2 factor, before the adjustment
        (:func:`scale_propagation`; issue 34's ablation).
    graph_sym : {"max", "mean"}
        The k-NN graph's symmetrisation (:data:`GRAPH_SYMS`; issue 34's
        ablation).
    adjust_on : {"w", "lbar"}
        The affinity that is adjusted (:data:`ADJUST_ON`; issue 34's
        ablation).

    Attributes
    ----------
    labels_, timings_, status_
    """

    _parameter_constraints = {
        **COMMON_CONSTRAINTS, "alpha": [Interval(Real, 0, 1, closed="left")], "n_neighbors": [POSITIVE_INT],
        "bandwidth": [StrOptions(set(BANDWIDTHS))], "laplacian": [StrOptions(set(LAPLACIANS))],
        "f_scale": [StrOptions(set(F_SCALES))], "graph_sym": [StrOptions(set(GRAPH_SYMS))],
        "adjust_on": [StrOptions(set(ADJUST_ON))],
    }

    def __init__(self, n_clusters=None, alpha=0.8, n_neighbors=10, scale="symmetric", n_init=10, random_state=None,
                 bandwidth="mean_kth", laplacian="sym", f_scale="none", graph_sym="max", adjust_on="w"):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.n_neighbors = n_neighbors
        self.scale = scale
        self.n_init = n_init
        self.random_state = random_state
        self.bandwidth = bandwidth
        self.laplacian = laplacian
        self.f_scale = f_scale
        self.graph_sym = graph_sym
        self.adjust_on = adjust_on

    def _base_affinity(self, Xs, random_state, *, n_neighbors, bandwidth, graph_sym):
        W = gaussian_knn_affinity(Xs, n_neighbors, bandwidth=bandwidth)
        if graph_sym == "mean":
            W = mean_symmetrize(W, knn_mask(-cdist(Xs, Xs), n_neighbors, symmetric=False))
        return W, {}


@ALGORITHMS.register("forest_e2cp")
class ForestE2CP(_E2CPBase):
    """Forest+E2CP (Zhu et al. 2013, Section III): E2CP on a clustering-forest affinity.

    The affinity is the tree-averaged same-leaf indicator of an unconstrained
    clustering forest (pseudo two-class problem, Gini, sqrt(d) features per
    node), restricted to its k-NN graph as in COP-RF.

    Parameters
    ----------
    n_clusters : int, optional
    alpha : float in [0, 1)
        E2CP's propagation weight.
    n_trees : int
    mtry : int, optional
        Default sqrt(d).
    n_neighbors : int, optional
        k-NN graph of the forest affinity; default round(n / 10).
    scale, n_init, random_state
        As :class:`E2CP`.
    pseudo, cuts, threshold, leaf_size
        The tree variants of issue 34's ablation, as :class:`~.cop_rf.COPRF`
        (defaults: per-tree pseudo points, axis-aligned midpoint cuts, phi = 1).
    f_scale, graph_sym, adjust_on
        As :class:`E2CP`.
    """

    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "alpha": [Interval(Real, 0, 1, closed="left")],
        "n_trees": [POSITIVE_INT],
        "mtry": [POSITIVE_INT, None],
        "n_neighbors": [POSITIVE_INT, None],
        "pseudo": [StrOptions(set(PSEUDO))],
        "cuts": [StrOptions(set(CUTS))],
        "threshold": [StrOptions(set(THRESHOLDS))],
        "leaf_size": [POSITIVE_INT],
        "f_scale": [StrOptions(set(F_SCALES))],
        "graph_sym": [StrOptions(set(GRAPH_SYMS))],
        "adjust_on": [StrOptions(set(ADJUST_ON))],
    }

    def __init__(self, n_clusters=None, alpha=0.8, n_trees=1000, mtry=None, n_neighbors=None, scale="symmetric",
                 n_init=10, random_state=None, pseudo="tree", cuts="axis", threshold="midpoint", leaf_size=1,
                 f_scale="none", graph_sym="max", adjust_on="w"):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.n_trees = n_trees
        self.mtry = mtry
        self.n_neighbors = n_neighbors
        self.scale = scale
        self.n_init = n_init
        self.random_state = random_state
        self.pseudo = pseudo
        self.cuts = cuts
        self.threshold = threshold
        self.leaf_size = leaf_size
        self.f_scale = f_scale
        self.graph_sym = graph_sym
        self.adjust_on = adjust_on

    def _base_affinity(self, Xs, random_state, *, n_trees, mtry, pseudo, cuts, threshold, leaf_size, n_neighbors,
                       graph_sym):
        A, info = forest_affinity(Xs, n_trees=n_trees, mtry=mtry, n_filter=0, random_state=random_state,
                                  pseudo=pseudo, cuts=cuts, threshold=threshold, leaf_size=leaf_size)
        k = max(1, round(Xs.shape[0] / 10)) if n_neighbors is None else n_neighbors
        t = info["timings"]
        W = knn_graph(A, k)
        if graph_sym == "mean":
            W = mean_symmetrize(W, knn_mask(A, k, symmetric=False))
        return W, {"forest": t["filter"] + t["growth"] + t["affinity"]}

    @classmethod
    def warmup(cls) -> None:
        forest_warmup()
