"""Constrained clustering of Zhu, Loy, Gong (2013): COP trees, the filter, COP-RF, E2CP, COP-KMeans, oracle."""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

import ccexp
from ccexp.data import Dataset
from ccexp.algorithms.constrained import _forest_kernels as K
from ccexp.algorithms.constrained.e2cp import mean_symmetrize
from ccexp.algorithms.constrained.spectral import gaussian_knn_affinity, knn_mask, prepare_features
from ccexp.algorithms.constrained import (
    COPKMeans,
    COPRF,
    E2CP,
    constraint_matrix,
    e2cp_adjust,
    e2cp_propagate,
    scale_propagation,
    impose_constraints,
    njw_spectral,
    scale_symmetric,
)
from ccexp.objectives.pairwise import violated
from ccexp.metrics import adjusted_rand
from ccexp.oracles.pairwise import pairwise_constraints, random_pairs


# ----------------------------------------------------------------- COP trees
def _paths(Xs, feature, threshold, left, right):
    """Node sets on the root-to-leaf path of every row."""
    paths = []
    for x in Xs:
        node, path = 0, [0]
        while feature[node] >= 0:
            node = left[node] if x[feature[node]] < threshold[node] else right[node]
            path.append(node)
        paths.append(path)
    return paths


def _tree_case(seed, n, d, n_ml, n_cl, consistent):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 1)  # rounding makes ties, which thresholds cannot split
    y = rng.integers(0, 3, n)
    pairs = random_pairs(n, min(n_ml + n_cl, n * (n - 1) // 2), rng)
    if consistent:
        same = y[pairs[:, 0]] == y[pairs[:, 1]]
        ml, cl = pairs[same], pairs[~same]
    else:
        ml, cl = pairs[: len(pairs) // 2], pairs[len(pairs) // 2 :]
    lo, hi = X.min(axis=0), X.max(axis=0)
    Xs, ws, cls, local = K.draw_tree_sample(X, lo, hi, n, seed)
    ml_t, _ = K.local_pairs(ml, local)
    cl_t, _ = K.local_pairs(cl, local)
    return Xs, ws, cls, ml_t, cl_t


def _node_rows(paths, node):
    return {r for r, p in enumerate(paths) if node in p}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(4, 30), d=st.integers(1, 4), n_ml=st.integers(0, 12),
       n_cl=st.integers(0, 12), consistent=st.booleans(), filtered=st.booleans())
def test_cop_tree_split_rule_respects_every_constraint_of_each_node(seed, n, d, n_ml, n_cl, consistent, filtered):
    """Algorithm 1 as written: a split never separates a must-link pair of its node
    and separates every cannot-link pair of its node (at the root: the kept subset)."""
    Xs, ws, cls, ml, cl = _tree_case(seed, n, d, n_ml, n_cl, consistent)
    rng = np.random.default_rng(seed)
    keep_ml = rng.random(len(ml)) < 0.5 if filtered else np.ones(len(ml), dtype=bool)
    keep_cl = rng.random(len(cl)) < 0.5 if filtered else np.ones(len(cl), dtype=bool)
    feature, threshold, left, right, leaf_of = K.grow_tree((Xs, ws, cls), (ml, cl, keep_ml, keep_cl), d, 0, seed)
    paths = _paths(Xs, feature, threshold, left, right)
    assert [p[-1] for p in paths] == leaf_of.tolist()
    for node in np.flatnonzero(feature >= 0):
        rows = _node_rows(paths, node)
        for pairs, keep, must_separate in ((ml, keep_ml, False), (cl, keep_cl, True)):
            for t, (a, b) in enumerate(pairs):
                if a in rows and b in rows and (node != 0 or keep[t]):
                    separated = (left[node] in paths[a]) != (left[node] in paths[b])
                    assert separated == must_separate, (node, a, b)
    if not filtered:  # no must-link pair of the tree is ever split
        for a, b in ml:
            assert leaf_of[a] == leaf_of[b]


def _separable(Xs, rows, ml, cl_pair):
    """Brute force: an axis cut among ``rows`` separating ``cl_pair`` and no must-link pair of the rows."""
    a, b = cl_pair
    for f in range(Xs.shape[1]):
        for thr in np.unique(Xs[list(rows), f]):
            side = {r: Xs[r, f] < thr for r in rows}
            if side[a] == side[b]:
                continue
            if all(side[p] == side[q] for p, q in ml if p in rows and q in rows):
                return True
    return False


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(4, 20), d=st.integers(1, 3), n_ml=st.integers(0, 8),
       n_cl=st.integers(0, 8))
def test_cop_tree_leaf_rule_never_splits_must_links_nor_leaves_separable_cannot_links(seed, n, d, n_ml, n_cl):
    """The "leaf" reading: must-link pairs share a leaf; a leaf holds a cannot-link pair
    only when no must-link-respecting axis cut (all d features tried) separates it."""
    Xs, ws, cls, ml, cl = _tree_case(seed, n, d, n_ml, n_cl, consistent=True)
    ones = np.ones(len(ml), dtype=bool), np.ones(len(cl), dtype=bool)
    feature, threshold, left, right, leaf_of = K.grow_tree((Xs, ws, cls), (ml, cl, *ones), d, 1, seed)
    for a, b in ml:
        assert leaf_of[a] == leaf_of[b]
    for a, b in cl:
        if leaf_of[a] == leaf_of[b]:
            rows = set(np.flatnonzero(leaf_of == leaf_of[a]).tolist())
            assert not any(_separable(Xs, rows, ml, (p, q)) for p, q in cl if p in rows and q in rows)


def test_tree_without_constraints_separates_real_from_pseudo_points_until_pure_or_single():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    Xs, ws, cls, _ = K.draw_tree_sample(X, X.min(0), X.max(0), 40, 1)
    empty = np.empty((0, 2), dtype=np.int64)
    no = np.zeros(0, dtype=bool)
    feature, threshold, left, right, leaf_of = K.grow_tree((Xs, ws, cls), (empty, empty, no, no), 3, 0, 2)
    for leaf in np.unique(leaf_of):
        rows = np.flatnonzero(leaf_of == leaf)
        # a leaf is pure, or its rows cannot be told apart on any feature (ties)
        assert len(set(cls[rows])) == 1 or all(len(np.unique(Xs[rows, f])) == 1 for f in range(3))
    assert np.isclose(ws[cls == 0].sum(), 40)  # bootstrap multiplicities add up to n


def test_affinity_accumulation_counts_shared_leaves():
    leaves = np.array([3, 1, 3, 2, 1])
    counts = np.zeros((5, 5), dtype=np.int32)
    K.accumulate_same_leaf(leaves, counts)
    K.accumulate_same_leaf(np.array([0, 0, 0, 1, 1]), counts)
    expected = (leaves[:, None] == leaves[None, :]).astype(int) + np.array(
        [[1, 1, 1, 0, 0], [1, 1, 1, 0, 0], [1, 1, 1, 0, 0], [0, 0, 0, 1, 1], [0, 0, 0, 1, 1]])
    np.testing.assert_array_equal(counts, expected)


# ------------------------------------------------------------------- COP-RF
def _blobs(n_per, centers, spread, rng):
    X = np.concatenate([c + spread * rng.normal(size=(n_per, len(c))) for c in centers])
    y = np.repeat(np.arange(len(centers)), n_per)
    return X, y


def test_coprf_recovers_well_separated_classes_tied_by_must_links():
    rng = np.random.default_rng(1)
    X, y = _blobs(20, [np.array([0.0, 0, 0, 0]), np.array([8.0, 8, 0, 0]), np.array([0.0, 8, 8, 8])], 0.5, rng)
    ml = np.array([[i, i + 1] for i in range(len(y) - 1) if y[i] == y[i + 1]])  # chains tie each class
    cl = np.array([[0, 20], [20, 40], [0, 40]])
    est = COPRF(n_clusters=3, n_trees=60, n_filter=20, random_state=0).fit(X, must_link=ml, cannot_link=cl)
    assert adjusted_rand(y, est.labels_) == 1.0
    assert violated(est.labels_, ml, cl) == (0, 0)
    assert set(est.timings_) == {"filter", "growth", "affinity", "spectral"}


def test_coprf_is_reproducible_from_its_seed():
    rng = np.random.default_rng(2)
    X, y = _blobs(15, [np.zeros(3), np.full(3, 3.0)], 1.0, rng)
    ml, cl, _ = pairwise_constraints(y, 20, random_state=0)
    a = COPRF(n_clusters=2, n_trees=10, n_filter=10, random_state=5).fit(X, must_link=ml, cannot_link=cl)
    b = COPRF(n_clusters=2, n_trees=10, n_filter=10, random_state=5).fit(X, must_link=ml, cannot_link=cl)
    np.testing.assert_array_equal(a.affinity_, b.affinity_)
    np.testing.assert_array_equal(a.labels_, b.labels_)


@pytest.mark.parametrize("cl_rule", [0, 1])
def test_filter_ranks_flipped_constraints_below_valid_ones_on_two_blobs(cl_rule):
    rng = np.random.default_rng(3)
    X, y = _blobs(40, [np.array([0.0, 0, 0]), np.array([6.0, 0, 0])], 0.7, rng)
    ml, cl, invalid = pairwise_constraints(y, 40, invalid_fraction=0.15, random_state=4)
    X = scale_symmetric(X)
    dropped, n_flipped, n_valid_dropped, n_valid = 0, 0, 0, 0
    for seed in range(5):
        Xs, ws, cls, local = K.draw_tree_sample(X, X.min(0), X.max(0), X.shape[0], seed)
        ml_t, wm = K.local_pairs(ml, local)
        cl_t, wc = K.local_pairs(cl, local)
        flipped = np.concatenate([invalid[: len(ml)][wm], invalid[len(ml):][wc]])
        keep_ml, keep_cl, score = K.filter_root_constraints((Xs, ws, cls), ml_t, cl_t, 2, cl_rule, 300, 0.5, seed)
        kept = np.concatenate([keep_ml, keep_cl])
        assert kept.sum() == round(0.5 * len(kept))
        assert np.nanmean(score[flipped]) < np.nanmean(score[~flipped])
        dropped += int((~kept[flipped]).sum())
        n_flipped += int(flipped.sum())
        n_valid_dropped += int((~kept[~flipped]).sum())
        n_valid += int((~flipped).sum())
    assert n_flipped > 0
    # most flipped constraints are dropped (a blind filter drops half of each kind),
    # at a clearly higher rate than valid ones (measured: 79% vs 43% for both rules)
    assert dropped / n_flipped > 0.5
    assert dropped / n_flipped >= 1.5 * n_valid_dropped / n_valid


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(4, 40), d=st.integers(1, 6), n_pairs=st.integers(2, 40),
       cl_rule=st.sampled_from([0, 1]), mtry=st.integers(1, 6), alpha=st.sampled_from([0.3, 0.5, 0.7]))
