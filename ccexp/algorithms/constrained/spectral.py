"""Spectral clustering (Ng, Jordan, Weiss 2002) and the affinities it runs on.

Shared by every method of Zhu, Loy and Gong (2013): SPClust (registered
here as ``spectral``), Spectral Learning, E2CP, Forest+E2CP and COP-RF all
end in :func:`njw_spectral` with k given (k = the number of classes, as in
the paper).  Features are scaled to [-1, 1] per column by the estimators
(Section III: "All raw features are scaled to the range of [-1, 1]").
"""

from __future__ import annotations

import time
from numbers import Integral

import numpy as np
from scipy.linalg import eigh
from scipy.spatial.distance import cdist
from sklearn.cluster import KMeans
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import threadpool_limits

from ..._validation import as_index_array, check_features, check_positive_int, unknown_name_error
from ...registry import ALGORITHMS
from .._n_clusters import n_clusters_for_fit, n_clusters_of
from ..base import RANDOM_STATE, FeatureEstimator, validate_params, validates_params_first

SCALINGS = ("symmetric", "none")
#: Kernel widths of the Gaussian k-NN graph (issue 34's ablation; the paper states none):
#: ``mean_kth`` (ours: sigma = mean distance to the k-th neighbour), ``median`` (sigma = the median
#: pairwise distance), ``local`` (Zelnik-Manor and Perona 2004: sigma_i = distance to the 7th
#: neighbour, w_ij = exp(-d^2 / (sigma_i sigma_j))), ``fixed`` (w_ij = exp(-d^2), scikit-learn's
#: SpectralClustering default gamma = 1).
BANDWIDTHS = ("mean_kth", "median", "local", "fixed")
#: Spectral embeddings: ``sym`` (Ng, Jordan, Weiss: D^-1/2 W D^-1/2, rows normalised), ``rw`` (Shi and
#: Malik: W v = lambda D v), ``unnormalized`` (the k smallest eigenvectors of D - W); von Luxburg (2007).
LAPLACIANS = ("sym", "rw", "unnormalized")
#: Neighbour whose distance is sigma_i under ``bandwidth="local"`` (Zelnik-Manor and Perona's choice).
LOCAL_SCALING_NEIGHBOUR = 7
#: Below this many points the dense linear algebra and k-means run on one
#: thread: at the paper's sizes (n <= 351) BLAS / OpenMP threads on a busy
#: two-core machine cost seconds where one thread takes milliseconds
#: (measured: eigh + k-means on Ionosphere 5.3 s threaded vs 0.035 s single).
SINGLE_THREAD_MAX_ITEMS = 2000


def blas_threads(n: int):
    """A context limiting BLAS / OpenMP to one thread for small problems (no limit above)."""
    return threadpool_limits(1 if n < SINGLE_THREAD_MAX_ITEMS else None)


def scale_symmetric(X) -> np.ndarray:
    """Scale every column linearly onto [-1, 1] (constant columns become 0).

    Examples
    --------
    >>> scale_symmetric(np.array([[0.0, 5.0], [2.0, 5.0], [4.0, 5.0]]))
    array([[-1.,  0.],
           [ 0.,  0.],
           [ 1.,  0.]])
    """
    X = check_features(X, "X")
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = hi - lo
    out = np.zeros_like(X)
    ok = span > 0
    out[:, ok] = 2.0 * (X[:, ok] - lo[ok]) / span[ok] - 1.0
    return out


def prepare_features(X, scale: str) -> np.ndarray:
    """``X`` validated and scaled: ``"symmetric"`` ([-1, 1], the paper's) or ``"none"``."""
    if scale not in SCALINGS:
        raise unknown_name_error("scale", scale, SCALINGS)
    X = check_features(X, "X")
    return scale_symmetric(X) if scale == "symmetric" else X


def knn_mask(A: np.ndarray, n_neighbors: int, symmetric: bool = True) -> np.ndarray:
    """Symmetric k-nearest-neighbour mask of a similarity matrix.

    ``mask[i, j]`` is true iff j is among the ``n_neighbors`` most similar
    points of i or i among those of j (the diagonal is never a neighbour).
    Ties are broken by index (a stable sort).  ``symmetric=False`` returns
    the directed mask (j among i's neighbours only), which E2CP's
    ``graph_sym="mean"`` averages with its transpose.
    """
    n = A.shape[0]
    k = min(n_neighbors, n - 1)
    S = A.astype(np.float64, copy=True)
    np.fill_diagonal(S, -np.inf)
    nbrs = np.argsort(-S, axis=1, kind="stable")[:, :k]
    mask = np.zeros((n, n), dtype=bool)
    mask[np.repeat(np.arange(n), k), nbrs.ravel()] = True
    return mask | mask.T if symmetric else mask


