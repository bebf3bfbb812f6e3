"""COBRAS (van Craenendonck, Dumancic, Van Wolputte & Blockeel 2018) on the noisy similarity oracle.

COBRAS clusters *super-instances*: sets of items found by k-means on the
features, each represented by its item closest to the super-instance's
centroid.  It starts from one super-instance holding every item and
repeats, while the budget lasts:

1. pick the largest super-instance that can still be split;
2. find its *split level* (Section 3.2 of the paper): split it in two with
   k-means and ask whether the two representatives must-link; while the
   answer is cannot-link, split the smaller part again (level + 1); the
   super-instance is then split by k-means into ``2 ** max(level, 1)``
   new super-instances;
3. each new super-instance becomes a cluster of its own, and the *merging
   phase* asks, for pairs of clusters in order of the distance between
   their closest super-instance centroids, whether the representatives of
   those two closest super-instances must-link; a must-link merges the
   clusters and restarts the pass, a cannot-link between any two
   representatives of two clusters keeps them apart for good.

A query's answer comes from the same noisy ``pairwise_similarity`` oracle
as every strategy of Aronsson & Chehreghani (2024): an answer > 0 is a
must-link, anything else a cannot-link.  COBRAS assumes its answers are
right; :mod:`.ncobras` adds noise handling.

Written from the paper and the reference code's behaviour as described
there (``cobras-ts`` does not run on numpy >= 1.24).  Simplifications,
all stated in ``experiments/aronsson2024/README.md``:

* a pair of items already asked is answered from memory instead of asking
  again (COBRAS treats answers as exact, so only the query count differs);
* the k-means of a split gets a seed from ``random_state`` (cobras-ts used
  an unseeded ``KMeans``), so runs are reproducible;
* the clustering shown at a budget of q queries is COBRAS's current one:
  during a split-level search the clustering before that split, during a
  merging phase the partially merged one (as cobras-ts's intermediate
  results); ``history_`` samples it every B queries;
* no train/test split of the items (every item can be a representative).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval

from ..._validation import check_random_state
from ...problem_oracle import PairwiseSimilarityOracle
from ...registry import ALGORITHMS
from ..base import RANDOM_STATE, ProblemEstimator, hook_params, validate_params, validates_params_first
from . import _cobras_kernels as CK
from .estimator import ActiveCorrelationClustering


def kmeans(X: np.ndarray, k: int, n_init: int, rng, max_iter: int = 300, tol: float = 1e-4) -> np.ndarray:
    """Lloyd's k-means from k-means++ seeds, best of ``n_init`` starts; returns the assignment.

    The same algorithm as scikit-learn's ``KMeans`` (which cobras-ts
    called), in plain numpy: the splits are of at most N points in a few
    dimensions, where scikit-learn's per-call overhead dominates.
    ``tol`` is relative to the mean per-feature variance, as in scikit-learn.

    The products with ``X`` are numpy's (BLAS rounds them by the call's
    shape); the steps between them run in :mod:`._cobras_kernels`, each the
    same float operations in the same order as the numpy expression it
    replaces, so a split is bitwise what the all-numpy version gave
    (``tests/test_active_cobras.py`` runs both).
    """
    n = X.shape[0]
    sq = (X * X).sum(axis=1)
    tol = tol * float(np.mean(np.var(X, axis=0)))
    exact_means = X.shape[1] >= 2  # numpy's mean over one column sums pairwise: left to numpy
    best, best_inertia = None, np.inf
    for _ in range(n_init):
        # k-means++ (one candidate per step)
        centers = np.empty((k, X.shape[1]))
        centers[0] = X[rng.integers(n)]
        d2 = np.maximum(sq - 2.0 * X @ centers[0] + centers[0] @ centers[0], 0.0)
        for j in range(1, k):
            total = d2.sum()
            # rng.choice(n, p=d2 / total): one uniform draw, numpy's cdf search (CK.weighted_pick)
            i = CK.weighted_pick(d2, total, rng.random()) if total > 0 else int(rng.integers(n))
            centers[j] = X[i]
            d2 = np.minimum(d2, np.maximum(sq - 2.0 * X @ centers[j] + centers[j] @ centers[j], 0.0))
        for _ in range(max_iter):
            assign, _ = CK.nearest_centers(2.0 * X @ centers.T, sq, (centers * centers).sum(axis=1))
            if exact_means:
                new = CK.cluster_means(X, assign, centers)
            else:
                new = centers.copy()
                for j in range(k):
                    members = assign == j
                    if members.any():
                        new[j] = X[members].mean(axis=0)
            shift = ((new - centers) ** 2).sum()
            centers = new
            if shift <= tol:
                break
        assign, nearest = CK.nearest_centers(2.0 * X @ centers.T, sq, (centers * centers).sum(axis=1))
        inertia = float(np.maximum(nearest, 0.0).sum())
        if inertia < best_inertia:
            best, best_inertia = assign, inertia
    return best


def kmeans_reference(X: np.ndarray, k: int, n_init: int, rng, max_iter: int = 300, tol: float = 1e-4) -> np.ndarray:
    """:func:`kmeans` in numpy alone (its reference in the tests)."""
    n = X.shape[0]
    sq = (X * X).sum(axis=1)
    tol = tol * float(np.mean(np.var(X, axis=0)))
    best, best_inertia = None, np.inf
    for _ in range(n_init):
        centers = np.empty((k, X.shape[1]))
        centers[0] = X[rng.integers(n)]
        d2 = np.maximum(sq - 2.0 * X @ centers[0] + centers[0] @ centers[0], 0.0)
        for j in range(1, k):
            total = d2.sum()
            i = int(rng.choice(n, p=d2 / total)) if total > 0 else int(rng.integers(n))
            centers[j] = X[i]
            d2 = np.minimum(d2, np.maximum(sq - 2.0 * X @ centers[j] + centers[j] @ centers[j], 0.0))
        for _ in range(max_iter):
            dist = sq[:, None] - 2.0 * X @ centers.T + (centers * centers).sum(axis=1)[None, :]
            assign = np.argmin(dist, axis=1)
            new = centers.copy()
            for j in range(k):
                members = assign == j
                if members.any():
                    new[j] = X[members].mean(axis=0)
            shift = ((new - centers) ** 2).sum()
            centers = new
            if shift <= tol:
                break
        dist = sq[:, None] - 2.0 * X @ centers.T + (centers * centers).sum(axis=1)[None, :]
        assign = np.argmin(dist, axis=1)
        inertia = float(np.maximum(dist[np.arange(n), assign], 0.0).sum())
        if inertia < best_inertia:
            best, best_inertia = assign, inertia
    return best


class _Stop(Exception):
    """Raised inside a run when the budget is spent or a callback asks to stop."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _CobrasRun:
    """The state of one COBRAS run: super-instances, clusters, constraints, the query counter."""

    def __init__(self, X, oracle, budget: int, batch: int, n_init: int, rng, callback):
        self.X = X
        self.n = X.shape[0]
        self.oracle = oracle
        self.budget = budget
        self.batch = batch
        self.n_init = n_init
        self.rng = rng
        self.callback = callback
        self.n_queries = 0
        self.answers: dict[tuple[int, int], float] = {}  # (u, v), u < v -> the answer used
        self.cl = np.zeros((self.n, self.n), dtype=bool)  # cannot-links among the items asked
        # the same cannot-links as a list of pairs, in the order learnt (cl_u[:n_cl], cl_v[:n_cl])
        self.cl_u = np.empty(64, dtype=np.int64)
        self.cl_v = np.empty(64, dtype=np.int64)
        self.n_cl = 0
        self.history: list[dict] = []
        self._next_record = 0
        # super-instances: items, centroid, representative, "could not be split"
        self.si_items: list[np.ndarray] = []
        self.si_centroid: list[np.ndarray] = []
        self.si_rep: list[int] = []
        self.si_tried: list[bool] = []
        # the same centroids and representatives as arrays, by super-instance id (merge gathers them)
        self._centroids = np.empty((max(2 * self.n, 2), X.shape[1]), dtype=np.float64)
        self._reps = np.empty(max(2 * self.n, 2), dtype=np.int64)
        self._si_size = np.empty(max(2 * self.n, 2), dtype=np.int64)
        self._si_tried = np.zeros(max(2 * self.n, 2), dtype=np.bool_)
        self.clusters: list[list[int]] = []

    # -- bookkeeping ----------------------------------------------------------
    def labels(self) -> np.ndarray:
        labels = np.empty(self.n, dtype=np.int64)
        for c, members in enumerate(m for m in self.clusters if m):
            for s in members:
                labels[self.si_items[s]] = c
        return labels

    def record(self) -> None:
        """Append the current clustering to the history (and consult the callback)."""
        labels = self.labels()
        self.history.append({"n_queries": self.n_queries, "labels": labels, "n_clusters": int(labels.max()) + 1,
                             "n_superinstances": sum(len(c) for c in self.clusters)})
        self._next_record = self.n_queries + self.batch
        if self.callback is not None and self.callback(self.n_queries, labels):
            raise _Stop("callback")

    def new_superinstance(self, items: np.ndarray) -> int:
        items = np.asarray(items, dtype=np.int64)
        centroid = self.X[items].mean(axis=0)
        # the representative is the item closest to the centroid (first among ties)
        rep = int(items[np.argmin(((self.X[items] - centroid) ** 2).sum(axis=1))])
        s = len(self.si_items)
        if s == self._reps.shape[0]:  # more super-instances than 2N (never seen): grow
            self._centroids = np.concatenate([self._centroids, np.empty_like(self._centroids)])
            self._reps = np.concatenate([self._reps, np.empty_like(self._reps)])
            self._si_size = np.concatenate([self._si_size, np.empty_like(self._si_size)])
            self._si_tried = np.concatenate([self._si_tried, np.zeros_like(self._si_tried)])
        self._centroids[s] = centroid
        self._reps[s] = rep
        self._si_size[s] = items.shape[0]
        self.si_items.append(items)
        self.si_centroid.append(centroid)
        self.si_rep.append(rep)
        self.si_tried.append(False)
        return s

    @staticmethod
    def _rep_of(X, items) -> int:
        centroid = X[items].mean(axis=0)
        return int(items[np.argmin(((X[items] - centroid) ** 2).sum(axis=1))])

    # -- queries --------------------------------------------------------------
    def ask(self, u: int, v: int) -> bool:
        """Must-link between items u and v? One oracle query unless the pair is known."""
        key = (u, v) if u < v else (v, u)
        if key in self.answers:
            return self.answers[key] > 0
        if self.n_queries >= self._next_record:
            self.record()
        if self.n_queries >= self.budget:
            raise _Stop("budget")
        answer = float(np.asarray(self.oracle.query([key[0]], [key[1]]), dtype=np.float64)[0])
        self.n_queries += 1
        self.answers[key] = answer
        if answer <= 0:
            self.add_cannot_link(u, v)
        return answer > 0

    def add_cannot_link(self, u: int, v: int) -> None:
        """Record a cannot-link between items u and v (in ``cl`` and in the list of pairs)."""
        self.cl[u, v] = self.cl[v, u] = True
        if self.n_cl == self.cl_u.shape[0]:
            self.cl_u = np.concatenate([self.cl_u, np.empty_like(self.cl_u)])
            self.cl_v = np.concatenate([self.cl_v, np.empty_like(self.cl_v)])
        self.cl_u[self.n_cl] = u
        self.cl_v[self.n_cl] = v
        self.n_cl += 1

    def cannot_linked(self, reps: np.ndarray) -> np.ndarray:
        """(m, m) bool: a known cannot-link between the representatives ``reps``."""
        return self.cl[np.ix_(reps, reps)]

    # -- splitting ------------------------------------------------------------
    def kmeans_split(self, items: np.ndarray, k: int) -> list[np.ndarray]:
        """Split ``items`` into at most k non-empty parts with k-means (k-means++, ``n_init`` starts)."""
        Xs = self.X[items]
        k = CK.distinct_rows_at_most(Xs, k)  # min(k, the distinct rows: np.unique(Xs, axis=0))
        if k <= 1:
            return [items]
        assign = kmeans(Xs, k, self.n_init, self.rng)
        return [items[assign == c] for c in range(k) if np.any(assign == c)]

    def split_level(self, s: int) -> int:
        """How many parts to split super-instance s into (COBRAS, Section 3.2): 2 ** max(level, 1)."""
        items = self.si_items[s]
        level = 0
        current = items
        while True:
            parts = [current[:1], current[1:]] if current.shape[0] == 2 else self.kmeans_split(current, 2)
            if len(parts) == 1:
                break  # cannot split any further along this branch
            if self.ask(self._rep_of(self.X, parts[0]), self._rep_of(self.X, parts[1])):
                break  # must-link: the level is found
            level += 1
            splittable = [p for p in parts if p.shape[0] >= 2]
            if not splittable:
                break
            current = min(splittable, key=lambda p: p.shape[0])  # the smaller part (first among ties)
        return min(items.shape[0], 2 ** max(level, 1))

    def to_split(self):
        """(cluster position, super-instance) of the largest splittable super-instance, or None."""
        # the first largest, in cluster order then member order, of the untried ones of two items or more
        sis = np.array([s for members in self.clusters for s in members], dtype=np.int64)
        sizes = np.where(self._si_tried[sis], 0, self._si_size[sis])
        p = int(np.argmax(sizes))
        if sizes[p] <= 1:
            return None
        where = int(np.searchsorted(np.cumsum([len(members) for members in self.clusters]), p, side="right"))
        return where, int(sis[p])

    # -- merging --------------------------------------------------------------
    def merge(self) -> None:
        """The merging phase: ask the closest not cannot-linked cluster pairs until no must-link is left.

        Every pass walks the cluster pairs in order of the distance between
        their closest super-instance centroids, skips pairs with a known
        cannot-link between any two of their representatives, and asks the
        representatives of the closest super-instances; the first must-link
        merges the two clusters and starts a new pass.  The cluster-level
        distances and cannot-link flags are updated in place after a merge
        (min and or of the two rows), which is what recomputing them gives.
        """
        if len(self.clusters) < 2:
            return
        sis = np.array([s for members in self.clusters for s in members], dtype=np.int64)
        sizes = np.array([len(members) for members in self.clusters], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        C = self._centroids[sis]  # C-contiguous (K, d), the centroids in cluster order
        sq = (C * C).sum(axis=1)
        # D = sqrt(max(sq_a + sq_b - 2 C_a . C_b, 0)): numpy's BLAS product as before (its rounding
        # depends on the call), then the element-wise steps and the cluster reductions in one kernel,
        # bitwise what numpy's temporaries and reduceat gave (_cobras_kernels.cluster_distances)
        reps = self._reps[sis]
        # cluster distance: the closest pair of super-instance centroids; a cannot-link between any two reps
        # (D2: the squared distances, rooted where compared: CK.block_argmin)
        D2 = 2.0 * C @ C.T
        Dc = CK.cluster_distances(D2, sq, starts, sizes)
        CLc = CK.cluster_cannot_links(reps, starts, sizes, self.cl_u[:self.n_cl], self.cl_v[:self.n_cl], self.n)
        members = [np.arange(st, st + sz) for st, sz in zip(starts, sizes)]  # positions in sis
        alive = np.ones(len(self.clusters), dtype=bool)
        n_pairs = len(self.clusters) * (len(self.clusters) - 1) // 2
        pair_a, pair_b = np.empty(n_pairs, dtype=np.int64), np.empty(n_pairs, dtype=np.int64)
        pair_d = np.empty(n_pairs, dtype=np.float64)
        merged = True
        try:
            while merged and alive.sum() > 1:
                merged = False
                idx = np.flatnonzero(alive)
                # the alive pairs (i < j, row-major) without a known cannot-link, and their distances
                m = CK.open_pairs(idx, CLc, Dc, pair_a, pair_b, pair_d)
                a, b = pair_a[:m], pair_b[:m]
                order = np.argsort(pair_d[:m], kind="stable")  # ties: itertools.combinations order
                for x, y in zip(a[order], b[order]):
                    mx, my = members[x], members[y]
                    i, j = CK.block_argmin(D2, mx, my)  # numpy's argmin of D[np.ix_(mx, my)]
                    if self.ask(int(reps[mx[i]]), int(reps[my[j]])):
                        members[x] = np.concatenate([mx, my])
                        alive[y] = False
                        self.clusters[x].extend(self.clusters[y])  # what a record mid-pass shows
                        self.clusters[y] = []
                        Dc[x, :] = Dc[:, x] = np.minimum(Dc[x], Dc[y])
                        CLc[x, :] = CLc[:, x] = CLc[x] | CLc[y]
                        merged = True
                        break
                    CLc[x, y] = CLc[y, x] = True
        finally:
            # the clusters as they stand (also when the budget ran out mid-pass)
            self.clusters = [members for members in self.clusters if members]

    # -- the loop -------------------------------------------------------------
    def run(self) -> str:
        self.clusters = [[self.new_superinstance(np.arange(self.n))]]
        try:
            while True:
                pick = self.to_split()
                if pick is None:
                    return "exhausted"  # every super-instance is a single item (or cannot be split)
                c, s = pick
                k = self.split_level(s)
                parts = self.kmeans_split(self.si_items[s], k)
                if len(parts) == 1:
                    self.si_tried[s] = self._si_tried[s] = True
                    continue
                self.clusters[c].remove(s)
                if not self.clusters[c]:
                    del self.clusters[c]
                self.clusters.extend([self.new_superinstance(p)] for p in parts)
                self.merge()
        except _Stop as stop:
            return stop.reason


@ALGORITHMS.register("cobras")
class COBRAS(ProblemEstimator):
    """COBRAS (van Craenendonck et al. 2018) with must-link = an oracle answer > 0.

    Parameters
    ----------
    max_queries : int or float
        Query budget: an int, or a fraction of |E| in (0, 1] (as for
        :class:`~ccexp.algorithms.active.ActiveCorrelationClustering`).
    batch_size : int, float in (0, 1) or "auto"
        B: ``history_`` holds the clustering every B queries ("auto":
        ceil(|E| / 1000)), the x-axis of the active strategies' curves.
    n_init : int
        k-means starts per split (10: scikit-learn's old default, which
        cobras-ts relied on).
    random_state : int, Generator or None
        Seeds every k-means split.

    Attributes
    ----------
    labels_ : int64 array (N,)
    history_ : list of dict
        ``n_queries`` (0, B, 2B, ... and the last count), ``labels``,
        ``n_clusters``, ``n_superinstances``.  A run that ran out of
        super-instances to split ends with one more entry at the budget
        (same clustering, ``queries_used`` = the queries really asked), so
        its curve spans the same range as the others'.
    n_queries_ : int
        Oracle queries really asked (every one went through the oracle).
    constraints_ : dict
        ``(u, v) -> answer`` of every pair asked.
    stop_reason_ : str
        ``"budget"``, ``"exhausted"`` (nothing left to split) or ``"callback"``.
    status_ : str
        ``"ok"``.

    Examples
    --------
    >>> import numpy as np
    >>> from ccexp.oracles.active import PairwiseSimilarityOracle
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> est = COBRAS(max_queries=15, random_state=0).fit(PairwiseSimilarityOracle(y, gamma=0.0), X=X)
    >>> est.labels_[:3].tolist() == [est.labels_[0]] * 3, bool(est.labels_[0] != est.labels_[3])
    (True, True)
    """

    reads = ("similarity",)  # capability declaration (ccexp.capabilities)
    needs_features = True

    supervision = "oracle"

    # the budget and the batch as for the active strategies (whose validation computes them)
    _parameter_constraints = {
        "max_queries": ActiveCorrelationClustering._parameter_constraints["max_queries"],
        "batch_size": ActiveCorrelationClustering._parameter_constraints["batch_size"],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, max_queries=1.0, batch_size="auto", n_init=10, random_state=None):
        self.max_queries = max_queries
        self.batch_size = batch_size
        self.n_init = n_init
        self.random_state = random_state

    @validates_params_first
    def fit(self, oracle, y=None, X=None, callback=None):
        """Run COBRAS on the features ``X`` (N, d) against ``oracle`` (``n_items``, ``query(u, v)``).

        ``callback(n_queries, labels) -> bool`` is called at every recorded
        step; True stops the run.
        """
        validate_params(self)
        return self._fit(oracle, X, callback)

    @validates_params_first
    def fit_problem(self, problem, callback=None):
        validate_params(self)
        return self._fit(problem.require("oracle", type(self).__name__), problem.X, callback)

    def _run(self, X, oracle, budget, batch, rng, callback, *, n_init):
        """The run's state (:class:`_CobrasRun`); a subclass declares the parameters it reads as keyword-only."""
        return _CobrasRun(X, oracle, budget, batch, int(n_init), rng, callback)

    def _fit(self, oracle, X, callback):
        if X is None:
            raise ValueError(f"{type(self).__name__} needs features: pass X (or a problem with X)")
        if hasattr(oracle, "session"):
            oracle = oracle.session()
        X = np.asarray(X, dtype=np.float64)
        n = int(oracle.n_items)
        if X.ndim != 2 or X.shape[0] != n:
            raise ValueError(f"X must have shape (n_items={n}, d), got {X.shape}")
        if n < 2:
            raise ValueError(f"need at least 2 items, got {n}")
        # the budget and the batch as the active strategies compute them; the parameters are read here and
        # handed on, 4 calls from python -m ccexp (issue 30)
        helper = ActiveCorrelationClustering(max_queries=self.max_queries, batch_size=self.batch_size)
        B, budget = helper._check_params(n * (n - 1) // 2)
        kw = {}
        for name in hook_params(type(self)._run):
            kw[name] = getattr(self, name)
        run = self._run(X, oracle, budget, B, check_random_state(self.random_state), callback, **kw)
        reason = run.run()
        if reason != "callback" and (not run.history or run.history[-1]["n_queries"] != run.n_queries):
            try:
                run.record()  # the final state
            except _Stop:
                reason = "callback"
        if reason == "exhausted" and run.n_queries < budget:
            # nothing left to ask: this clustering is what any larger budget gives; the curve is held
            # to the budget (as QECC's x-axis is the budget granted), queries_used says what was spent
            last = dict(run.history[-1], n_queries=budget, queries_used=run.n_queries)
            run.history.append(last)
        self.labels_ = run.labels()
        self.history_ = run.history
        self.n_queries_ = run.n_queries
        self.constraints_ = dict(run.answers)
        self.batch_size_ = B
        self.stop_reason_ = reason
        self.status_ = "ok"
        self._finish(run)
        return self

    def _finish(self, run) -> None:
        """Hook for subclasses (extra attributes)."""

    @classmethod
    def warmup(cls) -> None:
        """Compile the merging phase's kernels (a run on six points)."""
        X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
        cls(max_queries=15, random_state=0).fit(PairwiseSimilarityOracle(np.array([0, 0, 0, 1, 1, 1]), gamma=0.0), X=X)


__all__ = ["COBRAS"]