def test_fast_filter_equals_the_scan_on_random_trees(seed, n, d, n_pairs, cl_rule, mtry, alpha):
    # same random draws, same gains: the range-maximum path must reproduce the
    # reference scan bit for bit (kept subset and Equation 8 scores)
    Xs, ws, cls, ml_t, cl_t = _tree_case(seed, n, d, n_pairs // 2, n_pairs - n_pairs // 2, consistent=seed % 2 == 0)
    fast = K.filter_root_constraints((Xs, ws, cls), ml_t, cl_t, mtry, cl_rule, 50, alpha, seed)
    scan = K.filter_root_constraints_scan((Xs, ws, cls), ml_t, cl_t, mtry, cl_rule, 50, alpha, seed)
    np.testing.assert_array_equal(fast[0], scan[0])
    np.testing.assert_array_equal(fast[1], scan[1])
    np.testing.assert_array_equal(fast[2], scan[2])  # NaNs compare equal here


@pytest.mark.parametrize("cl_rule", [0, 1])
def test_fast_filter_equals_the_scan_at_the_papers_size(cl_rule):
    # Ionosphere-sized trees (351 x 34, ties in some features), 100 constraints
    # with 15% flipped, f = 500: identical kept subsets and scores on 6 seeds,
    # and the near-tie fallback of cl_rule=1 is exercised
    rng = np.random.default_rng(11)
    n, d = 351, 34
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, d)) + y[:, None]
    X[:, :4] = np.round(X[:, :4])  # discrete features: tied values
    X = scale_symmetric(X)
    ml, cl, _ = pairwise_constraints(y, 100, invalid_fraction=0.15, random_state=12)
    n_fallback = 0
    for seed in range(6):
        Xs, ws, cls, local = K.draw_tree_sample(X, X.min(0), X.max(0), n, seed)
        ml_t, _ = K.local_pairs(ml, local)
        cl_t, _ = K.local_pairs(cl, local)
        fast = K._filter_root((Xs, ws, cls), ml_t, cl_t, 6, cl_rule, 500, 0.5, seed, True)
        scan = K._filter_root((Xs, ws, cls), ml_t, cl_t, 6, cl_rule, 500, 0.5, seed, False)
        for a, b in zip(fast[:3], scan[:3]):
            np.testing.assert_array_equal(a, b)
        assert fast[4] == scan[4] == 500 * 6
        n_fallback += fast[3]
    if cl_rule == 1:
        assert n_fallback > 0


