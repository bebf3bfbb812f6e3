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
