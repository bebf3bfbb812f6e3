"""COP-RF's constraint filter at a tree's root (Zhu, Loy, Gong 2013, Section II-C, Equations 7-8).

Each tree keeps the subset S_t of its constraints that allow the most
information gain at the root. :func:`filter_root_constraints` finds the
best valid root cut of a random subset Q by range maxima over the cut
positions Q allows; :func:`filter_root_constraints_scan` is the reference
that scans every cut (same draws, same results).  Both run over one
:data:`RootFilter` (every feature sorted once, the range-maximum tables, the
pairs' credits): :func:`_filter_state` builds it, :func:`_repetitions` runs
the repetitions of Equation 7 on it and :func:`_keep_top` reads Equation 8
off it.

Grouped inputs (tuples with a fixed layout):

``sample = (Xs, ws, cls)``
    The tree sample of :func:`~._forest_sample.draw_tree_sample`.
``rmq = (gains, table, log2)``
    One feature's cut gains (m,), its sparse argmax table (levels, m)
    (:func:`_sparse_argmax_table`) and ``log2[x] = floor(log2 x)`` (m + 1,).
``intervals = (iv_lo, iv_hi, ml_lo, ml_hi)``
    int64 scratch: the cannot-link intervals (at least ``n_cl + 1``) and the
    must-link intervals (at least ``n_ml + 1``) of Q.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ._forest_cuts import _GAIN_EPS, _best_cut, _split_gains


@njit(cache=True)
def _sparse_argmax_table(gains, table):
    """Fill ``table[k, i]`` with the position of the largest of ``gains[i : i + 2**k]``.

    A sparse table for range maxima; ``table`` is int32 (levels, m) with
    ``2**(levels-1) <= m``.  O(m log m).
    """
    m = gains.shape[0]
    for i in range(m):
        table[0, i] = i
    for k in range(1, table.shape[0]):
        half = 1 << (k - 1)
        for i in range(m - (1 << k) + 1):
            x, y = table[k - 1, i], table[k - 1, i + half]
            table[k, i] = x if gains[x] >= gains[y] else y


@njit(cache=True)
def _range_argmax(gains, table, log2, a, b):
    """A position of max(gains[a:b]), ``a < b``, from :func:`_sparse_argmax_table`. O(1)."""
    k = log2[b - a]
    x, y = table[k, a], table[k, b - (1 << k)]
    return x if gains[x] >= gains[y] else y


@njit(cache=True)
def _has_near_tie(gains, p, tol):
    """True iff some gain differs from ``gains[p]`` but by at most ``tol``. O(m).

    Gains that are equal in exact arithmetic can differ by a few ulps in
    floating point; :func:`_best_cut` treats gains within ``_GAIN_EPS`` as
    ties under ``cl_rule=1`` and then prefers more separated cannot-links,
    so it may return such a neighbour instead of the maximum.  When the
    maximum valid gain has no near tie it is exactly what the scan returns.
    """
    g = gains[p]
    for q in range(gains.shape[0]):
        if gains[q] != g and abs(gains[q] - g) <= tol:
            return True
    return False


@njit(cache=True)
def _union_of_intervals(lo, hi, k):
    """Sort the first ``k`` half-open intervals ``[lo, hi)`` by ``lo`` in place and merge them.

    Returns the number of disjoint intervals, written to the front of
    ``lo``/``hi`` in increasing order.  Insertion sort: k is a few dozen.
    """
    for a in range(1, k):
        x, y = lo[a], hi[a]
        b = a - 1
        while b >= 0 and lo[b] > x:
            lo[b + 1], hi[b + 1] = lo[b], hi[b]
            b -= 1
        lo[b + 1], hi[b + 1] = x, y
    n = 0
    for a in range(k):
        if n > 0 and lo[a] <= hi[n - 1]:
            if hi[a] > hi[n - 1]:
                hi[n - 1] = hi[a]
        else:
            lo[n], hi[n] = lo[a], hi[a]
            n += 1
    return n


@njit(cache=True)
def _argmax_outside(rmq, al, ah, n_a, ml_lo, ml_hi, n_ml):
    """Position of the largest gain in the allowed intervals minus the must-link intervals.

    ``al/ah`` (``n_a`` intervals) and ``ml_lo/ml_hi`` (``n_ml``) are sorted and
    disjoint.  Returns -1 if no position is left.  O(n_a + n_ml) range maxima.
    """
    gains, table, log2 = rmq
    best = -1
    j = 0
    for s in range(n_a):
        cur, end = al[s], ah[s]
        while j < n_ml and ml_hi[j] <= cur:
            j += 1
        while cur < end:
            if j < n_ml and ml_lo[j] < end:
                if ml_lo[j] > cur:
                    q = _range_argmax(gains, table, log2, cur, ml_lo[j])
                    if best < 0 or gains[q] > gains[best]:
                        best = q
                if ml_hi[j] > cur:
                    cur = ml_hi[j]
                if ml_hi[j] <= end:
                    j += 1
                else:
                    break
            else:
                q = _range_argmax(gains, table, log2, cur, end)
                if best < 0 or gains[q] > gains[best]:
                    best = q
                cur = end
    return best


@njit(cache=True)
def _root_cut_fast(rmq, rank, ml, cl, subset, n_sub, cl_rule, intervals):
    """Position of the gain :func:`_best_cut` returns for one presorted root feature, or -1.

    ``subset[:n_sub]`` lists the pairs of Q (must-links first, as in the
    filter).  Valid cuts: no must-link interval of Q covers them and, for
    ``cl_rule=0``, every cannot-link interval of Q does (their intersection)
    with gain > eps; for ``cl_rule=1``, some cannot-link interval does
    (their union) when Q has one, else gain > eps.  The maximum over those
    positions is what the scan returns (for ``cl_rule=1`` only without a
    near tie, see :func:`_has_near_tie`).  O(|Q| log |Q|) plus O(|Q|)
    range maxima instead of the O(m + |Q|) scan.  ``rmq`` and
    ``intervals`` as in the module docstring.
    """
    gains = rmq[0]
    iv_lo, iv_hi, ml_lo, ml_hi = intervals
    m = gains.shape[0]
    n_ml = ml.shape[0]
    n_m, n_c = 0, 0
    for j in range(n_sub):
        t = subset[j]
        if t < n_ml:
            ra, rb = rank[ml[t, 0]], rank[ml[t, 1]]
            ml_lo[n_m], ml_hi[n_m] = (ra, rb) if ra < rb else (rb, ra)
            n_m += 1
        else:
            ra, rb = rank[cl[t - n_ml, 0]], rank[cl[t - n_ml, 1]]
            iv_lo[n_c], iv_hi[n_c] = (ra, rb) if ra < rb else (rb, ra)
            n_c += 1
    n_m = _union_of_intervals(ml_lo, ml_hi, n_m)
    if n_c == 0:
        iv_lo[0], iv_hi[0] = 0, m
        n_a = 1
    elif cl_rule == 0:  # every cannot-link separated: the intersection
        a, b = iv_lo[0], iv_hi[0]
        for t in range(1, n_c):
            if iv_lo[t] > a:
                a = iv_lo[t]
            if iv_hi[t] < b:
                b = iv_hi[t]
        iv_lo[0], iv_hi[0] = a, b
        n_a = 1 if a < b else 0
    else:  # some cannot-link separated: the union
        n_a = _union_of_intervals(iv_lo, iv_hi, n_c)
    p = _argmax_outside(rmq, iv_lo, iv_hi, n_a, ml_lo, ml_hi, n_m)
    if p < 0 or gains[p] < 0.0:
        return -1
    if (cl_rule == 0 or n_c == 0) and gains[p] <= _GAIN_EPS:
        return -1
    return p


#: What the root filter of one tree works on (a named tuple of arrays; :func:`_filter_state`):
#: ``ranks[f, r]``, the sorted position of row r along feature f, and ``gains[f]``, the cut gains of f
#: (every feature sorted once at the root); for the fast path the range-maximum ``tables`` of the
#: features ``built`` so far, ``log2`` and the near-tie flags ``near[f, p]`` of a cut (-1: not yet
#: computed; cl_rule=1 only) and the ``intervals`` scratch (module docstring); the credits ``total``
#: and the draws ``drawn`` of every pair (Equation 8); the permutations ``perm`` (pairs, Q its head)
#: and ``feats``; the scan's scratch ``ml_use``, ``cl_use``, ``ml_diff``, ``cl_diff``; ``count``: the
#: feature evaluations that fell back to the scan, and all of them.
RootFilter = namedtuple("RootFilter", "ranks gains tables built near log2 intervals total drawn perm feats "
                                      "ml_use cl_use ml_diff cl_diff count")


@njit(cache=True)
def _filter_state(sample, n_ml, n_cl, cl_rule, fast, order=None):
    """The :data:`RootFilter` of a tree sample with ``n_ml`` + ``n_cl`` pairs: every feature sorted once.

    ``order``: the sample's rows sorted along every feature (:func:`~._forest_sample.sample_order`),
    or None to sort them here; the two differ only in the order of equal values, which changes
    neither a gain nor a kept pair (tests/test_forest_presort.py).
    """
    Xs, ws, cls = sample
    m, d = Xs.shape
    ranks = np.empty((d, m), dtype=np.int32)
    gains = np.empty((d, m))
    v_s = np.empty(m)
    w_s = np.empty(m)
    c_s = np.empty(m, dtype=np.int64)
    for f in range(d):
        if order is None:
            rows = np.argsort(Xs[:, f])
        else:
            rows = order[f]
        for q in range(m):
            row = rows[q]
            v_s[q] = Xs[row, f]
            w_s[q] = ws[row]
            c_s[q] = cls[row]
            ranks[f, row] = q
        _split_gains(v_s, w_s, c_s, gains[f])
    levels = 1
    while (1 << levels) <= m:
        levels += 1
    log2 = np.zeros(m + 1, dtype=np.int64)
    for x in range(2, m + 1):
        log2[x] = log2[x >> 1] + 1
    d_fast = d if fast else 0
    intervals = (np.empty(n_cl + 1, dtype=np.int64), np.empty(n_cl + 1, dtype=np.int64),
                 np.empty(n_ml + 1, dtype=np.int64), np.empty(n_ml + 1, dtype=np.int64))
    n_p = n_ml + n_cl
    return RootFilter(ranks, gains,
                      np.empty((d_fast, levels, m), dtype=np.int32),  # int32: fits cache better
                      np.zeros(d_fast, dtype=np.bool_),
                      np.full((d_fast if cl_rule == 1 else 0, m), -1, dtype=np.int8),
                      log2, intervals, np.zeros(n_p), np.zeros(n_p, dtype=np.int64), np.arange(n_p), np.arange(d),
                      np.zeros(n_ml, dtype=np.bool_), np.zeros(n_cl, dtype=np.bool_),
                      np.zeros(m + 1, dtype=np.int64), np.zeros(m + 1, dtype=np.int64), np.zeros(2, dtype=np.int64))


@njit(cache=True)
def _repetitions(st, ml, cl, q_size, k_try, cl_rule, fast, n_repeats):
    """``n_repeats`` repetitions of the filter: each draws Q and ``k_try`` features and credits every pair of Q
    with the best valid root gain (Equation 7).

    One call for all of them: the state is unpacked once (a call per repetition, its arrays passed
    field by field and read out of the named tuple, cost 3.7% of the filter; inlined, 6%).
    """
    ranks, gains, tables, built, near, log2, intervals, total, drawn, perm, feats = st[:11]
    ml_use, cl_use, ml_diff, cl_diff, count = st[11:]
    n_ml = ml.shape[0]
    n_p = perm.shape[0]
    d = feats.shape[0]
    n_scan, n_eval = count[0], count[1]
    for _ in range(n_repeats):
        for j in range(q_size):
            r = j + np.random.randint(0, n_p - j)
            perm[j], perm[r] = perm[r], perm[j]
        if not fast:
            _mark_subset(perm, q_size, n_ml, ml_use, cl_use)
        for j in range(k_try):
            r = j + np.random.randint(0, d - j)
            feats[j], feats[r] = feats[r], feats[j]
        best = 0.0
        for j in range(k_try):
            f = feats[j]
            n_eval += 1
            if fast:
                if not built[f]:
                    _sparse_argmax_table(gains[f], tables[f])
                    built[f] = True
                p = _root_cut_fast((gains[f], tables[f], log2), ranks[f], ml, cl, perm, q_size, cl_rule, intervals)
                if p < 0:
                    continue
                g = gains[f, p]
                if cl_rule == 1:
                    if near[f, p] < 0:
                        near[f, p] = 1 if _has_near_tie(gains[f], p, 4.0 * _GAIN_EPS) else 0
                    if near[f, p] == 1:
                        # the scan may settle on a near tie of the maximum: let it decide
                        n_scan += 1
                        _mark_subset(perm, q_size, n_ml, ml_use, cl_use)
                        g, p, sep = _best_cut(gains[f], ml, ml_use, cl, cl_use, ranks[f], cl_rule, ml_diff, cl_diff)
            else:
                g, p, sep = _best_cut(gains[f], ml, ml_use, cl, cl_use, ranks[f], cl_rule, ml_diff, cl_diff)
            if p >= 0 and g > best:
                best = g
        for j in range(q_size):
            total[perm[j]] += best
            drawn[perm[j]] += 1
    count[0], count[1] = n_scan, n_eval


@njit(cache=True)
def _keep_top(total, drawn, n_ml, q_size):
    """Equation 8's scores and the kept pairs: the top ``q_size`` by score, never-drawn pairs last, random ties."""
    n_p = total.shape[0]
    score = np.full(n_p, np.nan)
    for t in range(n_p):
        if drawn[t] > 0:
            score[t] = total[t] / drawn[t]
    key = np.empty(n_p)
    for t in range(n_p):
        key[t] = -1.0 if drawn[t] == 0 else score[t]
    shuffle = np.random.permutation(n_p)
    order = shuffle[np.argsort(-key[shuffle], kind="mergesort")]
    keep_ml = np.zeros(n_ml, dtype=np.bool_)
    keep_cl = np.zeros(n_p - n_ml, dtype=np.bool_)
    for j in range(q_size):
        t = order[j]
        if t < n_ml:
            keep_ml[t] = True
        else:
            keep_cl[t - n_ml] = True
    return keep_ml, keep_cl, score