def knn_graph(A: np.ndarray, n_neighbors: int) -> np.ndarray:
    """``A`` restricted to its symmetric k-NN graph (COP-RF, Section II-C)."""
    return np.where(knn_mask(A, n_neighbors), A, 0.0)


def gaussian_knn_affinity(X: np.ndarray, n_neighbors: int = 10, sigma: float | None = None,
                          bandwidth: str = "mean_kth") -> np.ndarray:
    """Gaussian affinity on the symmetric k-NN graph.

    w_ij = exp(-||x_i - x_j||^2 / (2 sigma^2)) for k-NN pairs, 0 otherwise,
    with sigma the mean distance of a point to its k-th neighbour unless
    given (our choice; the paper does not state its kernel width).  The
    other ``bandwidth`` rules of :data:`BANDWIDTHS` are for the ablation of
    issue 34 (experiments/zhu2013/README.md); ``sigma`` overrides any rule
    but ``local``.
    """
    if bandwidth not in BANDWIDTHS:
        raise unknown_name_error("bandwidth", bandwidth, BANDWIDTHS)
    D = cdist(X, X)
    n = X.shape[0]
    k = min(n_neighbors, n - 1)
    if bandwidth == "local":
        j = min(LOCAL_SCALING_NEIGHBOUR, n - 1)
        local = np.sort(D, axis=1)[:, j]
        local = np.where(local > 0, local, 1.0)
        W = np.exp(-(D**2) / np.outer(local, local))
    elif bandwidth == "fixed" and sigma is None:
        W = np.exp(-(D**2))
    else:
        if sigma is None and bandwidth == "median":
            sigma = float(np.median(D[np.triu_indices(n, 1)])) or 1.0
        if sigma is None:
            kth = np.sort(D, axis=1)[:, k]  # column 0 is the point itself
            sigma = float(np.mean(kth)) or 1.0
        W = np.exp(-(D**2) / (2.0 * sigma**2))
    W = np.where(knn_mask(-D, k), W, 0.0)
    np.fill_diagonal(W, 0.0)
    return W


def njw_spectral(W: np.ndarray, n_clusters: int, n_init: int = 10, random_state=None, laplacian: str = "sym") -> np.ndarray:
    """Ng-Jordan-Weiss spectral clustering of a symmetric non-negative affinity.

    L = D^{-1/2} W D^{-1/2}; the k leading eigenvectors, rows normalised to
    unit length, clustered by k-means (best of ``n_init``).  An isolated
    point (zero degree) gets degree 1 so that L stays finite.
    ``laplacian="rw"`` (Shi and Malik: the k leading generalised
    eigenvectors of W v = lambda D v) and ``"unnormalized"`` (the k smallest
    eigenvectors of D - W), not row-normalised, are for the ablation of
    issue 34 (:data:`LAPLACIANS`).

    Returns
    -------
    int64 array (n,)

    Notes
    -----
    O(n^3) for the dense eigendecomposition (n <= a few thousand).
    """
    n = W.shape[0]
    k = check_positive_int(n_clusters, "n_clusters")
    if k > n:
        raise ValueError(f"n_clusters must be at most n_items={n}, got {k}")
    if laplacian not in LAPLACIANS:
        raise unknown_name_error("laplacian", laplacian, LAPLACIANS)
    W = 0.5 * (W + W.T)
    deg = W.sum(axis=1)
    deg = np.where(deg > 0, deg, 1.0)
    with blas_threads(n):
        if laplacian == "sym":
            s = 1.0 / np.sqrt(deg)
            L = s[:, None] * W * s[None, :]
            _, vecs = eigh(L, subset_by_index=[n - k, n - 1])
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            U = vecs / np.where(norms > 0, norms, 1.0)
        elif laplacian == "rw":
            _, U = eigh(W, np.diag(deg), subset_by_index=[n - k, n - 1])
        else:
            _, U = eigh(np.diag(deg) - W, subset_by_index=[0, k - 1])
        km = KMeans(n_clusters=k, n_init=n_init, random_state=random_state).fit(U)
    return km.labels_.astype(np.int64)


def pairs_of(problem, field: str) -> np.ndarray:
    """The ``(m, 2)`` pair array ``problem.<field>`` (``must_link`` or ``cannot_link``), empty when absent."""
    value = getattr(problem, field)
    return np.empty((0, 2), dtype=np.int64) if value is None else value


