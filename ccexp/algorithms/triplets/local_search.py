"""Local search for triplet correlation clustering (Ukkonen 2017, Algorithm 2).

Four registered variants (Section V): ``ls_eq`` / ``ls_ad`` start from all
items in one cluster / each in its own, and the ``_vc`` variants first drop
the triplets of a vertex cover of the constraint graph (Section IV-B).
"""

from __future__ import annotations

import time
import warnings
from numbers import Integral

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from ..._validation import check_labels, check_random_state
from ...cc.labels import relabel_first_appearance
from ...objectives.kernels import triplet_cost
from ...registry import ALGORITHMS
from ..base import RANDOM_STATE
from .base import TripletEstimator
from . import _kernels as K
from .vertex_cover import REDUNDANT_ORDERS, VC_ORDERS, triplet_vertex_cover


TIE_BREAKS = {"stay": K.TIE_STAY, "first": K.TIE_FIRST, "last": K.TIE_LAST, "random": K.TIE_RANDOM}


class SearchState:
    """Algorithm 2 of Ukkonen (2017) between two passes: the clustering, each item's triplets, the work arrays.

    :meth:`step` runs one pass of lines 4-12 (every item, in index order, moved to the cluster of line 8;
    ``_kernels.local_search_pass``) and line 13's relabelling.  The caller holds the loop ("until no item
    moves") and its cap, so that the cap is applied where it is read (issue 30, item 7: one-pass kernels
    driven from Python over one state).

    Parameters
    ----------
    triplets : int64 array (m, 3)
        Validated triplets, outlier last.
    n_items : int
    labels : int64 array (n_items,)
        Initial clustering (any integer ids in ``[0, n_items)``); copied, not modified.
    tie_break : {"first", "stay", "last", "random"}
        See :class:`TripletLocalSearch`.
    random_state : int, Generator or None
        Draws the ties of ``tie_break="random"`` (one uniform per item and pass).

    Attributes
    ----------
    labels : int64 array (n_items,)
        The clustering after the last pass, contiguous ids ``0 .. h-1``.
    n_passes : int
    converged : bool
        Whether the last pass moved no item (False before the first pass).

    Notes
    -----
    One pass costs O(|T| + n): each item looks only at its own triplets
    (see ``_kernels.local_search_pass``).
    """

    def __init__(self, triplets: np.ndarray, n_items: int, labels: np.ndarray, *, tie_break: str, random_state=None):
        if tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break must be one of {tuple(TIE_BREAKS)}, got {tie_break!r}")
        self.labels = check_labels(labels, "labels", n_items=n_items)  # a new array of codes < n_items: never cast
        self._k_new = relabel_first_appearance(self.labels)
        self._partners = K.item_partners(triplets, n_items)  # indptr, first, second
        self._gain = np.zeros(2 * n_items + 1, dtype=np.int64)
        self._touched = np.empty(2 * n_items + 1, dtype=np.int64)
        self._mode = TIE_BREAKS[tie_break]
        self._rng = check_random_state(random_state) if tie_break == "random" else None
        self._draws = np.zeros(n_items if self._rng is not None else 1, dtype=np.float64)
        self.n_passes = 0
        self._moved = 1

    def step(self) -> bool:
        """One pass over the items; True if an item moved (Algorithm 2 goes on), False once none did."""
        self.n_passes += 1
        if self._rng is not None:
            self._draws = self._rng.random(self.labels.size)
        self._moved, self._k_new = K.local_search_pass(*self._partners, self.labels, self._k_new, self._gain,
                                                       self._touched, self._mode, self._draws)
        self._k_new = relabel_first_appearance(self.labels)
        return self._moved != 0

    @property
    def converged(self) -> bool:
        """Whether the last pass moved no item (False before the first pass)."""
        return self._moved == 0


