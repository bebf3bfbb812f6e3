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

Options travel in one int64 array ``opts`` (:data:`OPTS`).  The growth is
:mod:`._forest_tree`'s (one :data:`~._forest_tree.Growth` driven node by
node); only the search of a node's cut and the partition by a projection are
this module's.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ._forest_cuts import _best_cut, _split_gains
from ._forest_tree import N_NODES, better_cut, branch, cut_scratch, draw_features, growth, midpoint, next_node, node_pairs

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


#: Scratch of the candidate directions of one node beyond :data:`~._forest_tree.CutScratch` (a named tuple
#: of arrays, :func:`oblique_scratch`): ``src[q]``, the sample row of sorted value q (-1 for a node's pseudo
#: point); the candidate's features and weights ``cand_f``, ``cand_w`` (``L`` of them) and the best one's
#: ``best_pf``, ``best_pw``; the bounding box ``lo_f``, ``hi_f`` of the node's rows along ``cand_f``.
Candidates = namedtuple("Candidates", "src cand_f cand_w best_pf best_pw lo_f hi_f")


@njit(cache=True)
def oblique_scratch(big, L):
    """The :data:`Candidates` of a tree whose nodes hold at most ``big`` values, ``L`` features per direction."""
    return Candidates(np.empty(big, dtype=np.int64), -np.ones(L, dtype=np.int64), np.ones(L),
                      -np.ones(L, dtype=np.int64), np.zeros(L), np.empty(L), np.empty(L))


@njit(cache=True, inline="always")
def _real_weight(sample, g, node):
    """The real samples at ``node``, bootstrap multiplicity counted (the rule of ``leaf_size``)."""
    _, ws, cls = sample
    idx = g.idx
    real_w = 0.0
    for q in range(g.node_start[node], g.node_end[node]):
        if cls[idx[q]] == 0:
            real_w += ws[idx[q]]
    return real_w


# The helpers of a node's search take arrays, not the state: reading an array out of a named tuple
# takes a reference (an atomic increment), and they run for every candidate of every node.


@njit(cache=True, inline="always")
def _draw_oblique(feats, cand_f, cand_w):
    """Forest-RC's candidate: ``L`` distinct features, weights uniform on [-1, 1] (drawn feature by feature)."""
    d = feats.shape[0]
    for l in range(cand_f.shape[0]):
        r = l + np.random.randint(0, d - l)
        feats[l], feats[r] = feats[r], feats[l]
        cand_f[l] = feats[l]
        cand_w[l] = 2.0 * np.random.random() - 1.0


@njit(cache=True, inline="always")
def _node_values(Xs, rows, vals, cand_f, cand_w, lo_f, hi_f, n_ps, box):
    """``vals[:k]``: the projections of the node's ``rows``, then ``n_ps`` pseudo points in their bounding box
    (or, when ``box[0, 0] <= box[1, 0]``, in the node's region ``box``: rows lower and upper bounds); k."""
    for q in range(rows.shape[0]):
        vals[q] = _project(Xs, rows[q], cand_f, cand_w)
    k = rows.shape[0]
    if n_ps > 0:
        for l in range(cand_f.shape[0]):
            if box[0, 0] <= box[1, 0]:
                lo_f[l], hi_f[l] = box[0, cand_f[l]], box[1, cand_f[l]]
                continue
            lo_f[l], hi_f[l] = np.inf, -np.inf
            for q in range(rows.shape[0]):
                x = Xs[rows[q], cand_f[l]]
                lo_f[l] = min(lo_f[l], x)
                hi_f[l] = max(hi_f[l], x)
        for _ in range(n_ps):
            z = 0.0
            for l in range(cand_f.shape[0]):
                z += cand_w[l] * (lo_f[l] + (hi_f[l] - lo_f[l]) * np.random.random())
            vals[k] = z
            k += 1
    return k


@njit(cache=True, inline="always")
def _real_cuts_only(src, gains, k):
    """Under per-node pseudo points a cut must send real rows both ways (only they go down): mask the others."""
    first, last = k, -1
    for q in range(k):
        if src[q] >= 0:
            first = min(first, q)
            last = q
    for q in range(k):
        if q < first or q >= last:
            gains[q] = -1.0


