"""Numba kernels of the correlation-clustering core.

Pure functions of arrays and scalars (DESIGN.md, "Numba cores"): no Python
objects, no globals, no randomness drawn inside (the pivot order comes in as
an array). The public wrappers in ``objective.py``, ``local_search.py``,
``pivot.py`` validate input once; these kernels trust it. The union-find
kernels are in ``union_find.py`` and the relabelling in ``labels.py``. No
``fastmath``: costs must be reproducible to the bit.

The graph is a symmetric CSR adjacency (see :class:`ccexp.cc.SignedGraph`):
row ``u`` is ``indices[indptr[u]:indptr[u+1]]`` with signed ``weights``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def cc_cost_kernel(indptr, indices, weights, labels):
    """Correlation-clustering cost (Ukkonen 2017, Problem 1), O(|E| + n).

    ``sum_{w(u,v) > 0, f(u) != f(v)} w(u,v) + sum_{w(u,v) < 0, f(u) == f(v)} |w(u,v)|``,
    each undirected edge counted once (from its end point ``u < v``).
    Labels may be any integers: only equality is used.
    """
    n = indptr.shape[0] - 1
    cost = 0.0
    for u in range(n):
        lu = labels[u]
        for p in range(indptr[u], indptr[u + 1]):
            v = indices[p]
            if v <= u:
                continue  # the other copy of the edge, counted from row v
            w = weights[p]
            if w > 0.0:
                if lu != labels[v]:
                    cost += w
            elif w < 0.0:
                if lu == labels[v]:
                    cost -= w
    return cost


@njit(cache=True)
def cc_local_search_pass(indptr, indices, weights, labels, sizes, gain_buf, touched_buf, k_new):
    """One pass of single-item moves for correlation clustering, in place.

    For item ``u`` in cluster ``a`` let ``S[c]`` be the sum of signed weights
    from ``u`` to the members of cluster ``c`` (``u`` excluded). The part of
    the cost that depends on ``u``'s cluster is ``const - S[c]``, so moving
    ``u`` from ``a`` to ``c`` changes the cost by ``S[a] - S[c]``. Every
    cluster without a neighbour of ``u`` has ``S = 0``, exactly like a fresh
    empty cluster, so the candidates are the clusters of ``u``'s neighbours
    plus one empty cluster (id ``k_new``, ``S = 0``): O(deg(u)) per item.

    Items are visited in order ``0 .. n-1``. ``u`` moves only on a strict
    improvement ``S[c] > S[a]`` (ties keep it where it is, which makes every
    move lower the cost and so guarantees termination); among equally best
    targets the smallest cluster id wins, the empty cluster counting as id
    ``k_new``. An item alone in its cluster has ``S[a] = 0`` and therefore
    never moves to the empty cluster.

    Parameters
    ----------
    indptr, indices, weights : CSR arrays of the signed graph.
    labels : int64 array (n,)
        Cluster ids in ``[0, k_new)``; updated in place.
    sizes : int64 array (len >= k_new + n)
        ``sizes[c]`` = number of items in cluster ``c``; updated in place.
        A pass opens at most ``n`` new clusters, hence the length.
    gain_buf : float64 array (len >= k_new + n)
        All zeros on entry; left all zeros on exit.
    touched_buf : int64 array (len >= max degree)
        Scratch list of the cluster ids written in ``gain_buf``.
    k_new : int
        The id of a fresh empty cluster: every id ``>= k_new`` is unused.

    Returns
    -------
    n_moved : int
        Number of items that changed cluster (0 means a local optimum).
    k_new : int
        The next unused id after this pass.

    Notes
    -----
    O(|E| + n) per pass.
    """
    n = indptr.shape[0] - 1
    if sizes.shape[0] < k_new + n or gain_buf.shape[0] < k_new + n:
        raise ValueError("cc_local_search_pass: sizes and gain_buf need length >= k_new + n")
    n_moved = 0
    for u in range(n):
        a = labels[u]
        # Signed sum per neighbouring cluster. A cluster may be appended to
        # the touched list more than once; that is harmless (the same sum is
        # read twice, and reset twice) and avoids a separate "seen" flag.
        n_touched = 0
        for p in range(indptr[u], indptr[u + 1]):
            c = labels[indices[p]]
            gain_buf[c] += weights[p]
            touched_buf[n_touched] = c
            n_touched += 1

        stay = gain_buf[a]
        best_c = k_new  # the empty cluster, S = 0
        best = 0.0
        for t in range(n_touched):
            c = touched_buf[t]
            if c == a:
                continue
            g = gain_buf[c]
            if g > best or (g == best and c < best_c):
                best = g
                best_c = c

        for t in range(n_touched):
            gain_buf[touched_buf[t]] = 0.0

        if best > stay:
            sizes[a] -= 1
            sizes[best_c] += 1
            labels[u] = best_c
            n_moved += 1
            if best_c == k_new:
                k_new += 1
    return n_moved, k_new


@njit(cache=True)
def pivot_kernel(indptr, indices, weights, order):
    """KwikCluster (Ailon, Charikar and Newman 2008) for a given visiting order.

    Walk the items in ``order``; an item not yet clustered becomes a pivot and
    its cluster is itself plus every not-yet-clustered neighbour joined by a
    positive edge (``w > 0``). O(|E| + n).

    Returns int64 labels numbered ``0, 1, ...`` in the order the pivots are met.
    """
    n = indptr.shape[0] - 1
    labels = np.full(n, -1, dtype=np.int64)
    k = 0
    for i in range(order.shape[0]):
        piv = order[i]
        if labels[piv] >= 0:
            continue
        labels[piv] = k
        for p in range(indptr[piv], indptr[piv + 1]):
            v = indices[p]
            if weights[p] > 0.0 and labels[v] < 0:
                labels[v] = k
        k += 1
    return labels
