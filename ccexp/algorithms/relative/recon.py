"""ReCon (Liu, Zhang and Wang 2011, Section 4.2) and its hierarchical baseline.

ReCon checks feasibility with OneTree, then agglomerates clusters by
centroid linkage, merging the closest pair only when no constraint forbids
it (line 9) and TestCompatibility says a complete hierarchy still exists
(line 11); the k-partition cuts the hierarchy with the outlier threshold of
Section 4.2.1.  ``Hierarchical`` is the same agglomeration and cut without
constraints (the paper's "Hierarchical + Euclidean Metric" baseline).
"""

from __future__ import annotations

import math
import time
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ..._validation import as_index_array, check_positive_int, unknown_name_error
from ...objectives.relative import partition_violations
from ...registry import ALGORITHMS
from .._n_clusters import n_clusters_for_fit, n_clusters_of
from ..base import RANDOM_STATE, FeatureEstimator, validate_params, validates_params_first
from ._agglomerate import recon_agglomerate
from .cut import SPLIT_ORDERS, cut_hierarchy
from .hierarchy import greedy_consistent_subset, is_consistent
from .svm_metric import SVMMetric

METRICS = ("euclidean", "svm")


def incidence(R: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR map item -> ids of the constraints that mention it."""
    items = R.ravel()
    con = np.repeat(np.arange(R.shape[0], dtype=np.int64), 3)
    order = np.argsort(items, kind="stable")
    indptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(items, minlength=n_items), out=indptr[1:])
    return indptr, np.ascontiguousarray(con[order])


#: TestCompatibility implementations of :func:`constrained_linkage` (kernel ``mode`` 0, 1, 2).
COMPATIBILITY_TESTS = ("peel", "reference", "both")


def constrained_linkage(X: np.ndarray, R: np.ndarray, check_compatibility: bool = True, compatibility_test: str = "peel"):
    """Centroid-linkage agglomeration under consistent relative constraints (ReCon, lines 5-13).

    Parameters
    ----------
    X : float64 array (n, d)
    R : int64 array (m, 3)
        Constraints ``ab|c``, consistent (check with OneTree first: on an
        inconsistent set the agglomeration can stop early).
    check_compatibility : bool
        False skips TestCompatibility: the naive constrained agglomeration,
        which can dead-end (Section 4.2's example).
    compatibility_test : {"peel", "reference", "both"}
        How TestCompatibility is answered: by peeling one graph (default,
        fast; a pair that an earlier test's certificate still shows
        incompatible is answered without peeling), by the level-by-level
        recursion (the reference), or both with the reference's answer
        used and their disagreements counted (``counters["disagreements"]``,
        for the tests).  The merges do not depend on it.

    Returns
    -------
    Z : float64 array (n-1, 4)
        scipy linkage rows; heights are Euclidean distances between centroids.
    n_merges : int
        ``n - 1`` when the hierarchy is complete.
    counters : dict
        ``candidates`` (closest allowed-pair candidates examined), ``forbidden``
        (line 9), ``compatibility_tests`` (TestCompatibility calls),
        ``incompatible``, ``rescans`` (nearest-neighbour row scans),
        ``test_levels`` and ``test_constraint_visits`` (the work inside
        TestCompatibility: levels and constraints scanned by the recursion,
        connectivity checks and constraints and edges visited by peeling),
        ``disagreements`` (see ``compatibility_test``), ``certified`` (the
        tests answered by a certificate, counted among the incompatible ones).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    R = np.ascontiguousarray(R, dtype=np.int64).reshape(-1, 3)
    indptr, con = incidence(R, X.shape[0])
    if compatibility_test not in COMPATIBILITY_TESTS:
        raise unknown_name_error("compatibility_test", compatibility_test, COMPATIBILITY_TESTS)
    mode = COMPATIBILITY_TESTS.index(compatibility_test)
    Z, n_merges, c = recon_agglomerate(X, R, indptr, con, bool(check_compatibility), mode)
    names = ("candidates", "forbidden", "compatibility_tests", "incompatible", "rescans", "test_levels",
             "test_constraint_visits", "disagreements", "certified")
    return Z, int(n_merges), dict(zip(names, (int(v) for v in c)))


def _branch_threshold(min_branch_size, n: int, k: int) -> int:
    if min_branch_size == "auto":
        # Section 4.2.1 gives no value; 5% of the items, at least 2
        # (experiments/liu2011/README.md shows the choice)
        return max(2, int(math.ceil(0.05 * n)))
    if isinstance(min_branch_size, Integral) and not isinstance(min_branch_size, bool):
        return check_positive_int(min_branch_size, "min_branch_size")
    raise ValueError(f"min_branch_size must be 'auto' or an integer >= 1, got {min_branch_size!r}")


POSITIVE_INT = Interval(Integral, 1, None, closed="left")
#: scikit-learn ``_parameter_constraints`` of the family (Hierarchical takes a subset)
CONSTRAINTS = {
    "n_clusters": [POSITIVE_INT, None],
    "metric": [StrOptions(set(METRICS))],
    "min_branch_size": [StrOptions({"auto"}), POSITIVE_INT],
    "split": [StrOptions(set(SPLIT_ORDERS))],
    "check_compatibility": ["boolean"],
    "on_inconsistent": [StrOptions({"greedy", "raise"})],
    "svm_C": [Interval(Real, 0, None, closed="neither")],
    "random_state": RANDOM_STATE,
}


class _HierarchyEstimator(FeatureEstimator):
    """Shared fit: metric, agglomeration, cut."""

    supervision = "relative"

    def _fit(self, X, R, k, use_constraints: bool):
        k = check_positive_int(k, "n_clusters")
        if k > X.shape[0]:
            raise ValueError(f"n_clusters must be at most n_items={X.shape[0]}, got {k}")
        timings = {}
        t0 = time.perf_counter()
        Xm = X
        if self.metric == "svm":
            svm = SVMMetric(C=self.svm_C).fit(X, R)
            Xm = svm.transform(X)
            self.metric_weights_, self.metric_info_ = svm.weights_, svm.info_
        timings["metric"] = time.perf_counter() - t0
        self.status_ = "ok"
        self.n_dropped_ = 0
        R_used = R if use_constraints else np.empty((0, 3), dtype=np.int64)
        t0 = time.perf_counter()
        if use_constraints and R.shape[0] and not is_consistent(R, X.shape[0]):
            if self.on_inconsistent == "raise":
                raise ValueError(
                    f"the {R.shape[0]} relative constraints are inconsistent: no hierarchy satisfies them "
                    "all (OneTree fails); on_inconsistent='greedy' keeps a maximal consistent subset"
                )
            keep = greedy_consistent_subset(R, X.shape[0])
            R_used = R[keep]
            self.n_dropped_ = int((~keep).sum())
            self.status_ = "inconsistent"
        timings["one_tree"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        Z, n_merges, counters = constrained_linkage(Xm, R_used, self.check_compatibility)
        timings["agglomerate"] = time.perf_counter() - t0
        if n_merges < X.shape[0] - 1:
            self.status_ = "dead_end"
        t0 = time.perf_counter()
        threshold = _branch_threshold(self.min_branch_size, X.shape[0], k)
        labels, info = cut_hierarchy(Z, n_merges, Xm, k, threshold, R_used if len(R_used) else None, self.split)
        timings["cut"] = time.perf_counter() - t0
        self.linkage_, self.n_merges_, self.counters_, self.cut_info_ = Z, n_merges, counters, info
        self.n_tests_ = counters["compatibility_tests"]
        self.labels_ = labels
        self.objective_ = int(partition_violations(labels, R).sum()) if R.shape[0] else 0
        self.timings_ = timings
        return self

    @classmethod
    def warmup(cls) -> None:
        X = np.array([[0.0], [0.1], [1.0], [1.2], [3.0]])
        cls(n_clusters=2).fit(X, relative=np.array([[0, 1, 2], [2, 3, 0]]))


@ALGORITHMS.register("recon")
class ReCon(_HierarchyEstimator):
    """ReCon: a hierarchy satisfying every relative constraint, cut into k clusters.

    Liu, Zhang and Wang (2011), Algorithm ReCon with OneTree,
    TestCompatibility and UpdateConstraints (Section 4), the outlier
    threshold of Section 4.2.1 and either metric of Section 5.

    Parameters
    ----------
    n_clusters : int, optional
        k; by default ``problem.meta["n_clusters"]`` (the relative oracles
        state the true k, as the paper gives it to every method).
    metric : {"euclidean", "svm"}
        Centroid linkage in Euclidean space, or after the Schultz-Joachims
        SVM metric learned from the same constraints ("ReCon + SVM-Metric").
    min_branch_size : "auto" or int
        Branch-size threshold for outliers when cutting (Section 4.2.1, no
        value given there); "auto" = 5% of the items, at least 2.  1 is the
        plain cut.
    split : {"size", "height", "last"}
        Which branch the top-down cut splits next: the largest (default),
        the one whose halves are farthest apart, or the latest merge.
    check_compatibility : bool
        True is ReCon; False the naive constrained agglomeration (for the
        dead-end demonstration), which may end with a forest.
    on_inconsistent : {"greedy", "raise"}
        What happens when OneTree fails.  "greedy" (default, so a sweep
        records the case instead of stopping) keeps a maximal consistent
        subset, taken greedily in the given order (the paper's "Handling
        noisy constraints"), and sets ``status_ = "inconsistent"`` and
        ``n_dropped_``; "raise" raises ``ValueError``.
    svm_C : float
        C of the SVM metric.
    random_state : None
        Accepted for a uniform interface; ReCon is deterministic (ties in
        distance go to the pair of smaller slot indices).

    Attributes
    ----------
    labels_ : int64 array (n,)
    linkage_ : float64 array (n-1, 4)
        The hierarchy, in scipy's linkage format.
    n_merges_ : int
    n_tests_ : int
        TestCompatibility calls.
    counters_ : dict
    cut_info_ : dict
    objective_ : int
        Constraints the k-partition violates (Definition 4.2).
    status_ : str
        "ok", "inconsistent" or "dead_end".
    n_dropped_ : int
    timings_ : dict

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [1.9], [3.0]])
    >>> ReCon(n_clusters=2, min_branch_size=1).fit(X, relative=[[0, 1, 2], [2, 3, 0]]).labels_
    array([0, 0, 1, 1])
    """

    _parameter_constraints = CONSTRAINTS
    reads = ("relative",)  # capability declaration (ccexp.capabilities)
    needs_features = True

    def __init__(
        self,
        n_clusters=None,
        metric="euclidean",
        min_branch_size="auto",
        split="size",
        check_compatibility=True,
        on_inconsistent="greedy",
        svm_C=1.0,
        random_state=None,
    ):
        self.n_clusters = n_clusters
        self.metric = metric
        self.min_branch_size = min_branch_size
        self.split = split
        self.check_compatibility = check_compatibility
        self.on_inconsistent = on_inconsistent
        self.svm_C = svm_C
        self.random_state = random_state

    @validates_params_first
    def fit(self, X, y=None, *, relative=None):
        """Cluster the rows of ``X`` under the constraints ``relative`` (rows ``(a, b, c)`` = ``ab|c``; ``y`` ignored)."""
        validate_params(self)
        X = self._validate_X(X)
        R = as_index_array(np.empty((0, 3)) if relative is None else relative, "relative", X.shape[0], 3)
        return self._fit(X, R, n_clusters_for_fit(self), use_constraints=True)

    @validates_params_first
    def fit_problem(self, problem):
        validate_params(self)
        X = self._validate_X(problem.require("X", type(self).__name__))
        R = problem.relative if problem.relative is not None else np.empty((0, 3), dtype=np.int64)
        return self._fit(X, R, n_clusters_of(self, problem), use_constraints=True)


@ALGORITHMS.register("hierarchical")
class Hierarchical(_HierarchyEstimator):
    """Centroid-linkage agglomerative clustering, cut into k clusters (the paper's baseline).

    ReCon's agglomeration and cut without constraints: "Hierarchical +
    Euclidean Metric" of Liu et al. (2011, Section 5).  The merges equal
    ``scipy.cluster.hierarchy.linkage(X, "centroid")`` up to ties.

    Parameters
    ----------
    n_clusters : int, optional
    min_branch_size : "auto" or int
    split : {"size", "height", "last"}
        As for :class:`ReCon`, so that ReCon with no constraints is this.
    random_state : None
        Deterministic.
    """

    reads = ("none",)  # capability declaration (ccexp.capabilities)
    needs_features = True

    metric = "euclidean"
    check_compatibility = True
    on_inconsistent = "raise"
    svm_C = 1.0
    _parameter_constraints = {
        k: CONSTRAINTS[k] for k in ("n_clusters", "min_branch_size", "split", "random_state")
    }

    def __init__(self, n_clusters=None, min_branch_size="auto", split="size", random_state=None):
        self.n_clusters = n_clusters
        self.min_branch_size = min_branch_size
        self.split = split
        self.random_state = random_state

    @validates_params_first
    def fit(self, X, y=None):
        """Cluster the rows of ``X`` (``y`` ignored)."""
        validate_params(self)
        X = self._validate_X(X)
        return self._fit(X, np.empty((0, 3), dtype=np.int64), n_clusters_for_fit(self), use_constraints=False)

    @validates_params_first
    def fit_problem(self, problem):
        validate_params(self)
        X = self._validate_X(problem.require("X", type(self).__name__))
        R = problem.relative if problem.relative is not None else np.empty((0, 3), dtype=np.int64)
        return self._fit(X, R, n_clusters_of(self, problem), use_constraints=False)

    @classmethod
    def warmup(cls) -> None:
        cls(n_clusters=2).fit(np.array([[0.0], [0.1], [1.0], [1.2], [3.0]]))


@ALGORITHMS.register("recon_svm")
class ReConSVM(ReCon, defaults={"metric": "svm"}):
    """"ReCon + SVM-Metric": :class:`ReCon` with ``metric="svm"`` by default.

    A registry name of its own so one experiment can run both ReCon schemes
    of Section 5 side by side (the runner keys cases by algorithm name).
    """
