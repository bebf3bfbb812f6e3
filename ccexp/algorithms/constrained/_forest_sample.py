"""A tree's training set in the clustering forest of COP-RF (Zhu, Loy, Gong 2013, Section II-B).

The distinct in-bag points of a bootstrap draw (weighted by how often they
were drawn) followed by pseudo points drawn uniformly in the bounding box of
the data (the pseudo two-class problem of a clustering forest), and the
constraint pairs that fall in bag. Randomness enters as a seed (numba's
generator is seeded at the top of each kernel).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _bootstrap(X, n_pseudo):
    """n draws with replacement from the rows of ``X`` (numba's generator, seeded by the caller): the distinct
    in-bag rows first in ``Xs`` with their multiplicity in ``ws``, room left for ``n_pseudo`` rows after them."""
    n, d = X.shape
    counts = np.zeros(n, dtype=np.int64)
    for _ in range(n):
        counts[np.random.randint(0, n)] += 1
    local = -np.ones(n, dtype=np.int64)
    m_real = 0
    for i in range(n):
        if counts[i] > 0:
            local[i] = m_real
            m_real += 1
    m = m_real + n_pseudo
    Xs = np.empty((m, d))
    ws = np.ones(m)
    cls = np.zeros(m, dtype=np.int64)
    for i in range(n):
        r = local[i]
        if r >= 0:
            Xs[r] = X[i]
            ws[r] = counts[i]
    return Xs, ws, cls, local, m_real


@njit(cache=True)
def draw_tree_sample(X, lo, hi, n_pseudo, seed):
    """Bootstrap the real points and draw pseudo points (one tree's training set).

    Parameters
    ----------
    X : float64 (n, d)
    lo, hi : float64 (d,)
        Per-feature range of the pseudo points (the data's min and max).
    n_pseudo : int
        Number of uniform pseudo points (0 for a forest without them).
    seed : int

    Returns
    -------
    Xs : float64 (m, d)
        Distinct in-bag points (in increasing index order), then pseudo points.
    ws : float64 (m,)
        Multiplicity of each in-bag point in the bootstrap; 1 for a pseudo point.
    cls : int64 (m,)
        0 real, 1 pseudo.
    local : int64 (n,)
        Row of point i in ``Xs``, or -1 if out of bag.

    Notes
    -----
    O(n d + n_pseudo d).
    """
    np.random.seed(seed)
    n, d = X.shape
    Xs, ws, cls, local, m_real = _bootstrap(X, n_pseudo)
    m = m_real + n_pseudo
    for r in range(m_real, m):
        cls[r] = 1
        for f in range(d):
            Xs[r, f] = lo[f] + (hi[f] - lo[f]) * np.random.random()
    return Xs, ws, cls, local


@njit(cache=True)
def draw_tree_sample_marginal(X, n_pseudo, seed):
    """As :func:`draw_tree_sample`, with Breiman's synthetic class instead of uniform pseudo points.

    Breiman's unsupervised random forest (the paper's reference [2]; Breiman
    and Cutler's manual, "unsupervised learning"; Shi and Horvath 2006)
    draws each coordinate of a synthetic point independently from the
    empirical distribution of that feature over the real points (the
    product of the marginals), so the forest can only separate the classes
    through the features' dependence.  An ablation variant (issue 34,
    item 6); the same bootstrap draws as :func:`draw_tree_sample` with the
    same seed, then one random row per coordinate.

    Parameters
    ----------
    X : float64 (n, d)
    n_pseudo : int
    seed : int

    Returns
    -------
    Xs, ws, cls, local
        As :func:`draw_tree_sample`.

    Notes
    -----
    O(n d + n_pseudo d).
    """
    np.random.seed(seed)
    n, d = X.shape
    Xs, ws, cls, local, m_real = _bootstrap(X, n_pseudo)
    m = m_real + n_pseudo
    for r in range(m_real, m):
        cls[r] = 1
        for f in range(d):
            Xs[r, f] = X[np.random.randint(0, n), f]
    return Xs, ws, cls, local


@njit(cache=True)
def presort_features(X):
    """``order[f]``: the rows of ``X`` sorted along feature ``f`` (ties in any order), once per forest.

    Every tree sample's real rows are a subset of ``X``'s, so
    :func:`sample_order` reads their order off this one instead of sorting
    them again for every tree.  int64 (d, n); O(d n log n).
    """
    n, d = X.shape
    order = np.empty((d, n), dtype=np.int64)
    for f in range(d):
        order[f] = np.argsort(X[:, f])
    return order


@njit(cache=True, inline="always")
def _bucket_sort_rows(Xs, f, first, m, out, bucket, start, fill):
    """``out[:m - first]``: the rows ``first .. m-1`` of ``Xs`` sorted along feature ``f`` (ties in any order).

    A bucket sort: the pseudo points of a tree are uniform between their least and largest values, so
    with as many buckets as rows each bucket holds about one row, and an insertion sort finishes each
    bucket: O(rows) expected instead of a comparison sort's O(rows log rows).  A row's bucket,
    ``int((v - lo) * scale)``, never decreases with its value (rounded subtraction, multiplication by a
    positive number and truncation are all monotone), so the buckets come in value order whatever the
    rounding.  ``bucket``, ``start``, ``fill``: int64 scratch of at least ``m - first`` (``start``: + 1).
    """
    k = m - first
    lo = np.inf
    hi = -np.inf
    for r in range(first, m):
        v = Xs[r, f]
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    scale = k / (hi - lo) if hi > lo else 0.0
    for b in range(k + 1):
        start[b] = 0
    for r in range(first, m):
        b = int((Xs[r, f] - lo) * scale)
        if b >= k:
            b = k - 1
        bucket[r - first] = b
        start[b + 1] += 1
    for b in range(k):
        start[b + 1] += start[b]
        fill[b] = start[b]
    for r in range(first, m):
        b = bucket[r - first]
        out[fill[b]] = r
        fill[b] += 1
    for b in range(k):  # insertion sort inside each bucket
        for q in range(start[b] + 1, start[b + 1]):
            r = out[q]
            v = Xs[r, f]
            t = q - 1
            while t >= start[b] and Xs[out[t], f] > v:
                out[t + 1] = out[t]
                t -= 1
            out[t + 1] = r


@njit(cache=True)
def sample_order(Xs, local, presort):
    """``order[f]``: the rows of a tree sample sorted along feature ``f`` (ties in any order), without a sort.

    The real rows of ``Xs`` come first (``local[i]`` is the row of point i, -1 when out of bag; see
    :func:`draw_tree_sample`), the pseudo rows after them.  The real rows' order is read off
    ``presort`` (:func:`presort_features` of the data), the pseudo rows are bucket sorted
    (:func:`_bucket_sort_rows`), and the two sorted runs are merged: O(d m) expected per tree instead
    of the O(d m log m) of sorting every feature.  The order among equal values differs from a sort's,
    which changes no cut (tests/test_forest_presort.py): a cut between equal values is no cut, and the
    weights summed up to a cut are whole numbers, so every sum is exact in any order.

    Returns
    -------
    order : int64 (d, m)
    """
    m, d = Xs.shape
    n = local.shape[0]
    m_real = 0
    for i in range(n):
        if local[i] >= 0:
            m_real += 1
    k = m - m_real
    order = np.empty((d, m), dtype=np.int64)
    real = np.empty(m_real, dtype=np.int64)
    pseudo = np.empty(k, dtype=np.int64)
    bucket = np.empty(k, dtype=np.int64)
    start = np.empty(k + 1, dtype=np.int64)
    fill = np.empty(k, dtype=np.int64)
    for f in range(d):
        a = 0
        for q in range(n):
            r = local[presort[f, q]]
            if r >= 0:
                real[a] = r
                a += 1
        _bucket_sort_rows(Xs, f, m_real, m, pseudo, bucket, start, fill)
        a, b = 0, 0
        out = order[f]
        for q in range(m):
            if b >= k or (a < m_real and Xs[real[a], f] <= Xs[pseudo[b], f]):
                out[q] = real[a]
                a += 1
            else:
                out[q] = pseudo[b]
                b += 1
    return order


@njit(cache=True)
def local_pairs(pairs, local):
    """The pairs whose two points are both in bag, in tree-sample rows.

    Parameters
    ----------
    pairs : int64 (p, 2)
        Point indices.
    local : int64 (n,)
        From :func:`draw_tree_sample`.

    Returns
    -------
    loc : int64 (q, 2)
        Rows in the tree sample.
    which : int64 (q,)
        Row of each kept pair in ``pairs``.
    """
    keep = 0
    for t in range(pairs.shape[0]):
        if local[pairs[t, 0]] >= 0 and local[pairs[t, 1]] >= 0:
            keep += 1
    loc = np.empty((keep, 2), dtype=np.int64)
    which = np.empty(keep, dtype=np.int64)
    k = 0
    for t in range(pairs.shape[0]):
        a, b = local[pairs[t, 0]], local[pairs[t, 1]]
        if a >= 0 and b >= 0:
            loc[k, 0], loc[k, 1] = a, b
            which[k] = t
            k += 1
    return loc, which
