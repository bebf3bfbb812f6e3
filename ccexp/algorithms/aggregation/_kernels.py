"""Numba kernels of clustering aggregation (Gionis, Mannila and Tsaparas 2007).

Every kernel reads the input clusterings as an item-major code matrix
``codes[u, j]`` (the label of item ``u`` in clustering ``j``, renumbered to
``0 .. L_j - 1``, ``-1`` for a missing value) and ``q = 1 - p``, the expected
disagreement a missing value contributes (Section 2: a clustering with a
missing value on a pair is a coin that puts the pair together with
probability ``p``).  Then

    m * X_uv = #{j : both present and codes differ} + q * #{j : one missing},

an O(m) function of two rows, so no kernel needs the n x n matrix.

Per-cluster histograms ``hist[c, off[j] + code]`` (with one extra slot per
clustering, ``off[j] + L_j``, counting the members missing in ``j``) give
``M(v, C) = sum_{u in C} X_vu`` of Section 4 in O(m):

    m * M(v, C) = sum_j  q |C|                                   if v misses j
                         |C| - (1 - q) miss(C, j) - hist(C, v_j) otherwise.

Kernels are pure functions of their arrays, without fastmath: the values
of the objective are sums of multiples of ``q / m`` and come out the same on
every run.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ...objectives.kernels import pair_x

# Tolerance for comparing sums of multiples of q/m against thresholds
# (exact for q = 1/2; guards the rounding of other q).
EPS = 1e-9


@njit(cache=True)
def furthest_pair(codes, q):
    """The first pair (u < v) of largest X, and m * X of it; O(n^2 m)."""
    n = codes.shape[0]
    best = -1.0
    bu = 0
    bv = 0
    for u in range(n):
        for v in range(u + 1, n):
            x = pair_x(codes, u, v, q)
            if x > best + EPS:
                best = x
                bu = u
                bv = v
    return bu, bv, best


@njit(cache=True)
def assign_to_new_center(codes, q, c, center_id, best_center, best_dist):
    """Move every item strictly closer to item ``c`` than to its current centre (O(n m))."""
    n = codes.shape[0]
    for v in range(n):
        x = pair_x(codes, v, c, q)
        if x < best_dist[v] - EPS:
            best_dist[v] = x
            best_center[v] = center_id
    best_dist[c] = 0.0
    best_center[c] = center_id


@njit(cache=True)
def balls_kernel(codes, q, order, alpha):
    """The BALLS algorithm of Section 4 over items visited in ``order``; O(n^2 m) worst case.

    For the first unclustered ``u``: S = unclustered ``v`` with X_uv <= 1/2;
    S + {u} is a cluster if the mean of X_uv over S is at most ``alpha``,
    else ``u`` is a singleton.
    """
    n, m = codes.shape
    labels = np.full(n, -1, dtype=np.int64)
    ball = np.empty(n, dtype=np.int64)
    half = 0.5 * m
    k = 0
    for t in range(n):
        u = order[t]
        if labels[u] >= 0:
            continue
        size = 0
        s = 0.0
        for v in range(n):
            if v == u or labels[v] >= 0:
                continue
            x = pair_x(codes, u, v, q)
            if x <= half + EPS:
                ball[size] = v
                size += 1
                s += x
        labels[u] = k
        if size > 0 and s <= alpha * m * size + EPS:
            for i in range(size):
                labels[ball[i]] = k
        k += 1
    return labels


@njit(cache=True)
def build_histograms(codes, off, labels, hist, sizes):
    """Fill per-cluster histograms (slot ``off[j] + L_j`` counts missing values)."""
    n, m = codes.shape
    for v in range(n):
        c = labels[v]
        if c < 0:
            continue
        sizes[c] += 1
        for j in range(m):
            a = codes[v, j]
            if a < 0:
                hist[c, off[j + 1] - 1] += 1
            else:
                hist[c, off[j] + a] += 1


@njit(cache=True)
def m_times_m(codes, off, q, v, hist, c, size):
    """m * M(v, C) = m * sum_{u in C} X_vu from C's histogram (O(m))."""
    m = codes.shape[1]
    s = 0.0
    for j in range(m):
        a = codes[v, j]
        if a < 0:
            s += q * size
        else:
            miss = hist[c, off[j + 1] - 1]
            s += size - (1.0 - q) * miss - hist[c, off[j] + a]
    return s


@njit(cache=True)
def _hist_update(codes, off, v, hist, c, delta):
    m = codes.shape[1]
    for j in range(m):
        a = codes[v, j]
        if a < 0:
            hist[c, off[j + 1] - 1] += delta
        else:
            hist[c, off[j] + a] += delta


#: What LOCALSEARCH mutates (a tuple of arrays, numba-typed as a named tuple; :func:`local_search_state`):
#: ``labels`` (cluster ids in ``[0, n)``), the per-cluster histograms ``hist`` (:func:`build_histograms`)
#: and ``sizes``, and the cluster-id bookkeeping: ``active[:count[0]]`` lists the non-empty ids, ``pos[c]``
#: the place of ``c`` in it, ``free[:count[1]]`` the unused ids (popped from the end).
LocalSearchState = namedtuple("LocalSearchState", "labels hist sizes active pos free count")


