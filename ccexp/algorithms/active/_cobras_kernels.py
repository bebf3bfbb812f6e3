"""Numba kernels of COBRAS's merging phase (:mod:`.cobras`): the cluster-level tables of one phase.

COBRAS (van Craenendonck et al. 2018) starts every merging phase from the
distances between the centroids of all super-instances and the cannot-links
between their representatives, reduced to clusters (the closest pair of
centroids; any cannot-link).  Computed with numpy that was five temporaries
of K x K floats per phase (K super-instances, up to N) and two ``reduceat``
passes, 80% of a COBRAS run at N = 1000.  Here it is one pass over the Gram
matrix that numpy's BLAS product gives (the product itself stays numpy's,
the same call on the same array, so its rounding is unchanged), with the
same element-wise float operations: the tables are bitwise numpy's.  The
k-means of a split keeps numpy's products too and runs the steps between
them here.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def _distance(x):
    """numpy's ``sqrt(maximum(x, 0.0))`` (a zero may differ in sign, which no comparison sees)."""
    return math.sqrt(x) if x > 0.0 else 0.0


@njit(cache=True)
def cluster_distances(G, sq, starts, sizes):
    """The cluster-level distances of a merging phase: the closest pair of super-instance centroids.

    Parameters
    ----------
    G : float64 (K, K)
        ``(2.0 * C) @ C.T`` for the super-instances' centroids ``C`` in cluster
        order (numpy's product).  Overwritten with ``(sq[a] + sq[b]) - G[a, b]``,
        the squared distances before numpy's ``maximum`` and ``sqrt`` (see
        :func:`block_argmin`).
    sq : float64 (K,)
        ``(C * C).sum(axis=1)``.
    starts, sizes : int64 (m,)
        Cluster x holds positions ``starts[x] : starts[x] + sizes[x]``.

    Returns
    -------
    Dc : float64 (m, m)
        numpy's ``minimum.reduceat`` (rows, then columns) of ``D = sqrt(maximum(sq[:, None]
        + sq[None, :] - G, 0.0))``.  sqrt and the clip at 0 never decrease, so the least D
        of a block is the least squared distance clipped and rooted: one root per block.

    Notes
    -----
    Every block on its own, (x, y) apart from (y, x): BLAS may round
    G[a, b] and G[b, a] differently, and numpy's reductions read each block.
    """
    k = G.shape[0]
    for a in range(k):
        row = G[a]
        sa = sq[a]
        for b in range(k):
            row[b] = (sa + sq[b]) - row[b]
    m = starts.shape[0]
    Dc = np.empty((m, m), dtype=np.float64)
    low = np.empty(m, dtype=np.float64)
    for x in range(m):
        low[:] = np.inf
        for a in range(starts[x], starts[x] + sizes[x]):
            row = G[a]
            for y in range(m):
                lo = low[y]
                for b in range(starts[y], starts[y] + sizes[y]):
                    lo = min(lo, row[b])
                low[y] = lo
        for y in range(m):
            Dc[x, y] = _distance(low[y])
    return Dc


@njit(cache=True)
def cluster_cannot_links(reps, starts, sizes, cl_u, cl_v, n):
    """``CLc[x, y]``: a known cannot-link between a representative of cluster x and one of y.

    numpy's ``add.reduceat`` (rows, columns) of ``cl[ix_(reps, reps)]``, > 0,
    from the list of cannot-link pairs ``(cl_u[t], cl_v[t])`` instead of K x K
    look-ups into ``cl`` (both sides of a pair: ``cl`` is symmetric).
    """
    m = starts.shape[0]
    cluster_of = np.full(n, -1, dtype=np.int64)  # the cluster of each item that is a representative
    for x in range(m):
        for a in range(starts[x], starts[x] + sizes[x]):
            cluster_of[reps[a]] = x
    CLc = np.zeros((m, m), dtype=np.bool_)
    for t in range(cl_u.shape[0]):
        cx = cluster_of[cl_u[t]]
        cy = cluster_of[cl_v[t]]
        if cx >= 0 and cy >= 0:
            CLc[cx, cy] = True
            CLc[cy, cx] = True
    return CLc


@njit(cache=True)
def links_components(comp, cl_u, cl_v, ru, rv):
    """Whether a cannot-link pair joins components ``ru`` and ``rv`` (``{comp[a], comp[b]} == {ru, rv}``)."""
    for t in range(cl_u.shape[0]):
        ca = comp[cl_u[t]]
        cb = comp[cl_v[t]]
        if (ca == ru and cb == rv) or (ca == rv and cb == ru):
            return True
    return False


