"""Numba kernels that choose the batch of Aronsson & Chehreghani (2024), Section 3.5, and apply it.

The uniform and least-queried fills (exploration, Eq. 9), uncertainty's
least-|S| edges (Eq. 8: the cut by a heap, the edges below and at it found
per row and by rank), the k-th largest score that cuts maxmin's and
maxexp's top B, and the running-mean update of the similarities
(Algorithm 1, line 10).  Ties at a cut are drawn at random; a kernel that
draws calls ``np.random.seed(seed)`` first, so its output is a function of
its inputs.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def fill_random(n, counts, cap, mark, out_u, out_v, n_have, n_want, seed):
    """Append distinct random edges u < v with ``counts[u, v] < cap`` and not yet marked.

    Equivalent to the random tie-break among zero scores: rejection sampling
    while it is cheap, then an exact draw from the enumerated remainder.
    ``mark`` (uint8, (N, N)) flags edges already in the batch; it is set for
    the edges appended.  Returns the new batch length.
    """
    np.random.seed(seed)
    k = n_have
    tries = 0
    limit = 20 * (n_want - n_have) + 100
    while k < n_want and tries < limit:
        tries += 1
        u = np.random.randint(0, n)
        v = np.random.randint(0, n)
        if u == v:
            continue
        if u > v:
            u, v = v, u
        if mark[u, v] or counts[u, v] >= cap:
            continue
        mark[u, v] = 1
        out_u[k] = u
        out_v[k] = v
        k += 1
    if k < n_want:
        # few eligible edges left: enumerate them and draw exactly
        m = 0
        for u in range(n):
            for v in range(u + 1, n):
                if not mark[u, v] and counts[u, v] < cap:
                    m += 1
        cu = np.empty(m, dtype=np.int64)
        cv = np.empty(m, dtype=np.int64)
        m = 0
        for u in range(n):
            for v in range(u + 1, n):
                if not mark[u, v] and counts[u, v] < cap:
                    cu[m] = u
                    cv[m] = v
                    m += 1
        take = min(n_want - k, m)
        for i in range(take):
            j = np.random.randint(i, m)
            cu[i], cu[j] = cu[j], cu[i]
            cv[i], cv[j] = cv[j], cv[i]
            mark[cu[i], cv[i]] = 1
            out_u[k] = cu[i]
            out_v[k] = cv[i]
            k += 1
    return k


#: the block that the rank look-ups count at once (a constant trip count lets the count vectorise)
_BLOCK = 64


@njit(cache=True)
def _tied(row, crow, cap, thr, v, by_magnitude):
    """Whether edge (u, v) ties at the cut ``thr``: |S(u, v)| == thr and eligible (``crow[v] < cap``),
    uncertainty's tie (Eq. 8, ``row`` = S[u]); else asked exactly ``thr`` times, frequency's (Eq. 9,
    ``row`` = counts[u], eligible since thr < cap)."""
    if by_magnitude:
        return (crow[v] < cap) & (abs(row[v]) == thr)
    return row[v] == thr


@njit(cache=True)
def _seek_rank(row, crow, cap, thr, by_magnitude, v, r, target):
    """The position of the tie of rank ``target`` in a row, from position ``v`` whose rank is ``r``.

    Ties as :func:`_tied` says.  Whole blocks of ``_BLOCK`` whose ties all rank
    below the target are counted at once and skipped; the caller knows the target
    is in the row.  Returns the position.
    """
    n = row.shape[0]
    while v + _BLOCK <= n:
        t = 0
        for j in range(_BLOCK):
            t += _tied(row, crow, cap, thr, v + j, by_magnitude)
        if r + t > target:
            break
        r += t
        v += _BLOCK
    while True:
        if _tied(row, crow, cap, thr, v, by_magnitude):
            if r == target:
                return v
            r += 1
        v += 1


@njit(cache=True)
def least_queried(counts, cap, n_want, seed, out_u, out_v):
    """The ``n_want`` edges u < v with the fewest queries (Eq. 9), random among ties.

    Edges with ``counts >= cap`` are excluded.  Returns the batch length.
    The same edges, in the same row-major order and from the same draws as
    :func:`least_queried_plain` (a histogram, then one pass that keeps the
    tied edges drawn by rank), with less work: every pass over the upper
    triangle only compares and counts, the threshold count is found from 0
    up, one pass per distinct count up to it (one or two for the frequency
    strategy, whose counts differ by at most one), and the edges below it and
    the drawn ties come from uncertainty's walk by rank (:func:`_pick_by_rank`
    on the counts: only the rows holding an edge of the batch, each up to its
    last one, skipping blocks of ``_BLOCK`` counted at once), merged in
    row-major order.  O(N^2) per distinct count.
    """
    np.random.seed(seed)
    n = counts.shape[0]
    if n_want <= 0:
        return 0
    # the threshold count, from 0 up: per row, the eligible edges below it (row_below) and at it
    # (row_tied); the first pass also counts the eligible edges (m)
    row_below = np.zeros(n, dtype=np.int64)
    row_tied = np.zeros(n, dtype=np.int64)
    m = -1  # not counted yet
    below = 0
    thr = 0
    while True:
        n_tie = 0
        e_total = 0
        nxt = cap  # the least count above thr (below the cap while below + n_tie < min(n_want, m))
        for u in range(n):
            row = counts[u]
            t = 0
            e = 0
            for v in range(u + 1, n):
                c = row[v]
                t += c == thr
                e += c < cap
                nxt = min(nxt, c if c > thr else cap)
            row_tied[u] = t
            n_tie += t
            e_total += e
        if m < 0:
            m = e_total
            if m <= n_want:
                break
        if below + n_tie >= n_want:
            break
        below += n_tie
        for u in range(n):
            row_below[u] += row_tied[u]
        thr = nxt
    k = 0
    if m <= n_want:
        # every eligible edge (the plain kernel's threshold above all counts)
        for u in range(n):
            row = counts[u]
            for v in range(u + 1, n):
                if row[v] < cap:
                    out_u[k] = u
                    out_v[k] = v
                    k += 1
        return k
    # exact draw of which tied edges to keep (the plain kernel's partial Fisher-Yates over ranks)
    need = n_want - below
    idx = np.arange(n_tie)
    for i in range(need):
        j = np.random.randint(i, n_tie)
        idx[i], idx[j] = idx[j], idx[i]
    chosen = np.sort(idx[:need])
    # the edges below thr and the chosen ties, each in row-major order, merged into the batch
    below_u = np.empty(below, dtype=np.int64)
    below_v = np.empty(below, dtype=np.int64)
    tied_u = np.empty(need, dtype=np.int64)
    tied_v = np.empty(need, dtype=np.int64)
    _pick_by_rank(counts, counts, cap, thr, False, (row_below, row_tied), chosen, (below_u, below_v),
                  (tied_u, tied_v))
    a = 0
    b = 0
    while a < below or b < need:
        below_first = a < below and (b >= need or below_u[a] < tied_u[b]
                                     or (below_u[a] == tied_u[b] and below_v[a] < tied_v[b]))
        if below_first:
            out_u[k] = below_u[a]
            out_v[k] = below_v[a]
            a += 1
        else:
            out_u[k] = tied_u[b]
            out_v[k] = tied_v[b]
            b += 1
        k += 1
    return k


@njit(cache=True)
def least_queried_plain(counts, cap, n_want, seed, out_u, out_v):
    """The reference of :func:`least_queried` (same edges, order and draws; ``tests/test_active_speed.py``).

    A histogram of the eligible counts, the threshold, a partial Fisher-Yates
    over the ranks of the tied edges, one pass keeping the drawn ones.  O(N^2).
    """
    np.random.seed(seed)
    n = counts.shape[0]
    # histogram of the query counts below the cap
    hmax = 0
    for u in range(n):
        for v in range(u + 1, n):
            c = counts[u, v]
            if c < cap and c > hmax:
                hmax = c
    hist = np.zeros(hmax + 1, dtype=np.int64)
    for u in range(n):
        for v in range(u + 1, n):
            c = counts[u, v]
            if c < cap:
                hist[c] += 1
    # threshold count: all edges below it fit, those at it are drawn at random
    below = 0
    thr = hmax + 1
    for c in range(hmax + 1):
        if below + hist[c] >= n_want:
            thr = c
            break
        below += hist[c]
    k = 0
    n_tie = hist[thr] if thr <= hmax else 0
    need = min(n_want - below, n_tie) if thr <= hmax else 0
    # exact draw of which tied edges to keep
    keep = np.zeros(n_tie, dtype=np.uint8)
    if need > 0:
        idx = np.arange(n_tie)
        for i in range(need):
            j = np.random.randint(i, n_tie)
            idx[i], idx[j] = idx[j], idx[i]
            keep[idx[i]] = 1
    t = 0
    for u in range(n):
        for v in range(u + 1, n):
            c = counts[u, v]
            if c >= cap:
                continue
            if c < thr:
                out_u[k] = u
                out_v[k] = v
                k += 1
            elif c == thr:
                if keep[t]:
                    out_u[k] = u
                    out_v[k] = v
                    k += 1
                t += 1
    return k


@njit(cache=True)
def apply_answers(total, counts, S, bu, bv, answers):
    """Lines 9-10 of Algorithm 1: add each answer and set S to the running mean.

    ``total`` holds sigma_0 plus the answers so far and ``counts`` the
    number of answers, so S = total / (counts + 1) is the mean of Q_uv
    (which holds sigma_0).  Both triangles of the symmetric arrays are set.
    """
    for i in range(bu.shape[0]):
        u = bu[i]
        v = bv[i]
        t = total[u, v] + answers[i]
        c = counts[u, v] + 1
        total[u, v] = t
        total[v, u] = t
        counts[u, v] = c
        counts[v, u] = c
        s = t / (c + 1)
        S[u, v] = s
        S[v, u] = s


@njit(cache=True)
def eligible_magnitudes(S, counts, cap, out_vals, out_u, out_v):
    """|S(u, v)| of every edge u < v asked fewer than ``cap`` times (Eq. 8's candidates); returns their number."""
    n = S.shape[0]
    m = 0
    for u in range(n):
        for v in range(u + 1, n):
            if counts[u, v] < cap:
                out_vals[m] = abs(S[u, v])
                out_u[m] = u
                out_v[m] = v
                m += 1
    return m


@njit(cache=True)
def _offer_smallest(heap, h, x):
    """Put ``x`` into the max-heap ``heap[0:h]`` of the ``len(heap)`` smallest values seen; returns the new ``h``.

    The caller offers only what enters: any ``x`` while the heap has room,
    once it is full only ``x < heap[0]`` (tested inline in the hot loop, where
    numba does not inline this function); ``x`` then replaces the largest kept
    value.  ``heap[0]`` is the ``len(heap)``-th smallest value offered so far.
    """
    if h < heap.shape[0]:
        # sift up
        i = h
        heap[i] = x
        h += 1
        while i > 0:
            p = (i - 1) // 2
            if heap[p] < heap[i]:
                heap[p], heap[i] = heap[i], heap[p]
                i = p
            else:
                break
    else:
        # replace the largest of the kept values, sift down
        heap[0] = x
        i = 0
        while True:
            lft = 2 * i + 1
            if lft >= h:
                break
            c = lft
            if lft + 1 < h and heap[lft + 1] > heap[lft]:
                c = lft + 1
            if heap[c] > heap[i]:
                heap[c], heap[i] = heap[i], heap[c]
                i = c
            else:
                break
    return h


@njit(cache=True)
def least_magnitude_cut(S, counts, cap, n_want):
    """The ``n_want``-th smallest |S(u, v)| over edges u < v asked fewer than ``cap`` times.

    Returns ``(threshold, m)`` with ``m`` the number of eligible edges; the
    threshold is meaningful when ``0 < n_want < m``.  One pass over the
    upper triangle with a max-heap of the ``n_want`` smallest values,
    O(N^2 + m' log n_want) where m' values enter the heap; the value equals
    ``np.partition``'s order statistic, which the uncertainty strategy
    (Eq. 8) used over a materialised array of all |E| magnitudes.
    """
    n = S.shape[0]
    thr, m, _, _ = least_magnitude_cut_and_count(S, counts, cap, n_want, np.nan, np.empty(n, dtype=np.int64),
                                                 np.empty(n, dtype=np.int64))
    return thr, m


@njit(cache=True)
def least_magnitude_cut_and_count(S, counts, cap, n_want, guess, row_below, row_tied):
    """:func:`least_magnitude_cut` and, in the same pass, :func:`count_at_magnitude` at ``guess``.

    Returns ``(threshold, m, n_below, n_tied)``, the last two (and
    ``row_below`` / ``row_tied``) counted at ``guess``: they are the cut's
    when the threshold equals the guess.  The uncertainty strategy guesses
    the previous step's cut, which holds while unasked edges (|S| = lambda,
    sigma_0's magnitude) remain at the cut, and saves a pass over S.
    NaN guesses nothing (every count 0).
    """
    n = S.shape[0]
    heap = np.empty(max(n_want, 1), dtype=np.float64)
    h = 0
    m = 0
    nb = 0
    nt = 0
    for u in range(n):
        row = S[u]
        crow = counts[u]
        b = 0
        t = 0
        for v in range(u + 1, n):
            if crow[v] >= cap:
                continue
            m += 1
            x = abs(row[v])
            b += x < guess
            t += x == guess
            if h < n_want or (n_want > 0 and x < heap[0]):
                h = _offer_smallest(heap, h, x)
        row_below[u] = b
        row_tied[u] = t
        nb += b
        nt += t
    return (heap[0] if h > 0 else 0.0), m, nb, nt


@njit(cache=True)
def kth_largest(scores, k):
    """The ``k``-th largest of ``scores`` (``1 <= k <= len(scores)``, finite values).

    The value ``np.partition(scores, m - k)[m - k]`` returns (an order
    statistic does not depend on how it is found), by a heap of the k
    largest: O(m log k), O(m) when few values enter it.  On maxmin's scores
    (few distinct values) numpy's introselect took 4.9-7.0 ms per call at
    N = 1000 and this 44-82 µs (``scripts/bench/bench_active.py``).
    """
    if k < 1 or k > scores.shape[0]:
        raise ValueError("kth_largest: k must be in [1, len(scores)]")
    heap = np.empty(k, dtype=np.float64)
    h = 0
    for i in range(scores.shape[0]):
        # the k largest of x are the negated k smallest of -x (negation is exact)
        x = -scores[i]
        if h < k or x < heap[0]:
            h = _offer_smallest(heap, h, x)
    return -heap[0]


@njit(cache=True)
def count_at_magnitude(S, counts, cap, thr, row_below, row_tied):
    """Per row u, the eligible edges (u, v > u) with |S| < ``thr`` and with |S| == ``thr``.

    Fills ``row_below`` and ``row_tied`` (int64, N) and returns their totals
    ``(n_below, n_tied)``: the counting half of :func:`least_magnitude_cut_and_count`
    (no heap for a batch of 0), for :func:`pick_at_magnitude` when the cut moved.
    """
    _, _, nb, nt = least_magnitude_cut_and_count(S, counts, cap, 0, thr, row_below, row_tied)
    return nb, nt


@njit(cache=True)
def pick_at_magnitude(S, counts, cap, thr, rows, ranks, below, tied):
    """The eligible edges with |S| < ``thr`` and those with |S| == ``thr`` at the given ranks.

    With ``rows = (row_below, row_tied)`` from :func:`count_at_magnitude` and
    ``ranks`` sorted ascending (ranks among the tied edges in row-major order
    of (u, v)), writes the edges below the cut in row-major order to
    ``below = (u, v)`` and the tied edge of rank ``ranks[i]`` to ``tied[0][i],
    tied[1][i]``,
    without listing the other tied edges (at |S| = 0.1, sigma_0's magnitude,
    every edge never asked ties: 280k-475k of them per step at N = 1000).
    Reads only the rows holding such an edge, each up to its last one.
    Returns ``(n_below, n_found)``.
    """
    return _pick_by_rank(S, counts, cap, thr, True, rows, ranks, below, tied)


@njit(cache=True)
def _pick_by_rank(A, counts, cap, thr, by_magnitude, rows, ranks, below, tied):
    """:func:`pick_at_magnitude` with the cut on |A| (``by_magnitude``, A = S) or on A itself
    (A = counts, frequency's cut on the number of queries, Eq. 9)."""
    row_below, row_tied = rows
    below_u, below_v = below
    tied_u, tied_v = tied
    n = A.shape[0]
    n_ranks = ranks.shape[0]
    kb = 0
    p = 0  # next rank to find
    base = 0  # rank of the first tied edge of row u
    for u in range(n):
        nb = row_below[u]
        nt = row_tied[u]
        if nb == 0 and (p >= n_ranks or ranks[p] >= base + nt):
            base += nt
            continue
        row = A[u]
        crow = counts[u]
        r = base
        if nb == 0:
            # drawn ties only (almost every row): jump to each by blocks counted at once
            v = u + 1
            while p < n_ranks and ranks[p] < base + nt:
                v = _seek_rank(row, crow, cap, thr, by_magnitude, v, r, ranks[p])
                tied_u[p] = u
                tied_v[p] = v
                r = ranks[p] + 1
                p += 1
                v += 1
            base += nt
            continue
        for v in range(u + 1, n):
            if crow[v] >= cap:
                continue
            x = abs(row[v]) if by_magnitude else row[v]
            if x < thr:
                below_u[kb] = u
                below_v[kb] = v
                kb += 1
                nb -= 1
            elif x == thr:
                if p < n_ranks and ranks[p] == r:
                    tied_u[p] = u
                    tied_v[p] = v
                    p += 1
                r += 1
            else:
                continue
            if nb == 0 and (p >= n_ranks or ranks[p] >= base + nt):
                break
        base += nt
    return kb, p