@njit(cache=True)
def _filter_root(sample, ml, cl, mtry, cl_rule, n_repeats, alpha, seed, fast, order=None):
    """Shared body of :func:`filter_root_constraints` (``fast``) and its reference scan.

    The driver of :func:`_repetitions` over one :data:`RootFilter`.  Also
    returns how many feature evaluations fell back to the scan and how many
    there were.  ``sample`` is ``(Xs, ws, cls)``.
    """
    np.random.seed(seed)
    n_ml, n_cl = ml.shape[0], cl.shape[0]
    n_p = n_ml + n_cl
    if n_p == 0:
        return np.ones(n_ml, dtype=np.bool_), np.ones(n_cl, dtype=np.bool_), np.full(n_p, np.nan), 0, 0
    q_size = max(1, int(round(alpha * n_p)))
    st = _filter_state(sample, n_ml, n_cl, cl_rule, fast, order)
    k_try = min(mtry, st.feats.shape[0])
    _repetitions(st, ml, cl, q_size, k_try, cl_rule, fast, n_repeats)
    keep_ml, keep_cl, score = _keep_top(st.total, st.drawn, n_ml, q_size)
    return keep_ml, keep_cl, score, st.count[0], st.count[1]


@njit(cache=True)
def _mark_subset(perm, q_size, n_ml, ml_use, cl_use):
    """Flag the constraints of the subset Q = perm[:q_size] (must-links first, then cannot-links)."""
    ml_use[:] = False
    cl_use[:] = False
    for j in range(q_size):
        t = perm[j]
        if t < n_ml:
            ml_use[t] = True
        else:
            cl_use[t - n_ml] = True