@njit(cache=True)
def open_pairs(idx, CLc, Dc, out_a, out_b, out_d):
    """The cluster pairs ``(idx[i], idx[j])``, i < j, without a known cannot-link, in row-major order; their number.

    Writes the pairs and their distances ``Dc`` to ``out_a``, ``out_b``, ``out_d``:
    the arrays that ``np.triu_indices`` over ``idx``, the filter ``~CLc[a, b]``
    and ``Dc[a, b]`` gave, in the same order, without their temporaries.
    """
    m = 0
    for i in range(idx.shape[0]):
        x = idx[i]
        for j in range(i + 1, idx.shape[0]):
            y = idx[j]
            if not CLc[x, y]:
                out_a[m] = x
                out_b[m] = y
                out_d[m] = Dc[x, y]
                m += 1
    return m


@njit(cache=True)
def block_argmin(G, mx, my):
    """numpy's ``unravel_index(argmin(D[ix_(mx, my)]))`` on the squared distances of :func:`cluster_distances`.

    The distances of the block are rooted first (two squared distances a rounding
    apart can share a root, and argmin takes the first of equal roots).
    """
    bi = 0
    bj = 0
    best = np.inf
    for i in range(mx.shape[0]):
        row = G[mx[i]]
        for j in range(my.shape[0]):
            x = _distance(row[my[j]])
            if x < best:
                best = x
                bi = i
                bj = j
    return bi, bj


# --------------------------------------------------------------------------
# the k-means of a split (cobras.kmeans): its steps after numpy's BLAS products
# --------------------------------------------------------------------------
@njit(cache=True)
def weighted_pick(d2, total, u):
    """k-means++'s draw: ``Generator.choice(n, p=d2 / total)`` given its uniform draw ``u``.

    numpy's ``choice`` with ``p`` (replace, one sample) computes
    ``cdf = p.cumsum(); cdf /= cdf[-1]`` and returns
    ``cdf.searchsorted(u, side="right")`` for ``u = self.random()``: the same
    divisions and sequential sums here, and the number of ``cdf`` values
    ``<= u``.  (Its check that ``p`` sums to 1 within 1.5e-8 cannot fail for
    ``d2 >= 0``, ``total = d2.sum() > 0``: the sum is 1 within n eps.)
    """
    n = d2.shape[0]
    cdf = np.empty(n, dtype=np.float64)
    acc = 0.0
    for i in range(n):
        if i == 0:
            acc = d2[0] / total
        else:
            acc = acc + d2[i] / total
        cdf[i] = acc
    last = cdf[n - 1]
    # searchsorted(side="right") on the non-decreasing cdf: the first index whose value exceeds u
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if u < cdf[mid] / last:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True)
def nearest_centers(G, sq, cc):
    """``argmin_j (sq[i] - G[i, j]) + cc[j]`` per row (first among ties) and that value.

    numpy's ``dist = sq[:, None] - G + cc[None, :]`` with ``G = 2.0 * X @
    centers.T`` and ``cc`` the centers' squared norms, then ``argmin(dist,
    axis=1)`` and ``dist[arange(n), assign]``: the same two float operations per
    element, in that order.
    """
    n, k = G.shape
    assign = np.empty(n, dtype=np.int64)
    best = np.empty(n, dtype=np.float64)
    for i in range(n):
        s = sq[i]
        row = G[i]
        b = 0
        v = (s - row[0]) + cc[0]
        for j in range(1, k):
            x = (s - row[j]) + cc[j]
            if x < v:
                v = x
                b = j
        assign[i] = b
        best[i] = v
    return assign, best


@njit(cache=True)
def cluster_means(X, assign, centers):
    """Lloyd's update: each center the mean of its points, an empty cluster's center kept.

    numpy's ``X[assign == j].mean(axis=0)``: for X of two or more columns
    numpy adds the rows in order (a reduction over the outer axis) and
    divides by the count, as here.  (With one column it sums pairwise: the
    caller keeps numpy then.)
    """
    n, d = X.shape
    k = centers.shape[0]
    total = np.zeros((k, d), dtype=np.float64)
    count = np.zeros(k, dtype=np.int64)
    for i in range(n):
        j = assign[i]
        row = X[i]
        t = total[j]
        if count[j] == 0:
            for f in range(d):
                t[f] = row[f]
        else:
            for f in range(d):
                t[f] = t[f] + row[f]
        count[j] += 1
    new = centers.copy()
    for j in range(k):
        if count[j] > 0:
            for f in range(d):
                new[j, f] = total[j, f] / count[j]
    return new


@njit(cache=True)
def distinct_rows_at_most(X, k):
    """``min(k, np.unique(X, axis=0).shape[0])``: the distinct rows of X, counted up to k.

    Rows are equal when every element compares equal (numpy's unique over rows
    compares them as records of floats, so 0.0 equals -0.0).  O(rows x k x d),
    and a split asks k = 2 or 2 ** level: cheaper than numpy's sort of all rows.
    """
    n, d = X.shape
    found = np.empty(min(k, n), dtype=np.int64)
    n_found = 0
    for i in range(n):
        new = True
        for t in range(n_found):
            r = found[t]
            same = True
            for f in range(d):
                if X[i, f] != X[r, f]:
                    same = False
                    break
            if same:
                new = False
                break
        if new:
            found[n_found] = i
            n_found += 1
            if n_found == k:
                break
    return n_found
