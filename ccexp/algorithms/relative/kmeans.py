"""K-means baselines of Liu, Zhang and Wang (2011, Section 5).

"K-Means + Euclidean Metric" ignores the constraints; "K-Means +
SVM-Metric" runs K-means after the Schultz-Joachims metric learned from
them (``svm_metric.py``).  K-means is scikit-learn's (Lloyd, k-means++
initialisation, best of ``n_init`` runs), seeded by ``random_state``.
"""

from __future__ import annotations

import time
from numbers import Real

import numpy as np
from sklearn.cluster import KMeans as _SKKMeans
from sklearn.utils._param_validation import Interval
from threadpoolctl import threadpool_limits

from ..._validation import as_index_array, check_positive_int
from ...objectives.relative import partition_violations
from ...registry import ALGORITHMS
from .._n_clusters import n_clusters_for_fit, n_clusters_of
from ..base import FeatureEstimator, validate_params, validates_params_first
from .recon import CONSTRAINTS, POSITIVE_INT
from .svm_metric import SVMMetric


@ALGORITHMS.register("kmeans")
class KMeansBaseline(FeatureEstimator):
    """K-means with the true k on the features ("K-Means + Euclidean Metric").

    Parameters
    ----------
    n_clusters : int, optional
        k; by default ``problem.meta["n_clusters"]``.
    n_init : int
        K-means restarts (best inertia kept).
    random_state : int or None

    Attributes
    ----------
    labels_, objective_ (violated constraints, Definition 4.2, when the
    problem has any), timings_, status_.
    """

    reads = ("none",)  # ccexp.capabilities; use_metric=True reads relative constraints too
    needs_features = True

    supervision = "relative"
    use_metric = False
    _parameter_constraints = {
        "n_clusters": CONSTRAINTS["n_clusters"],
        "n_init": [POSITIVE_INT],
        "svm_C": [Interval(Real, 0, None, closed="neither")],
        "random_state": CONSTRAINTS["random_state"],
    }

    def __init__(self, n_clusters=None, n_init=10, svm_C=1.0, random_state=None):
        self.n_clusters = n_clusters
        self.n_init = n_init
        self.svm_C = svm_C
        self.random_state = random_state

    @validates_params_first
    def fit(self, X, y=None, *, relative=None):
        """Cluster the rows of ``X`` (``relative``: rows ``(a, b, c)`` = ``ab|c``, for the metric; ``y`` ignored)."""
        validate_params(self)
        X = self._validate_X(X)
        R = as_index_array(np.empty((0, 3)) if relative is None else relative, "relative", X.shape[0], 3)
        return self._fit(X, R, n_clusters_for_fit(self))

    @validates_params_first
    def fit_problem(self, problem):
        validate_params(self)
        X = self._validate_X(problem.require("X", type(self).__name__))
        R = problem.relative if problem.relative is not None else np.empty((0, 3), dtype=np.int64)
        return self._fit(X, R, n_clusters_of(self, problem))

    def _fit(self, X, R, k):
        k = check_positive_int(k, "n_clusters")
        n_init = check_positive_int(self.n_init, "n_init")
        t0 = time.perf_counter()
        Xm = X
        if self.use_metric:
            svm = SVMMetric(C=self.svm_C).fit(X, R)
            Xm = svm.transform(X)
            self.metric_weights_, self.metric_info_ = svm.weights_, svm.info_
        t1 = time.perf_counter()
        # One thread: on a few thousand points OpenMP threads cost more than
        # they save, and far more when the runner's workers share the cores
        # (Letters-IJLT: 0.35 s with 2 threads vs 0.024 s with one, n_init=10).
        with threadpool_limits(limits=1, user_api="openmp"):
            km = _SKKMeans(n_clusters=k, n_init=n_init, random_state=self.random_state).fit(Xm)
        t2 = time.perf_counter()
        self.labels_ = km.labels_.astype(np.int64)
        self.objective_ = int(partition_violations(self.labels_, R).sum()) if R.shape[0] else 0
        self.status_ = "ok"
        self.timings_ = {"metric": t1 - t0, "kmeans": t2 - t1}
        return self


@ALGORITHMS.register("kmeans_svm")
class KMeansSVM(KMeansBaseline):
    """K-means after the SVM metric learned from the constraints ("K-Means + SVM-Metric").

    Parameters as :class:`KMeansBaseline`, plus ``svm_C`` (C = 1 in the paper).
    Without constraints the metric is Euclidean, so this equals ``kmeans``.
    """

    reads = ("relative",)  # capability declaration (ccexp.capabilities)
    needs_features = True

    use_metric = True
