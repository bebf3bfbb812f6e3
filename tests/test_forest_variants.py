"""The clustering-forest variants of the issue-34 ablation (ccexp/algorithms/constrained/_forest_variants.py)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccexp.algorithms.constrained import _forest_kernels as K
from ccexp.algorithms.constrained._forest_sample import draw_tree_sample_marginal
from ccexp.algorithms.constrained._forest_variants import _split_region, apply_tree_general, grow_tree_general
from ccexp.algorithms.constrained.forest import forest_affinity
from ccexp.oracles.pairwise import random_pairs


def _case(seed, n, d, n_pairs):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 1)  # ties that no threshold can split
    y = rng.integers(0, 3, n)
    pairs = random_pairs(n, min(n_pairs, n * (n - 1) // 2), rng)
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    Xs, ws, cls, local = K.draw_tree_sample(X, X.min(0), X.max(0), n, seed)
    ml, _ = K.local_pairs(pairs[same], local)
    cl, _ = K.local_pairs(pairs[~same], local)
    return X, Xs, ws, cls, ml, cl


def _opts(mtry, rule, pseudo=0, oblique=0, rand=0, leaf=1):
    return np.array([mtry, rule, pseudo, oblique, rand, leaf], dtype=np.int64)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(3, 30), d=st.integers(1, 4), n_pairs=st.integers(0, 15),
       rule=st.integers(0, 1), mtry=st.integers(1, 4))
def test_general_kernel_with_default_options_grows_the_same_tree(seed, n, d, n_pairs, rule, mtry):
    """Axis-aligned, midpoint, per-tree pseudo points, phi = 1: the very tree of grow_tree (same draws)."""
    X, Xs, ws, cls, ml, cl = _case(seed, n, d, n_pairs)
    keep_ml, keep_cl = np.ones(len(ml), dtype=bool), np.ones(len(cl), dtype=bool)
    feature, thr, left, right, leaf_of = K.grow_tree((Xs, ws, cls), (ml, cl, keep_ml, keep_cl), mtry, rule, seed)
    pf, pw, thr2, left2, right2, leaf_of2 = grow_tree_general((Xs, ws, cls), (ml, cl, keep_ml, keep_cl),
                                                              _opts(mtry, rule), seed)
    np.testing.assert_array_equal(pf[:, 0], feature)
    np.testing.assert_array_equal(thr2, thr)
    np.testing.assert_array_equal(left2, left)
    np.testing.assert_array_equal(leaf_of2, leaf_of)
    np.testing.assert_array_equal(apply_tree_general(X, pf, pw, thr2, left2, right2),
                                  K.apply_tree(X, feature, thr, left, right))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(3, 30), d=st.integers(1, 4), n_pairs=st.integers(0, 15),
       pseudo=st.integers(0, 2), oblique=st.integers(0, 1), rand=st.integers(0, 1), leaf=st.integers(1, 6))
def test_every_variant_keeps_must_links_together_and_routes_rows_to_their_leaves(seed, n, d, n_pairs, pseudo, oblique,
                                                                                 rand, leaf):
    """Any variant under the leaf rule: no must-link pair is split, apply() finds each row's leaf,
    and a leaf of the phi rule holds at most phi real samples unless its rows cannot be split further."""
    oblique = 0 if pseudo == 2 else oblique  # CLTree's regions are boxes: axis-aligned cuts only
    X, Xs, ws, cls, ml, cl = _case(seed, n, d, n_pairs)
    keep_ml, keep_cl = np.ones(len(ml), dtype=bool), np.ones(len(cl), dtype=bool)
    pf, pw, thr, left, right, leaf_of = grow_tree_general((Xs, ws, cls), (ml, cl, keep_ml, keep_cl),
                                                          _opts(d, 1, pseudo, oblique, rand, leaf), seed)
    for a, b in ml:
        assert leaf_of[a] == leaf_of[b]
    rows = np.flatnonzero(leaf_of >= 0)
    if pseudo:
        assert (cls[rows] == 0).all() and (leaf_of[cls == 1] == -1).all()  # only real rows go down
    np.testing.assert_array_equal(apply_tree_general(Xs[rows], pf, pw, thr, left, right), leaf_of[rows])
    assert (left[left >= 0] > 0).all() and ((left < 0) == (right < 0)).all()
    reached = set()
    for r in rows:  # every node holds a sample: a split sends samples both ways
        node = 0
        while True:
            reached.add(node)
            if left[node] < 0:
                break
            proj = sum(pw[node, l] * Xs[r, pf[node, l]] for l in range(pf.shape[1]) if pf[node, l] >= 0)
            node = left[node] if proj < thr[node] else right[node]
    assert reached == set(range(len(left)))

    if oblique:
        used = pf[left >= 0]
        assert ((used >= 0).sum(axis=1) == min(3, d)).all()
        assert (np.abs(pw[left >= 0]) <= 1).all()
    else:
        assert ((pf[left >= 0] >= 0).sum(axis=1) == 1).all() and (pw[left >= 0] == 1).all()


def test_leaf_size_stops_splitting_at_phi_real_samples():
    """Every split node held more than phi real samples (bootstrap multiplicities counted)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    Xs, ws, cls, _ = K.draw_tree_sample(X, X.min(0), X.max(0), 60, 1)
    empty = np.empty((0, 2), dtype=np.int64)
    no = np.zeros(0, dtype=bool)
    for pseudo in (0, 1, 2):
        for phi in (4, 10):
            pf, pw, thr, left, right, leaf_of = grow_tree_general((Xs, ws, cls), (empty, empty, no, no),
                                                                  _opts(2, 1, pseudo, 0, 0, phi), 5)
            reach = np.zeros(len(left))
            for r in np.flatnonzero(cls == 0):
                node = 0
                while True:
                    reach[node] += ws[r]
                    if left[node] < 0:
                        break
                    x = Xs[r, pf[node, 0]]
                    node = left[node] if x < thr[node] else right[node]
            assert (reach[left >= 0] > phi).all()
            assert (left >= 0).any()


