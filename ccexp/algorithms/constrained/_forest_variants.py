"""Tree variants of the clustering forest, for the ablation of issue 34 (item 6).

Zhu, Loy and Gong (2013) grow their forests on the pseudo two-class problem
(Section II-B) with "a linear data separation as the split function (see
Equation (2))" and leaves of at most phi = 1 sample (Section III).  Four
readings are left open; :func:`grow_tree_general` grows a (COP) tree under
any combination of them, the default of each being what
:func:`~._forest_tree.grow_tree` does (the same random draws, so the same
tree: a test checks it):

``pseudo``
    0: the n uniform pseudo points are drawn once per tree in the data's
    bounding box and travel down the tree with the real points (the
    default).  1: per node, as in CLTree (Liu, Xia, Yu 2000, the paper's
    reference [7]): every candidate split of a node is scored against as
    many uniform pseudo points as the node holds real samples, drawn in the
    bounding box of the node's real points (Section II-B's
    U(min(x_i), max(x_i)) read at the node); only real rows go down.
``oblique``
    0: axis-aligned cuts x_f < theta (Equation 2).  1: Breiman's Forest-RC
    (2001, Section 5, the paper's reference [2]): each of the mtry candidates
    is a random linear combination of L = min(3, d) features with
    coefficients uniform on [-1, 1], cut at a threshold.
``random_threshold``
    0: every cut between two distinct sorted values is a candidate and the
    threshold is their midpoint (Algorithm 1's "each possible cut point").
    1: one threshold per candidate, uniform between the smallest and the
    largest value at the node (extremely randomised trees; Criminisi et
    al.'s randomised node optimisation).
``leaf_size``
    phi: a node whose real samples (bootstrap multiplicity counted) number
    at most phi is a leaf.  phi = 1 keeps the default rule (a node of one
    row is a leaf), which yields the same affinity.

Options travel in one int64 array ``opts`` (:data:`OPTS`), so the kernel
keeps within the house's ten parameters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._forest_cuts import _GAIN_EPS, _best_cut, _split_gains

#: Layout of ``opts``: index of each option.
OPTS = ("mtry", "cl_rule", "pseudo", "oblique", "random_threshold", "leaf_size")
#: Features combined by an oblique candidate (Breiman's Forest-RC uses L = 3).
OBLIQUE_L = 3


@njit(cache=True)
def _project(X, i, pf, pw):
    """Projection of row ``i`` of ``X`` on the candidate (features ``pf``, weights ``pw``; ``pf[l] < 0`` unused)."""
    s = 0.0
    for l in range(pf.shape[0]):
        if pf[l] >= 0:
            s += pw[l] * X[i, pf[l]]
    return s


@njit(cache=True)
def grow_tree_general(Xs, ws, cls, ml, cl, root_ml_use, root_cl_use, opts, seed):
    """Grow one (COP) tree under the variant ``opts`` (module docstring).

    Parameters
    ----------
    Xs, ws, cls : tree sample from :func:`~._forest_sample.draw_tree_sample`
        (with ``pseudo=1`` the pseudo rows, if any, are ignored: pass the
        real rows only, or the whole sample and they are dropped).
    ml, cl : int64 (p, 2), (q, 2)
        Must- and cannot-link pairs in tree-sample rows.
    root_ml_use, root_cl_use : bool (p,), (q,)
        The pairs the root split must respect (the filtered subset S_t).
    opts : int64 (6,)
        ``mtry, cl_rule, pseudo, oblique, random_threshold, leaf_size``.
    seed : int

    Returns
    -------
    proj_f : int64 (n_nodes, L)
        Features of each node's split (-1 padding; all -1 for a leaf).
    proj_w : float64 (n_nodes, L)
        Their weights (1 for an axis-aligned cut).
    threshold : float64 (n_nodes,)
        Go left iff the projection is ``< threshold``.
    left, right : int64 (n_nodes,)
        Children (-1 for a leaf).
    leaf_of : int64 (m,)
        Node reached by each sample row (-1 for a pseudo row dropped under
        ``pseudo=1``).

    Notes
    -----
    Per node: O(mtry (m_s + P) log(m_s + P) + |pairs|), P the node's pseudo
    points (``pseudo=1``: its real weight).
    """
    np.random.seed(seed)
    mtry, cl_rule, node_pseudo = opts[0], opts[1], opts[2] == 1
    oblique, rand_thr, leaf_size = opts[3] == 1, opts[4] == 1, opts[5]
    m_all, d = Xs.shape
    m = m_all
    if node_pseudo:  # real rows only (they come first in a tree sample)
        m = 0
        while m < m_all and cls[m] == 0:
            m += 1
    L = min(OBLIQUE_L, d) if oblique else 1
    cap = 2 * m + 1
    proj_f = -np.ones((cap, L), dtype=np.int64)
    proj_w = np.zeros((cap, L))
    threshold = np.zeros(cap)
    left = -np.ones(cap, dtype=np.int64)
    right = -np.ones(cap, dtype=np.int64)
    node_start = np.zeros(cap, dtype=np.int64)
    node_end = np.zeros(cap, dtype=np.int64)
    idx = np.arange(m)
    leaf_of = -np.ones(m_all, dtype=np.int64)
    leaf_of[:m] = 0
    total_w = 0.0
    for r in range(m):
        total_w += ws[r]
    big = m + int(total_w) + 2  # node rows + at most the tree's real weight in pseudo points
    rank = np.zeros(m, dtype=np.int64)
    vals = np.empty(big)
    v_s = np.empty(big)
    w_s = np.empty(big)
    c_s = np.empty(big, dtype=np.int64)
    src = np.empty(big, dtype=np.int64)  # sample row of each value, -1 for a node's pseudo point
    gains = np.empty(big)
    ml_diff = np.zeros(big + 1, dtype=np.int64)
    cl_diff = np.zeros(big + 1, dtype=np.int64)
    ml_use = np.zeros(ml.shape[0], dtype=np.bool_)
    cl_use = np.zeros(cl.shape[0], dtype=np.bool_)
    feats = np.arange(d)
    mtry = min(mtry, d)
    cand_f = -np.ones(L, dtype=np.int64)
    cand_w = np.ones(L)
    best_pf = -np.ones(L, dtype=np.int64)
    best_pw = np.zeros(L)
    lo_f = np.empty(L)
    hi_f = np.empty(L)
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
        real_w = 0.0
        for q in range(s, e):
            if cls[idx[q]] == 0:
                real_w += ws[idx[q]]
        if leaf_size > 1 and real_w <= leaf_size:
            continue
        for t in range(ml.shape[0]):
            ml_use[t] = leaf_of[ml[t, 0]] == node and leaf_of[ml[t, 1]] == node
            if node == 0:
                ml_use[t] = ml_use[t] and root_ml_use[t]
        for t in range(cl.shape[0]):
            cl_use[t] = leaf_of[cl[t, 0]] == node and leaf_of[cl[t, 1]] == node
            if node == 0:
                cl_use[t] = cl_use[t] and root_cl_use[t]
        n_ps = int(real_w + 0.5) if node_pseudo else 0
        best_gain, best_thr, best_sep, found = -1.0, 0.0, -1, False
        if not oblique:  # mtry features without replacement (partial Fisher-Yates), as grow_tree
            for j in range(mtry):
                r = j + np.random.randint(0, d - j)
                feats[j], feats[r] = feats[r], feats[j]
        for j in range(mtry):
            # the candidate direction
            if oblique:
                for l in range(L):
                    r = l + np.random.randint(0, d - l)
                    feats[l], feats[r] = feats[r], feats[l]
                    cand_f[l] = feats[l]
                    cand_w[l] = 2.0 * np.random.random() - 1.0
            else:
                cand_f[0] = feats[j]
                cand_w[0] = 1.0
            # values of the node's rows, then its own pseudo points
            for q in range(ms):
                row = idx[s + q]
                vals[q] = _project(Xs, row, cand_f, cand_w)
            k = ms
            if node_pseudo:
                for l in range(L):
                    lo_f[l], hi_f[l] = np.inf, -np.inf
                    for q in range(s, e):
                        x = Xs[idx[q], cand_f[l]]
                        lo_f[l] = min(lo_f[l], x)
                        hi_f[l] = max(hi_f[l], x)
                for _ in range(n_ps):
                    z = 0.0
                    for l in range(L):
                        z += cand_w[l] * (lo_f[l] + (hi_f[l] - lo_f[l]) * np.random.random())
                    vals[k] = z
                    k += 1
            order = np.argsort(vals[:k])
            for q in range(k):
                o = order[q]
                v_s[q] = vals[o]
                if o < ms:
                    row = idx[s + o]
                    w_s[q], c_s[q], src[q] = ws[row], cls[row], row
                    rank[row] = q
                else:
                    w_s[q], c_s[q], src[q] = 1.0, 1, -1
            _split_gains(v_s[:k], w_s[:k], c_s[:k], gains[:k])
            if node_pseudo:  # a cut must send real rows both ways (only they go down)
                first, last = k, -1
                for q in range(k):
                    if src[q] >= 0:
                        first = min(first, q)
                        last = q
                for q in range(k):
                    if q < first or q >= last:
                        gains[q] = -1.0
            thr_rand = 0.0
            if rand_thr:
                lo_v, hi_v = v_s[0], v_s[k - 1]
                if not lo_v < hi_v:
                    continue
                thr_rand = lo_v + (hi_v - lo_v) * np.random.random()
                if thr_rand <= lo_v:
                    continue
                p_at = -1
                for q in range(k - 1):
                    if v_s[q] < thr_rand and v_s[q + 1] >= thr_rand:
                        p_at = q
                for q in range(k):
                    if q != p_at:
                        gains[q] = -1.0
            g, p, sep = _best_cut(gains[:k], ml, ml_use, cl, cl_use, rank, cl_rule, ml_diff, cl_diff)
            if p < 0:
                continue
            better = g > best_gain + _GAIN_EPS if cl_rule == 0 else (
                g > best_gain + _GAIN_EPS or (g > best_gain - _GAIN_EPS and sep > best_sep))
            if better:
                best_gain, best_sep, found = g, sep, True
                for l in range(L):
                    best_pf[l], best_pw[l] = cand_f[l], cand_w[l]
                if rand_thr:
                    best_thr = thr_rand
                else:
                    best_thr = 0.5 * (v_s[p] + v_s[p + 1])
                    if best_thr <= v_s[p]:  # midpoint rounded onto the lower value
                        best_thr = v_s[p + 1]
        if not found:
            continue  # no valid split: a leaf
        i, kk = s, e - 1
        while i <= kk:
            if _project(Xs, idx[i], best_pf, best_pw) < best_thr:
                i += 1
            else:
                idx[i], idx[kk] = idx[kk], idx[i]
                kk -= 1
        lc, rc = n_nodes, n_nodes + 1
        n_nodes += 2
        for l in range(L):
            proj_f[node, l], proj_w[node, l] = best_pf[l], best_pw[l]
        threshold[node] = best_thr
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
    return (proj_f[:n_nodes].copy(), proj_w[:n_nodes].copy(), threshold[:n_nodes].copy(),
            left[:n_nodes].copy(), right[:n_nodes].copy(), leaf_of)


@njit(cache=True)
def apply_tree_general(X, proj_f, proj_w, threshold, left, right):
    """Leaf reached by each row of ``X`` in a tree of :func:`grow_tree_general`. O(n depth L)."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        node = 0
        while left[node] >= 0:
            node = left[node] if _project(X, i, proj_f[node], proj_w[node]) < threshold[node] else right[node]
        out[i] = node
    return out