#: ``_parameter_constraints`` shared by the family (scikit-learn's validation)
POSITIVE_INT = Interval(Integral, 1, None, closed="left")
COMMON_CONSTRAINTS = {
    "n_clusters": [POSITIVE_INT, None],
    "scale": [StrOptions(set(SCALINGS))],
    "n_init": [POSITIVE_INT],
    "random_state": RANDOM_STATE,
}


class PairwiseEstimator(FeatureEstimator):
    """Shared plumbing: ``fit(X, y=None, *, must_link=None, cannot_link=None)`` and ``fit_problem``.

    ``y`` is ignored (scikit-learn's place for it); the constraints are
    keywords, int arrays of shape (p, 2) of row indices of ``X``.
    """

    reads = ("pairwise",)  # capability declaration (ccexp.capabilities)
    needs_features = True

    supervision = "must_link"

    @validates_params_first
    def fit(self, X, y=None, *, must_link=None, cannot_link=None):
        """Cluster the rows of ``X`` under the must-link / cannot-link pairs (``y`` ignored)."""
        validate_params(self)
        X = self._validate_X(X)
        n = X.shape[0]
        ml = as_index_array(np.empty((0, 2)) if must_link is None else must_link, "must_link", n, 2)
        cl = as_index_array(np.empty((0, 2)) if cannot_link is None else cannot_link, "cannot_link", n, 2)
        return self._fit(X, ml, cl, n_clusters_for_fit(self))

    @validates_params_first
    def fit_problem(self, problem):
        validate_params(self)
        X = self._validate_X(problem.require("X", type(self).__name__))
        return self._fit(X, pairs_of(problem, "must_link"), pairs_of(problem, "cannot_link"), n_clusters_of(self, problem))

    def _fit(self, X, ml, cl, k):  # pragma: no cover - overridden
        raise NotImplementedError


@ALGORITHMS.register("spectral")
class SpectralClustering(PairwiseEstimator):
    """SPClust: unconstrained NJW spectral clustering with k given (Zhu et al. 2013, Section III).

    Parameters
    ----------
    n_clusters : int, optional
        k; by default ``problem.meta["n_clusters"]``.
    n_neighbors : int
        k-NN graph of the Gaussian affinity (:func:`gaussian_knn_affinity`).
    scale : {"symmetric", "none"}
        Per-column scaling to [-1, 1] first (the paper's).
    n_init : int
        k-means restarts on the spectral embedding.
    random_state : int or None
    bandwidth : {"mean_kth", "median", "local", "fixed"}
        Kernel width of the Gaussian graph (:data:`BANDWIDTHS`; default ours).
    laplacian : {"sym", "rw", "unnormalized"}
        Spectral embedding (:data:`LAPLACIANS`; default NJW's, the paper's [10]).

    ``bandwidth`` and ``laplacian`` are for the ablation of issue 34
    (experiments/zhu2013/README.md): the paper states neither.

    Attributes
    ----------
    labels_, timings_, status_
    """

    _parameter_constraints = {
        **COMMON_CONSTRAINTS, "n_neighbors": [POSITIVE_INT], "bandwidth": [StrOptions(set(BANDWIDTHS))],
        "laplacian": [StrOptions(set(LAPLACIANS))],
    }
    reads = ("none",)  # ccexp.capabilities; unconstrained: the constraints are not read
    needs_features = True

    def __init__(self, n_clusters=None, n_neighbors=10, scale="symmetric", n_init=10, random_state=None,
                 bandwidth="mean_kth", laplacian="sym"):
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.scale = scale
        self.n_init = n_init
        self.random_state = random_state
        self.bandwidth = bandwidth
        self.laplacian = laplacian

    def _constrain(self, W, ml, cl):
        """The graph spectral clustering cuts, from the Gaussian k-NN graph ``W``; subclasses add the constraints."""
        return W

    def _fit(self, X, ml, cl, k):
        t0 = time.perf_counter()
        W = gaussian_knn_affinity(prepare_features(X, self.scale), self.n_neighbors, bandwidth=self.bandwidth)
        W = self._constrain(W, ml, cl)
        t1 = time.perf_counter()
        self.labels_ = njw_spectral(W, k, self.n_init, self.random_state, laplacian=self.laplacian)
        self.timings_ = {"affinity": t1 - t0, "spectral": time.perf_counter() - t1}
        self.status_ = "ok"
        return self
