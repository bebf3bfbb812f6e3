"""Growing and applying one (COP) tree of the clustering forest (Zhu, Loy, Gong 2013, Algorithm 1, Equation 6).

Algorithm 1 at every node on a tree sample (:mod:`._forest_sample`), with
the cuts of :mod:`._forest_cuts`; then the leaves reached by the data and
the same-leaf counts of the affinity (Equation 6). Randomness enters as a
seed.

A tree grows over one explicit state, a :data:`Growth` (the partition of the
sample rows into nodes, the children, the stack of nodes to split) and a
:data:`CutScratch`: :func:`grow_tree` is a thin driver that pops a node
(:func:`next_node`), marks its pairs (:func:`node_pairs`), searches its cut and
splits it (:func:`branch`), as scikit-learn's ``_kmeans_single_lloyd`` drives
one Lloyd iteration at a time; :mod:`._forest_variants` drives the same state
with its own cut search.  The per-node helpers are inlined into the driver
(``inline="always"``; numba compiles any other call as a call).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ._forest_cuts import _GAIN_EPS, _best_cut, _split_gains


#: What the growth of one tree mutates, whatever its split function (a tuple of arrays, numba-typed as a
#: named tuple; :func:`growth`).  ``idx[node_start[t]:node_end[t]]``: the sample rows of node t;
#: ``leaf_of[r]``: the node row r has reached; ``left``, ``right``: the children (-1 for a leaf);
#: ``stack[0:count[TOP] + 1]``: the nodes still to split, depth first, left child on top;
#: ``count[N_NODES]``: the nodes made; ``ml_use``, ``cl_use``: the pairs of the node being split.
Growth = namedtuple("Growth", "idx leaf_of node_start node_end left right stack count ml_use cl_use")
#: indices of ``Growth.count``
N_NODES = 0
TOP = 1
#: Scratch of the cuts of one node (a named tuple of arrays; :func:`cut_scratch`): the candidate
#: features ``feats`` (a permutation, drawn into by a partial Fisher-Yates), the node's values
#: ``vals`` and their sorted values, weights, classes ``v_s``, ``w_s``, ``c_s``, the sorted position
#: ``rank[r]`` of each row, the ``gains`` of the cuts, the pairs' interval marks ``ml_diff``, ``cl_diff``
#: and ``rows``, the node's rows in order along the feature being tried (sorted, or read off a presorted order).
CutScratch = namedtuple("CutScratch", "feats rank vals v_s w_s c_s gains ml_diff cl_diff rows")


@njit(cache=True)
def growth(m, n_rows, n_ml, n_cl):
    """The :data:`Growth` of a tree on the ``m`` first of ``n_rows`` sample rows, all at the root (node 0)."""
    cap = 2 * m + 1
    leaf_of = -np.ones(n_rows, dtype=np.int64)
    leaf_of[:m] = 0
    node_start = np.zeros(cap, dtype=np.int64)
    node_end = np.zeros(cap, dtype=np.int64)
    node_end[0] = m
    count = np.zeros(2, dtype=np.int64)
    count[N_NODES] = 1
    count[TOP] = 0
    stack = np.empty(cap, dtype=np.int64)
    stack[0] = 0
    return Growth(np.arange(m), leaf_of, node_start, node_end, -np.ones(cap, dtype=np.int64),
                  -np.ones(cap, dtype=np.int64), stack, count, np.zeros(n_ml, dtype=np.bool_),
                  np.zeros(n_cl, dtype=np.bool_))


@njit(cache=True)
def cut_scratch(m, big, d):
    """The :data:`CutScratch` of a tree on ``m`` rows whose nodes hold at most ``big`` values, ``d`` features."""
    return CutScratch(np.arange(d), np.zeros(m, dtype=np.int64), np.empty(big), np.empty(big), np.empty(big),
                      np.empty(big, dtype=np.int64), np.empty(big), np.zeros(big + 1, dtype=np.int64),
                      np.zeros(big + 1, dtype=np.int64), np.empty(m, dtype=np.int64))


@njit(cache=True, inline="always")
def next_node(g):
    """Pop the next node to split (depth first), -1 when none is left."""
    top = g.count[TOP]
    if top < 0:
        return -1
    g.count[TOP] = top - 1
    return g.stack[top]


@njit(cache=True, inline="always")
def node_pairs(pairs, g, node):
    """``g.ml_use``, ``g.cl_use``: the pairs with both points at ``node`` (root: of the filtered subset S_t)."""
    ml, cl, root_ml_use, root_cl_use = pairs
    leaf_of, ml_use, cl_use = g.leaf_of, g.ml_use, g.cl_use
    for t in range(ml.shape[0]):
        ml_use[t] = leaf_of[ml[t, 0]] == node and leaf_of[ml[t, 1]] == node
        if node == 0:
            ml_use[t] = ml_use[t] and root_ml_use[t]
    for t in range(cl.shape[0]):
        cl_use[t] = leaf_of[cl[t, 0]] == node and leaf_of[cl[t, 1]] == node
        if node == 0:
            cl_use[t] = cl_use[t] and root_cl_use[t]


@njit(cache=True, inline="always")
def draw_features(feats, k):
    """``feats[:k]``: ``k`` features without replacement (partial Fisher-Yates on the permutation ``feats``)."""
    d = feats.shape[0]
    for j in range(k):
        r = j + np.random.randint(0, d - j)
        feats[j], feats[r] = feats[r], feats[j]


@njit(cache=True, inline="always")
def better_cut(g, p, sep, best_gain, best_sep, cl_rule):
    """Whether the cut (gain ``g``, position ``p`` (-1: none), ``sep`` CL pairs separated) beats the best so far."""
    if p < 0:
        return False
    if cl_rule == 0:
        return g > best_gain + _GAIN_EPS
    return g > best_gain + _GAIN_EPS or (g > best_gain - _GAIN_EPS and sep > best_sep)


@njit(cache=True, inline="always")
def midpoint(v_s, p):
    """The threshold between sorted values ``p`` and ``p + 1``: their midpoint, or the upper one when it rounds down."""
    thr = 0.5 * (v_s[p] + v_s[p + 1])
    if thr <= v_s[p]:  # midpoint rounded onto the lower value
        thr = v_s[p + 1]
    return thr


@njit(cache=True, inline="always")
def branch(g, node, i):
    """Make the children of ``node`` (rows ``idx[s:i]`` left, ``idx[i:e]`` right) and push them, left on top."""
    s, e = g.node_start[node], g.node_end[node]
    lc = g.count[N_NODES]
    rc = lc + 1
    g.count[N_NODES] = lc + 2
    g.left[node], g.right[node] = lc, rc
    g.node_start[lc], g.node_end[lc] = s, i
    g.node_start[rc], g.node_end[rc] = i, e
    idx, leaf_of = g.idx, g.leaf_of
    for q in range(s, i):
        leaf_of[idx[q]] = lc
    for q in range(i, e):
        leaf_of[idx[q]] = rc
    top = g.count[TOP]
    g.stack[top + 1] = rc
    g.stack[top + 2] = lc
    g.count[TOP] = top + 2


@njit(cache=True, inline="always")
def _read_off(order_f, leaf_of, node, rows):
    """``rows``: the rows at ``node`` in the order of ``order_f`` (all rows, sorted along one feature); how many.

    Branch-free: a node of a sizeable share of the rows makes ``leaf_of[row] == node`` a coin toss
    for the branch predictor.  O(m).
    """
    q = 0
    for t in range(order_f.shape[0]):
        row = order_f[t]
        rows[q] = row
        q += leaf_of[row] == node
    return q


@njit(cache=True, inline="always")
def _best_axis_cut(sample, pairs, g, sc, node, mtry, cl_rule, order=None):
    """Algorithm 1 at ``node``: the best valid cut over ``mtry`` random features, ``(feature, threshold)``; -1 if none.

    ``order``: the sample's rows sorted along every feature (:func:`~._forest_sample.sample_order`), or
    None.  A node whose rows it would take longer to sort than to pick out of ``order`` (about
    ``m_s log2 m_s > m / 2``, measured: numba's argsort takes ~4 ns per row and level, the branch-free
    pick ~1 ns per sample row) reads them off it; the order among equal values then differs from a
    sort's, which changes no cut (tests/test_forest_presort.py).
    """
    Xs, ws, cls = sample
    ml, cl = pairs[0], pairs[1]
    idx, feats, rank, vals, v_s, w_s, c_s, gains = g.idx, sc.feats, sc.rank, sc.vals, sc.v_s, sc.w_s, sc.c_s, sc.gains
    s, e = g.node_start[node], g.node_end[node]
    ms = e - s
    read_off = False
    if order is not None:
        lg = 0
        while (1 << lg) < ms:
            lg += 1
        read_off = 2 * ms * lg > order.shape[1]
    draw_features(feats, mtry)
    best_gain, best_f, best_thr, best_sep = -1.0, -1, 0.0, -1
    for j in range(mtry):
        f = feats[j]
        rows = sc.rows  # the node's rows in order along f
        if read_off:
            _read_off(order[f], g.leaf_of, node, rows)
        else:
            for q in range(ms):
                vals[q] = Xs[idx[s + q], f]
            by_value = np.argsort(vals[:ms])
            for q in range(ms):
                rows[q] = idx[s + by_value[q]]
        for q in range(ms):
            row = rows[q]
            v_s[q] = Xs[row, f]
            w_s[q] = ws[row]
            c_s[q] = cls[row]
            rank[row] = q
        _split_gains(v_s[:ms], w_s[:ms], c_s[:ms], gains[:ms])
        gain, p, sep = _best_cut(gains[:ms], ml, g.ml_use, cl, g.cl_use, rank, cl_rule, sc.ml_diff, sc.cl_diff)
        if better_cut(gain, p, sep, best_gain, best_sep, cl_rule):
            best_gain, best_f, best_sep = gain, f, sep
            best_thr = midpoint(v_s, p)
    return best_f, best_thr


@njit(cache=True, inline="always")
def _partition_axis(Xs, g, node, f, thr):
    """Reorder the rows of ``node`` in place, those with ``x[f] < thr`` first; returns where the others start."""
    idx = g.idx
    i, k = g.node_start[node], g.node_end[node] - 1
    while i <= k:
        if Xs[idx[i], f] < thr:
            i += 1
        else:
            idx[i], idx[k] = idx[k], idx[i]
            k -= 1
    return i


@njit(cache=True)
def grow_tree(sample, pairs, mtry, cl_rule, seed, order=None):
    """Grow one (COP) tree on a tree sample (Algorithm 1 at every node).

    The driver of the one-node kernels over one :data:`Growth`: pop a node,
    find its pairs (:func:`node_pairs`) and its best cut, split it
    (:func:`branch`).

    Parameters
    ----------
    sample : tuple (Xs, ws, cls)
        Tree sample from :func:`draw_tree_sample`.
    pairs : tuple (ml, cl, root_ml_use, root_cl_use)
        Must- and cannot-link pairs in tree-sample rows, int64 (p, 2) and
        (q, 2) (empty for a plain clustering tree), and the pairs the root
        split must respect, bool (p,) and (q,) (the filtered subset S_t of
        Section II-C); every deeper node uses all pairs of the node.
    mtry : int
        Candidate features per node (drawn without replacement).
    cl_rule : int
        0 "split" or 1 "leaf" (module docstring).
    seed : int
    order : int64 (d, m), optional
        The sample's rows sorted along every feature
        (:func:`~._forest_sample.sample_order`): the larger nodes read their
        rows' order off it instead of sorting them.  The tree is the same.

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
    Xs = sample[0]
    m, d = Xs.shape
    g = growth(m, m, pairs[0].shape[0], pairs[1].shape[0])
    sc = cut_scratch(m, m, d)
    feature = -np.ones(2 * m + 1, dtype=np.int64)
    threshold = np.zeros(2 * m + 1)
    mtry = min(mtry, d)
    node = next_node(g)
    while node >= 0:
        if g.node_end[node] - g.node_start[node] > 1:
            node_pairs(pairs, g, node)
            f, thr = _best_axis_cut(sample, pairs, g, sc, node, mtry, cl_rule, order)
            if f >= 0:  # else no valid split: a leaf
                feature[node], threshold[node] = f, thr
                branch(g, node, _partition_axis(Xs, g, node, f, thr))
        node = next_node(g)
    n = g.count[N_NODES]
    return feature[:n].copy(), threshold[:n].copy(), g.left[:n].copy(), g.right[:n].copy(), g.leaf_of


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