def test_coprf_labels_and_affinity_are_unchanged_by_the_fast_filter(monkeypatch):
    from types import SimpleNamespace

    from ccexp.algorithms.constrained import forest

    rng = np.random.default_rng(2)
    X, y = _blobs(30, [np.array([0.0, 0, 0]), np.array([3.0, 0, 0]), np.array([0.0, 3, 0])], 1.0, rng)
    ml, cl, _ = pairwise_constraints(y, 60, invalid_fraction=0.15, random_state=3)
    fits = []
    for kernels in (K, SimpleNamespace(**{**vars(K), "filter_root_constraints": K.filter_root_constraints_scan})):
        monkeypatch.setattr(forest, "K", kernels)
        fits.append(COPRF(n_clusters=3, n_trees=20, n_filter=100, random_state=7).fit(X, must_link=ml, cannot_link=cl))
    np.testing.assert_array_equal(fits[0].labels_, fits[1].labels_)
    np.testing.assert_array_equal(fits[0].affinity_, fits[1].affinity_)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), m=st.integers(2, 40), n_ml=st.integers(0, 6), n_cl=st.integers(0, 6),
       cl_rule=st.sampled_from([0, 1]))
def test_root_cut_fast_is_the_best_valid_cut_by_brute_force(seed, m, n_ml, n_cl, cl_rule):
    rng = np.random.default_rng(seed)
    gains = np.where(rng.random(m) < 0.2, -1.0, np.round(rng.random(m), 2))
    gains[-1] = -1.0
    rank = rng.permutation(m).astype(np.int32)
    ml = rng.choice(m, size=(n_ml, 2), replace=True) if n_ml else np.empty((0, 2), np.int64)
    cl = rng.choice(m, size=(n_cl, 2), replace=True) if n_cl else np.empty((0, 2), np.int64)
    ml = ml[ml[:, 0] != ml[:, 1]].astype(np.int64)
    cl = cl[cl[:, 0] != cl[:, 1]].astype(np.int64)
    subset = np.arange(len(ml) + len(cl))
    levels = int(np.floor(np.log2(m))) + 1
    table = np.empty((levels, m), dtype=np.int32)
    K._sparse_argmax_table(gains, table)
    log2 = np.array([0, 0] + [int(np.floor(np.log2(x))) for x in range(2, m + 1)], dtype=np.int64)
    bufs = [np.empty(len(subset) + 1, dtype=np.int64) for _ in range(4)]
    p = K._root_cut_fast((gains, table, log2), rank, ml, cl, subset, len(subset), cl_rule, tuple(bufs))

    def cuts(pair):  # cut positions that separate the pair
        a, b = sorted((rank[pair[0]], rank[pair[1]]))
        return set(range(a, b))

    valid = []
    for q in range(m):
        if gains[q] < 0 or any(q in cuts(pr) for pr in ml):
            continue
        n_sep = sum(q in cuts(pr) for pr in cl)
        if cl_rule == 0 and (n_sep != len(cl) or gains[q] <= 1e-12):
            continue
        if cl_rule == 1 and (n_sep == 0 if len(cl) else gains[q] <= 1e-12):
            continue
        valid.append(gains[q])
    if valid:
        assert p >= 0 and gains[p] == max(valid)
    else:
        assert p == -1


