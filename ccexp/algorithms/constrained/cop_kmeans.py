"""COP-KMeans (Wagstaff, Cardie, Rogers, Schroedl, ICML 2001), a baseline of Zhu et al. (2013).

K-means whose assignment step puts each point in the nearest cluster that
violates none of its must-link / cannot-link constraints with the points
already assigned; if a point has no such cluster the algorithm fails
("early termination without a solution", Zhu et al., footnote 3).

A failed run sets ``status_ = "infeasible"`` and ``labels_`` to a single
cluster (all zeros), whose ARI against any ground truth is exactly 0: the
runner scores it like any clustering, so the tables count a failure as
ARI 0 (what Zhu et al.'s low COP-KMeans areas suggest they did).
"""

from __future__ import annotations

import time

import numpy as np

from sklearn.utils._param_validation import StrOptions

from ..._validation import check_random_state
from ...registry import ALGORITHMS
from ._cop_kmeans_kernels import cop_assign_pass
from .spectral import COMMON_CONSTRAINTS, POSITIVE_INT, PairwiseEstimator, prepare_features


def adjacency(n: int, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR neighbours of an undirected pair list (both directions)."""
    if len(pairs) == 0:
        return np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    order = np.argsort(src, kind="stable")
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(ptr, src + 1, 1)
    return np.cumsum(ptr), np.ascontiguousarray(dst[order], dtype=np.int64)


@ALGORITHMS.register("cop_kmeans")
class COPKMeans(PairwiseEstimator):
    """COP-KMeans with k given.

    Parameters
    ----------
    n_clusters : int, optional
        k; by default ``problem.meta["n_clusters"]``.
    max_iter : int
        Assignment / update rounds; stops earlier when the assignment repeats.
    n_init : int
        Random initialisations tried until one completes (1, as in
        Wagstaff et al.; the paper's failures suggest no restarts).
    order : {"data", "random"}
        Order in which a pass visits the points ("for each point d_i in D").
    scale : {"symmetric", "none"}
        Features scaled to [-1, 1] first (the paper's).
    random_state : int or None
        Initial centers are k distinct points drawn at random.

    Attributes
    ----------
    labels_ : int64 (n,)
        All zeros when infeasible.
    status_ : {"ok", "infeasible"}
    n_iter_, failed_point_ (the point with no feasible cluster, or -1), timings_
    """

    _parameter_constraints = {**COMMON_CONSTRAINTS, "max_iter": [POSITIVE_INT], "order": [StrOptions({"data", "random"})]}

    def __init__(self, n_clusters=None, max_iter=300, n_init=1, order="data", scale="symmetric", random_state=None):
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.n_init = n_init
        self.order = order
        self.scale = scale
        self.random_state = random_state

    def _fit(self, X, ml, cl, k):
        max_iter, n_init = self.max_iter, self.n_init
        t0 = time.perf_counter()
        Xs = prepare_features(X, self.scale)
        n = Xs.shape[0]
        if k > n:
            raise ValueError(f"n_clusters must be at most n_items={n}, got {k}")
        ml_ptr, ml_idx = adjacency(n, ml)
        cl_ptr, cl_idx = adjacency(n, cl)
        rng = check_random_state(self.random_state)
        labels = np.empty(n, dtype=np.int64)
        self.status_, self.failed_point_, self.n_iter_ = "infeasible", -1, 0
        for _ in range(n_init):
            order = np.arange(n) if self.order == "data" else rng.permutation(n)
            centers = Xs[rng.choice(n, size=k, replace=False)].copy()
            prev = None
            failed = -1
            for it in range(max_iter):
                failed = cop_assign_pass(Xs, centers, order, ml_ptr, ml_idx, cl_ptr, cl_idx, labels)
                if failed >= 0:
                    break
                for c in range(k):
                    members = labels == c
                    if members.any():  # an emptied cluster keeps its center
                        centers[c] = Xs[members].mean(axis=0)
                if prev is not None and np.array_equal(prev, labels):
                    break
                prev = labels.copy()
            self.n_iter_ = it + 1
            self.failed_point_ = int(failed)
            if failed < 0:
                self.status_ = "ok"
                break
        self.labels_ = labels.copy() if self.status_ == "ok" else np.zeros(n, dtype=np.int64)
        self.timings_ = {"cop_kmeans": time.perf_counter() - t0}
        return self

    @classmethod
    def warmup(cls) -> None:
        X = np.random.default_rng(0).random((8, 2))
        cls(n_clusters=2, random_state=0).fit(X, must_link=[[0, 1]], cannot_link=[[2, 3]])