@njit(cache=True)
def filter_root_constraints(sample, ml, cl, mtry, cl_rule, n_repeats, alpha, seed, order=None):
    """Rank a tree's constraints by the information gain they allow (Equations 7-8).

    In each of ``n_repeats`` (f) repetitions, a random subset Q of
    ``max(1, round(alpha |P_t|))`` pairs is drawn and the best valid root
    split under Q alone is found on ``mtry`` random features (Algorithm 1);
    its gain dI (0 if no valid split) is credited to every pair of Q.  The
    score of a pair is its mean credit over the repetitions that drew it
    (Equation 8); the top ``round(alpha |P_t|)`` pairs are kept, ties broken
    at random.

    Parameters
    ----------
    sample : tuple (Xs, ws, cls)
        The tree sample.
    ml, cl : int64 (p, 2), (q, 2)
        The tree's pairs (tree-sample rows).
    mtry, cl_rule : as :func:`grow_tree`.
    n_repeats : int
    alpha : float in (0, 1)
    seed : int
    order : int64 (d, m), optional
        The sample's rows sorted along every feature
        (:func:`~._forest_sample.sample_order`, read off one sort of the
        data per forest); None sorts every feature here.  The results are
        the same.

    Returns
    -------
    keep_ml, keep_cl : bool (p,), (q,)
        The kept subset S_t.
    score : float64 (p + q,)
        Equation 8 (must-links first), NaN for a pair never drawn.

    Notes
    -----
    Every feature is sorted once (or read off ``order``), with a sparse
    table of its cut gains, O(d m log m).  A repetition then needs only the cut positions Q's
    constraints allow: each pair is the interval of cuts that separate it,
    and the best valid gain is a range maximum over (cannot-link
    intersection or union) minus (must-link union), O(mtry |Q| log |Q|)
    instead of the O(mtry (m + |Q|)) scan of
    :func:`filter_root_constraints_scan`, whose results it reproduces
    exactly (same random draws, same gains; maxima involve no rounding).
    """
    keep_ml, keep_cl, score, _, _ = _filter_root(sample, ml, cl, mtry, cl_rule, n_repeats, alpha, seed, True, order)
    return keep_ml, keep_cl, score


@njit(cache=True)
def filter_root_constraints_scan(sample, ml, cl, mtry, cl_rule, n_repeats, alpha, seed, order=None):
    """Reference for :func:`filter_root_constraints`: every repetition scans all m cuts with :func:`_best_cut`.

    Same parameters and results; O(f mtry (m + |Q|)) after the sort.  Kept
    for the equality test and the benchmark.
    """
    keep_ml, keep_cl, score, _, _ = _filter_root(sample, ml, cl, mtry, cl_rule, n_repeats, alpha, seed, False, order)
    return keep_ml, keep_cl, score
