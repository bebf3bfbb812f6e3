"""Numba kernels of LIMBO (Andritsos, Tsaparas, Miller and Sevcik 2004).

A cluster c is a distributional cluster feature DCF(c) = (p(c), p(V|c)):
its mass ``w`` and a dense row over the attribute values V. A tuple is a
cluster of mass 1/n whose row puts 1/m_t on each of its m_t values. The
information loss of merging two clusters (Andritsos et al., Eq. for
delta I) is

    delta I(ci, cj) = (w_i + w_j) D_JS[p(V|ci), p(V|cj)]
                    = sum_v w_i p_i(v) log(p_i(v) / pbar(v)) + w_j p_j(v) log(p_j(v) / pbar(v)),

with pbar = (w_i p_i + w_j p_j) / (w_i + w_j) (natural logarithms).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def loss_dense(wi, pi, wj, pj):
    """delta I of two clusters given by their masses and dense rows. O(|V|)."""
    w = wi + wj
    s = 0.0
    for v in range(pi.shape[0]):
        a = pi[v]
        b = pj[v]
        if a == 0.0 and b == 0.0:
            continue
        bar = (wi * a + wj * b) / w
        if a > 0.0:
            s += wi * a * np.log(a / bar)
        if b > 0.0:
            s += wj * b * np.log(b / bar)
    return s


@njit(cache=True)
def loss_tuple(wt, items, q, wc, pc):
    """delta I of a tuple (mass wt, value q on each of ``items``) and a cluster (wc, pc). O(m).

    Values outside the tuple contribute w_c p_c(v) log(1 / pi_c) with
    pi_c = w_c / (w_t + w_c), so only the tuple's own values are visited.
    """
    w = wt + wc
    s = 0.0
    inside = 0.0
    for a in range(items.shape[0]):
        v = items[a]
        b = pc[v]
        bar = (wt * q + wc * b) / w
        s += wt * q * np.log(q / bar)
        if b > 0.0:
            s += wc * b * np.log(b / bar)
            inside += b
    rest = 1.0 - inside
    if rest > 0.0:
        s += wc * rest * np.log(w / wc)
    return s


@njit(cache=True)
def summarize(items, indptr, n, tau, V, max_summaries):
    """Phase 1: merge each tuple, in order, into its closest summary if the loss is at most tau.

    ``items[indptr[t]:indptr[t+1]]`` are tuple t's values. The closest
    summary is found by an exhaustive scan (LIMBO's DCF tree descends to a
    leaf instead). Returns (masses, rows, count, assignment of tuples).
    O(n S m) for S summaries.
    """
    W = np.zeros(max_summaries)
    P = np.zeros((max_summaries, V))
    assign = np.empty(n, dtype=np.int64)
    S = 0
    wt = 1.0 / n
    for t in range(n):
        its = items[indptr[t] : indptr[t + 1]]
        q = 1.0 / its.shape[0]
        best = np.inf
        bs = -1
        for c in range(S):
            d = loss_tuple(wt, its, q, W[c], P[c])
            if d < best:
                best = d
                bs = c
        if bs >= 0 and best <= tau + 1e-12 * wt:
            w = W[bs] + wt
            for v in range(V):
                P[bs, v] *= W[bs] / w
            for v in its:
                P[bs, v] += wt * q / w
            W[bs] = w
            assign[t] = bs
        else:
            if S == max_summaries:
                return W, P, -1, assign  # caller raises: too many summaries
            for v in its:
                P[S, v] = q
            W[S] = wt
            assign[t] = S
            S += 1
    return W[:S].copy(), P[:S].copy(), S, assign


@njit(cache=True)
def _nearest(W, P, active, x):
    S = W.shape[0]
    best = np.inf
    bj = -1
    for y in range(S):
        if y != x and active[y]:
            d = loss_dense(W[x], P[x], W[y], P[y])
            if d < best:
                best = d
                bj = y
    return best, bj


@njit(cache=True)
def aib(W, P, k, merge_a, merge_b):
    """Phase 2: agglomerative information bottleneck down to k clusters.

    Merges the pair of least delta I (ties: smallest slot) in place; the
    merged cluster keeps the smaller slot. Each cluster caches its nearest
    partner; since delta I of two clusters does not change when others
    merge, only the new cluster and the clusters whose partner was one of
    the two merged ones are rescanned. O(S^2 |V|) to start, O(S |V|) per
    merge plus O(S |V|) per rescanned cache. Returns the number of merges.
    """
    S = W.shape[0]
    active = np.ones(S, dtype=np.bool_)
    best = np.empty(S)
    part = np.empty(S, dtype=np.int64)
    for x in range(S):
        best[x], part[x] = _nearest(W, P, active, x)
    n_active = S
    t = 0
    while n_active > k:
        i = -1
        d = np.inf
        for x in range(S):
            if active[x] and part[x] >= 0 and best[x] < d:
                d = best[x]
                i = x
        if i < 0:
            break
        j = part[i]
        a = min(i, j)
        b = max(i, j)
        w = W[a] + W[b]
        for v in range(P.shape[1]):
            P[a, v] = (W[a] * P[a, v] + W[b] * P[b, v]) / w
        W[a] = w
        active[b] = False
        n_active -= 1
        merge_a[t] = a
        merge_b[t] = b
        t += 1
        best[a], part[a] = _nearest(W, P, active, a)
        for x in range(S):
            if not active[x] or x == a:
                continue
            if part[x] == a or part[x] == b:
                best[x], part[x] = _nearest(W, P, active, x)
            else:
                dx = loss_dense(W[x], P[x], W[a], P[a])
                if dx < best[x] or (dx == best[x] and a < part[x]):
                    best[x] = dx
                    part[x] = a
    return t


@njit(cache=True)
def assign_tuples(items, indptr, n, W, P, reps, labels):
    """Phase 3: each tuple joins the representative of least delta I (ties: first)."""
    wt = 1.0 / n
    for t in range(n):
        its = items[indptr[t] : indptr[t + 1]]
        q = 1.0 / its.shape[0]
        best = np.inf
        for r in range(reps.shape[0]):
            c = reps[r]
            d = loss_tuple(wt, its, q, W[c], P[c])
            if d < best:
                best = d
                labels[t] = r
