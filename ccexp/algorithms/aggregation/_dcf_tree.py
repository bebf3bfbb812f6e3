"""LIMBO's DCF tree (Andritsos, Tsaparas, Miller and Sevcik 2004, Phase 1).

The summaries of LIMBO's first phase live in a height-balanced tree, as
BIRCH's CF tree (Zhang et al. 1996) with distributional cluster features
DCF = (p(c), p(V|c)) in place of CFs and the information loss delta I as the
distance:

* a non-leaf node holds at most B entries, each the DCF of its child's
  subtree (the mass-weighted merge of the child's entries) and the child;
* a leaf holds at most B entries, each a summary DCF of tuples;
* a tuple descends from the root through the entry of least delta I to a
  leaf; there it merges into the entry of least delta I if that loses at
  most tau = phi I(T; V) / n, else it becomes a new entry;
* a node with B + 1 entries splits: the two entries farthest apart (largest
  delta I) are the seeds and every other entry joins the seed it is closest
  to; the parent takes two entries for the halves and may split in turn; a
  root that splits gets a new root above it;
* every entry on the tuple's path absorbs the tuple.

The leaves' entries, left to right, are the summaries that LIMBO's second
phase (AIB) clusters. With B at least the number of summaries the root never
splits, every tuple meets every summary, and the tree gives exactly the
exhaustive scan of :func:`._limbo_kernels.summarize` (tested). Ties go to the
first entry, as in the scan.
"""

from __future__ import annotations

import numpy as np

from . import _limbo_kernels as K

__all__ = ["DCFNode", "dcf_tree_summaries"]


class DCFNode:
    """One node: ``w`` (masses), ``P`` (rows over V) of its entries, ``children`` (None for a leaf)."""

    __slots__ = ("w", "P", "children")

    def __init__(self, w: list, P: list, children: list | None):
        self.w = w
        self.P = P
        self.children = children

    @property
    def is_leaf(self) -> bool:
        """True for a leaf (its entries are summaries, without children)."""
        return self.children is None

    def dcf(self) -> tuple[float, np.ndarray]:
        """The merge of the node's entries: its parent entry's DCF."""
        w = float(sum(self.w))
        return w, sum(wi * pi for wi, pi in zip(self.w, self.P)) / w


def _closest_tuple(node: DCFNode, its, q, wt) -> tuple[int, float]:
    best, bi = np.inf, -1
    for i in range(len(node.w)):
        d = K.loss_tuple(wt, its, q, node.w[i], node.P[i])
        if d < best:
            best, bi = d, i
    return bi, best


def _absorb(w: float, p: np.ndarray, its, q, wt) -> tuple[float, np.ndarray]:
    new_w = w + wt
    new_p = p * (w / new_w)
    new_p[its] += wt * q / new_w
    return new_w, new_p


def _split(node: DCFNode) -> tuple[DCFNode, DCFNode]:
    """Two nodes from one with B + 1 entries: the farthest pair seeds them, the rest go to the closer seed."""
    m = len(node.w)
    best, sa, sb = -1.0, 0, 1
    for i in range(m):
        for j in range(i + 1, m):
            d = K.loss_dense(node.w[i], node.P[i], node.w[j], node.P[j])
            if d > best:
                best, sa, sb = d, i, j
    halves = ([], [])
    for i in range(m):
        if i in (sa, sb):
            side = 0 if i == sa else 1
        else:
            da = K.loss_dense(node.w[i], node.P[i], node.w[sa], node.P[sa])
            db = K.loss_dense(node.w[i], node.P[i], node.w[sb], node.P[sb])
            side = 0 if da <= db else 1
        halves[side].append(i)
    return tuple(
        DCFNode([node.w[i] for i in idx], [node.P[i] for i in idx],
                None if node.is_leaf else [node.children[i] for i in idx])
        for idx in halves
    )


def dcf_tree_summaries(items, indptr, n: int, tau: float, V: int, branching: int,
                       max_summaries: int) -> tuple[np.ndarray, np.ndarray, int, DCFNode]:
    """Phase 1 of LIMBO with the DCF tree: the tuples inserted in order.

    Parameters
    ----------
    items, indptr : int arrays
        Tuple t's value ids are ``items[indptr[t]:indptr[t + 1]]`` (:func:`.limbo.tuple_items`).
    n : int
        Number of tuples (each of mass 1/n).
    tau : float
        The merge threshold phi I(T; V) / n.
    V : int
        Number of attribute values.
    branching : int >= 2
        B, the most entries of a node.
    max_summaries : int
        More leaf entries than this return ``S = -1``.

    Returns
    -------
    W, P, S, root
        The leaf entries' masses (S,) and rows (S, V), left to right, their
        number, and the tree.
    """
    if int(branching) < 2:
        raise ValueError(f"branching must be >= 2, got {branching!r}")
    B = int(branching)
    wt = 1.0 / n
    root = DCFNode([], [], None)
    n_leaf_entries = 0
    for t in range(n):
        its = items[indptr[t]:indptr[t + 1]]
        q = 1.0 / its.shape[0]
        path = []  # (node, entry index) from the root down to the leaf's parent
        node = root
        while not node.is_leaf:
            i, _ = _closest_tuple(node, its, q, wt)
            path.append((node, i))
            node = node.children[i]
        i, loss = _closest_tuple(node, its, q, wt)
        if i >= 0 and loss <= tau + 1e-12 * wt:
            node.w[i], node.P[i] = _absorb(node.w[i], node.P[i], its, q, wt)
        else:
            row = np.zeros(V)
            row[its] = q
            node.w.append(wt)
            node.P.append(row)
            n_leaf_entries += 1
            if n_leaf_entries > max_summaries:
                return np.zeros(0), np.zeros((0, V)), -1, root
        for parent, j in path:  # every entry on the path absorbs the tuple
            parent.w[j], parent.P[j] = _absorb(parent.w[j], parent.P[j], its, q, wt)
        # splits travel up while a node holds more than B entries
        child = node
        for parent, j in reversed(path):
            if len(child.w) <= B:
                break
            a, b = _split(child)
            (wa, pa), (wb, pb) = a.dcf(), b.dcf()
            parent.w[j:j + 1] = [wa, wb]
            parent.P[j:j + 1] = [pa, pb]
            parent.children[j:j + 1] = [a, b]
            child = parent
        else:
            if len(child.w) > B:  # the root itself
                a, b = _split(child)
                (wa, pa), (wb, pb) = a.dcf(), b.dcf()
                root = DCFNode([wa, wb], [pa, pb], [a, b])
    leaves = []

    def walk(nd):
        if nd.is_leaf:
            leaves.append(nd)
        else:
            for c in nd.children:
                walk(c)

    walk(root)
    W = np.array([w for lf in leaves for w in lf.w], dtype=np.float64)
    P = np.array([p for lf in leaves for p in lf.P], dtype=np.float64).reshape(len(W), V)
    return W, P, len(W), root
