"""Union-find (disjoint sets) and connected components."""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int
from ._kernels import connected_components_kernel, uf_find, uf_labels, uf_union
from .graph import _check_index_vector


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
    Union by rank with path halving: O((n + m) alpha(n)).

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

    For readability in Python code that merges a few sets at a time; each
    call crosses the Python/numba boundary, so bulk work should call
    :func:`connected_components` or the kernels directly.

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
        self.rank = np.zeros(self.n_items, dtype=np.int64)

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
        return bool(uf_union(self.parent, self.rank, self._check_item(a, "a"), self._check_item(b, "b")))

    def labels(self) -> np.ndarray:
        """Set labels ``0 .. h-1`` in order of first appearance."""
        return uf_labels(self.parent)