def triplet_local_search(
    triplets: np.ndarray, n_items: int, labels: np.ndarray, *, max_passes: int, tie_break: str, random_state=None,
):
    """Run Algorithm 2 from ``labels`` until no item moves, or for ``max_passes`` passes.

    Parameters
    ----------
    triplets, n_items, labels, tie_break, random_state
        As :class:`SearchState`'s.
    max_passes : int
        Safety cap (no default here: the estimator's signature holds it); with ``tie_break="stay"`` Algorithm 2
        terminates on its own because every move strictly lowers s(f, T).

    Returns
    -------
    labels : int64 array
        Contiguous labels ``0 .. h-1`` (the clean-up of line 13).
    n_passes : int
    converged : bool
        False if ``max_passes`` ran out while items still moved.
    """
    state = SearchState(triplets, n_items, labels, tie_break=tie_break, random_state=random_state)
    while state.n_passes < max_passes and state.step():
        pass
    return state.labels, state.n_passes, state.converged


class TripletLocalSearch(TripletEstimator):
    """Algorithm 2 of Ukkonen (2017): greedy single-item moves on s(f, T).

    Parameters
    ----------
    init : {"different", "equal"}
        "All different" (each item its own cluster) or "all equal".
    vertex_cover : bool
        Drop the triplets of a vertex cover of the constraint graph first
        (Approx-VC plus redundancy removal, Section IV-B).
    tie_break : {"first", "stay", "last", "random"}
        What line 8 does when several clusters are equally good.
        ``"first"`` (default) is line 8 as written: the first minimiser over
        the ids ``1 .. k_new``, even when the item's own cluster is also a
        minimiser, so weakly constrained items drift into low-numbered
        clusters.  It reproduces the paper's Table I (notably Ls-EQ-VC's
        under-segmentation at a = 1); O(|T| + n k) per pass.  ``"stay"``
        moves an item only on a strict improvement, so the search provably
        terminates, and prefers a cluster holding evidence for the item over
        a new one; O(|T| + n) per pass.  ``"last"``: the last minimiser
        (a loop keeping a later id on equal cost).  ``"random"``: stay when
        the own cluster is a minimiser, else a minimiser drawn uniformly
        (``random_state``).  See experiments/ukkonen2017/README.md.
    vc_order : {"pairs", "triplets", "random_pairs", "random_triplets"}
        The order Approx-VC takes the constraint graph's edges in
        (:func:`~.vertex_cover.triplet_vertex_cover`); default item pair by
        item pair.
    redundant_order : {"input", "reverse", "random"}
        The order of the redundancy removal (default: input order).
    item_order : {"index", "random"}
        The items' order: their indices (default), or a random permutation
        drawn from ``random_state`` (the visiting order of Algorithm 2 and
        the pair order of the cover follow it).  On data whose item ids come
        in a fixed order (Food's file) it makes the trials measure how much
        the result depends on that order.
    max_passes : int
        Cap on passes over the items; reaching it sets ``converged_ = False``,
        ``status_ = "max_passes"`` and warns (never seen with ``"stay"``,
        which provably terminates).
    random_state : int, Generator or None
        Draws the random orders and ties of the random options; with the
        defaults the algorithm is deterministic (items in index order, the
        vertex cover in pair and input order, ties by ``tie_break``).

    Attributes
    ----------
    labels_ : int64 array (n_items,)
    objective_ : int
        s(f, T) on the full input (not only on the triplets kept after the
        vertex cover).
    n_passes_ : int
    converged_ : bool
        Whether the last pass moved no item.
    status_ : str
        ``"ok"``, or ``"max_passes"`` when not converged (recorded by the runner).
    n_removed_ : int
        Triplets dropped by the vertex cover (0 without it).
    timings_ : dict
        Seconds spent in ``vertex_cover`` and ``local_search``.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([[0, 1, 2], [0, 1, 3], [2, 3, 0], [2, 3, 1]])
    >>> LsADVC().fit(T).labels_
    array([0, 0, 1, 1])
    """

    _parameter_constraints = {
        "init": [StrOptions({"different", "equal"})],
        "vertex_cover": ["boolean"],
        "tie_break": [StrOptions(set(TIE_BREAKS))],
        "max_passes": [Interval(Integral, 1, None, closed="left")],
        "vc_order": [StrOptions(set(VC_ORDERS))],
        "redundant_order": [StrOptions(set(REDUNDANT_ORDERS))],
        "item_order": [StrOptions({"index", "random"})],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, init="different", vertex_cover=True, tie_break="first", max_passes=1000, vc_order="pairs",
                 redundant_order="input", item_order="index", random_state=None):
        self.init = init
        self.vertex_cover = vertex_cover
        self.tie_break = tie_break
        self.max_passes = max_passes
        self.vc_order = vc_order
        self.redundant_order = redundant_order
        self.item_order = item_order
        self.random_state = random_state

    def _fit(self, T, n_items):
        max_passes = int(self.max_passes)
        t0 = time.perf_counter()
        # seeds for the random options only (the defaults draw nothing): three integers from random_state
        randomised = "random" in (self.tie_break, self.vc_order.split("_")[0], self.redundant_order, self.item_order)
        vc_seed, ls_seed, order_seed = (check_random_state(self.random_state).integers(2**63, size=3) if randomised
                                        else (None, None, None))
        perm = None
        if self.item_order == "random":  # item i becomes perm[i]: the visiting order and the pair ids change
            perm = check_random_state(order_seed).permutation(n_items)
            T_orig, T = T, perm[T]
        if self.vertex_cover:
            covered, _ = triplet_vertex_cover(T, n_items, vc_order=self.vc_order,
                                              redundant_order=self.redundant_order, random_state=vc_seed)
            T_used = T.take(np.flatnonzero(~covered), axis=0)  # = T[~covered], 3x faster than the boolean index
            self.n_removed_ = int(covered.sum())
        else:
            T_used = T
            self.n_removed_ = 0
        t1 = time.perf_counter()
        if self.init == "different":
            init = np.arange(n_items, dtype=np.int64)
        else:
            init = np.zeros(n_items, dtype=np.int64)
        # Algorithm 2's "repeat ... until no item moves", capped at max_passes: the loop of triplet_local_search,
        # here, where the cap is read (issue 30: 4 calls from the command line to its use)
        search = SearchState(T_used, n_items, init, tie_break=self.tie_break, random_state=ls_seed)
        while search.n_passes < max_passes and search.step():
            pass
        self.labels_, self.n_passes_, self.converged_ = search.labels, search.n_passes, search.converged
        if perm is not None:
            self.labels_ = self.labels_[perm].copy()  # item i's label is that of perm[i]
            relabel_first_appearance(self.labels_)
            T = T_orig
        self.status_ = "ok" if self.converged_ else "max_passes"
        if not self.converged_:
            warnings.warn(
                f"local search stopped after max_passes={max_passes} passes with items still moving",
                ConvergenceWarning,
                stacklevel=3,
            )
        t2 = time.perf_counter()
        self.objective_ = int(triplet_cost(T, self.labels_))
        self.timings_ = {"vertex_cover": t1 - t0, "local_search": t2 - t1}
        return self

    @classmethod
    def warmup(cls) -> None:
        T = np.array([[0, 1, 2], [0, 2, 1], [1, 2, 0], [2, 3, 0]], dtype=np.int64)
        cls().fit(T)


# The four variants of Section V differ only in two defaults; the parameter
# list is TripletLocalSearch's.


@ALGORITHMS.register("ls_eq")
class LsEQ(TripletLocalSearch, defaults={"init": "equal", "vertex_cover": False}):
    """Ls-EQ: Algorithm 2 from "all equal", on all triplets."""


@ALGORITHMS.register("ls_ad")
class LsAD(TripletLocalSearch, defaults={"init": "different", "vertex_cover": False}):
    """Ls-AD: Algorithm 2 from "all different", on all triplets."""


@ALGORITHMS.register("ls_eq_vc")
class LsEQVC(TripletLocalSearch, defaults={"init": "equal", "vertex_cover": True}):
    """Ls-EQ-VC: the vertex-cover clean-up, then Algorithm 2 from "all equal"."""


@ALGORITHMS.register("ls_ad_vc")
class LsADVC(TripletLocalSearch, defaults={"init": "different", "vertex_cover": True}):
    """Ls-AD-VC (the paper's method): vertex cover, then Algorithm 2 from "all different"."""
