"""The estimator shapes shared by the aggregation family.

One orientation for the whole family: ``fit(clusterings)`` takes an int
array of shape ``(m, n)``, one row per input clustering, one column per
item, ``-1`` for a missing label -- what the clusterings oracles put in
``problem.clusterings``.  ROCK and LIMBO read the same array as a
categorical table (an attribute per input clustering), transposed inside.

Each aggregation algorithm implements ``_cluster(enc, *, <its parameters>)
-> labels`` on :class:`~ccexp.objectives.clusterings.EncodedClusterings`;
its base class gives it the natural ``fit(clusterings)``, the uniform
``fit_problem(problem)``, canonical labels, timings and warm-up, and lets
SAMPLING run the wrapped algorithm on a subset without re-encoding.  The
categorical baselines implement ``_fit_table(T, *, <its parameters>)`` on
the ``(n, m)`` table and share :class:`CategoricalEstimator`'s entry
points.  The parameters a hook names as keyword-only are read by the base
class's driver and handed to it (:func:`~ccexp.algorithms.base.hook_params`,
issue 30), so the hook is a function of its arguments; a hook without
keyword-only parameters (a plugin's, say) reads ``self`` as before.
"""

from __future__ import annotations

import time
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, Options, StrOptions

from ..._validation import check_random_state
from ...cc.labels import relabel_contiguous
from ...registry import ALGORITHMS
from ..base import ProblemEstimator, hook_params, validate_params, validates_params_first
from ...objectives.clusterings import EncodedClusterings, check_p, encode

#: Figure 1 of the paper: three clusterings of six objects (rows = clusterings).
FIGURE1 = np.array([[0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 2, 3], [0, 1, 0, 1, 2, 2]], dtype=np.int64)


class AggregationAlgorithms(StrOptions):
    """``StrOptions`` of some fixed names plus the registered aggregation algorithms but ``exclude``.

    The registry is read when a parameter is validated (at fit time), not
    when the class is defined: the aggregation modules register one by one,
    and plugins register later still.  LOCALSEARCH's ``init`` and
    SAMPLING's ``algorithm`` name another algorithm of the family this way.
    """

    def __init__(self, fixed=(), exclude=()):
        # not StrOptions.__init__: it stores a fixed set, and reading the registry here, at import, is too early
        super(Options, self).__init__()
        self.type = str
        self.deprecated = set()
        self._fixed = tuple(fixed)
        self._exclude = frozenset(exclude)

    @property
    def options(self) -> tuple:
        """The fixed names, then the registered aggregation algorithms in name order."""
        names = [n for n in ALGORITHMS.names() if n not in self._exclude and n not in self._fixed
                 and isinstance(ALGORITHMS.get(n), type) and issubclass(ALGORITHMS.get(n), AggregationEstimator)]
        return self._fixed + tuple(names)


class AggregationEstimator(ProblemEstimator):
    """Base class of the clustering-aggregation algorithms (Gionis et al. 2007).

    Subclasses take ``p`` (the missing-value coin; ``None`` reads
    ``problem.meta["missing_p"]`` in :meth:`fit_problem`, else 1/2) and
    ``random_state`` among their parameters; the order-dependent ones
    (AGGLOMERATIVE, FURTHEST, BALLS, LOCALSEARCH) also take ``item_order``.

    ``item_order="random"`` runs the algorithm on the items in a random
    order drawn from ``random_state`` (issue 29: the paper's algorithms are
    deterministic for a fixed order, but their result depends on it, so an
    experiment runs them over random orders as trials); ``labels_`` is always
    in the caller's order. ``"index"`` (the default) keeps the given order.
    """

    #: values of ``item_order`` (for the subclasses that take it)
    ITEM_ORDERS = ("index", "random")

    #: ``_parameter_constraints`` entries the subclasses share (scikit-learn's validation, at fit time)
    P_CONSTRAINT = [Interval(Real, 0, 1, closed="both"), None]
    ITEM_ORDER_CONSTRAINT = [StrOptions(set(ITEM_ORDERS))]

    reads = ("clusterings",)  # capability declaration (ccexp.capabilities)
    needs_features = False

    supervision = "clusterings"

    def _p(self, problem=None) -> float:
        p = getattr(self, "p", None)
        if p is None:
            p = problem.meta.get("missing_p", 0.5) if problem is not None else 0.5
        return check_p(p)

    @validates_params_first
    def fit(self, clusterings, y=None):
        """Aggregate ``clusterings`` (int array (m clusterings, n items), ``-1`` missing); sets ``labels_``."""
        validate_params(self)
        enc = clusterings if isinstance(clusterings, EncodedClusterings) else encode(clusterings, self._p())
        return self._fit_encoded(enc)

    @validates_params_first
    def fit_problem(self, problem):
        validate_params(self)
        C = problem.require("clusterings", type(self).__name__)
        return self._fit_encoded(encode(C, self._p(problem)))

    def _fit_encoded(self, enc: EncodedClusterings):
        """Run the subclass's ``_cluster`` on ``enc`` in the items' order; sets ``labels_`` (the caller's order).

        The parameters ``_cluster`` names as keyword-only (:func:`~ccexp.algorithms.base.hook_params`)
        are read here and handed to it, as are ``item_order`` and ``random_state``: 4 calls from
        ``python -m ccexp`` (issue 30).
        """
        self.timings_ = {}
        self.status_ = "ok"
        order = getattr(self, "item_order", "index")  # one of ITEM_ORDERS: its constraint is checked at fit time
        kw = {}
        for name in hook_params(type(self)._cluster):
            kw[name] = getattr(self, name)
        perm = None
        self._rng = None
        if order != "index":
            # the permutation is drawn first, so that an algorithm that draws more (LOCALSEARCH's
            # random start, from ``self._rng``) continues the same stream
            self._rng = check_random_state(getattr(self, "random_state", None))
            perm = self._rng.permutation(enc.n_items).astype(np.int64)
            enc = enc.subset(perm)
        t0 = time.perf_counter()
        labels = self._cluster(enc, **kw)
        self.timings_.setdefault("cluster", time.perf_counter() - t0)
        if perm is not None:
            # item perm[i] sat at place i: give every item its own label back
            back = np.empty_like(labels)
            back[perm] = labels
            labels = back
        self.labels_ = relabel_contiguous(labels)
        return self

    def _cluster(self, enc: EncodedClusterings) -> np.ndarray:  # pragma: no cover - abstract
        """The clustering of ``enc``'s items; a subclass declares the parameters it reads as keyword-only."""
        raise NotImplementedError

    @classmethod
    def warmup(cls) -> None:
        cls().fit(FIGURE1)