def test_per_node_pseudo_points_grow_until_phi_where_per_tree_ones_stop_at_pure_nodes():
    """Per tree, a node without pseudo points is pure and stops; per node, each node gets its own."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.05, (30, 2)), rng.normal(3, 0.05, (30, 2))])
    A_tree, info_tree = forest_affinity(X, n_trees=20, n_filter=0, random_state=0)
    A_node, info_node = forest_affinity(X, n_trees=20, n_filter=0, pseudo="node", leaf_size=5, random_state=0)
    assert info_node["mean_leaves"] > info_tree["mean_leaves"]
    for A in (A_tree, A_node):  # points share leaves within a blob far more often than across
        assert A[:30, :30].mean() > 5 * A[:30, 30:].mean()


@pytest.mark.parametrize("kw", [{"cuts": "diagonal"}, {"threshold": "median"}, {"pseudo": "leaf"}, {"leaf_size": 0}])
def test_unknown_variant_is_refused_naming_the_argument(kw):
    name = next(iter(kw))
    with pytest.raises(ValueError, match=name):
        forest_affinity(np.zeros((5, 2)) + np.arange(5)[:, None], n_trees=1, **kw)


def test_default_variant_is_bitwise_the_previous_forest():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 4))
    ml, cl = np.array([[0, 1], [2, 3]]), np.array([[0, 5], [1, 7]])
    A, _ = forest_affinity(X, ml, cl, n_trees=5, n_filter=10, cl_rule="leaf", random_state=3)
    A2, _ = forest_affinity(X, ml, cl, n_trees=5, n_filter=10, cl_rule="leaf", random_state=3, cuts="axis",
                            threshold="midpoint", leaf_size=1, pseudo="tree")
    np.testing.assert_array_equal(A, A2)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 25), d=st.integers(1, 4))
def test_marginal_pseudo_points_take_every_coordinate_from_that_features_real_values(seed, n, d):
    """Breiman's synthetic class: the same bootstrap as the uniform draw, each pseudo coordinate a real value."""
    X = np.random.default_rng(seed).normal(size=(n, d))
    Xs, ws, cls, local = draw_tree_sample_marginal(X, n, seed)
    Xu, wu, clu, locu = K.draw_tree_sample(X, X.min(0), X.max(0), n, seed)
    np.testing.assert_array_equal(local, locu)
    np.testing.assert_array_equal(ws, wu)
    np.testing.assert_array_equal(cls, clu)
    m_real = int((cls == 0).sum())
    np.testing.assert_array_equal(Xs[:m_real], Xu[:m_real])
    assert cls[m_real:].sum() == n
    for f in range(d):
        assert np.isin(Xs[m_real:, f], X[:, f]).all()


