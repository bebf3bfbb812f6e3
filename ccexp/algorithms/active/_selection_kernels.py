"""Numba kernels of the query strategies of Aronsson & Chehreghani (2024), Section 3: the triangles.

The expected triangle cost of Eqs. 11-12 and the violating edges and bad
triangles that maxmin and maxexp score (Algorithm 3).  The batch itself
(top-B cuts, the uniform and least-queried fills, uncertainty's least-|S|
edges, the running-mean update) is in :mod:`._batch_kernels`.  A kernel
that draws calls ``np.random.seed(seed)`` first, so its output is a
function of its inputs.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

#: The credits of a selection step (a tuple of arrays, numba-typed as a named tuple): ``info``, an
#: (N, N) float64 matrix, zero but at the edges credited so far (written at ``[a, b]``, a < b), and
#: the credited edges in the order first credited, ``touched_u``, ``touched_v`` (room for every edge).
#: :func:`score_bad_triangles` credits, :func:`take_scores` reads them and sets ``info`` back to zero.
Credits = namedtuple("Credits", "info touched_u touched_v")


def zero_credits(n):
    """Zero :data:`Credits` for ``n`` items."""
    n_edges = n * (n - 1) // 2
    return Credits(np.zeros((n, n), dtype=np.float64), np.empty(n_edges, dtype=np.int64),
                   np.empty(n_edges, dtype=np.int64))


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
    # the cheapest clustering's weight is exp(-0.0) = 1.0 exactly: not computed (nor a tied one's)
    w0 = 1.0 if c0 == cmin else np.exp(-beta * (c0 - cmin))
    w1 = 1.0 if c1 == cmin else np.exp(-beta * (c1 - cmin))
    w2 = 1.0 if c2 == cmin else np.exp(-beta * (c2 - cmin))
    w3 = 1.0 if c3 == cmin else np.exp(-beta * (c3 - cmin))
    w4 = 1.0 if c4 == cmin else np.exp(-beta * (c4 - cmin))
    return (w0 * c0 + w1 * c1 + w2 * c2 + w3 * c3 + w4 * c4) / (w0 + w1 + w2 + w3 + w4)


# --------------------------------------------------------------------------
# Algorithm 3: violating edges, their sample, the bad triangles through them
# --------------------------------------------------------------------------
@njit(cache=True)
def violating_edges(S, labels, out_u, out_v):
    """Line 2: the edges u < v with R(u, v) > 0; returns their number.  O(N^2).

    ``out_u`` and ``out_v`` need room for all N (N - 1) / 2 edges: every
    edge may violate, and the slot after the last kept one is written too
    (always one of the pairs not yet visited, so never beyond that room).

    An edge violates the clustering when S(u, v) >= 0 across clusters or
    S(u, v) < 0 within one (Section 2.1; zero counts as positive).  An edge
    of weight exactly 0 across clusters has R = 0 and is not listed.
    """
    n = S.shape[0]
    m = 0
    for u in range(n):
        lu = labels[u]
        row = S[u]
        m0 = m
        # without branches: v is written at the next free slot every time and the slot kept only
        # when (u, v) violates (the signs and clusters are unpredictable; half the time of the if/else
        # version at N = 1000); u is filled in for the row's kept slots after
        for v in range(u + 1, n):
            s = row[v]
            out_v[m] = v
            m += (s < 0.0) if labels[v] == lu else (s > 0.0)
        for t in range(m0, m):
            out_u[t] = u
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
def score_bad_triangles(S, eu, ev, n_edges, strategy, beta, seed, credits):
    """Lines 4-18 of Algorithm 3 for the first ``n_edges`` sampled edges.

    For every sampled edge (u, v) and every other item w, a bad triangle
    (exactly two non-negative weights, Theorem 1) credits its edge of least
    |S| (a random one among ties, lines 8-9) with |S(e)| (maxmin, Eq. 10)
    or with the max over its triangles of E[Delta_t] (maxexp, Eqs. 12-13).

    The credits go into ``credits`` (:data:`Credits`: ``info`` written at
    ``[a, b]`` with ``a < b``, the entries written listed in ``touched_u/v``;
    :func:`take_scores` reads and resets them).  Returns ``(n_touched, n_pruned)``: the number of touched entries
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
    info, touched_u, touched_v = credits
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
def take_scores(credits, n_touched, counts, cap, out_u, out_v, out_scores):
    """The touched edges' scores in touched order, only those asked fewer than ``cap`` times.

    One loop instead of numpy's gathers and copies over the first ``n_touched``
    edges of ``credits`` (:data:`Credits`); resets their cells of ``info``.
    Returns the number kept.
    """
    info, touched_u, touched_v = credits
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
