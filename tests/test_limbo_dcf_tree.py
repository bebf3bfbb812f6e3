"""LIMBO's DCF tree (Andritsos et al. 2004; issue 29.6) and ROCK's merging without links."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccexp.algorithms.aggregation import Limbo, Rock
from ccexp.algorithms.aggregation import _limbo_kernels as K
from ccexp.algorithms.aggregation._dcf_tree import dcf_tree_summaries
from ccexp.algorithms.aggregation.limbo import mutual_information, tuple_items
from ccexp.algorithms.aggregation.rock import merge_by_first_record


def random_table(seed, n=40, m=5, card=3, missing=0.05):
    rng = np.random.default_rng(seed)
    T = rng.integers(0, card, size=(n, m))
    T[rng.random((n, m)) < missing] = -1
    T[(T < 0).all(axis=1), 0] = 0  # every tuple keeps a value
    return T


def build(T, phi, B, max_summaries=10_000):
    items, indptr, V = tuple_items(T)
    n = T.shape[0]
    tau = phi * mutual_information(T) / n
    return items, indptr, V, n, tau, dcf_tree_summaries(items, indptr, n, tau, V, B, max_summaries)


def check_node(node, B, depth, depths):
    """Entries <= B; a parent entry's DCF is the mass-weighted merge of its child's entries."""
    assert 1 <= len(node.w) <= B
    if node.is_leaf:
        depths.add(depth)
        return
    for w, p, child in zip(node.w, node.P, node.children):
        cw = sum(child.w)
        assert w == pytest.approx(cw, rel=1e-12)
        np.testing.assert_allclose(p, sum(a * b for a, b in zip(child.w, child.P)) / cw, atol=1e-12)
        check_node(child, B, depth + 1, depths)


@given(seed=st.integers(0, 2**32 - 1), phi=st.sampled_from([0.0, 0.2, 0.5, 1.0]), B=st.integers(2, 6))
@settings(max_examples=40, deadline=None)
def test_tree_invariants(seed, phi, B):
    T = random_table(seed)
    *_, (W, P, S, root) = build(T, phi, B)
    assert S == len(W) >= 1
    assert W.sum() == pytest.approx(1.0)  # every tuple's mass 1/n is in one leaf entry
    np.testing.assert_allclose(P.sum(axis=1), 1.0)  # each row is a distribution over V
    depths = set()
    check_node(root, B, 0, depths)
    assert len(depths) == 1  # height-balanced: every leaf at the same depth


@given(seed=st.integers(0, 2**32 - 1), phi=st.sampled_from([0.0, 0.3, 1.0]))
@settings(max_examples=30, deadline=None)
def test_a_tree_that_never_splits_is_the_exhaustive_scan(seed, phi):
    # with B >= the number of tuples the root is one leaf: each tuple meets every summary,
    # in order, exactly as the plain scan of _limbo_kernels.summarize
    T = random_table(seed, n=30)
    items, indptr, V, n, tau, (W, P, S, root) = build(T, phi, B=1000)
    W2, P2, S2, _ = K.summarize(items, indptr, n, tau, V, 10_000)
    assert root.is_leaf and S == S2
    np.testing.assert_allclose(W, W2)
    np.testing.assert_allclose(P, P2, atol=1e-12)


def test_hand_checked_split():
    # four distinct one-attribute tuples, phi = 0 (nothing merges), B = 2: the third insert splits the
    # root leaf; the farthest pair seeds the halves, so the tree holds two leaves under a new root
    T = np.array([[0], [1], [0], [2]])
    items, indptr, V = tuple_items(T)
    W, P, S, root = dcf_tree_summaries(items, indptr, 4, 0.0, V, 2, 100)
    assert not root.is_leaf and len(root.children) == 2
    assert S == 3  # tuples 0 and 2 are identical: the second merges into the first (loss 0 <= tau = 0)
    assert sorted(W.tolist()) == pytest.approx([0.25, 0.25, 0.5])


def test_bad_branching_is_refused():
    items, indptr, V = tuple_items(np.array([[0], [1]]))
    with pytest.raises(ValueError, match="branching"):
        dcf_tree_summaries(items, indptr, 2, 0.0, V, 1, 10)
    with pytest.raises(ValueError, match="branching"):
        Limbo(branching=1).fit(np.array([[0, 1, 0]]))


def test_limbo_scan_and_tree_agree_on_separated_groups():
    T = np.array([[0, 0, 0], [0, 0, 1], [0, 0, 2], [1, 1, 0], [1, 1, 1], [1, 1, 2]] * 5)
    for B in (None, 2, 4):
        lab = Limbo(n_clusters=2, phi=0.5, branching=B).fit(T.T).labels_
        assert len(set(lab[::3].tolist())) == 2 and (lab[0::6] == lab[0]).all()


@pytest.mark.parametrize("B", [None, 4])
def test_limbo_random_order_is_limbo_on_the_permuted_tuples(B):
    T = random_table(7, n=30)
    got = Limbo(n_clusters=3, phi=0.3, branching=B, item_order="random", random_state=11).fit(T.T).labels_
    perm = np.random.default_rng(11).permutation(30)
    on_perm = Limbo(n_clusters=3, phi=0.3, branching=B).fit(T[perm].T).labels_
    expected = np.empty_like(on_perm)
    expected[perm] = on_perm
    pairs = {(int(a), int(b)) for a, b in zip(got, expected)}
    assert len(pairs) == len(set(got.tolist())) == len(set(expected.tolist()))


def test_merge_by_first_record_hand_checked():
    # clusters by first record: 0 (a), 1 (b), 3 (c), 4 (d); down to 2: a, b, c merge, d stays
    labels = np.array([5, 7, 5, 9, 2, 9])
    out = merge_by_first_record(labels, 2)
    assert out[0] == out[1] == out[2] == out[3] == out[5] != out[4]
    assert (merge_by_first_record(labels, 4) == labels).all()  # already 4 clusters: unchanged


def test_rock_merge_unlinked_reaches_k():
    # two far groups share no link at theta = 0.9: plain ROCK stops at 2 clusters, the variant merges to 1
    T = np.array([[0, 0, 0]] * 3 + [[1, 1, 1]] * 3)
    assert len(set(Rock(n_clusters=1, theta=0.9).fit(T.T).labels_.tolist())) == 2
    assert len(set(Rock(n_clusters=1, theta=0.9, merge_unlinked=True).fit(T.T).labels_.tolist())) == 1
