"""ROCK (Guha, Rastogi and Shim 2000): link-based clustering of categorical records.

The categorical baseline of Gionis et al. (2007), Tables 2 and 3.
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ...cc.labels import relabel_contiguous
from ...cc.union_find import connected_components
from ...registry import ALGORITHMS
from ..base import RANDOM_STATE
from . import _rock_kernels as K
from .estimator import CategoricalEstimator, check_table


def rock_f(theta: float) -> float:
    """f(theta) = (1 - theta) / (1 + theta), Guha et al. (2000), for market baskets."""
    return (1.0 - theta) / (1.0 + theta)


def rock_links(T, theta: float, min_neighbours: int = 0):
    """Neighbour lists and the link matrix of ROCK.

    Parameters
    ----------
    T : int array (n_records, n_attributes)
        Categorical codes, ``-1`` missing.
    theta : float in [0, 1)
        Records u, v are neighbours when their Jaccard similarity is at least
        ``theta``. A record is the set of its (attribute, value) items; a
        missing value drops the attribute from *both* records of the pair, as
        Guha et al. handle missing values, so
        ``sim(u, v) = c / (2 a - c)`` with ``a`` attributes present in both
        and ``c`` of them equal.

    min_neighbours : int, default 0
        Records with fewer neighbours are outliers (Guha et al. discard
        them before clustering): they are removed from every neighbour list
        before the links are counted, so they take no part in any link.

    Returns
    -------
    indptr, indices : int arrays
        CSR neighbour lists of all records (a record is not its own
        neighbour, as in the paper's example where
        link({1,2,6}, {1,2,7}) = 5).
    L : int array (n, n)
        ``L[u, v]`` = number of common neighbours of u and v among the
        non-outliers (0 on the diagonal); int32 when the total number of
        links fits, else int64.
    """
    T = check_table(T)
    theta = _check_theta(theta)
    indptr, indices = K.neighbour_lists(T, theta)
    deg = np.diff(indptr)
    ip, ind = indptr, indices
    if min_neighbours > 0 and np.any(deg < min_neighbours):
        inlier = deg >= min_neighbours
        owner = np.repeat(np.arange(T.shape[0]), deg)
        keep = inlier[owner] & inlier[indices]
        ind = indices[keep]
        ip = np.concatenate([[0], np.cumsum(np.bincount(owner[keep], minlength=T.shape[0]))])
    d = np.diff(ip)
    total = int(np.sum(d * (d - 1) // 2))  # bounds every cluster-pair link count
    L = np.zeros((T.shape[0], T.shape[0]), dtype=np.int32 if total < 2**31 - 1 else np.int64)
    K.links(ip, ind, L)
    return indptr, indices, L


def _check_theta(theta) -> float:
    theta = float(theta)
    if not 0.0 <= theta < 1.0:
        raise ValueError(f"theta must be in [0, 1), got {theta!r}")
    return theta


def merge_by_first_record(labels: np.ndarray, k: int) -> np.ndarray:
    """Merge clusters without links down to ``k``: in order of their first record, the first ones into one.

    With every remaining pair at goodness 0, ROCK's heap (ties to the smallest
    pair of slots, the merged cluster keeping the smaller) pops (s0, s1), then
    (s0, s2), ...: the clusters whose first records come first merge into the
    first one until ``k`` remain.
    """
    labels = np.asarray(labels)
    first = {}
    for i, c in enumerate(labels.tolist()):
        first.setdefault(c, i)
    order = sorted(first, key=first.get)
    extra = len(order) - int(k)
    if extra <= 0:
        return labels
    target = {c: order[0] for c in order[: extra + 1]}
    return relabel_contiguous(np.array([target.get(c, c) for c in labels.tolist()], dtype=np.int64))


@ALGORITHMS.register("rock")
class Rock(CategoricalEstimator):
    """ROCK: agglomerative clustering by links (Guha, Rastogi and Shim 2000).

    1. Neighbours: records with Jaccard similarity ``>= theta``
       (:func:`rock_links`); links = number of common neighbours.
    2. Starting from singletons, merge the pair of clusters of largest
       goodness measure of Guha et al.::

           g(Ci, Cj) = link[Ci, Cj] / ((ni + nj)^(1 + 2 f) - ni^(1 + 2 f) - nj^(1 + 2 f)),
           f = f(theta) = (1 - theta) / (1 + theta),

       where link[Ci, Cj] sums the links between their records, until
       ``n_clusters`` clusters remain (not counting records without any
       link) or no two clusters share a link.
    3. If more than ``n_clusters`` clusters remain (records with few
       neighbours), ``label_outliers`` applies ROCK's labelling phase to the records outside the ``n_clusters`` largest: each
       joins the large cluster maximising ``N_i / (n_i + 1)^f``, N_i its
       neighbours there; records with no neighbour in any stay apart.

    This is ROCK's categorical definition. pyclustering's ``rock`` is a
    different algorithm: it takes points in Euclidean space and calls two
    points neighbours when their Euclidean distance is below a radius, so
    it cannot reproduce the Jaccard-based results of Gionis et al.

    Parameters
    ----------
    n_clusters : int, default 2
        k, the number of clusters ROCK stops at (Gionis et al. run it at the
        k their own algorithms find: Votes 2; Mushrooms 2, 7, 9).
    theta : float in [0, 1), default 0.73
        Similarity threshold (Guha et al.: 0.73 for Votes, 0.8 for Mushrooms).
    min_neighbours : int, default 0
        Records with fewer neighbours are outliers, left out of the links
        (:func:`rock_links`) and labelled in step 3. Guha et al. discard
        "points with very few neighbours" without a number; Gionis et al. do
        not say what they used.
    label_outliers : bool, default True
        Apply the labelling phase of step 3.
    merge_unlinked : bool, default False
        When the links run out above ``n_clusters`` clusters, go on merging
        pairs without links (goodness 0) down to ``n_clusters``, as a heap
        that also held the zero-link pairs would pop them: ties to the
        smallest pair of cluster slots, a cluster's slot being its smallest
        record, so the clusters in order of their first record merge into the
        first (issue 29.6: on Mushrooms at theta = 0.8 the links run out at 21
        clusters). Step 3 then has nothing to label.
    max_items : int, default 12000
        The link matrix is dense, n^2 counts (4 bytes each at most sizes:
        0.26 GB for Mushrooms); larger inputs raise ``ValueError``.
    item_order : {"index", "random"}, default "index"
        The records' order. ROCK is deterministic for a fixed order, but its
        ties (equal goodness: the smallest pair of cluster slots), the
        labelling phase's ties and ``merge_unlinked`` follow it, so an
        experiment runs it over random orders as trials (issue 28.2), as
        it does the aggregation algorithms; ``labels_`` keep the caller's order.
    random_state : None, int or Generator
        Draws the order of ``item_order="random"``; otherwise unused.

    Attributes
    ----------
    labels_ : int array (n,)
    n_outliers_ : int
        Records left in clusters outside the ``n_clusters`` largest.
    timings_ : dict
        Seconds in ``links`` and ``merge``.

    Notes
    -----
    The clustering is run on all records, not on a sample: Votes (435) and
    Mushrooms (8,124) fit. Records without any link (no common neighbour
    with anyone) can never merge: ROCK treats them as outliers, and they do
    not count towards ``n_clusters``; so the result has ``n_clusters``
    clusters plus such outliers, or more when the links run out first (two
    clusters with no link between them are never merged).

    ROCK keeps a local heap per cluster and a global heap of their tops;
    here one binary heap of candidate pairs with lazy deletion plays both
    parts. O(n^2 m) for the neighbours, O(sum_w deg(w)^2) for the links,
    O(n) per merge to add link rows plus O(log P) per pushed pair.

    Input: ``fit(clusterings)`` with the aggregation family's ``(m, n)``
    array (one row per input clustering); each input clustering is one
    categorical attribute of the n records (:class:`~.estimator.CategoricalEstimator`).

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([[0, 0, 0], [0, 0, 1], [0, 0, 2], [1, 1, 0], [1, 1, 1], [1, 1, 2]])  # 6 records
    >>> Rock(n_clusters=2, theta=0.5).fit(T.T).labels_
    array([0, 0, 0, 1, 1, 1])
    """

    reads = ("clusterings",)  # capability declaration (ccexp.capabilities)
    needs_features = False

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "theta": [Interval(Real, 0, 1, closed="left")],
        "min_neighbours": [Interval(Integral, 0, None, closed="left")],
        "label_outliers": ["boolean"],
        "merge_unlinked": ["boolean"],
        "max_items": [Interval(Integral, 1, None, closed="left")],
        "item_order": [StrOptions({"index", "random"})],
        "random_state": RANDOM_STATE,
    }
    _warmup_params = {"theta": 0.5}

    def __init__(self, n_clusters=2, theta=0.73, min_neighbours=0, label_outliers=True, max_items=12000,
                 merge_unlinked=False, item_order="index", random_state=None):
        self.n_clusters = n_clusters
        self.theta = theta
        self.min_neighbours = min_neighbours
        self.label_outliers = label_outliers
        self.merge_unlinked = merge_unlinked
        self.max_items = max_items
        self.item_order = item_order
        self.random_state = random_state

    def _fit_table(self, T, *, theta, n_clusters, max_items, min_neighbours, merge_unlinked, label_outliers):
        """Cluster the records of the table ``T`` (int64 (n_records, n_attributes), ``-1`` missing)."""
        theta = _check_theta(theta)
        k = int(n_clusters)
        n = T.shape[0]
        if n > int(max_items):
            raise ValueError(f"ROCK keeps an n x n link matrix; n = {n} exceeds max_items = {max_items}")
        self.timings_ = {}
        t0 = time.perf_counter()
        indptr, indices, L = rock_links(T, theta, int(min_neighbours))
        t1 = time.perf_counter()
        f = rock_f(theta)
        sizes = np.ones(n, dtype=np.int64)
        merge_a = np.empty(max(n - 1, 0), dtype=np.int64)
        merge_b = np.empty(max(n - 1, 0), dtype=np.int64)
        t = K.merge_clusters(L, sizes, k, 1.0 + 2.0 * f, merge_a, merge_b)
        del L
        labels = relabel_contiguous(connected_components(n, merge_a[:t], merge_b[:t]))
        if merge_unlinked:
            labels = merge_by_first_record(labels, k)
        counts = np.bincount(labels)
        self.n_outliers_ = 0
        if counts.size > k:
            keep = np.zeros(counts.size, dtype=np.bool_)
            keep[np.argsort(-counts, kind="stable")[:k]] = True
            self.n_outliers_ = int(counts[~keep].sum())
            if label_outliers:
                labels = K.label_outliers(indptr, indices, labels, keep, counts, f)
                self.n_outliers_ = int((~keep[labels]).sum())
        self.timings_ = {"links": t1 - t0, "merge": time.perf_counter() - t1}
        self.status_ = "ok"
        self.labels_ = relabel_contiguous(labels)
        return self
