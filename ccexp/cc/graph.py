"""The signed, weighted graph that every correlation-clustering routine reads.

A :class:`SignedGraph` stores the pairwise evidence of Problem 1 of Ukkonen
(2017) / Bansal, Blum and Chawla (2004): a weight ``w(u, v) > 0`` says
"together" with confidence ``w``, ``w(u, v) < 0`` says "apart" with confidence
``|w|``, and an absent pair carries no evidence. The layout is a symmetric
CSR adjacency so that the numba kernels walk a vertex's neighbours in
O(deg) without Python objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int


@dataclass(frozen=True, eq=False)
class SignedGraph:
    """A symmetric signed graph in CSR form.

    Build one with :func:`signed_graph_from_edges`; the constructor itself
    only checks that the arrays are mutually consistent (shapes, dtypes) and
    trusts the invariants below.

    Parameters
    ----------
    n_items : int
        Vertices are ``0 .. n_items - 1``.
    indptr : ndarray of int64, shape (n_items + 1,)
        Row ``u`` spans ``indices[indptr[u]:indptr[u + 1]]``.
    indices : ndarray of int64, shape (2 * n_edges,)
        Neighbours; sorted within a row, never ``u`` itself.
    weights : ndarray of float64, shape (2 * n_edges,)
        Signed, non-zero, finite weights aligned with ``indices``.

    Notes
    -----
    Each undirected edge ``{u, v}`` is stored twice, in row ``u`` and row
    ``v``, with the same weight. The arrays are made read-only so that the
    frozen dataclass is frozen in substance, not only in its attributes.
    Equality is identity (``eq=False``): comparing arrays elementwise in
    ``__eq__`` would be ambiguous and slow.
    """

    n_items: int
    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray

    def __post_init__(self):
        n = check_positive_int(self.n_items, "n_items", minimum=0)
        indptr = np.ascontiguousarray(self.indptr, dtype=np.int64)
        indices = np.ascontiguousarray(self.indices, dtype=np.int64)
        weights = np.ascontiguousarray(self.weights, dtype=np.float64)
        if indptr.shape != (n + 1,):
            raise ValueError(f"indptr must have shape ({n + 1},) for n_items={n}, got {indptr.shape}")
        if indices.ndim != 1 or weights.shape != indices.shape:
            raise ValueError(
                f"indices and weights must be 1-d of equal length, got {indices.shape} and {weights.shape}"
            )
        if indptr[0] != 0 or indptr[-1] != indices.shape[0]:
            raise ValueError(
                f"indptr must start at 0 and end at len(indices)={indices.shape[0]}, "
                f"got {indptr[0]} .. {indptr[-1]}"
            )
        # Freezing must never write-protect a caller's array: copy where the
        # dtype/contiguity conversion above did not already copy.
        indptr = _frozen(indptr, self.indptr)
        indices = _frozen(indices, self.indices)
        weights = _frozen(weights, self.weights)
        object.__setattr__(self, "n_items", n)
        object.__setattr__(self, "indptr", indptr)
        object.__setattr__(self, "indices", indices)
        object.__setattr__(self, "weights", weights)

    @property
    def n_edges(self) -> int:
        """Number of undirected edges (each is stored twice)."""
        return int(self.indices.shape[0] // 2)

    def to_dense(self) -> np.ndarray:
        """The dense symmetric weight matrix, 0 on the diagonal and for absent pairs.

        O(n^2) memory: for tests and small examples only.
        """
        dense = np.zeros((self.n_items, self.n_items), dtype=np.float64)
        rows = np.repeat(np.arange(self.n_items, dtype=np.int64), np.diff(self.indptr))
        dense[rows, self.indices] = self.weights
        return dense

    def __repr__(self) -> str:
        return f"SignedGraph(n_items={self.n_items}, n_edges={self.n_edges})"


def _frozen(arr: np.ndarray, original) -> np.ndarray:
    """``arr`` read-only; a private copy if it aliases a writeable ``original``."""
    if not arr.flags.writeable:
        return arr  # already read-only (e.g. built by signed_graph_from_edges)
    if arr is original or np.may_share_memory(arr, np.asarray(original)):
        arr = arr.copy()
    arr.setflags(write=False)
    return arr


def _check_index_vector(value, name: str, n_items: int) -> np.ndarray:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array of item indices, got shape {arr.shape}")
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must be an integer array of item indices, got dtype {arr.dtype}")
    bad = np.flatnonzero((arr < 0) | (arr >= n_items))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{name}[{i}] = {int(arr[i])} is outside [0, {n_items}) for n_items={n_items}"
        )
    return arr.astype(np.int64, copy=False)


def signed_graph_from_edges(n_items, u, v, w) -> SignedGraph:
    """Build a :class:`SignedGraph` from an edge list.

    Parameters
    ----------
    n_items : int
        Number of vertices, ``>= 0``.
    u, v : array-like of int, shape (m,)
        End points of the edges, in ``[0, n_items)``, ``u[i] != v[i]``.
        ``(u, v)`` and ``(v, u)`` denote the same undirected edge.
    w : array-like of float, shape (m,)
        Finite signed weights: ``w > 0`` is evidence for "together",
        ``w < 0`` for "apart" (Ukkonen 2017, Problem 1, with
        ``E+ = {w > 0}`` and ``E- = {w < 0}``).

    Returns
    -------
    SignedGraph
        Duplicate edges have their weights summed (evidence adds up); edges
        whose summed weight is exactly 0 are dropped, since they carry no net
        evidence and cost nothing under any partition.

    Raises
    ------
    ValueError
        Naming the argument and the bad value: non-integer or out-of-range
        indices, arrays of different lengths, a non-finite weight, or a
        self-loop ``u[i] == v[i]``.

    Notes
    -----
    O(m log m) for the sort, fully vectorised: duplicates are merged by
    sorting the canonical keys ``min(u, v) * n + max(u, v)`` and summing with
    ``np.bincount``.

    Examples
    --------
    >>> g = signed_graph_from_edges(3, [0, 1, 2], [1, 0, 0], [1.0, 0.5, -2.0])
    >>> g.n_edges
    2
    >>> g.to_dense()[0].tolist()
    [0.0, 1.5, -2.0]
    """
    n = check_positive_int(n_items, "n_items", minimum=0)
    u = _check_index_vector(u, "u", n)
    v = _check_index_vector(v, "v", n)
    w_arr = np.asarray(w)
    if w_arr.ndim != 1:
        raise ValueError(f"w must be a 1-d array of weights, got shape {w_arr.shape}")
    if w_arr.size and (w_arr.dtype == bool or not np.issubdtype(w_arr.dtype, np.number)
                       or np.issubdtype(w_arr.dtype, np.complexfloating)):
        raise ValueError(f"w must be a real-valued array of weights, got dtype {w_arr.dtype}")
    w_arr = w_arr.astype(np.float64, copy=False)
    if not (u.shape[0] == v.shape[0] == w_arr.shape[0]):
        raise ValueError(
            f"u, v and w must have the same length, got len(u)={u.shape[0]}, "
            f"len(v)={v.shape[0]}, len(w)={w_arr.shape[0]}"
        )
    finite = np.isfinite(w_arr)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        raise ValueError(f"w[{i}] = {w_arr[i]} is not finite; weights must be finite")
    loops = u == v
    if loops.any():
        i = int(np.flatnonzero(loops)[0])
        raise ValueError(
            f"u[{i}] == v[{i}] == {int(u[i])}: self-loops are not allowed "
            "(an item always shares its own cluster)"
        )

    lo = np.minimum(u, v)
    hi = np.maximum(u, v)
    key = lo * n + hi  # n <= ~3e9 keeps this inside int64
    uniq, inverse = np.unique(key, return_inverse=True)
    total = np.bincount(inverse.reshape(-1), weights=w_arr, minlength=uniq.shape[0])
    keep = total != 0.0
    uniq, total = uniq[keep], total[keep]
    a, b = uniq // max(n, 1), uniq % max(n, 1)

    # Both directions; sorting by (row, column) gives CSR with sorted columns.
    rows = np.concatenate([a, b])
    cols = np.concatenate([b, a])
    vals = np.concatenate([total, total])
    order = np.argsort(rows * n + cols, kind="stable")
    rows, cols, vals = rows[order], cols[order], vals[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    for arr in (indptr, cols, vals):
        arr.setflags(write=False)  # fresh arrays: freeze without a copy
    return SignedGraph(n, indptr, cols, vals)
