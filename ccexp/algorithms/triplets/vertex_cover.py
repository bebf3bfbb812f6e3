"""Vertex cover of the triplet constraint graph (Ukkonen 2017, Section IV-B).

Definition 1: two triplets are inconsistent when one is satisfied only if
f(u) = f(v) and the other only if f(u) != f(v), for some items u, v.  The
constraint graph has the triplets as vertices and the inconsistent pairs as
edges; at a = 1 it has tens of millions of edges, so it is never built: the
kernels work on per-pair lists (see ``_kernels.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._validation import check_random_state
from . import _kernels as K

# Above this many (n * n) dense pair ids the pair keys are compressed with
# np.unique first, so memory stays O(|T|) rather than O(n^2).
_DENSE_PAIR_LIMIT = 4_000_000


@dataclass(frozen=True)
class PairLists:
    """Triplets grouped by (item pair, side): the implicit constraint graph.

    ``keys[3 t + s]`` is the key of slot ``s`` of triplet ``t``: ``2 p`` for
    the together pair of the triplet, ``2 p + 1`` for its two apart pairs,
    where ``p`` is a compact pair id.  ``indptr``/``members`` list the
    triplets under each key.
    """

    keys: np.ndarray
    indptr: np.ndarray
    members: np.ndarray
    n_pairs: int

    @classmethod
    def build(cls, triplets: np.ndarray, n_items: int) -> "PairLists":
        """Group the three pair slots of the triplets by (pair, side) (Ukkonen 2017, Definition 1).

        Parameters
        ----------
        triplets : int64 array (m, 3)
            Validated triplets, outlier last.
        n_items : int

        Returns
        -------
        PairLists
            Dense pair ids ``u * n + v`` while ``n^2`` is at most
            ``_DENSE_PAIR_LIMIT``, else ids compressed with ``np.unique``
            (memory O(|T|) rather than O(n^2)).
        """
        if n_items * n_items <= _DENSE_PAIR_LIMIT:
            keys = K.dense_pair_keys(triplets, n_items)  # int32: 2 n^2 <= 8M keys
            n_pairs = n_items * n_items
        else:
            keys = K.pair_keys(triplets, n_items)
            pair_ids, inverse = np.unique(keys >> 1, return_inverse=True)
            keys = (inverse.astype(np.int64) << 1) | (keys & 1)
            n_pairs = pair_ids.shape[0]
        indptr, members = K.group_by_key(keys, 2 * n_pairs)
        return cls(keys, indptr, members, n_pairs)


#: The orders Approx-VC can take the constraint graph's edges in (:func:`triplet_vertex_cover`'s ``vc_order``).
VC_ORDERS = ("pairs", "triplets", "random_pairs", "random_triplets")
#: The orders the redundancy removal can visit the cover in (``redundant_order``).
REDUNDANT_ORDERS = ("input", "reverse", "random")


def triplet_vertex_cover(triplets: np.ndarray, n_items: int, remove_redundant: bool = True, vc_order: str = "pairs",
                         redundant_order: str = "input", random_state=None):
    """Cover of the constraint graph by Approx-VC plus redundancy removal.

    Parameters
    ----------
    triplets : int64 array (m, 3)
        Validated triplets (outlier last).
    n_items : int
    remove_redundant : bool
        Apply the Section IV-B heuristic that un-covers every vertex all of
        whose neighbours are covered (one pass, in ``redundant_order``).
    vc_order : {"pairs", "triplets", "random_pairs", "random_triplets"}
        The order Approx-VC takes edges in, which the paper leaves open
        ("selects edges from the input graph one by one"): item pair by item
        pair in index order (default), matching each pair's "together" and
        "apart" triplets in input order; triplet by triplet in input order,
        each uncovered one matched to its first uncovered neighbour; or
        either walk in a random order.
    redundant_order : {"input", "reverse", "random"}
        The order the redundancy removal considers the covered triplets in
        ("one-by-one", Section IV-B): input order (default), reversed, random.
    random_state : int, Generator or None
        Draws the random orders.

    Returns
    -------
    covered : bool array (m,)
        The cover; ``triplets[~covered]`` is free of inconsistencies (Lemma 1).
    info : dict
        ``n_matched`` (cover size after Approx-VC) and ``n_redundant``.

    Notes
    -----
    Approx-VC is a 2-approximation of the minimum vertex cover.  Time and
    memory O(|T| + min(n^2, |T|)), not O(|E(C_T)|).
    """
    if vc_order not in VC_ORDERS:
        raise ValueError(f"vc_order must be one of {VC_ORDERS}, got {vc_order!r}")
    if redundant_order not in REDUNDANT_ORDERS:
        raise ValueError(f"redundant_order must be one of {REDUNDANT_ORDERS}, got {redundant_order!r}")
    m = triplets.shape[0]
    covered = np.zeros(m, dtype=np.bool_)
    if m == 0:
        return covered, {"n_matched": 0, "n_redundant": 0}
    rng = check_random_state(random_state) if "random" in (vc_order + redundant_order) else None
    lists = PairLists.build(triplets, n_items)
    n_keys = 2 * lists.n_pairs
    if vc_order in ("pairs", "random_pairs"):
        order = rng.permutation(lists.n_pairs) if vc_order == "random_pairs" else np.arange(lists.n_pairs)
        K.approx_vertex_cover(lists.indptr, lists.members, lists.n_pairs, covered, order.astype(np.int64))
    else:
        order = rng.permutation(m) if vc_order == "random_triplets" else np.arange(m)
        K.approx_vertex_cover_by_triplet(lists.keys, lists.indptr, lists.members, n_keys, covered, order.astype(np.int64))
    n_matched = int(covered.sum())
    n_redundant = 0
    if remove_redundant:
        if redundant_order == "input":
            order = np.arange(m)
        elif redundant_order == "reverse":
            order = np.arange(m - 1, -1, -1)
        else:
            order = rng.permutation(m)
        n_redundant = int(K.remove_redundant(lists.keys, n_keys, covered, order.astype(np.int64)))
    return covered, {"n_matched": n_matched, "n_redundant": n_redundant}


def consistent_triplets(triplets: np.ndarray, n_items: int, remove_redundant: bool = True) -> np.ndarray:
    """``T' = T \\ vc(C_T)``: the triplets left after the vertex cover."""
    covered, _ = triplet_vertex_cover(triplets, n_items, remove_redundant)
    return triplets[~covered]
