"""Local search for triplet correlation clustering (Ukkonen 2017, Algorithm 2).

Four registered variants (Section V): ``ls_eq`` / ``ls_ad`` start from all
items in one cluster / each in its own, and the ``_vc`` variants first drop
the triplets of a vertex cover of the constraint graph (Section IV-B).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..._validation import check_labels, check_positive_int
from ...cc.labels import relabel_first_appearance
from ...objectives.kernels import triplet_cost
from ...registry import ALGORITHMS
from .base import TripletEstimator
from . import _kernels as K
from .vertex_cover import triplet_vertex_cover


def triplet_local_search(
    triplets: np.ndarray, n_items: int, labels: np.ndarray, max_passes: int = 1000, tie_break: str = "first"
):
    """Run Algorithm 2 from ``labels`` until no item moves.

    Parameters
    ----------
    triplets : int64 array (m, 3)
        Validated triplets, outlier last.
    n_items : int
    labels : int64 array (n_items,)
        Initial clustering (any integer ids in ``[0, n_items)``); not modified.
    max_passes : int
        Safety cap; with ``tie_break="stay"`` Algorithm 2 terminates on its
        own because every move strictly lowers s(f, T).
    tie_break : {"first", "stay"}
        See :class:`TripletLocalSearch`.

    Returns
    -------
    labels : int64 array
        Contiguous labels ``0 .. h-1`` (the clean-up of line 13).
    n_passes : int
    converged : bool
        False if ``max_passes`` ran out while items still moved.

    Notes
    -----
    One pass costs O(|T| + n): each item looks only at its own triplets
    (see ``_kernels.local_search_pass``).
    """
    labels = check_labels(labels, "labels", n_items=n_items)  # a new array of codes < n_items: never cast
    k_new = relabel_first_appearance(labels)
    indptr, tri, slot = K.item_incidence(triplets, n_items)
    gain = np.zeros(2 * n_items + 1, dtype=np.int64)
    touched = np.empty(3 * triplets.shape[0] + 1, dtype=np.int64)
    if tie_break not in ("stay", "first"):
        raise ValueError(f"tie_break must be 'stay' or 'first', got {tie_break!r}")
    n_passes = 0
    moved = 1
    while n_passes < max_passes:
        n_passes += 1
        moved, k_new = K.local_search_pass(
            triplets, indptr, tri, slot, labels, k_new, gain, touched, tie_break == "first"
        )
        k_new = relabel_first_appearance(labels)
        if moved == 0:
            break
    return labels, n_passes, moved == 0


class TripletLocalSearch(TripletEstimator):
    """Algorithm 2 of Ukkonen (2017): greedy single-item moves on s(f, T).

    Parameters
    ----------
    init : {"different", "equal"}
        "All different" (each item its own cluster) or "all equal".
    vertex_cover : bool
        Drop the triplets of a vertex cover of the constraint graph first
        (Approx-VC plus redundancy removal, Section IV-B).
    tie_break : {"first", "stay"}
        What line 8 does when several clusters are equally good.
        ``"first"`` (default) is line 8 as written: the first minimiser over
        the ids ``1 .. k_new``, even when the item's own cluster is also a
        minimiser, so weakly constrained items drift into low-numbered
        clusters.  It reproduces the paper's Table I (notably Ls-EQ-VC's
        under-segmentation at a = 1); O(|T| + n k) per pass.  ``"stay"``
        moves an item only on a strict improvement, so the search provably
        terminates, and prefers a cluster holding evidence for the item over
        a new one; O(|T| + n) per pass.  See experiments/ukkonen2017/README.md.
    max_passes : int
        Cap on passes over the items; reaching it sets ``converged_ = False``,
        ``status_ = "max_passes"`` and warns (never seen with ``"stay"``,
        which provably terminates).
    random_state : None
        Accepted for a uniform interface; the algorithm is deterministic
        (items are visited in index order, ties keep an item in place).

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

    def __init__(self, init="different", vertex_cover=True, tie_break="first", max_passes=1000, random_state=None):
        self.init = init
        self.vertex_cover = vertex_cover
        self.tie_break = tie_break
        self.max_passes = max_passes
        self.random_state = random_state

    def _fit(self, T, n_items):
        if self.init not in ("different", "equal"):
            raise ValueError(f"init must be 'different' or 'equal', got {self.init!r}")
        max_passes = check_positive_int(self.max_passes, "max_passes")
        t0 = time.perf_counter()
        if self.vertex_cover:
            covered, _ = triplet_vertex_cover(T, n_items)
            T_used = T[~covered]
            self.n_removed_ = int(covered.sum())
        else:
            T_used = T
            self.n_removed_ = 0
        t1 = time.perf_counter()
        if self.init == "different":
            init = np.arange(n_items, dtype=np.int64)
        else:
            init = np.zeros(n_items, dtype=np.int64)
        self.labels_, self.n_passes_, self.converged_ = triplet_local_search(
            T_used, n_items, init, max_passes, self.tie_break
        )
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
