"""Growing and applying one (COP) tree of the clustering forest (Zhu, Loy, Gong 2013, Algorithm 1, Equation 6).

Algorithm 1 at every node on a tree sample (:mod:`._forest_sample`), with
the cuts of :mod:`._forest_cuts`; then the leaves reached by the data and
the same-leaf counts of the affinity (Equation 6). Randomness enters as a
seed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._forest_cuts import _GAIN_EPS, _best_cut, _split_gains


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