@njit(cache=True, inline="always")
def _random_cut(v_s, gains, k):
    """One threshold uniform between the node's extreme values, the only cut left in ``gains``; -inf if none."""
    lo_v, hi_v = v_s[0], v_s[k - 1]
    if not lo_v < hi_v:
        return -np.inf
    thr = lo_v + (hi_v - lo_v) * np.random.random()
    if thr <= lo_v:
        return -np.inf
    p_at = -1
    for q in range(k - 1):
        if v_s[q] < thr and v_s[q + 1] >= thr:
            p_at = q
    for q in range(k):
        if q != p_at:
            gains[q] = -1.0
    return thr


@njit(cache=True, inline="always")
def _best_general_cut(sample, pairs, g, sc, cand, node, opts, n_ps, box):
    """Algorithm 1 at ``node`` under the variant ``opts``: ``(found, threshold)``, the direction in ``cand.best_*``."""
    Xs, ws, cls = sample
    ml, cl = pairs[0], pairs[1]
    ml_use, cl_use = g.ml_use, g.cl_use
    feats, rank, vals, v_s, w_s, c_s, gains, ml_diff, cl_diff = sc[:9]
    src, cand_f, cand_w, best_pf, best_pw, lo_f, hi_f = cand
    mtry, cl_rule, oblique, rand_thr = min(opts[0], feats.shape[0]), opts[1], opts[3] == 1, opts[4] == 1
    rows = g.idx[g.node_start[node]:g.node_end[node]]
    ms = rows.shape[0]
    best_gain, best_thr, best_sep, found = -1.0, 0.0, -1, False
    if not oblique:  # mtry features without replacement (partial Fisher-Yates), as grow_tree
        draw_features(feats, mtry)
    for j in range(mtry):
        if oblique:
            _draw_oblique(feats, cand_f, cand_w)
        else:
            cand_f[0] = feats[j]
            cand_w[0] = 1.0
        k = _node_values(Xs, rows, vals, cand_f, cand_w, lo_f, hi_f, n_ps, box)
        # sorted values, weights, classes and sample rows (-1: a pseudo point), the rows' ranks
        order = np.argsort(vals[:k])
        for q in range(k):
            o = order[q]
            v_s[q] = vals[o]
            if o < ms:
                row = rows[o]
                w_s[q], c_s[q], src[q] = ws[row], cls[row], row
                rank[row] = q
            else:
                w_s[q], c_s[q], src[q] = 1.0, 1, -1
        _split_gains(v_s[:k], w_s[:k], c_s[:k], gains[:k])
        if opts[2] >= 1:
            _real_cuts_only(src, gains, k)
        thr_rand = 0.0
        if rand_thr:
            thr_rand = _random_cut(v_s, gains, k)
            if thr_rand == -np.inf:
                continue
        gain, p, sep = _best_cut(gains[:k], ml, ml_use, cl, cl_use, rank, cl_rule, ml_diff, cl_diff)
        if better_cut(gain, p, sep, best_gain, best_sep, cl_rule):
            best_gain, best_sep, found = gain, sep, True
            best_pf[:] = cand_f
            best_pw[:] = cand_w
            best_thr = thr_rand if rand_thr else midpoint(v_s, p)
    return found, best_thr


@njit(cache=True, inline="always")
def _split_region(boxes, inherited, node, lc, rc, f, thr, n_ps):
    """CLTree's children: the node's region cut at ``thr`` along feature ``f``, its ``n_ps`` pseudo points shared
    in proportion to the two sides' lengths (uniform in the region)."""
    boxes[lc] = boxes[node]
    boxes[rc] = boxes[node]
    lo, hi = boxes[node, 0, f], boxes[node, 1, f]
    frac = 0.5 if not hi > lo else min(1.0, max(0.0, (thr - lo) / (hi - lo)))
    boxes[lc, 1, f] = thr
    boxes[rc, 0, f] = thr
    inherited[lc] = n_ps * frac
    inherited[rc] = n_ps * (1.0 - frac)


@njit(cache=True, inline="always")
def _partition_projection(Xs, g, node, pf, pw, thr):
    """Reorder the rows of ``node`` in place, those projecting below ``thr`` first; returns where the others start."""
    idx = g.idx
    i, k = g.node_start[node], g.node_end[node] - 1
    while i <= k:
        if _project(Xs, idx[i], pf, pw) < thr:
            i += 1
        else:
            idx[i], idx[k] = idx[k], idx[i]
            k -= 1
    return i