def local_search_state(codes, off, labels):
    """The :data:`LocalSearchState` of ``labels`` (ids ``0 .. h - 1``, all used): histograms built, new ids from the smallest."""
    n = codes.shape[0]
    h = int(labels.max()) + 1 if n else 0
    hist = np.zeros((max(n, 1), int(off[-1])), dtype=np.int64)
    sizes = np.zeros(max(n, 1), dtype=np.int64)
    build_histograms(codes, off, labels, hist, sizes)
    active = np.zeros(max(n, 1), dtype=np.int64)
    active[:h] = np.arange(h)
    pos = np.zeros(max(n, 1), dtype=np.int64)
    pos[:h] = np.arange(h)
    free = np.zeros(max(n, 1), dtype=np.int64)
    free[: n - h] = np.arange(n - 1, h - 1, -1)  # pop the smallest id first
    return LocalSearchState(labels, hist, sizes, active, pos, free, np.array([h, n - h], dtype=np.int64))


@njit(cache=True)
def local_search_pass(codes, off, q, st, join_ties=False, self_pair=False):
    """One LOCALSEARCH pass (Section 4): each item to its best cluster or a new one; returns the number of moves.

    Moving ``v`` into cluster C changes d(C) by ``2 M(v, C) - |C|`` relative
    to a singleton (the terms of d(v, C_i) that depend on i), so the best
    destination minimises it over the active clusters, and the singleton
    scores 0.  ``v`` moves only on a strict improvement, except that with
    ``join_ties`` an item alone joins its best cluster when that costs
    nothing (score 0); with ``self_pair`` the scores of Section 4's
    formula are taken with v still in its cluster, so staying gains the
    pair (v, v) at cost 1 - X_vv = 1 that every move pays
    (scripts/ablate_local_search_votes.py).  O(k m) per item, O(n k m)
    per pass, k the number of clusters.  ``st`` (a :data:`LocalSearchState`)
    is updated in place.

    The pass unpacks the state once and keeps the move's bookkeeping inline:
    as a helper (a numba call, each array's fields passed as arguments) it
    cost 3% of a LOCALSEARCH from singletons on Mushrooms, and inlined with
    ``inline="always"`` 10%.

    Why not the shared :func:`ccexp.cc._kernels.cc_local_search_pass`: the
    distances X_uv of aggregation are implicit (a function of two rows of
    ``codes``) and dense, so the signed graph it needs would hold all
    n(n-1)/2 pairs; the per-cluster histograms give ``M(v, C)`` in O(m)
    without it.
    """
    labels, hist, sizes, active, pos, free, count = st
    n_active, n_free = count[0], count[1]
    m = codes.shape[1]
    n_moved = 0
    for v in range(codes.shape[0]):
        c0 = labels[v]
        _hist_update(codes, off, v, hist, c0, -1)
        sizes[c0] -= 1
        # value of staying: its cluster without v (0 if v was alone)
        if sizes[c0] > 0:
            stay = 2.0 * m_times_m(codes, off, q, v, hist, c0, sizes[c0]) - m * sizes[c0]
        else:
            stay = 0.0
        if self_pair:
            stay -= m
        best = stay
        best_c = c0
        join = np.inf  # the best cluster other than c0 (first on ties), for join_ties
        join_c = -1
        for t in range(n_active):
            c = active[t]
            if c == c0 or sizes[c] == 0:
                continue
            val = 2.0 * m_times_m(codes, off, q, v, hist, c, sizes[c]) - m * sizes[c]
            if val < join - EPS:
                join = val
                join_c = c
            if val < best - EPS:
                best = val
                best_c = c
        if join_ties and sizes[c0] == 0 and best_c == c0 and join_c >= 0 and join <= EPS:
            best = join
            best_c = join_c
        if sizes[c0] > 0 and 0.0 < best - EPS:
            best = 0.0
            best_c = -1  # a new singleton
        if best_c != c0:
            n_moved += 1
            if best_c == -1:
                n_free -= 1
                best_c = free[n_free]
                active[n_active] = best_c
                pos[best_c] = n_active
                n_active += 1
            if sizes[c0] == 0:
                # retire c0: swap it out of the active list
                t = pos[c0]
                last = active[n_active - 1]
                active[t] = last
                pos[last] = t
                n_active -= 1
                free[n_free] = c0
                n_free += 1
        labels[v] = best_c
        _hist_update(codes, off, v, hist, best_c, 1)
        sizes[best_c] += 1
    count[0] = n_active
    count[1] = n_free
    return n_moved


@njit(cache=True)
def assign_to_clusters(codes, off, q, hist, sizes, k, out):
    """The post-processing of SAMPLING (Section 4.1): each item to its best cluster of 0..k-1.

    ``out[v]`` is the cluster minimising ``2 M(v, C) - |C|`` if that is
    negative (joining beats staying alone), else -1.  O(n k m).
    """
    n, m = codes.shape
    for v in range(n):
        best = 0.0
        best_c = -1
        for c in range(k):
            if sizes[c] == 0:
                continue
            val = 2.0 * m_times_m(codes, off, q, v, hist, c, sizes[c]) - m * sizes[c]
            if val < best - EPS:
                best = val
                best_c = c
        out[v] = best_c