def test_marginal_pseudo_points_keep_the_features_dependence_out_of_the_synthetic_class():
    """On two perfectly correlated features the synthetic class is (nearly) uncorrelated; its marginals are the data's."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=2000)
    X = np.column_stack([x, x])
    Xs, _, cls, _ = draw_tree_sample_marginal(X, 2000, 7)
    P = Xs[cls == 1]
    assert abs(np.corrcoef(P[:, 0], P[:, 1])[0, 1]) < 0.1
    assert abs(P[:, 0].mean() - x.mean()) < 0.1 and abs(P[:, 0].std() - x.std()) < 0.1


def test_forest_affinity_with_marginal_pseudo_points_is_a_seeded_function_and_differs_from_uniform():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0, 0.3, (15, 3)), rng.normal(2, 0.3, (15, 3))])
    A1, _ = forest_affinity(X, n_trees=20, n_filter=0, pseudo="marginal", random_state=5)
    A2, _ = forest_affinity(X, n_trees=20, n_filter=0, pseudo="marginal", random_state=5)
    Au, _ = forest_affinity(X, n_trees=20, n_filter=0, pseudo="tree", random_state=5)
    np.testing.assert_array_equal(A1, A2)
    assert not np.array_equal(A1, Au)
    assert A1[:15, :15].mean() > A1[:15, 15:].mean()
    with pytest.raises(ValueError, match="pseudo"):
        forest_affinity(X, n_trees=2, pseudo="marginals")


def test_cltree_regions_share_the_pseudo_points_by_length_on_each_side_of_the_cut():
    """Liu et al.'s bookkeeping by hand: a region [0, 10] x [2, 4] with 100 pseudo points cut at x = 2.5."""
    boxes = np.zeros((3, 2, 2))
    boxes[0] = [[0.0, 2.0], [10.0, 4.0]]
    inherited = np.zeros(3)
    _split_region(boxes, inherited, 0, 1, 2, 0, 2.5, 100)
    np.testing.assert_allclose(inherited, [0.0, 25.0, 75.0])
    np.testing.assert_allclose(boxes[1], [[0.0, 2.0], [2.5, 4.0]])
    np.testing.assert_allclose(boxes[2], [[2.5, 2.0], [10.0, 4.0]])
    np.testing.assert_allclose(boxes[0], [[0.0, 2.0], [10.0, 4.0]])


def test_cltree_pseudo_points_separate_two_tight_clusters_and_refuse_oblique_cuts():
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(0, 0.1, (25, 3)), rng.normal(3, 0.1, (25, 3))])
    A, info = forest_affinity(X, n_trees=30, n_filter=0, pseudo="cltree", random_state=4)
    assert A[:25, :25].mean() > 5 * A[:25, 25:].mean()
    assert info["mean_leaves"] > 2
    A2, _ = forest_affinity(X, n_trees=30, n_filter=0, pseudo="cltree", random_state=4)
    np.testing.assert_array_equal(A, A2)
    with pytest.raises(ValueError, match="cltree"):
        forest_affinity(X, n_trees=2, pseudo="cltree", cuts="oblique")