# --------------------------------------------------------------------- E2CP
def _e2cp_reference(W, Z, alpha, iters=3000):
    """Lu & Ip's two propagations iterated to convergence, in plain loops over dense matrices."""
    n = W.shape[0]
    d = W.sum(axis=1)
    L = np.array([[W[i, j] / np.sqrt(d[i] * d[j]) for j in range(n)] for i in range(n)])
    Fv = np.zeros_like(Z)
    for _ in range(iters):
        Fv = alpha * L @ Fv + (1 - alpha) * Z
    Fh = np.zeros_like(Z)
    for _ in range(iters):
        Fh = alpha * Fh @ L + (1 - alpha) * Fv
    Wt = np.empty_like(W)
    for i in range(n):
        for j in range(n):
            f = Fh[i, j]
            Wt[i, j] = 1 - (1 - f) * (1 - W[i, j]) if f >= 0 else (1 + f) * W[i, j]
    return Fh, Wt


@pytest.mark.parametrize("alpha", [0.5, 0.8, 0.95])
def test_e2cp_closed_form_matches_the_iterated_propagation(alpha):
    rng = np.random.default_rng(5)
    n = 9
    W = rng.random((n, n)) * (rng.random((n, n)) < 0.6)
    W = np.triu(W, 1)
    W = W + W.T + np.diag(np.zeros(n))
    W[0, 1] = W[1, 0] = 0.3  # keep every node connected
    Z = constraint_matrix(n, np.array([[0, 3], [4, 5]]), np.array([[0, 8], [2, 6], [1, 7]]))
    F = e2cp_propagate(W, Z, alpha)
    F_ref, Wt_ref = _e2cp_reference(W, Z, alpha)
    np.testing.assert_allclose(F, F_ref, atol=1e-10)
    np.testing.assert_allclose(e2cp_adjust(W, F), Wt_ref, atol=1e-10)
    assert np.all(np.abs(F) <= 1 + 1e-12)


