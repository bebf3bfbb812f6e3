"""Numba kernels of Algorithm 2 of Aronsson & Chehreghani (2024): the max-correlation local search.

Delta^MaxCor (Eq. 5) of a clustering, the cluster ids of a local search
(:data:`Slots`) and its two moves, one restart of the local search with a
dynamic number of clusters (lines 8-29) by the plain O(N^2)-per-pass kernel
(the bitwise-equal one by per-cluster sums is :mod:`._maxcor_sums`), and the
random initial clusterings of line 7.  The dense symmetric ``S`` (float64, ``S[u, u] = 0``)
is the family's own data layout, which is why it keeps its own local search
(see :mod:`ccexp.cc`).  A kernel that draws calls ``np.random.seed(seed)``
first, so its output is a function of its inputs.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit


# --------------------------------------------------------------------------
# Algorithm 2: max-correlation local search with a dynamic number of clusters
# --------------------------------------------------------------------------
@njit(cache=True)
def max_correlation_plain(S, labels):
    """Delta^MaxCor of Eq. 5 by the plain double loop (reference of :func:`max_correlation`)."""
    n = S.shape[0]
    total = 0.0
    for u in range(n):
        lu = labels[u]
        for v in range(u + 1, n):
            if labels[v] == lu:
                total += S[u, v]
    return total


@njit(cache=True)
def _pair_order(labels):
    """Where the plain double loop of Eq. 5 finds each item's later cluster mates.

    Returns ``(members, first, stop)``: the members of every cluster in
    ascending order, cluster after cluster (a stable counting sort), and
    for each item u the slice ``members[first[u]:stop[u]]`` of the members
    of its cluster after u.  Labels are ids in ``[0, N)``.
    """
    n = labels.shape[0]
    start = np.zeros(n + 1, dtype=np.int64)
    for u in range(n):
        start[labels[u] + 1] += 1
    for c in range(n):
        start[c + 1] += start[c]
    fill = start[:n].copy()
    members = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    stop = np.empty(n, dtype=np.int64)
    for u in range(n):
        c = labels[u]
        members[fill[c]] = u
        fill[c] += 1
        first[u] = fill[c]
        stop[u] = start[c + 1]
    return members, first, stop


@njit(cache=True)
def max_correlation(S, labels):
    """Delta^MaxCor of Eq. 5: the sum of S(u, v) over pairs u < v in one cluster.

    Visits only the pairs inside clusters, O(N + sum_c |c|^2 / 2) instead
    of O(N^2 / 2) checks, and adds them in the order of the plain double
    loop (u ascending, then v > u ascending), so the float sum is bitwise
    the same (:func:`max_correlation_plain`).  Labels are ids in ``[0, N)``.
    """
    members, first, stop = _pair_order(labels)
    total = 0.0
    for u in range(S.shape[0]):
        row = S[u]
        for t in range(first[u], stop[u]):
            total += row[members[t]]
    return total


@njit(cache=True, fastmath=True)
def _abs_max(r):
    """max |r[j]| (r finite): exact in any order, so fast-math and 4 running maxima only let it vectorise."""
    m0 = 0.0
    m1 = 0.0
    m2 = 0.0
    m3 = 0.0
    n = r.shape[0]
    j = 0
    while j + 4 <= n:
        m0 = max(m0, abs(r[j]))
        m1 = max(m1, abs(r[j + 1]))
        m2 = max(m2, abs(r[j + 2]))
        m3 = max(m3, abs(r[j + 3]))
        j += 4
    while j < n:
        m0 = max(m0, abs(r[j]))
        j += 1
    return max(max(m0, m1), max(m2, m3))


@njit(cache=True)
def abs_max(S):
    """max |S(u, v)| over the matrix (exact; the ``smax`` of :func:`~._maxcor_sums.local_search_sums`)."""
    smax = 0.0
    for u in range(S.shape[0]):
        smax = max(smax, _abs_max(S[u]))
    return smax


#: The cluster ids of a local search (a tuple of arrays, numba-typed as a named tuple).
#:
#: ``labels``: the clustering (ids in ``[0, N)``, the caller's array, mutated); ``size[c]``: cluster sizes;
#: ``active[0:count[N_ACTIVE]]``: the non-empty ids, ``pos[c]`` the position of c there (-1 if empty);
#: ``free[0:count[N_FREE]]``: the stack of empty ids.
Slots = namedtuple("Slots", "labels size active pos free count")
#: indices of ``Slots.count``
N_ACTIVE = 0
N_FREE = 1


@njit(cache=True)
def cluster_slots(labels):
    """The :data:`Slots` of ``labels`` (ids in ``[0, N)``): sizes, non-empty ids in id order, the empty ones."""
    n = labels.shape[0]
    size = np.zeros(n, dtype=np.int64)
    for u in range(n):
        size[labels[u]] += 1
    active = np.empty(n, dtype=np.int64)
    pos = np.full(n, -1, dtype=np.int64)
    free = np.empty(n, dtype=np.int64)
    n_active = 0
    n_free = 0
    for c in range(n):
        if size[c] > 0:
            active[n_active] = c
            pos[c] = n_active
            n_active += 1
        else:
            free[n_free] = c
            n_free += 1
    count = np.empty(2, dtype=np.int64)
    count[N_ACTIVE] = n_active
    count[N_FREE] = n_free
    return Slots(labels, size, active, pos, free, count)


# The moves take the slots' arrays, not the :data:`Slots`: reading an array out of a named tuple
# takes a reference (an atomic increment), and the first pass moves almost every item.


@njit(cache=True, inline="always")
def _open_cluster(size, active, pos, free, count, cu):
    """Lines 17-22 of Algorithm 2: an item leaves ``cu`` (not a singleton) for a new cluster, the top free id.

    Returns the new id (the caller relabels the item).
    """
    count[N_FREE] -= 1
    c_new = free[count[N_FREE]]
    active[count[N_ACTIVE]] = c_new
    pos[c_new] = count[N_ACTIVE]
    count[N_ACTIVE] += 1
    size[cu] -= 1
    size[c_new] = 1
    return c_new


@njit(cache=True, inline="always")
def _move_item(size, active, pos, free, count, cu, best):
    """Lines 24-26 of Algorithm 2: an item moves from ``cu`` to ``best``; an emptied ``cu`` returns to the free ids.

    Returns whether ``cu`` was emptied (the caller relabels the item).
    """
    size[cu] -= 1
    size[best] += 1
    emptied = size[cu] == 0
    if emptied:
        p = pos[cu]
        last = active[count[N_ACTIVE] - 1]
        active[p] = last
        pos[last] = p
        pos[cu] = -1
        count[N_ACTIVE] -= 1
        free[count[N_FREE]] = cu
        count[N_FREE] += 1
    return emptied


@njit(cache=True)
def local_search_run_plain(S, labels, seed, eta, max_passes):
    """One restart of Algorithm 2 (lines 8-29) from ``labels``, in place: the plain kernel.

    The reference of :func:`~._maxcor_sums.local_search_run` (bitwise the same labels,
    objective and number of passes; ``tests/test_active_speed.py``), kept for
    the tests and ``scripts/bench/bench_active.py``.

    Parameters
    ----------
    S : float64 array (N, N)
        Symmetric similarities with a zero diagonal.
    labels : int64 array (N,)
        Initial clustering, ids in ``[0, N)``; overwritten with the local optimum.
    seed : int
        Seed of the visiting orders (line 12).
    eta : float
        Stop when a pass changes the objective by at most ``eta`` (line 10).
    max_passes : int
        Safety cap on passes.

    Returns
    -------
    objective : float
        Delta^MaxCor of the final clustering, updated incrementally (lines 19, 25).
    n_passes : int

    Notes
    -----
    One pass is O(N^2) whatever the number of clusters k: the scores
    S_c(u) of line 14 (the delta term of Eq. 7) for every cluster c come
    from one sweep over row u that adds S(u, v) into ``acc[label(v)]``;
    the arg max and the reset then visit the k non-empty clusters only,
    O(N^2 + N k) = O(N^2) per pass.  The objective never decreases: a move
    to c_max gains S_cmax(u) - S_cu(u) >= 0 and a new singleton gains
    -S_cu(u) > 0 since S_cu(u) <= S_cmax(u) < 0.  Ties keep ``u`` where it is.
    """
    np.random.seed(seed)
    n = S.shape[0]
    sl = cluster_slots(labels)
    size, active, pos, free, count = sl.size, sl.active, sl.pos, sl.free, sl.count
    acc = np.zeros(n, dtype=np.float64)
    delta = max_correlation(S, labels)
    delta_old = delta - 1.0
    n_passes = 0
    order = np.arange(n)
    while abs(delta - delta_old) > eta and n_passes < max_passes:
        delta_old = delta
        n_passes += 1
        np.random.shuffle(order)
        for i in range(n):
            u = order[i]
            row = S[u]
            for v in range(n):
                acc[labels[v]] += row[v]
            cu = labels[u]
            acc[cu] -= row[u]  # v != u in line 14 (zero anyway)
            s_cu = acc[cu]
            best = cu
            best_val = s_cu
            n_active = count[N_ACTIVE]
            for j in range(n_active):
                c = active[j]
                if acc[c] > best_val:
                    best_val = acc[c]
                    best = c
            for j in range(n_active):
                acc[active[j]] = 0.0
            if best_val < 0.0:
                # lines 17-22: no cluster is similar enough; u opens a new one
                # (u is not a singleton here: a singleton's own score is 0)
                labels[u] = _open_cluster(size, active, pos, free, count, cu)
                delta -= s_cu
            elif best != cu:
                # lines 24-26
                _move_item(size, active, pos, free, count, cu, best)
                labels[u] = best
                delta += best_val - s_cu
    return delta, n_passes


@njit(cache=True)
def random_labels(n, k, seed):
    """Line 7: every item in one of ``k`` clusters uniformly at random."""
    np.random.seed(seed)
    labels = np.empty(n, dtype=np.int64)
    for u in range(n):
        labels[u] = np.random.randint(0, k)
    return labels
