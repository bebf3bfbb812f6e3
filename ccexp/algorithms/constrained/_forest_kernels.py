"""Numba kernels of the clustering forest and of COP-RF (Zhu, Loy, Gong 2013).

One tree is grown on a *tree sample*: the distinct in-bag points of a
bootstrap draw (weighted by how often they were drawn) followed by pseudo
points drawn uniformly in the bounding box of the data (the pseudo two-class
problem of a clustering forest, Section II-B).  Splits are axis-aligned
(Equation 2) and chosen by the Gini gain of the real-versus-pseudo labels
(Equation 4) among ``mtry`` random features (Equation 3); a COP tree keeps
only the splits that respect the constraints of its node (Equation 5,
Algorithm 1).

Constraint rules (``cl_rule``), see experiments/zhu2013/README.md:

* ``0`` ("split", Algorithm 1 as written): a split is valid iff it separates
  no must-link pair of the node and separates every cannot-link pair of the
  node.
* ``1`` ("leaf"): a split is valid iff it separates no must-link pair of the
  node; a node that holds cannot-link pairs only accepts splits that
  separate at least one of them, and it keeps splitting (even at zero gain)
  until no valid split separates any of them.

A pair is *of the node* when both its points reach the node.  Every kernel
is a pure function of its inputs; randomness enters as a seed (numba's
generator is seeded at the top of each kernel).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# A split must improve the Gini impurity by more than this to count as a gain
# (Algorithm 1 keeps a split only if its gain exceeds the best so far, 0 at start).
_GAIN_EPS = 1e-12


@njit(cache=True)
def draw_tree_sample(X, lo, hi, n_pseudo, seed):
    """Bootstrap the real points and draw pseudo points (one tree's training set).

    Parameters
    ----------
    X : float64 (n, d)
    lo, hi : float64 (d,)
        Per-feature range of the pseudo points (the data's min and max).
    n_pseudo : int
        Number of uniform pseudo points (0 for a forest without them).
    seed : int

    Returns
    -------
    Xs : float64 (m, d)
        Distinct in-bag points (in increasing index order), then pseudo points.
    ws : float64 (m,)
        Multiplicity of each in-bag point in the bootstrap; 1 for a pseudo point.
    cls : int64 (m,)
        0 real, 1 pseudo.
    local : int64 (n,)
        Row of point i in ``Xs``, or -1 if out of bag.

    Notes
    -----
    O(n d + n_pseudo d).
    """
    np.random.seed(seed)
    n, d = X.shape
    counts = np.zeros(n, dtype=np.int64)
    for _ in range(n):
        counts[np.random.randint(0, n)] += 1
    local = -np.ones(n, dtype=np.int64)
    m_real = 0
    for i in range(n):
        if counts[i] > 0:
            local[i] = m_real
            m_real += 1
    m = m_real + n_pseudo
    Xs = np.empty((m, d))
    ws = np.ones(m)
    cls = np.zeros(m, dtype=np.int64)
    for i in range(n):
        r = local[i]
        if r >= 0:
            Xs[r] = X[i]
            ws[r] = counts[i]
    for r in range(m_real, m):
        cls[r] = 1
        for f in range(d):
            Xs[r, f] = lo[f] + (hi[f] - lo[f]) * np.random.random()
    return Xs, ws, cls, local


@njit(cache=True)
def local_pairs(pairs, local):
    """The pairs whose two points are both in bag, in tree-sample rows.

    Parameters
    ----------
    pairs : int64 (p, 2)
        Point indices.
    local : int64 (n,)
        From :func:`draw_tree_sample`.

    Returns
    -------
    loc : int64 (q, 2)
        Rows in the tree sample.
    which : int64 (q,)
        Row of each kept pair in ``pairs``.
    """
    keep = 0
    for t in range(pairs.shape[0]):
        if local[pairs[t, 0]] >= 0 and local[pairs[t, 1]] >= 0:
            keep += 1
    loc = np.empty((keep, 2), dtype=np.int64)
    which = np.empty(keep, dtype=np.int64)
    k = 0
    for t in range(pairs.shape[0]):
        a, b = local[pairs[t, 0]], local[pairs[t, 1]]
        if a >= 0 and b >= 0:
            loc[k, 0], loc[k, 1] = a, b
            which[k] = t
            k += 1
    return loc, which


@njit(cache=True)
def _gini(w0, w1):
    tot = w0 + w1
    if tot <= 0.0:
        return 0.0
    p0, p1 = w0 / tot, w1 / tot
    return 1.0 - p0 * p0 - p1 * p1


@njit(cache=True)
def _split_gains(v_sorted, w_sorted, c_sorted, gains):
    """Gini gain of every cut of one sorted feature (Equation 4).

    ``gains[p]`` is the gain of sending sorted positions ``0..p`` left, or
    ``-1`` where ``v[p] == v[p+1]`` (no threshold falls between them).
    O(m).
    """
    m = v_sorted.shape[0]
    t0, t1 = 0.0, 0.0
    for q in range(m):
        if c_sorted[q] == 0:
            t0 += w_sorted[q]
        else:
            t1 += w_sorted[q]
    tot = t0 + t1
    parent = _gini(t0, t1)
    l0, l1 = 0.0, 0.0
    for p in range(m - 1):
        if c_sorted[p] == 0:
            l0 += w_sorted[p]
        else:
            l1 += w_sorted[p]
        if v_sorted[p] < v_sorted[p + 1]:
            wl = l0 + l1
            wr = tot - wl
            gains[p] = parent - wl / tot * _gini(l0, l1) - wr / tot * _gini(t0 - l0, t1 - l1)
        else:
            gains[p] = -1.0
    gains[m - 1] = -1.0


@njit(cache=True)
def _mark_intervals(pairs, use, rank, diff):
    """Add +1 on the cut positions ``[min rank, max rank)`` of each used pair to ``diff``.

    A cut at position p separates a pair iff p lies in that interval.  Returns
    the number of pairs marked.
    """
    n_used = 0
    for t in range(pairs.shape[0]):
        if not use[t]:
            continue
        ra, rb = rank[pairs[t, 0]], rank[pairs[t, 1]]
        lo, hi = (ra, rb) if ra < rb else (rb, ra)
        diff[lo] += 1
        diff[hi] -= 1
        n_used += 1
    return n_used


@njit(cache=True)
def _best_cut(gains, ml, ml_use, cl, cl_use, rank, cl_rule, ml_diff, cl_diff):
    """Best valid cut of one feature: (gain, position, CL pairs separated); position -1 if none.

    O(m + |pairs|).
    """
    m = gains.shape[0]
    for p in range(m + 1):
        ml_diff[p] = 0
        cl_diff[p] = 0
    _mark_intervals(ml, ml_use, rank, ml_diff)
    n_cl = _mark_intervals(cl, cl_use, rank, cl_diff)
    best_gain, best_p, best_sep = -1.0, -1, -1
    ml_run, cl_run = 0, 0
    for p in range(m - 1):
        ml_run += ml_diff[p]
        cl_run += cl_diff[p]
        g = gains[p]
        if g < 0.0 or ml_run > 0:
            continue
        if cl_rule == 0:
            if cl_run != n_cl or g <= _GAIN_EPS:
                continue
            if g > best_gain:
                best_gain, best_p, best_sep = g, p, cl_run
        else:
            if n_cl > 0:
                if cl_run == 0:
                    continue
            elif g <= _GAIN_EPS:
                continue
            # lexicographic: gain first, then CL pairs separated (zero-gain nodes)
            if g > best_gain + _GAIN_EPS or (g > best_gain - _GAIN_EPS and cl_run > best_sep):
                best_gain, best_p, best_sep = g, p, cl_run
    return best_gain, best_p, best_sep


@njit(cache=True)
def grow_tree(Xs, ws, cls, ml, cl, root_ml_use, root_cl_use, mtry, cl_rule, seed):
    """Grow one (COP) tree on a tree sample (Algorithm 1 at every node).

    Parameters
    ----------
    Xs, ws, cls : tree sample from :func:`draw_tree_sample`.
    ml, cl : int64 (p, 2), (q, 2)
        Must- and cannot-link pairs in tree-sample rows (empty for a plain
        clustering tree).
    root_ml_use, root_cl_use : bool (p,), (q,)
        The pairs the root split must respect (the filtered subset S_t of
        Section II-C); every deeper node uses all pairs of the node.
    mtry : int
        Candidate features per node (drawn without replacement).
    cl_rule : int
        0 "split" or 1 "leaf" (module docstring).
    seed : int

    Returns
    -------
    feature : int64 (n_nodes,)
        Split feature, -1 for a leaf.
    threshold : float64 (n_nodes,)
        Go left iff ``x[feature] < threshold`` (Equation 2).
    left, right : int64 (n_nodes,)
        Children (-1 for a leaf).
    leaf_of : int64 (m,)
        Node reached by each sample row.

    Notes
    -----
    A node is a leaf when it holds one sample row or has no valid split
    (for ``cl_rule=0``, none with positive gain).  Per node: O(|pairs|) to
    find the node's pairs and O(mtry (m_s log m_s + m_s + |pairs|)) for the
    candidate cuts, m_s the node's rows.
    """
    np.random.seed(seed)
    m, d = Xs.shape
    cap = 2 * m + 1
    feature = -np.ones(cap, dtype=np.int64)
    threshold = np.zeros(cap)
    left = -np.ones(cap, dtype=np.int64)
    right = -np.ones(cap, dtype=np.int64)
    node_start = np.zeros(cap, dtype=np.int64)
    node_end = np.zeros(cap, dtype=np.int64)
    idx = np.arange(m)
    leaf_of = np.zeros(m, dtype=np.int64)  # current node of each row
    rank = np.zeros(m, dtype=np.int64)
    vals = np.empty(m)
    v_s = np.empty(m)
    w_s = np.empty(m)
    c_s = np.empty(m, dtype=np.int64)
    gains = np.empty(m)
    ml_diff = np.zeros(m + 1, dtype=np.int64)
    cl_diff = np.zeros(m + 1, dtype=np.int64)
    ml_use = np.zeros(ml.shape[0], dtype=np.bool_)
    cl_use = np.zeros(cl.shape[0], dtype=np.bool_)
    feats = np.arange(d)
    mtry = min(mtry, d)
    stack = np.empty(cap, dtype=np.int64)
    n_nodes = 1
    node_start[0], node_end[0] = 0, m
    top = 0
    stack[0] = 0
    while top >= 0:
        node = stack[top]
        top -= 1
        s, e = node_start[node], node_end[node]
        ms = e - s
        if ms <= 1:
            continue
        # the pairs of this node (root: the filtered subset)
        for t in range(ml.shape[0]):
            ml_use[t] = leaf_of[ml[t, 0]] == node and leaf_of[ml[t, 1]] == node
            if node == 0:
                ml_use[t] = ml_use[t] and root_ml_use[t]
        for t in range(cl.shape[0]):
            cl_use[t] = leaf_of[cl[t, 0]] == node and leaf_of[cl[t, 1]] == node
            if node == 0:
                cl_use[t] = cl_use[t] and root_cl_use[t]
        # mtry features without replacement (partial Fisher-Yates)
        for j in range(mtry):
            r = j + np.random.randint(0, d - j)
            feats[j], feats[r] = feats[r], feats[j]
        best_gain, best_f, best_thr, best_sep = -1.0, -1, 0.0, -1
        for j in range(mtry):
            f = feats[j]
            for q in range(ms):
                vals[q] = Xs[idx[s + q], f]
            order = np.argsort(vals[:ms])
            for q in range(ms):
                row = idx[s + order[q]]
                v_s[q] = vals[order[q]]
                w_s[q] = ws[row]
                c_s[q] = cls[row]
                rank[row] = q
            _split_gains(v_s[:ms], w_s[:ms], c_s[:ms], gains[:ms])
            g, p, sep = _best_cut(gains[:ms], ml, ml_use, cl, cl_use, rank, cl_rule, ml_diff, cl_diff)
            if p < 0:
                continue
            better = g > best_gain + _GAIN_EPS if cl_rule == 0 else (
                g > best_gain + _GAIN_EPS or (g > best_gain - _GAIN_EPS and sep > best_sep))
            if better:
                best_gain, best_f, best_sep = g, f, sep
                best_thr = 0.5 * (v_s[p] + v_s[p + 1])
                if best_thr <= v_s[p]:  # midpoint rounded onto the lower value
                    best_thr = v_s[p + 1]
        if best_f < 0:
            continue  # no valid split: a leaf
        # partition idx[s:e] in place: left rows first
        i, k = s, e - 1
        while i <= k:
            if Xs[idx[i], best_f] < best_thr:
                i += 1
            else:
                idx[i], idx[k] = idx[k], idx[i]
                k -= 1
        lc, rc = n_nodes, n_nodes + 1
        n_nodes += 2
        feature[node], threshold[node] = best_f, best_thr
        left[node], right[node] = lc, rc
        node_start[lc], node_end[lc] = s, i
        node_start[rc], node_end[rc] = i, e
        for q in range(s, i):
            leaf_of[idx[q]] = lc
        for q in range(i, e):
            leaf_of[idx[q]] = rc
        top += 1
        stack[top] = rc
        top += 1
        stack[top] = lc
    return feature[:n_nodes].copy(), threshold[:n_nodes].copy(), left[:n_nodes].copy(), right[:n_nodes].copy(), leaf_of


@njit(cache=True)
def apply_tree(X, feature, threshold, left, right):
    """Leaf (node index) reached by each row of ``X``. O(n depth)."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        node = 0
        while feature[node] >= 0:
            node = left[node] if X[i, feature[node]] < threshold[node] else right[node]
        out[i] = node
    return out


@njit(cache=True)
def accumulate_same_leaf(leaves, counts):
    """Add 1 to ``counts[i, j]`` for every pair in the same leaf (Equation 6, summed over trees).

    ``counts`` is int32 (n, n), updated in place; the diagonal is included.
    O(sum over leaves of size^2) <= O(n^2).
    """
    n = leaves.shape[0]
    order = np.argsort(leaves)
    a = 0
    while a < n:
        b = a
        while b < n and leaves[order[b]] == leaves[order[a]]:
            b += 1
        for p in range(a, b):
            i = order[p]
            for q in range(a, b):
                counts[i, order[q]] += 1
        a = b


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
def _argmax_outside(gains, table, log2, al, ah, n_a, ml_lo, ml_hi, n_ml):
    """Position of the largest gain in the allowed intervals minus the must-link intervals.

    ``al/ah`` (``n_a`` intervals) and ``ml_lo/ml_hi`` (``n_ml``) are sorted and
    disjoint.  Returns -1 if no position is left.  O(n_a + n_ml) range maxima.
    """
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
def _root_cut_fast(gains, table, log2, rank, ml, cl, subset, n_sub, cl_rule, iv_lo, iv_hi, ml_lo, ml_hi):
    """Position of the gain :func:`_best_cut` returns for one presorted root feature, or -1.

    ``subset[:n_sub]`` lists the pairs of Q (must-links first, as in the
    filter).  Valid cuts: no must-link interval of Q covers them and, for
    ``cl_rule=0``, every cannot-link interval of Q does (their intersection)
    with gain > eps; for ``cl_rule=1``, some cannot-link interval does
    (their union) when Q has one, else gain > eps.  The maximum over those
    positions is what the scan returns (for ``cl_rule=1`` only without a
    near tie, see :func:`_has_near_tie`).  O(|Q| log |Q|) plus O(|Q|)
    range maxima instead of the O(m + |Q|) scan.
    """
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
    p = _argmax_outside(gains, table, log2, iv_lo, iv_hi, n_a, ml_lo, ml_hi, n_m)
    if p < 0 or gains[p] < 0.0:
        return -1
    if (cl_rule == 0 or n_c == 0) and gains[p] <= _GAIN_EPS:
        return -1
    return p


@njit(cache=True)
def _filter_root(Xs, ws, cls, ml, cl, mtry, cl_rule, n_repeats, alpha, seed, fast):
    """Shared body of :func:`filter_root_constraints` (``fast``) and its reference scan.

    Also returns how many feature evaluations fell back to the scan and how
    many there were.
    """
    np.random.seed(seed)
    m, d = Xs.shape
    n_ml, n_cl = ml.shape[0], cl.shape[0]
    n_p = n_ml + n_cl
    keep_ml = np.ones(n_ml, dtype=np.bool_)
    keep_cl = np.ones(n_cl, dtype=np.bool_)
    score = np.full(n_p, np.nan)
    if n_p == 0:
        return keep_ml, keep_cl, score, 0, 0
    q_size = max(1, int(round(alpha * n_p)))
    # every feature sorted once at the root: ranks and cut gains
    ranks = np.empty((d, m), dtype=np.int32)
    gains = np.empty((d, m))
    v_s = np.empty(m)
    w_s = np.empty(m)
    c_s = np.empty(m, dtype=np.int64)
    for f in range(d):
        order = np.argsort(Xs[:, f])
        for q in range(m):
            row = order[q]
            v_s[q] = Xs[row, f]
            w_s[q] = ws[row]
            c_s[q] = cls[row]
            ranks[f, row] = q
        _split_gains(v_s, w_s, c_s, gains[f])
    # fast path: range-maximum tables of the gains, built when a feature is
    # first drawn; near-tie flags of a cut (cl_rule=1) computed when first needed
    levels = 1
    while (1 << levels) <= m:
        levels += 1
    log2 = np.zeros(m + 1, dtype=np.int64)
    for x in range(2, m + 1):
        log2[x] = log2[x >> 1] + 1
    d_fast = d if fast else 0
    tables = np.empty((d_fast, levels, m), dtype=np.int32)  # int32: fits cache better
    built = np.zeros(d_fast, dtype=np.bool_)
    near = np.full((d_fast if cl_rule == 1 else 0, m), -1, dtype=np.int8)
    iv_lo = np.empty(n_cl + 1, dtype=np.int64)
    iv_hi = np.empty(n_cl + 1, dtype=np.int64)
    ml_lo = np.empty(n_ml + 1, dtype=np.int64)
    ml_hi = np.empty(n_ml + 1, dtype=np.int64)
    total = np.zeros(n_p)
    drawn = np.zeros(n_p, dtype=np.int64)
    perm = np.arange(n_p)
    feats = np.arange(d)
    ml_use = np.zeros(n_ml, dtype=np.bool_)
    cl_use = np.zeros(n_cl, dtype=np.bool_)
    ml_diff = np.zeros(m + 1, dtype=np.int64)
    cl_diff = np.zeros(m + 1, dtype=np.int64)
    k_try = min(mtry, d)
    n_scan, n_eval = 0, 0
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
                p = _root_cut_fast(gains[f], tables[f], log2, ranks[f], ml, cl, perm, q_size, cl_rule,
                                   iv_lo, iv_hi, ml_lo, ml_hi)
                if p < 0:
                    continue
                if cl_rule == 1:
                    if near[f, p] < 0:
                        near[f, p] = 1 if _has_near_tie(gains[f], p, 4.0 * _GAIN_EPS) else 0
                    if near[f, p] == 1:
                        # the scan may settle on a near tie of the maximum: let it decide
                        n_scan += 1
                        _mark_subset(perm, q_size, n_ml, ml_use, cl_use)
                        g, p, sep = _best_cut(gains[f], ml, ml_use, cl, cl_use, ranks[f], cl_rule, ml_diff, cl_diff)
                    else:
                        g = gains[f, p]
                else:
                    g = gains[f, p]
            else:
                g, p, sep = _best_cut(gains[f], ml, ml_use, cl, cl_use, ranks[f], cl_rule, ml_diff, cl_diff)
            if p >= 0 and g > best:
                best = g
        for j in range(q_size):
            total[perm[j]] += best
            drawn[perm[j]] += 1
    for t in range(n_p):
        if drawn[t] > 0:
            score[t] = total[t] / drawn[t]
    # top round(alpha |P_t|) by score; never-drawn pairs last; random tie-break
    key = np.empty(n_p)
    for t in range(n_p):
        key[t] = -1.0 if drawn[t] == 0 else score[t]
    shuffle = np.random.permutation(n_p)
    order = shuffle[np.argsort(-key[shuffle], kind="mergesort")]
    keep_ml[:] = False
    keep_cl[:] = False
    for j in range(q_size):
        t = order[j]
        if t < n_ml:
            keep_ml[t] = True
        else:
            keep_cl[t - n_ml] = True
    return keep_ml, keep_cl, score, n_scan, n_eval


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
def filter_root_constraints(Xs, ws, cls, ml, cl, mtry, cl_rule, n_repeats, alpha, seed):
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
    Xs, ws, cls : the tree sample.
    ml, cl : int64 (p, 2), (q, 2)
        The tree's pairs (tree-sample rows).
    mtry, cl_rule : as :func:`grow_tree`.
    n_repeats : int
    alpha : float in (0, 1)
    seed : int

    Returns
    -------
    keep_ml, keep_cl : bool (p,), (q,)
        The kept subset S_t.
    score : float64 (p + q,)
        Equation 8 (must-links first), NaN for a pair never drawn.

    Notes
    -----
    Every feature is sorted once, with a sparse table of its cut gains,
    O(d m log m).  A repetition then needs only the cut positions Q's
    constraints allow: each pair is the interval of cuts that separate it,
    and the best valid gain is a range maximum over (cannot-link
    intersection or union) minus (must-link union), O(mtry |Q| log |Q|)
    instead of the O(mtry (m + |Q|)) scan of
    :func:`filter_root_constraints_scan`, whose results it reproduces
    exactly (same random draws, same gains; maxima involve no rounding).
    """
    keep_ml, keep_cl, score, _, _ = _filter_root(Xs, ws, cls, ml, cl, mtry, cl_rule, n_repeats, alpha, seed, True)
    return keep_ml, keep_cl, score


@njit(cache=True)
def filter_root_constraints_scan(Xs, ws, cls, ml, cl, mtry, cl_rule, n_repeats, alpha, seed):
    """Reference for :func:`filter_root_constraints`: every repetition scans all m cuts with :func:`_best_cut`.

    Same parameters and results; O(f mtry (m + |Q|)) after the sort.  Kept
    for the equality test and the benchmark.
    """
    keep_ml, keep_cl, score, _, _ = _filter_root(Xs, ws, cls, ml, cl, mtry, cl_rule, n_repeats, alpha, seed, False)
    return keep_ml, keep_cl, score
