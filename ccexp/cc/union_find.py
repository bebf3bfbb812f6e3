"""Union-find (disjoint sets) and connected components: the one implementation.

Every family that merges sets uses these kernels: the correlation-clustering
core (:func:`connected_components`, ROCK's and the CC solvers' components),
ReCon's OneTree connectivity test and its TestCompatibility levels
(``algorithms/relative``), and nCOBRAS's must-link bookkeeping (through
:class:`UnionFind`).

Layout: ``parent`` and ``size`` are int64 arrays of length n; a root ``r``
has ``parent[r] == r`` and ``size[r]`` is the number of items in its set
(``size`` of a non-root is stale and never read). Finds halve the path
(every visited node skips to its grandparent); unions hang the smaller set
under the larger (ties: ``b``'s root under ``a``'s). With both, m
operations cost O(m alpha(n)) (Tarjan and van Leeuwen 1984).

Two flavours share that layout:

- plain (:func:`uf_find`, :func:`uf_union`), reset by the caller;
- lazily reset (:func:`uf_find_stamped`, :func:`uf_union_stamped`): an item
  whose ``stamp`` differs from the current round ``cur`` counts as a fresh
  singleton, so a kernel that needs a new union-find per round (ReCon's
  TestCompatibility levels) pays for the items it touches, not for n.

Labels of a partition (:func:`uf_labels`) are numbered in order of first
appearance, so they do not depend on which item ends up a root.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._jit import borrowing_njit
from .._validation import check_positive_int
from .graph import _check_index_vector

# ---------------------------------------------------------------------------
# kernels


@borrowing_njit
def _link(parent, size, ra, rb):
    """Join the sets of roots ``ra`` and ``rb`` by size (the larger stays root); False if one set."""
    if ra == rb:
        return False
    if size[ra] < size[rb]:
        ra, rb = rb, ra
    parent[rb] = ra
    size[ra] += size[rb]
    return True


@borrowing_njit
def uf_find(parent, x):
    """Root of ``x``, with path halving. O(alpha(n)) amortised.

    Parameters
    ----------
    parent : int64 array (n,)
        Parent pointers (see the module docstring); compressed in place.
    x : int
        An item in ``[0, n)``.

    Returns
    -------
    int
        The root of ``x``'s set.
    """
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@borrowing_njit
def uf_union(parent, size, a, b):
    """Merge the sets of ``a`` and ``b`` by size; True if they were distinct.

    Parameters
    ----------
    parent, size : int64 arrays (n,)
        See the module docstring; updated in place.
    a, b : int
        Items in ``[0, n)``.

    Returns
    -------
    bool
        False if ``a`` and ``b`` were already in one set (nothing changes).
    """
    ra = uf_find(parent, a)
    rb = uf_find(parent, b)
    return _link(parent, size, ra, rb)


@borrowing_njit
def uf_find_stamped(parent, size, stamp, cur, x):
    """:func:`uf_find` on a union-find reset lazily: ``stamp[x] != cur`` means ``x`` is a fresh singleton.

    Parameters
    ----------
    parent, size, stamp : int64 arrays (n,)
        The sets, and the round in which each item was last touched.
    cur : int
        The current round; an item first met in this round is stamped and
        made its own set.
    x : int
        An item in ``[0, n)``.

    Returns
    -------
    int
        The root of ``x``'s set in round ``cur``.
    """
    if stamp[x] != cur:
        stamp[x] = cur
        parent[x] = x
        size[x] = 1
        return x
    # every item on the path was stamped in this round: a parent is only set
    # by a union of this round, between two stamped roots
    return uf_find(parent, x)


@borrowing_njit
def uf_union_stamped(parent, size, stamp, cur, a, b):
    """:func:`uf_union` on a union-find reset lazily (see :func:`uf_find_stamped`).

    Returns
    -------
    bool
        False if ``a`` and ``b`` were already in one set in round ``cur``.
    """
    ra = uf_find_stamped(parent, size, stamp, cur, a)
    rb = uf_find_stamped(parent, size, stamp, cur, b)
    return _link(parent, size, ra, rb)


@njit(cache=True)
def uf_labels(parent):
    """Labels ``0 .. h-1`` of the sets, in order of first appearance. O(n).

    Parameters
    ----------
    parent : int64 array (n,)

    Returns
    -------
    labels : int64 array (n,)
    """
    n = parent.shape[0]
    root_label = np.full(n, -1, dtype=np.int64)
    labels = np.empty(n, dtype=np.int64)
    h = 0
    for i in range(n):
        r = uf_find(parent, i)
        if root_label[r] < 0:
            root_label[r] = h
            h += 1
        labels[i] = root_label[r]
    return labels


@njit(cache=True)
def connected_components_kernel(n_items, u, v):
    """Components of the graph on ``0 .. n_items-1`` with edges ``(u[i], v[i])``. O((n + m) alpha(n)).

    Parameters
    ----------
    n_items : int
    u, v : int64 arrays (m,)
        Edge end points in ``[0, n_items)``, trusted.

    Returns
    -------
    labels : int64 array (n_items,)
        Component ids ``0 .. h-1`` in order of first appearance.
    """
    parent = np.arange(n_items, dtype=np.int64)
    size = np.ones(n_items, dtype=np.int64)
    for i in range(u.shape[0]):
        uf_union(parent, size, u[i], v[i])
    return uf_labels(parent)


# ---------------------------------------------------------------------------
# validated Python API


def connected_components(n_items, u, v) -> np.ndarray:
    """Connected components of the undirected graph with edges ``(u[i], v[i])``.

    Parameters
    ----------
    n_items : int
        Vertices ``0 .. n_items - 1``; isolated vertices are their own component.
    u, v : array-like of int, shape (m,)
        Edge end points in ``[0, n_items)``; self-loops and repeated edges are allowed.

    Returns
    -------
    ndarray of int64, shape (n_items,)
        Component labels ``0 .. h-1`` in order of first appearance.

    Notes
    -----
    Union by size with path halving: O((n + m) alpha(n)).

    Examples
    --------
    >>> connected_components(5, [3, 0], [4, 1]).tolist()
    [0, 0, 1, 2, 2]
    """
    n = check_positive_int(n_items, "n_items", minimum=0)
    u = _check_index_vector(u, "u", n)
    v = _check_index_vector(v, "v", n)
    if u.shape[0] != v.shape[0]:
        raise ValueError(f"u and v must have the same length, got {u.shape[0]} and {v.shape[0]}")
    return connected_components_kernel(n, u, v)


class UnionFind:
    """Disjoint sets over ``0 .. n_items - 1``, a thin wrapper of the numba kernels.

    For Python code that merges a few sets at a time (nCOBRAS's accepted
    must-links); each call crosses the Python/numba boundary, so bulk work
    should call :func:`connected_components` or the kernels directly.

    Parameters
    ----------
    n_items : int
        Number of items; each starts as its own set.

    Attributes
    ----------
    parent, size : ndarray of int64, shape (n_items,)
        The kernels' layout (see the module docstring).

    Examples
    --------
    >>> uf = UnionFind(4)
    >>> uf.union(0, 2)
    True
    >>> uf.union(2, 0)
    False
    >>> uf.labels().tolist()
    [0, 1, 0, 2]
    """

    def __init__(self, n_items):
        self.n_items = check_positive_int(n_items, "n_items", minimum=0)
        self.parent = np.arange(self.n_items, dtype=np.int64)
        self.size = np.ones(self.n_items, dtype=np.int64)

    def _check_item(self, x, name):
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
            raise ValueError(f"{name} must be an integer item index, got {x!r}")
        if not 0 <= x < self.n_items:
            raise ValueError(f"{name} = {x} is outside [0, {self.n_items})")
        return int(x)

    def find(self, x) -> int:
        """The representative of ``x``'s set."""
        return int(uf_find(self.parent, self._check_item(x, "x")))

    def union(self, a, b) -> bool:
        """Merge the sets of ``a`` and ``b``; True if they were distinct."""
        return bool(uf_union(self.parent, self.size, self._check_item(a, "a"), self._check_item(b, "b")))

    def labels(self) -> np.ndarray:
        """Set labels ``0 .. h-1`` in order of first appearance."""
        return uf_labels(self.parent)