def check_table(T, name: str = "T") -> np.ndarray:
    """A categorical table (n_records, n_attributes) of int codes, ``-1`` missing, as int64."""
    T = np.asarray(T)
    if T.ndim != 2:
        raise ValueError(f"{name} must be a 2-D table (n_records, n_attributes), got shape {T.shape}")
    if T.size and not np.issubdtype(T.dtype, np.integer):
        raise ValueError(f"{name} must hold integer codes, got dtype {T.dtype}")
    if T.size and T.min() < -1:
        raise ValueError(f"{name} uses -1 for a missing value; got code {T.min()}")
    return np.ascontiguousarray(T, dtype=np.int64)


#: warm-up input of the categorical baselines: (m, n) clusterings, one missing label
CATEGORICAL_WARMUP = np.array([[0, 0, 0, 1, 1, -1], [0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2]], dtype=np.int64)


class CategoricalEstimator(ProblemEstimator):
    """Base of ROCK and LIMBO: the input clusterings read as categorical attributes.

    ``fit(clusterings)`` takes the family's ``(m, n)`` array (one row per
    input clustering, ``-1`` missing) and calls ``_fit_table(T)`` on the
    table ``T = clusterings.T`` of shape ``(n records, m attributes)``, the
    orientation of the papers (and of :func:`~.rock.rock_links`,
    :func:`~.limbo.tuple_items`).
    """

    supervision = "clusterings"
    #: parameters of :meth:`warmup` besides ``n_clusters=2``
    _warmup_params: dict = {}

    @validates_params_first
    def fit(self, clusterings, y=None):
        """Cluster the items of ``clusterings`` (int array (m clusterings, n items), ``-1`` missing).

        A subclass with ``item_order="random"`` (LIMBO, ROCK) reads the records in
        an order drawn from ``random_state``; ``labels_`` keep the caller's order.
        """
        validate_params(self)
        return self._fit_clusterings(clusterings)

    @validates_params_first
    def fit_problem(self, problem):
        """Cluster the problem's items; each input clustering is one categorical attribute."""
        validate_params(self)
        return self._fit_clusterings(problem.require("clusterings", type(self).__name__))

    def _fit_clusterings(self, clusterings):
        """``_fit_table`` on the records of ``clusterings`` in their order, handed the parameters it names.

        As :meth:`AggregationEstimator._fit_encoded`: the keyword-only parameters of ``_fit_table``,
        ``item_order`` and ``random_state`` are read here, 4 calls from ``python -m ccexp`` (issue 30).
        """
        C = np.asarray(clusterings)
        if C.ndim != 2:
            raise ValueError(f"clusterings must have shape (m clusterings, n items), got {C.shape}")
        if C.shape[0] == 0:  # as every aggregator refuses it (encode): no input, no answer
            raise ValueError(f"clusterings must hold at least one clustering (m >= 1), got m = {C.shape[0]}")
        T = check_table(C.T, "clusterings")
        kw = {}
        for name in hook_params(type(self)._fit_table):
            kw[name] = getattr(self, name)
        order = getattr(self, "item_order", "index")  # one of ITEM_ORDERS: its constraint is checked at fit time
        if order == "index":
            return self._fit_table(T, **kw)
        perm = check_random_state(getattr(self, "random_state", None)).permutation(T.shape[0])
        self._fit_table(np.ascontiguousarray(T[perm]), **kw)
        back = np.empty_like(self.labels_)
        back[perm] = self.labels_
        self.labels_ = relabel_contiguous(back)
        return self

    def _fit_table(self, T):  # pragma: no cover - abstract
        """Cluster the records of ``T``; a subclass declares the parameters it reads as keyword-only."""
        raise NotImplementedError

    @classmethod
    def warmup(cls) -> None:
        cls(n_clusters=2, **cls._warmup_params).fit(CATEGORICAL_WARMUP)
