"""Numba kernels of ROCK (Guha, Rastogi and Shim 2000).

Pure functions of arrays; the Python driver in :mod:`.rock` validates.
Records are rows of integer codes (one column per attribute, ``-1`` for a
missing value).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _is_neighbour(T, u, v, theta):
    """Jaccard similarity of records u, v over the attributes both have, >= theta."""
    m = T.shape[1]
    both = 0
    same = 0
    for a in range(m):
        x = T[u, a]
        y = T[v, a]
        if x >= 0 and y >= 0:
            both += 1
            if x == y:
                same += 1
    if both == 0:
        return False
    # |A n B| / |A u B| with |A| = |B| = both items each
    return same >= theta * (2 * both - same) - 1e-12


@njit(cache=True)
def neighbour_lists(T, theta):
    """Neighbours of every record (similarity >= theta, self excluded) as CSR ``(indptr, indices)``.

    Two passes over the n(n-1)/2 pairs, O(n^2 m): count, then fill.
    """
    n = T.shape[0]
    deg = np.zeros(n, dtype=np.int64)
    for u in range(n):
        for v in range(u + 1, n):
            if _is_neighbour(T, u, v, theta):
                deg[u] += 1
                deg[v] += 1
    indptr = np.zeros(n + 1, dtype=np.int64)
    for u in range(n):
        indptr[u + 1] = indptr[u] + deg[u]
    indices = np.empty(indptr[n], dtype=np.int64)
    fill = indptr[:-1].copy()
    for u in range(n):
        for v in range(u + 1, n):
            if _is_neighbour(T, u, v, theta):
                indices[fill[u]] = v
                fill[u] += 1
                indices[fill[v]] = u
                fill[v] += 1
    return indptr, indices


@njit(cache=True)
def links(indptr, indices, L):
    """``L[u, v]`` += number of common neighbours of u and v (Guha et al., Figure 4).

    For every record w, every pair of its neighbours gains one link:
    O(sum_w deg(w)^2).
    """
    n = indptr.shape[0] - 1
    for w in range(n):
        lo = indptr[w]
        hi = indptr[w + 1]
        for a in range(lo, hi):
            u = indices[a]
            for b in range(a + 1, hi):
                v = indices[b]
                L[u, v] += 1
                L[v, u] += 1


@njit(cache=True)
def goodness(link, ni, nj, e):
    """g(Ci, Cj) = link / ((ni + nj)^e - ni^e - nj^e), e = 1 + 2 f(theta)."""
    return link / ((ni + nj) ** e - ni**e - nj**e)


#: One entry of ROCK's heap of candidate merges, one record per entry so that a step of a sift
#: reads one or two cache lines instead of one per field: ``g`` the goodness, ``ab`` the pair of
#: slots a < b as ``a * 2**32 + b`` (its order is the pair's lexicographic order), ``s`` the
#: stamps of a and b when it was pushed.
HEAP_ENTRY = np.dtype([("g", np.float64), ("ab", np.int64), ("s", np.int64)])
_PAIR = np.int64(2**32)


@njit(cache=True)
def _before(g, ab, h, cd):
    """Heap order: larger goodness first, then the smaller pair (a, b) < (c, d) (``ab < cd``)."""
    return g > h or (g == h and ab < cd)


@njit(cache=True)
def _push(heap, size, g, ab, stamp):
    """Push an entry onto the binary max-heap ``heap[:size]``; returns the heap (a larger copy when it was full)."""
    if size == heap.shape[0]:
        grown = np.empty(2 * size + 16, dtype=HEAP_ENTRY)
        grown[:size] = heap[:size]
        heap = grown
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if not _before(g, ab, heap[parent].g, heap[parent].ab):
            break
        heap[i] = heap[parent]
        i = parent
    heap[i].g = g
    heap[i].ab = ab
    heap[i].s = stamp
    return heap


@njit(cache=True)
def _pop(heap, size):
    """Remove the top entry (the caller has read it); returns the new size."""
    size -= 1
    g, ab, s = heap[size].g, heap[size].ab, heap[size].s
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _before(heap[c + 1].g, heap[c + 1].ab, heap[c].g, heap[c].ab):
            c += 1
        if not _before(heap[c].g, heap[c].ab, g, ab):
            break
        heap[i] = heap[c]
        i = c
    if size > 0:
        heap[i].g = g
        heap[i].ab = ab
        heap[i].s = s
    return size


@njit(cache=True)
def merge_clusters(L, sizes, k, e, merge_a, merge_b):
    """Merge the pair of clusters of largest goodness until k linked clusters remain or no links do.

    ``L`` (link counts between clusters, kept in the slots of their
    records) and ``sizes`` are updated in place; the merged cluster keeps
    the smaller slot. Records without any link can never merge (ROCK
    treats them as outliers) and do not count towards k.

    ROCK's global heap Q of local heaps q[i] is kept as one binary heap of
    candidate pairs with lazy deletion: a merge pushes the new cluster's
    pairs with a fresh stamp, and popped entries whose stamp is stale or
    whose cluster is gone are skipped. A merge costs O(n) to add the link
    rows plus O(l log P) for its l linked clusters (P entries in the heap).
    Ties go to the smaller pair of slots. Returns the number of merges
    written to ``merge_a``, ``merge_b``.

    Notes
    -----
    The merges are a function of the order alone: at any time at most one
    entry of a pair is current, and current entries are strictly ordered
    by (goodness, pair), so any heap layout pops them in the same sequence.
    On Mushrooms (8,124 records, theta 0.8: 1.9 M linked pairs, 8,103
    merges) the time went to the pops of a heap of millions of entries;
    one record per entry (:data:`HEAP_ENTRY`) instead of four parallel
    arrays makes a step of a sift touch one or two cache lines, not four
    to eight.
    """
    n = L.shape[0]
    active = np.ones(n, dtype=np.bool_)
    stamp = np.zeros(n, dtype=np.int64)  # bumped whenever a cluster changes
    heap = np.empty(16, dtype=HEAP_ENTRY)
    size = 0
    n_linked = 0
    for x in range(n):
        linked = False
        for y in range(n):
            if L[x, y] > 0:
                linked = True
                if y > x:
                    g = goodness(float(L[x, y]), float(sizes[x]), float(sizes[y]), e)
                    heap = _push(heap, size, g, x * _PAIR + y, 0)
                    size += 1
        if linked:
            n_linked += 1
    base = n + 1  # stamps never exceed the number of merges < n
    t = 0
    while n_linked > k and size > 0:
        a = heap[0].ab // _PAIR
        b = heap[0].ab % _PAIR
        s = heap[0].s
        size = _pop(heap, size)
        if not (active[a] and active[b]) or s != stamp[a] * base + stamp[b]:
            continue  # stale: one side has merged since this entry was pushed
        for x in range(n):
            if active[x] and x != a and x != b:
                L[a, x] += L[b, x]
                L[x, a] = L[a, x]
        sizes[a] += sizes[b]
        active[b] = False
        stamp[a] += 1
        n_linked -= 1
        merge_a[t] = a
        merge_b[t] = b
        t += 1
        for x in range(n):
            if active[x] and x != a and L[a, x] > 0:
                g = goodness(float(L[a, x]), float(sizes[a]), float(sizes[x]), e)
                lo = min(a, x)
                hi = max(a, x)
                heap = _push(heap, size, g, lo * _PAIR + hi, stamp[lo] * base + stamp[hi])
                size += 1
    return t


@njit(cache=True)
def label_outliers(indptr, indices, labels, keep, sizes, f):
    """ROCK's labelling phase for the records outside the kept clusters.

    A record of a cluster with ``keep[c] == False`` joins the kept cluster
    maximising ``N_i / (n_i + 1)^f`` (N_i = its neighbours in cluster i,
    n_i = that cluster's size); with no neighbour in any kept cluster it
    stays where it is. Sizes are those before labelling. O(sum deg).
    """
    n = labels.shape[0]
    k = keep.shape[0]
    out = labels.copy()
    count = np.zeros(k, dtype=np.int64)
    for u in range(n):
        if keep[labels[u]]:
            continue
        for a in range(indptr[u], indptr[u + 1]):
            c = labels[indices[a]]
            if keep[c]:
                count[c] += 1
        best = 0.0
        bc = -1
        for a in range(indptr[u], indptr[u + 1]):
            c = labels[indices[a]]
            if count[c] > 0:
                s = count[c] / (sizes[c] + 1.0) ** f
                if s > best or (s == best and c < bc):
                    best = s
                    bc = c
                count[c] = 0
        if bc >= 0:
            out[u] = bc
    return out
