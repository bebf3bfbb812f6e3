"""Numba kernels of the query strategies of Aronsson & Chehreghani (2024), Section 3.

The expected triangle cost of Eqs. 11-12, the violating edges and bad
triangles that maxmin and maxexp score (Algorithm 3), the uniform and
least-queried fills, the least-|S| cut of uncertainty (Eq. 8) and the
running-mean update of the similarities (Algorithm 1, line 10).  A kernel
that draws calls ``np.random.seed(seed)`` first, so its output is a
function of its inputs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MAXMIN = 0
MAXEXP = 1
#: maxexp with every bad triangle's E[Delta_t] computed: the reference of MAXEXP's pruning
MAXEXP_UNPRUNED = 2


# --------------------------------------------------------------------------
# Eqs. 11-12: expected cost of a triangle
# --------------------------------------------------------------------------
@njit(cache=True)
def expected_cost(s_uv, s_uw, s_vw, beta):
    """E[Delta_t] of Eq. 12 under the Gibbs distribution of Eq. 11.

    ``beta = inf`` puts the mass on the cheapest clusterings (their common
    cost, Eq. 15); ``beta = 0`` weights the five equally (Eq. 16).  The
    exponent is shifted by the minimum cost, so large ``beta`` cannot
    overflow.  Scalars only (no array allocation): it runs once per bad
    triangle in the selection of maxexp.
    """
    # violation of each edge when its two items are together / apart (Eq. 1)
    t1 = -s_uv if s_uv < 0.0 else 0.0
    a1 = s_uv if s_uv >= 0.0 else 0.0
    t2 = -s_uw if s_uw < 0.0 else 0.0
    a2 = s_uw if s_uw >= 0.0 else 0.0
    t3 = -s_vw if s_vw < 0.0 else 0.0
    a3 = s_vw if s_vw >= 0.0 else 0.0
    # the five clusterings of Table 1
    c0 = t1 + t2 + t3
    c1 = a1 + a2 + t3
    c2 = a1 + t2 + a3
    c3 = t1 + a2 + a3
    c4 = a1 + a2 + a3
    cmin = min(min(min(c0, c1), min(c2, c3)), c4)
    if np.isinf(beta):
        return cmin
    w0 = np.exp(-beta * (c0 - cmin))
    w1 = np.exp(-beta * (c1 - cmin))
    w2 = np.exp(-beta * (c2 - cmin))
    w3 = np.exp(-beta * (c3 - cmin))
    w4 = np.exp(-beta * (c4 - cmin))
    return (w0 * c0 + w1 * c1 + w2 * c2 + w3 * c3 + w4 * c4) / (w0 + w1 + w2 + w3 + w4)


# --------------------------------------------------------------------------
# Algorithm 3: violating edges, their sample, the bad triangles through them
# --------------------------------------------------------------------------
@njit(cache=True)
def violating_edges(S, labels, out_u, out_v):
    """Line 2: the edges u < v with R(u, v) > 0; returns their number.  O(N^2).

    An edge violates the clustering when S(u, v) >= 0 across clusters or
    S(u, v) < 0 within one (Section 2.1; zero counts as positive).  An edge
    of weight exactly 0 across clusters has R = 0 and is not listed.
    """
    n = S.shape[0]
    m = 0
    for u in range(n):
        lu = labels[u]
        row = S[u]
        for v in range(u + 1, n):
            s = row[v]
            if labels[v] == lu:
                if s < 0.0:
                    out_u[m] = u
                    out_v[m] = v
                    m += 1
            elif s > 0.0:
                out_u[m] = u
                out_v[m] = v
                m += 1
    return m


@njit(cache=True)
def sample_prefix(out_u, out_v, m, size, seed):
    """Line 3: move a uniform random ``size``-subset of the first ``m`` entries to the front.

    Partial Fisher-Yates, O(size).
    """
    np.random.seed(seed)
    size = min(size, m)
    for i in range(size):
        j = np.random.randint(i, m)
        tu = out_u[i]
        out_u[i] = out_u[j]
        out_u[j] = tu
        tv = out_v[i]
        out_v[i] = out_v[j]
        out_v[j] = tv
    return size


_ZERO = np.uint64(0)
_ONE = np.uint64(1)
#: de Bruijn multiplier and table: the index of the lowest set bit of a 64-bit word
#: (Leiserson, Prokop & Randall 1998, "Using de Bruijn sequences to index a 1 in a computer word")
_DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DE_BRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DE_BRUIJN_INDEX[((1 << _i) * 0x03F79D71B4CB0A89 % 2**64) >> 58] = _i
del _i


@njit(cache=True)
def _lowest_bit(x):
    """The index of the lowest set bit of the uint64 ``x`` (x != 0)."""
    return _DE_BRUIJN_INDEX[((x & (~x + _ONE)) * _DE_BRUIJN) >> np.uint64(58)]


@njit(cache=True)
def _sign_row(row, out):
    """Pack ``row[w] >= 0`` into the 64-bit words ``out`` (bit w % 64 of word w // 64); unused bits 0."""
    n = row.shape[0]
    full = n // 64
    # a constant trip count of 64 lets the compiler unroll the packing
    for j in range(full):
        word = _ZERO
        base = j * 64
        for k in range(64):
            word |= np.uint64(row[base + k] >= 0.0) << np.uint64(k)
        out[j] = word
    if full < out.shape[0]:
        word = _ZERO
        base = full * 64
        for k in range(n - base):
            word |= np.uint64(row[base + k] >= 0.0) << np.uint64(k)
        out[full] = word


@njit(cache=True)
def sign_bits(S):
    """Bit w of word row x set when S(x, w) >= 0: the sign pattern of Theorem 1, (N, ceil(N / 64)) uint64.

    -0.0 counts as non-negative, as the comparison does; the unused high bits of a row's last
    word are 0.  A bad triangle (u, v, w) has its w among the set bits of row u XOR row v
    (S(u, v) >= 0) or row u AND row v (S(u, v) < 0).
    """
    n = S.shape[0]
    bits = np.zeros((n, (n + 63) // 64), dtype=np.uint64)
    for x in range(n):
        _sign_row(S[x], bits[x])
    return bits


#: relative slack of the maxexp pruning test, far above its rounding (about 1e-15 of the
#: costs; see :func:`score_bad_triangles`)
_PRUNE_SLACK = 1e-12


@njit(cache=True)
def score_bad_triangles(S, eu, ev, n_edges, strategy, beta, seed, info, touched_u, touched_v):
    """Lines 4-18 of Algorithm 3 for the first ``n_edges`` sampled edges.

    For every sampled edge (u, v) and every other item w, a bad triangle
    (exactly two non-negative weights, Theorem 1) credits its edge of least
    |S| (a random one among ties, lines 8-9) with |S(e)| (maxmin, Eq. 10)
    or with the max over its triangles of E[Delta_t] (maxexp, Eqs. 12-13).

    ``info`` is an (N, N) zero matrix written at ``[a, b]`` with ``a < b``;
    the entries written are listed in ``touched_u/v`` (the caller resets
    them).  Returns ``(n_touched, n_pruned)``: the number of touched entries
    and of maxexp triangles whose E[Delta_t] was never computed.  O(rows used x N + n_edges N / 64
    + bad triangles): the w of a sampled edge's bad triangles come from its two rows of
    sign bits (:func:`sign_bits`, packed on first use), 64 at a time, in ascending order as a plain loop over w visits them, so the
    draws of lines 8-9 and the credits are those of that loop (``tests/test_active_speed.py``
    holds the kernel to a plain-Python reference).

    Notes
    -----
    maxexp prunes (``MAXEXP``; ``MAXEXP_UNPRUNED`` does not) without changing a single credit.  A
    triangle only matters when its E[Delta_t] beats the credit ``old``
    that its edge already holds.  Under the Gibbs distribution of Eq. 11
    the expected cost falls as beta grows (d E_beta / d beta = -Var_beta <= 0),
    so E_beta <= E_0, the plain mean of the five costs (Eq. 16); the same
    holds for the computed weights, which fall as the cost rises
    (Chebyshev's sum inequality), up to rounding of about 1e-15 of the costs.
    So when ``mean * (1 + 1e-12) < old`` the five exps could not give a
    credit and are skipped.  The random draw of lines 8-9 comes before
    the test, so the generator's stream is the same as without pruning
    (``tests/test_active_speed.py``).
    """
    np.random.seed(seed)
    n_touched = 0
    n_pruned = 0
    # the sign bits of a row are packed the first time a sampled edge needs it: one read of
    # the rows in use, so a step with few violating edges does not read all of S
    n = S.shape[0]
    n_words = (n + 63) // 64
    bits = np.zeros((n, n_words), dtype=np.uint64)  # zeros, not empty: no stray w beyond N
    packed = np.zeros(n, dtype=np.bool_)
    for i in range(n_edges):
        u = eu[i]
        v = ev[i]
        s_uv = S[u, v]
        m0 = abs(s_uv)
        p_uv = s_uv >= 0.0
        row_u = S[u]
        row_v = S[v]
        for x in (u, v):
            if not packed[x]:
                _sign_row(S[x], bits[x])
                packed[x] = True
        bits_u = bits[u]
        bits_v = bits[v]
        for j in range(n_words):
            # the w of this word whose triangle has exactly two non-negative weights: one of
            # S(u, w), S(v, w) when S(u, v) >= 0, both when S(u, v) < 0; ascending, as the plain loop
            x = (bits_u[j] ^ bits_v[j]) if p_uv else (bits_u[j] & bits_v[j])
            while x != _ZERO:
                w = j * 64 + _lowest_bit(x)
                x &= x - _ONE
                if w == u or w == v:
                    continue
                s_uw = row_u[w]
                s_vw = row_v[w]
                # a bad triangle: credit its edge of least |S|, a random one among ties
                m1 = abs(s_uw)
                m2 = abs(s_vw)
                lo = min(m0, min(m1, m2))
                n_min = (m0 == lo) + (m1 == lo) + (m2 == lo)
                pick = 0 if n_min == 1 else np.random.randint(0, n_min)
                if m0 == lo and pick == 0:
                    a, b = u, v
                else:
                    if m0 == lo:
                        pick -= 1
                    if m1 == lo and pick == 0:
                        a, b = u, w
                    else:
                        a, b = v, w
                if a > b:
                    a, b = b, a
                old = info[a, b]
                if strategy == MAXMIN:
                    value = lo
                else:
                    if strategy == MAXEXP and old > 0.0:
                        # the sum of the five costs of Table 1 (c0 + ... + c4 in expected_cost): every
                        # edge violated by three of them when its weight is positive, by two when negative
                        total = _five_costs(m0, p_uv) + _five_costs(m1, s_uw >= 0.0) + _five_costs(m2, s_vw >= 0.0)
                        if total * (0.2 + _PRUNE_SLACK) < old:
                            n_pruned += 1
                            continue  # E[Delta_t] <= the mean of the costs < old: no credit
                    value = expected_cost(s_uv, s_uw, s_vw, beta)
                if value > old:
                    if old == 0.0:
                        touched_u[n_touched] = a
                        touched_v[n_touched] = b
                        n_touched += 1
                    info[a, b] = value
    return n_touched, n_pruned


@njit(cache=True)
def _five_costs(magnitude, positive):
    """What one edge adds to the summed cost of the five clusterings of a triangle (Table 1).

    A non-negative edge is violated by the three clusterings that split its
    two items, a negative one by the two that join them (Eq. 1).
    """
    return 3.0 * magnitude if positive else 2.0 * magnitude


@njit(cache=True)
def take_scores(info, counts, cap, touched_u, touched_v, n_touched, out_u, out_v, out_scores):
    """The touched edges' scores in touched order, only those asked fewer than ``cap`` times.

    One loop instead of numpy's gathers and copies; resets the touched cells of ``info``
    (written at ``[a, b]``, a < b).  Returns the number kept.
    """
    k = 0
    for i in range(n_touched):
        a = touched_u[i]
        b = touched_v[i]
        x = info[a, b]
        info[a, b] = 0.0
        if counts[a, b] < cap:
            out_u[k] = a
            out_v[k] = b
            out_scores[k] = x
            k += 1
    return k


# --------------------------------------------------------------------------
# batch selection helpers
# --------------------------------------------------------------------------
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
def least_queried(counts, cap, n_want, seed, out_u, out_v):
    """The ``n_want`` edges u < v with the fewest queries (Eq. 9), random among ties.

    Edges with ``counts >= cap`` are excluded.  Returns the batch length.
    The same edges, in the same row-major order and from the same draws as
    :func:`least_queried_plain` (a histogram, then one pass that keeps the
    tied edges drawn by rank), with less work: every pass over the upper
    triangle only compares and counts, the threshold count is found from 0
    up, one pass per distinct count up to it (one or two for the frequency
    strategy, whose counts differ by at most one), and the last pass reads
    only the rows holding an edge of the batch, each up to its last one, and
    jumps to a drawn tie by blocks of ``_BLOCK`` counted at once.  O(N^2) per
    distinct count.
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
    # the batch in row-major order: the rows with an edge below thr or a chosen tie
    p = 0  # next chosen rank
    base = 0  # rank of the first tie of row u
    for u in range(n):
        nb = row_below[u]
        nt = row_tied[u]
        if nb == 0 and (p >= need or chosen[p] >= base + nt):
            base += nt
            continue
        row = counts[u]
        r = base
        if nb == 0:
            # drawn ties only (almost every row): jump to each by blocks of _BLOCK counted at once
            v = u + 1
            while p < need and chosen[p] < base + nt:
                target = chosen[p]
                while v + _BLOCK <= n:
                    t = 0
                    for j in range(_BLOCK):
                        t += row[v + j] == thr
                    if r + t > target:
                        break
                    r += t
                    v += _BLOCK
                while True:  # the target is in this row, at or after v
                    if row[v] == thr:
                        r += 1
                        if r - 1 == target:
                            out_u[k] = u
                            out_v[k] = v
                            k += 1
                            p += 1
                            v += 1
                            break
                    v += 1
            base += nt
            continue
        for v in range(u + 1, n):
            c = row[v]
            if c < thr:
                out_u[k] = u
                out_v[k] = v
                k += 1
                nb -= 1
            elif c == thr:
                if p < need and chosen[p] == r:
                    out_u[k] = u
                    out_v[k] = v
                    k += 1
                    p += 1
                r += 1
            else:
                continue
            if nb == 0 and (p >= need or chosen[p] >= base + nt):
                break
        base += nt
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
    ``(n_below, n_tied)``.  Counts only (no lists), for :func:`pick_at_magnitude`.
    """
    n = S.shape[0]
    nb = 0
    nt = 0
    for u in range(n):
        row = S[u]
        crow = counts[u]
        b = 0
        t = 0
        for v in range(u + 1, n):
            ok = crow[v] < cap
            x = abs(row[v])
            b += ok & (x < thr)
            t += ok & (x == thr)
        row_below[u] = b
        row_tied[u] = t
        nb += b
        nt += t
    return nb, nt


@njit(cache=True)
def pick_at_magnitude(S, counts, cap, thr, row_below, row_tied, ranks, below_u, below_v, tied_u, tied_v):
    """The eligible edges with |S| < ``thr`` and those with |S| == ``thr`` at the given ranks.

    With ``row_below`` / ``row_tied`` from :func:`count_at_magnitude` and
    ``ranks`` sorted ascending (ranks among the tied edges in row-major order
    of (u, v)), writes the edges below the cut in row-major order to
    ``below_u/v`` and the tied edge of rank ``ranks[i]`` to ``tied_u/v[i]``,
    without listing the other tied edges (at |S| = 0.1, sigma_0's magnitude,
    every edge never asked ties: 280k-475k of them per step at N = 1000).
    Reads only the rows holding such an edge, each up to its last one.
    Returns ``(n_below, n_found)``.
    """
    n = S.shape[0]
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
        row = S[u]
        crow = counts[u]
        r = base
        if nb == 0:
            # drawn ties only (almost every row): jump to each by blocks of _BLOCK counted at once
            v = u + 1
            while p < n_ranks and ranks[p] < base + nt:
                target = ranks[p]
                while v + _BLOCK <= n:
                    t = 0
                    for j in range(_BLOCK):
                        t += (crow[v + j] < cap) & (abs(row[v + j]) == thr)
                    if r + t > target:
                        break
                    r += t
                    v += _BLOCK
                while True:  # the target is in this row, at or after v
                    if crow[v] < cap and abs(row[v]) == thr:
                        r += 1
                        if r - 1 == target:
                            tied_u[p] = u
                            tied_v[p] = v
                            p += 1
                            v += 1
                            break
                    v += 1
            base += nt
            continue
        for v in range(u + 1, n):
            if crow[v] >= cap:
                continue
            x = abs(row[v])
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