@njit(cache=True)
def grow_tree_general(sample, pairs, opts, seed):
    """Grow one (COP) tree under the variant ``opts`` (module docstring).

    The driver of the one-node kernels over one
    :data:`~._forest_tree.Growth`, as :func:`~._forest_tree.grow_tree`.

    Parameters
    ----------
    sample : tuple (Xs, ws, cls)
        Tree sample from :func:`~._forest_sample.draw_tree_sample` (with
        ``pseudo=1`` the pseudo rows, if any, are ignored: pass the real rows
        only, or the whole sample and they are dropped).
    pairs : tuple (ml, cl, root_ml_use, root_cl_use)
        Must- and cannot-link pairs in tree-sample rows, int64 (p, 2) and
        (q, 2), and the pairs the root split must respect, bool (p,) and
        (q,) (the filtered subset S_t).
    opts : int64 (6,)
        ``mtry, cl_rule, pseudo, oblique, random_threshold, leaf_size``
        (``pseudo``: 0 per tree, 1 per node, 2 CLTree's regions).
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
    Xs, ws, cls = sample
    node_pseudo, region, leaf_size = opts[2] >= 1, opts[2] == 2, opts[5]
    m_all, d = Xs.shape
    m = m_all
    if node_pseudo:  # real rows only (they come first in a tree sample)
        m = 0
        while m < m_all and cls[m] == 0:
            m += 1
    L = min(OBLIQUE_L, d) if opts[3] == 1 else 1
    g = growth(m, m_all, pairs[0].shape[0], pairs[1].shape[0])
    total_w = 0.0
    for r in range(m):
        total_w += ws[r]
    big = m + int(total_w) + 2  # node rows + at most the tree's real weight in pseudo points
    sc = cut_scratch(m, big, d)
    cand = oblique_scratch(big, L)
    cap = 2 * m + 1
    # per-node regions (CLTree, opts[2] == 2): rows lower / upper bounds, the root's the real rows' box;
    # an empty box (lower > upper) tells _node_values to use the node's real rows' box instead
    boxes = np.empty((cap if region else 1, 2, d))
    boxes[:, 0, :] = 1.0
    boxes[:, 1, :] = 0.0
    inherited = np.zeros(cap if region else 1)
    if region:
        for f in range(d):
            boxes[0, 0, f], boxes[0, 1, f] = np.inf, -np.inf
            for r in range(m):
                boxes[0, 0, f] = min(boxes[0, 0, f], Xs[r, f])
                boxes[0, 1, f] = max(boxes[0, 1, f], Xs[r, f])
        inherited[0] = total_w
    proj_f = -np.ones((cap, L), dtype=np.int64)
    proj_w = np.zeros((cap, L))
    threshold = np.zeros(cap)
    node = next_node(g)
    while node >= 0:
        if g.node_end[node] - g.node_start[node] > 1:
            real_w = _real_weight(sample, g, node)
            if not (leaf_size > 1 and real_w <= leaf_size):
                node_pairs(pairs, g, node)
                n_ps = int(real_w + 0.5) if node_pseudo else 0
                if region:  # CLTree: the inherited pseudo points, topped up to the node's real points
                    n_ps = max(n_ps, int(inherited[node] + 0.5))
                found, thr = _best_general_cut(sample, pairs, g, sc, cand, node, opts, n_ps, boxes[node])
                if found:  # else no valid split: a leaf
                    proj_f[node] = cand.best_pf
                    proj_w[node] = cand.best_pw
                    threshold[node] = thr
                    branch(g, node, _partition_projection(Xs, g, node, cand.best_pf, cand.best_pw, thr))
                    if region:
                        _split_region(boxes, inherited, node, g.left[node], g.right[node], cand.best_pf[0], thr,
                                      n_ps)
        node = next_node(g)
    n = g.count[N_NODES]
    return (proj_f[:n].copy(), proj_w[:n].copy(), threshold[:n].copy(), g.left[:n].copy(), g.right[:n].copy(),
            g.leaf_of)


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