def test_e2cp_f_scale_max_rescales_the_propagation_to_unit_magnitude():
    """f_scale="max": F* / max|F*| by hand; an all-zero F* stays zero; the default leaves F* as it is."""
    F = np.array([[0.0, 0.02, -0.05], [0.02, 0.0, 0.01], [-0.05, 0.01, 0.0]])
    np.testing.assert_allclose(scale_propagation(F, "max"), F / 0.05)
    assert scale_propagation(F) is F
    np.testing.assert_array_equal(scale_propagation(np.zeros((2, 2)), "max"), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="f_scale"):
        scale_propagation(F, "sum")
    # a must-link pair at full strength is joined with affinity 1, a cannot-link cut to 0
    W = np.full((3, 3), 0.5)
    Wt = e2cp_adjust(W, scale_propagation(F, "max"))
    assert Wt[0, 2] == 0.0 and 0.5 < Wt[0, 1] < 1.0


def test_e2cp_default_f_scale_is_none_and_a_bad_f_scale_is_refused():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 1.0, (20, 2)), rng.normal(1.5, 1.0, (20, 2))])
    ml = np.array([[0, 1], [20, 21], [2, 3]])
    cl = np.array([[0, 20], [1, 25], [5, 30]])
    a = E2CP(n_clusters=2, random_state=0).fit(X, must_link=ml, cannot_link=cl).labels_
    b = E2CP(n_clusters=2, random_state=0, f_scale="none").fit(X, must_link=ml, cannot_link=cl).labels_
    np.testing.assert_array_equal(a, b)
    c = E2CP(n_clusters=2, random_state=0, f_scale="max").fit(X, must_link=ml, cannot_link=cl).labels_
    assert sorted(set(c)) == [0, 1]
    with pytest.raises(ValueError, match="f_scale"):
        E2CP(n_clusters=2, f_scale="sum").fit(X, must_link=ml, cannot_link=cl)


def test_e2cp_f_scale_no_factor_divides_by_the_factor_and_clips():
    """f_scale="no_factor": F* / (1 - a)^2 by hand (a = 0.8: / 0.04), clipped to [-1, 1]; a needed, checked."""
    F = np.array([[0.0, 0.02, -0.05], [0.02, 0.0, 0.01], [-0.05, 0.01, 0.0]])
    out = scale_propagation(F, "no_factor", 0.8)
    np.testing.assert_allclose(out, [[0.0, 0.5, -1.0], [0.5, 0.0, 0.25], [-1.0, 0.25, 0.0]])
    with pytest.raises(ValueError, match="alpha"):
        scale_propagation(F, "no_factor")
    # the unclipped values are the iteration F <- a L F + Z run without the (1 - a) weights
    rng = np.random.default_rng(2)
    W = np.triu(rng.random((6, 6)), 1)
    W = W + W.T
    Z = constraint_matrix(6, np.array([[0, 1]]), np.array([[2, 5]]))
    d = W.sum(axis=1)
    L = W / np.sqrt(np.outer(d, d))
    Fv = np.zeros_like(Z)
    for _ in range(2000):
        Fv = 0.5 * L @ Fv + Z
    Fh = np.zeros_like(Z)
    for _ in range(2000):
        Fh = 0.5 * Fh @ L + Fv
    np.testing.assert_allclose(e2cp_propagate(W, Z, 0.5) / 0.25, Fh, atol=1e-10)


