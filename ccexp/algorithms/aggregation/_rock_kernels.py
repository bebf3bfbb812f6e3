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


@njit(cache=True)
def _before(g, a, b, h, c, d):
    """Heap order: larger goodness first, then the smaller pair (a, b) < (c, d)."""
    return g > h or (g == h and (a < c or (a == c and b < d)))


@njit(cache=True)
def _push(hg, ha, hb, hs, size, g, a, b, stamp):
    """Push an entry onto the binary max-heap held in the arrays; grow them if full."""
    if size == hg.shape[0]:
        cap = 2 * size + 16
        hg2 = np.empty(cap)
        ha2 = np.empty(cap, dtype=np.int64)
        hb2 = np.empty(cap, dtype=np.int64)
        hs2 = np.empty(cap, dtype=np.int64)
        hg2[:size] = hg[:size]
        ha2[:size] = ha[:size]
        hb2[:size] = hb[:size]
        hs2[:size] = hs[:size]
        hg, ha, hb, hs = hg2, ha2, hb2, hs2
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if not _before(g, a, b, hg[parent], ha[parent], hb[parent]):
            break
        hg[i] = hg[parent]
        ha[i] = ha[parent]
        hb[i] = hb[parent]
        hs[i] = hs[parent]
        i = parent
    hg[i] = g
    ha[i] = a
    hb[i] = b
    hs[i] = stamp
    return hg, ha, hb, hs


@njit(cache=True)
def _pop(hg, ha, hb, hs, size):
    """Remove the top entry (the caller has read it); returns the new size."""
    size -= 1
    g, a, b, s = hg[size], ha[size], hb[size], hs[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _before(hg[c + 1], ha[c + 1], hb[c + 1], hg[c], ha[c], hb[c]):
            c += 1
        if not _before(hg[c], ha[c], hb[c], g, a, b):
            break
        hg[i] = hg[c]
        ha[i] = ha[c]
        hb[i] = hb[c]
        hs[i] = hs[c]
        i = c
    if size > 0:
        hg[i] = g
        ha[i] = a
        hb[i] = b
        hs[i] = s
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
    """
    n = L.shape[0]
    active = np.ones(n, dtype=np.bool_)
    stamp = np.zeros(n, dtype=np.int64)  # bumped whenever a cluster changes
    cap = 16
    hg = np.empty(cap)
    ha = np.empty(cap, dtype=np.int64)
    hb = np.empty(cap, dtype=np.int64)
    hs = np.empty(cap, dtype=np.int64)  # stamp[a] * (n_merges + 1) + stamp[b] at push time
    size = 0
    n_linked = 0
    for x in range(n):
        linked = False
        for y in range(n):
            if L[x, y] > 0:
                linked = True
                if y > x:
                    g = goodness(float(L[x, y]), float(sizes[x]), float(sizes[y]), e)
                    hg, ha, hb, hs = _push(hg, ha, hb, hs, size, g, x, y, 0)
                    size += 1
        if linked:
            n_linked += 1
    base = n + 1  # stamps never exceed the number of merges < n
    t = 0
    while n_linked > k and size > 0:
        a = ha[0]
        b = hb[0]
        s = hs[0]
        size = _pop(hg, ha, hb, hs, size)
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
                hg, ha, hb, hs = _push(hg, ha, hb, hs, size, g, lo, hi, stamp[lo] * base + stamp[hi])
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
