"""Average linkage on a condensed distance vector, in place (AGGLOMERATIVE's memory, issue 31).

:func:`scipy.cluster.hierarchy.linkage` copies the condensed vector before
its nearest-neighbour chain starts, so AGGLOMERATIVE at its 12,000-item cap
held two n(n-1)/2 float64 vectors (2 x 0.58 GB) at once. The kernel here
runs the same nearest-neighbour-chain algorithm (Murtagh 1983; Muellner
2011, "Modern hierarchical, agglomerative clustering algorithms",
arXiv:1109.2378, Figure 6) on the caller's vector, overwriting it.

It follows scipy's conventions step for step, so the linkage matrix is the
same bit for bit (tested against :func:`scipy.cluster.hierarchy.linkage`):

- a chain starts at the lowest-numbered live cluster;
- the nearest neighbour of the chain's top is searched over increasing
  cluster index with a strict ``<``, starting from the previous chain
  element's distance (so a tie keeps the previous element and the chain
  cannot cycle);
- merging ``x < y`` keeps the merged cluster at index ``y`` and updates
  ``d(i, y) = (n_x d(i, x) + n_y d(i, y)) / (n_x + n_y)`` (Lance-Williams
  for average linkage) in that floating-point order;
- the merges are then sorted by height with a stable sort and renumbered
  with a union-find (merge ``t`` creates node ``n + t``).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _row_start(n, i):
    """Condensed index of the pair (i, i + 1): pairs (i, j > i) follow at ``_row_start(n, i) + j - i - 1``."""
    return n * i - (i * (i + 1)) // 2


@njit(cache=True)
def _nn_chain_average(D, n):
    """Unsorted merges ``(x, y, height, size)`` of average linkage; ``D`` is overwritten.

    Cluster indices are item indices: the cluster at index ``y`` always
    holds item ``y``. O(n^2) time, O(n) memory besides ``D``.
    """
    Z = np.empty((n - 1, 4))
    size = np.ones(n, dtype=np.int64)
    chain = np.empty(n, dtype=np.int64)
    length = 0
    y = 0
    for k in range(n - 1):
        if length == 0:
            length = 1
            for i in range(n):
                if size[i] > 0:
                    chain[0] = i
                    break
        while True:
            x = chain[length - 1]
            if length > 1:
                y = chain[length - 2]
                a, b = (x, y) if x < y else (y, x)
                best = D[_row_start(n, a) + b - a - 1]
            else:
                best = np.inf
            # increasing i, strict <: the first of equal distances wins, as in scipy
            for i in range(x):
                if size[i] > 0:
                    dist = D[_row_start(n, i) + x - i - 1]
                    if dist < best:
                        best = dist
                        y = i
            base = _row_start(n, x) - x - 1
            for i in range(x + 1, n):
                if size[i] > 0:
                    dist = D[base + i]
                    if dist < best:
                        best = dist
                        y = i
            if length > 1 and y == chain[length - 2]:
                break
            chain[length] = y
            length += 1
        length -= 2
        if x > y:
            x, y = y, x
        nx = size[x]
        ny = size[y]
        Z[k, 0] = x
        Z[k, 1] = y
        Z[k, 2] = best
        Z[k, 3] = nx + ny
        size[x] = 0
        size[y] = nx + ny
        for i in range(n):
            if size[i] == 0 or i == y:
                continue
            ix = _row_start(n, i) + x - i - 1 if i < x else _row_start(n, x) + i - x - 1
            iy = _row_start(n, i) + y - i - 1 if i < y else _row_start(n, y) + i - y - 1
            D[iy] = (nx * D[ix] + ny * D[iy]) / (nx + ny)
    return Z


@njit(cache=True)
def _relabel(Z, n):
    """Number the nodes of height-sorted merges: merge ``t`` creates node ``n + t``; sizes in column 3."""
    parent = np.arange(2 * n - 1)
    size = np.ones(2 * n - 1, dtype=np.int64)
    for t in range(n - 1):
        ra = int(Z[t, 0])
        while parent[ra] != ra:
            ra = parent[ra]
        rb = int(Z[t, 1])
        while parent[rb] != rb:
            rb = parent[rb]
        # compress both paths to their roots
        for start, root in ((int(Z[t, 0]), ra), (int(Z[t, 1]), rb)):
            p = start
            while parent[p] != root:
                nxt = parent[p]
                parent[p] = root
                p = nxt
        if ra > rb:
            ra, rb = rb, ra
        Z[t, 0] = ra
        Z[t, 1] = rb
        node = n + t
        parent[ra] = node
        parent[rb] = node
        size[node] = size[ra] + size[rb]
        Z[t, 3] = size[node]
    return Z


def average_linkage_inplace(d: np.ndarray) -> np.ndarray:
    """The average-linkage matrix of condensed distances ``d``, overwriting ``d``.

    Parameters
    ----------
    d : float64 ndarray (n(n-1)/2,)
        Condensed distances in scipy's pair order, C-contiguous and finite;
        destroyed (it holds the working distances between clusters).

    Returns
    -------
    Z : float64 ndarray (n - 1, 4)
        Equal to ``scipy.cluster.hierarchy.linkage(d, method="average")``
        on the original ``d``, without its copy of ``d``.
    """
    if not (isinstance(d, np.ndarray) and d.ndim == 1 and d.dtype == np.float64 and d.flags.c_contiguous
            and d.flags.writeable):
        raise ValueError("d must be a writeable, C-contiguous 1-D float64 condensed distance vector")
    n = int(round((1 + np.sqrt(1 + 8 * d.size)) / 2))
    if n * (n - 1) // 2 != d.size or n < 2:
        raise ValueError(f"d must have n(n-1)/2 entries for some n >= 2, got {d.size}")
    Z = _nn_chain_average(d, n)
    Z = Z[np.argsort(Z[:, 2], kind="mergesort")]
    return _relabel(Z, n)