def test_e2cp_mean_symmetrisation_by_hand():
    """graph_sym="mean": on 0, 1, 3, 8 with k = 1 the pair (0, 1) is mutual (weight kept), 3 -> 1 and 8 -> 3 are
    one-way (weight halved), as W = (W + W^T) / 2 of the directed 1-NN graph."""
    X = np.array([[0.0], [1.0], [3.0], [8.0]])
    W = gaussian_knn_affinity(X, 1)
    directed = knn_mask(-cdist(X, X), 1, symmetric=False)
    np.testing.assert_array_equal(np.argwhere(directed), [[0, 1], [1, 0], [2, 1], [3, 2]])
    Wm = mean_symmetrize(W, directed)
    expect = np.zeros((4, 4))
    for i, j, f in ((0, 1, 1.0), (1, 2, 0.5), (2, 3, 0.5)):
        expect[i, j] = expect[j, i] = f * W[i, j]
    np.testing.assert_allclose(Wm, expect)
    assert W[1, 2] > 0 and W[2, 3] > 0


def test_e2cp_graph_sym_and_adjust_on_match_the_pipeline_by_hand():
    """E2CP(graph_sym="mean") and E2CP(adjust_on="lbar") are the documented steps composed by hand; bad names refused."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0, 1.0, (15, 2)), rng.normal(2.0, 1.0, (15, 2))])
    ml = np.array([[0, 1], [15, 16]])
    cl = np.array([[0, 15], [2, 20]])
    Xs = prepare_features(X, "symmetric")
    Z = constraint_matrix(30, ml, cl)
    W = gaussian_knn_affinity(Xs, 10)
    Wm = mean_symmetrize(W, knn_mask(-cdist(Xs, Xs), 10, symmetric=False))
    for kw, base, adjusted in (({"graph_sym": "mean"}, Wm, Wm), ({"adjust_on": "lbar"}, W, None)):
        F = e2cp_propagate(base, Z, 0.8)
        d = base.sum(axis=1)
        target = adjusted if adjusted is not None else base / np.sqrt(np.outer(d, d))
        Wt = e2cp_adjust(target, F)
        np.fill_diagonal(Wt, 0.0)
        ref = njw_spectral(Wt, 2, 10, 0)
        got = E2CP(n_clusters=2, random_state=0, **kw).fit(X, must_link=ml, cannot_link=cl).labels_
        np.testing.assert_array_equal(got, ref)
    for kw in ({"graph_sym": "min"}, {"adjust_on": "l"}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            E2CP(n_clusters=2, **kw).fit(X, must_link=ml, cannot_link=cl)


def test_constraint_matrices_by_hand():
    Z = constraint_matrix(3, np.array([[0, 1]]), np.array([[1, 2]]))
    np.testing.assert_array_equal(Z, [[0, 1, 0], [1, 0, -1], [0, -1, 0]])
    W = impose_constraints(np.zeros((3, 3)), np.array([[0, 2]]), np.array([[0, 1]]))
    np.testing.assert_array_equal(W, [[0, 0, 1], [0, 0, 0], [1, 0, 0]])


# --------------------------------------------------------------- COP-KMeans
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(3, 25), k=st.integers(2, 4), m=st.integers(0, 30),
       flip=st.sampled_from([0.0, 0.3]))
def test_cop_kmeans_respects_its_constraints_or_reports_infeasibility(seed, n, k, m, flip):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = rng.integers(0, k, n)
    ml, cl, _ = pairwise_constraints(y, min(m, n * (n - 1) // 2), flip, random_state=seed)
    est = COPKMeans(n_clusters=min(k, n), random_state=seed).fit(X, must_link=ml, cannot_link=cl)
    if est.status_ == "ok":
        assert violated(est.labels_, ml, cl) == (0, 0)
        assert est.failed_point_ == -1
    else:
        assert est.status_ == "infeasible"
        assert (est.labels_ == 0).all()  # one cluster: ARI 0 against any truth
        assert 0 <= est.failed_point_ < n


def test_cop_kmeans_fails_on_a_cannot_link_triangle_with_two_clusters():
    X = np.array([[0.0], [1.0], [2.0], [10.0]])
    est = COPKMeans(n_clusters=2, random_state=0).fit(X, cannot_link=[[0, 1], [1, 2], [0, 2]])
    assert est.status_ == "infeasible"
    assert adjusted_rand([0, 0, 1, 1], est.labels_) == 0.0


def test_cop_kmeans_follows_must_links_against_the_geometry():
    X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    est = COPKMeans(n_clusters=2, random_state=0).fit(X, must_link=[[0, 5], [1, 4]])
    assert est.status_ == "ok"
    assert est.labels_[0] == est.labels_[5] and est.labels_[1] == est.labels_[4]


# ------------------------------------------------------ oracle and objective
def test_random_pairs_draws_distinct_pairs_and_can_draw_them_all():
    rng = np.random.default_rng(0)
    pairs = random_pairs(6, 15, rng)
    assert sorted(map(tuple, pairs.tolist())) == list(itertools.combinations(range(6), 2))
    with pytest.raises(ValueError, match="at most 15"):
        random_pairs(6, 16, rng)


def test_pairwise_oracle_needs_features_and_labels():
    with pytest.raises(ValueError, match="features"):
        ccexp.make_problem("pairwise", Dataset(name="labels_only", y=np.array([0, 0, 1])), n_constraints=2)


@pytest.mark.parametrize("fraction", [0.0, 0.15, 1.0])
def test_pairwise_oracle_labels_from_truth_with_the_asked_share_flipped(fraction):
    y = np.repeat([0, 1, 2], 20)
    ds = Dataset(name="toy", y=y, X=np.random.default_rng(0).normal(size=(60, 2)))
    prob = ccexp.make_problem("pairwise", ds, n_constraints=40, invalid_fraction=fraction, random_state=1)
    ml, cl = prob.must_link, prob.cannot_link
    wrong = int((ds.y[ml[:, 0]] != ds.y[ml[:, 1]]).sum() + (ds.y[cl[:, 0]] == ds.y[cl[:, 1]]).sum())
    assert len(ml) + len(cl) == 40
    assert wrong == round(fraction * 40) == prob.meta["n_invalid"]
    assert prob.meta["n_clusters"] == 3
    again = ccexp.make_problem("pairwise", ds, n_constraints=40, invalid_fraction=fraction, random_state=1)
    np.testing.assert_array_equal(again.must_link, ml)
    np.testing.assert_array_equal(again.cannot_link, cl)
    obj = ccexp.score(ds.y, ds.y, problem=prob)
    assert obj["objective"] == wrong
    assert obj["violated_must_link"] + obj["violated_cannot_link"] == wrong


def test_violated_against_brute_force():
    rng = np.random.default_rng(7)
    labels = rng.integers(0, 3, 12)
    ml, cl = random_pairs(12, 10, rng), random_pairs(12, 10, rng)
    v_ml = sum(labels[a] != labels[b] for a, b in ml)
    v_cl = sum(labels[a] == labels[b] for a, b in cl)
    assert violated(labels, ml, cl) == (v_ml, v_cl)


# ---------------------------------------------------------------- spectral
def test_njw_recovers_the_blocks_of_a_block_affinity():
    W = np.kron(np.eye(3), np.ones((4, 4))) + 0.01
    np.fill_diagonal(W, 0)
    labels = njw_spectral(W, 3, random_state=0)
    assert adjusted_rand(np.repeat([0, 1, 2], 4), labels) == 1.0


def test_scale_symmetric_maps_columns_onto_minus_one_one():
    X = np.random.default_rng(0).normal(size=(20, 3)) * [1, 10, 100]
    S = scale_symmetric(X)
    np.testing.assert_allclose(S.min(0), -1)
    np.testing.assert_allclose(S.max(0), 1)


@pytest.mark.parametrize("name", ["spectral", "spectral_learning", "e2cp", "forest_e2cp", "cop_rf", "cop_kmeans"])
def test_every_method_runs_on_a_pairwise_problem(name):
    y = np.repeat([0, 1, 2], 10)
    ds = Dataset(name="blobs", y=y, X=np.random.default_rng(0).normal(size=(30, 3)) + 4 * np.eye(3)[y])
    prob = ccexp.make_problem("pairwise", ds, n_constraints=20, random_state=0)
    params = {"n_trees": 10} if name in ("forest_e2cp", "cop_rf") else {}
    est = ccexp.make_algorithm(name, random_state=0, **params).fit_problem(prob)
    assert est.labels_.shape == (30,)
    assert est.status_ in ("ok", "infeasible")
