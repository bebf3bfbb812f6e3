"""Tests of the correlation-clustering core (ccexp.cc).

Brute force is the oracle (DESIGN.md, "Tests"): for n <= 7 every partition
is enumerated. Weights are drawn from dyadic values (multiples of 1/2), so
every sum is exact in float64 and costs can be compared with ``==``.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

from _brute import all_partitions
from ccexp.cc import (
    SignedGraph,
    UnionFind,
    cc_cost,
    cc_local_search,
    connected_components,
    pivot,
    relabel_contiguous,
    signed_graph_from_edges,
)
from ccexp.cc._kernels import pivot_kernel

FAST = settings(max_examples=60, deadline=None)
DYADIC = [-2.0, -1.5, -1.0, -0.5, 0.5, 1.0, 1.5, 2.0]


# ----------------------------------------------------------------- strategies


@st.composite
def edge_lists(draw, min_n=0, max_n=8, weights=st.sampled_from(DYADIC)):
    """(n, u, v, w): a random edge list, with possible duplicates and both orientations."""
    n = draw(st.integers(min_n, max_n))
    if n < 2:
        return n, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    edges = draw(st.lists(st.tuples(pair, weights), max_size=3 * n))
    u = np.array([e[0][0] for e in edges], dtype=np.int64)
    v = np.array([e[0][1] for e in edges], dtype=np.int64)
    w = np.array([e[1] for e in edges], dtype=np.float64)
    return n, u, v, w


@st.composite
def graphs(draw, min_n=0, max_n=8, weights=st.sampled_from(DYADIC)):
    return signed_graph_from_edges(*draw(edge_lists(min_n, max_n, weights)))


@st.composite
def graphs_and_labels(draw, min_n=0, max_n=8, weights=st.sampled_from(DYADIC)):
    g = draw(graphs(min_n, max_n, weights))
    labels = np.array(
        draw(st.lists(st.integers(-3, 5), min_size=g.n_items, max_size=g.n_items)), dtype=np.int64
    )
    return g, labels


def dense_reference_cost(W, labels) -> float:
    """Problem 1 of Ukkonen (2017), literally: a double loop over pairs i < j."""
    cost = 0.0
    n = W.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            if W[i, j] > 0 and labels[i] != labels[j]:
                cost += W[i, j]
            elif W[i, j] < 0 and labels[i] == labels[j]:
                cost += -W[i, j]
    return cost


@functools.lru_cache(maxsize=None)
def partitions(n):
    return tuple(all_partitions(n))


def brute_force_min(g) -> float:
    return min(cc_cost(p, g) for p in partitions(g.n_items))


def single_moves(labels):
    """Every labelling reachable by moving one item to another existing cluster or a new one."""
    labels = np.asarray(labels)
    ids = np.unique(labels)
    fresh = ids.max() + 1 if ids.size else 0
    for u in range(labels.shape[0]):
        for c in list(ids) + [fresh]:
            if c == labels[u]:
                continue
            moved = labels.copy()
            moved[u] = c
            yield moved


# ------------------------------------------------------------ brute-force aid


def test_all_partitions_yields_bell_numbers():
    bell = [1, 1, 2, 5, 15, 52, 203, 877, 4140]
    for n, expected in enumerate(bell):
        parts = list(all_partitions(n))
        assert len(parts) == expected
        # all distinct as partitions, and each already in canonical form
        assert len({p.tobytes() for p in parts}) == expected
        for p in parts:
            assert p.dtype == np.int64 and p.shape == (n,)
            np.testing.assert_array_equal(relabel_contiguous(p), p)


# ------------------------------------------------------------- the graph type


def test_signed_graph_from_edges_sums_duplicates_and_drops_zero():
    # (0,1) twice, once reversed: 1 + 0.5 = 1.5; (1,2): 2 - 2 = 0, dropped; (0,3): -1
    g = signed_graph_from_edges(4, [0, 1, 2, 1, 0], [1, 0, 1, 2, 3], [1.0, 0.5, 2.0, -2.0, -1.0])
    assert g.n_edges == 2
    expected = np.zeros((4, 4))
    expected[0, 1] = expected[1, 0] = 1.5
    expected[0, 3] = expected[3, 0] = -1.0
    np.testing.assert_array_equal(g.to_dense(), expected)
    np.testing.assert_array_equal(g.indptr, [0, 2, 3, 3, 4])
    np.testing.assert_array_equal(g.indices, [1, 3, 0, 0])
    np.testing.assert_array_equal(g.weights, [1.5, -1.0, 1.5, -1.0])
    assert g.indptr.dtype == np.int64 and g.indices.dtype == np.int64 and g.weights.dtype == np.float64


def test_signed_graph_is_frozen():
    g = signed_graph_from_edges(2, [0], [1], [1.0])
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'n_items'"):
        g.n_items = 3
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        g.weights[0] = 5.0  # read-only array


def test_signed_graph_does_not_freeze_callers_arrays():
    indptr = np.array([0, 1, 2])
    indices = np.array([1, 0])
    weights = np.array([1.0, 1.0])
    g = SignedGraph(2, indptr, indices, weights)
    weights[0] = 7.0  # still writeable, and the graph kept its own copy
    assert g.weights[0] == 1.0


def test_empty_graphs():
    g = signed_graph_from_edges(0, [], [], [])
    assert g.n_items == 0 and g.n_edges == 0 and g.to_dense().shape == (0, 0)
    assert cc_cost(np.zeros(0, np.int64), g) == 0.0
    assert cc_local_search(g).shape == (0,)
    assert pivot(g, random_state=0).shape == (0,)
    g = signed_graph_from_edges(3, [], [], [])
    np.testing.assert_array_equal(cc_local_search(g), [0, 1, 2])
    np.testing.assert_array_equal(pivot(g, random_state=0), [0, 1, 2])


@pytest.mark.parametrize(
    "args, name",
    [
        ((3, [0, 3], [1, 2], [1.0, 1.0]), "u[1] = 3"),
        ((3, [0, 1], [-1, 2], [1.0, 1.0]), "v[0] = -1"),
        ((3, [0.0, 1.0], [1, 2], [1.0, 1.0]), "u must be an integer"),
        ((3, [0, 1], [1, 2], [1.0]), "len(w)=1"),
        ((3, [0, 1], [1, 2, 0], [1.0, 1.0]), "len(v)=3"),
        ((3, [0, 1], [1, 2], [1.0, np.nan]), "w[1] = nan"),
        ((3, [0, 1], [1, 2], [np.inf, 1.0]), "w[0] = inf"),
        ((3, [0, 2], [1, 2], [1.0, 1.0]), "u[1] == v[1] == 2"),
        ((-1, [], [], []), "n_items"),
        ((3, [[0, 1]], [[1, 2]], [[1.0, 1.0]]), "u must be a 1-d"),
    ],
)
def test_signed_graph_from_edges_rejects_bad_input(args, name):
    with pytest.raises(ValueError) as info:
        signed_graph_from_edges(*args)
    assert name in str(info.value)


@FAST
@given(edge_lists(max_n=9, weights=st.floats(-5, 5, allow_nan=False)))
def test_signed_graph_matches_dense_accumulation(data):
    n, u, v, w = data
    g = signed_graph_from_edges(n, u, v, w)
    dense = np.zeros((n, n))
    for a, b, x in zip(u, v, w):  # plain Python reference
        dense[a, b] += x
        dense[b, a] += x
    # the graph sums in a different order: equal up to rounding
    np.testing.assert_allclose(g.to_dense(), dense, rtol=0, atol=1e-12)
    # CSR invariants: symmetric, no self-loops, sorted columns, no zero weights
    D = g.to_dense()
    np.testing.assert_array_equal(D, D.T)
    assert np.all(np.diag(D) == 0)
    for r in range(n):
        row = g.indices[g.indptr[r]:g.indptr[r + 1]]
        assert np.all(np.diff(row) > 0)
    assert np.all(g.weights != 0)
    assert g.n_edges == np.count_nonzero(np.triu(D, 1))


# ------------------------------------------------------------------ the cost


def test_cc_cost_hand_checked():
    # edges: (0,1) +2, (1,2) +1, (0,2) -0.5, (2,3) -3
    g = signed_graph_from_edges(4, [0, 1, 0, 2], [1, 2, 2, 3], [2.0, 1.0, -0.5, -3.0])
    assert cc_cost([0, 0, 0, 1], g) == 0.5  # only (0,2) -0.5 is inside
    assert cc_cost([0, 0, 1, 1], g) == 1.0 + 3.0  # (1,2) cut, (2,3) inside
    assert cc_cost([0, 1, 2, 3], g) == 3.0  # all positive edges cut
    assert cc_cost([5, 5, 5, 5], g) == 0.5 + 3.0


def test_cc_cost_rejects_bad_labels():
    g = signed_graph_from_edges(3, [0], [1], [1.0])
    with pytest.raises(ValueError, match="labels has 2 entries, expected 3"):
        cc_cost([0, 1], g)
    # float labels are encoded, never cast: 0.5, 0.7 are two clusters (int() would merge them)
    assert cc_cost([0.5, 0.7, 2], g) == cc_cost([0, 1, 2], g) == 1.0
    with pytest.raises(ValueError, match=r"labels holds a missing label \(nan\) at index 1"):
        cc_cost([0, np.nan, 2], g)
    with pytest.raises(TypeError, match="graph must be a SignedGraph"):
        cc_cost([0, 1, 2], np.eye(3))


@FAST
@given(graphs_and_labels(max_n=10, weights=st.floats(-5, 5, allow_nan=False, allow_subnormal=False)))
def test_cc_cost_matches_plain_python_reference(data):
    g, labels = data
    expected = dense_reference_cost(g.to_dense(), labels)
    assert cc_cost(labels, g) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@FAST
@given(graphs_and_labels(max_n=10), st.randoms(use_true_random=False))
def test_cc_cost_invariant_under_relabelling_and_item_permutation(data, rnd):
    g, labels = data
    n = g.n_items
    base = cc_cost(labels, g)
    # relabelling: any injective map of the cluster ids
    ids = np.unique(labels)
    new_ids = np.array(rnd.sample(range(-50, 50), len(ids)), dtype=np.int64)
    relabelled = new_ids[np.searchsorted(ids, labels)]
    assert cc_cost(relabelled, g) == base
    # permuting items: item i becomes perm[i], in the graph and in the labels
    perm = np.array(rnd.sample(range(n), n), dtype=np.int64)
    rows = np.repeat(np.arange(n), np.diff(g.indptr))
    gp = signed_graph_from_edges(n, perm[rows], perm[g.indices], g.weights / 2)  # each edge twice
    lp = np.empty_like(labels)
    lp[perm] = labels
    assert cc_cost(lp, gp) == base  # dyadic weights: exact despite another summation order


# -------------------------------------------------- solvers vs brute force


@FAST
@given(graphs(max_n=7))
def test_local_search_and_pivot_never_beat_brute_force(g):
    best = brute_force_min(g)
    for labels in (cc_local_search(g), pivot(g, random_state=0), pivot(g, random_state=1, n_runs=4)):
        assert cc_cost(labels, g) >= best


@FAST
@given(graphs_and_labels(max_n=7))
def test_local_search_ends_in_a_local_optimum(data):
    g, start = data
    for init in (None, start):
        labels = cc_local_search(g, labels=init)
        # contiguous, first-appearance labels
        np.testing.assert_array_equal(relabel_contiguous(labels), labels)
        assert labels.dtype == np.int64
        cost = cc_cost(labels, g)
        if init is not None:
            assert cost <= cc_cost(init, g)  # every move strictly lowers the cost
        for moved in single_moves(labels):
            assert cc_cost(moved, g) >= cost, (labels, moved)


def test_local_search_brute_force_exhaustive_small():
    # every partition of 5 items as a start, on a fixed graph: always a local optimum
    rng = np.random.default_rng(12)
    pairs = np.array(list(itertools.combinations(range(5), 2)))
    g = signed_graph_from_edges(5, pairs[:, 0], pairs[:, 1], rng.choice(DYADIC, len(pairs)))
    best = brute_force_min(g)
    for start in partitions(5):
        labels = cc_local_search(g, labels=start)
        cost = cc_cost(labels, g)
        assert best <= cost <= cc_cost(start, g)
        assert all(cc_cost(m, g) >= cost for m in single_moves(labels))


def test_local_search_hand_checked():
    # a triangle 0-1-2 of +1 with a -5 edge (0,2): the cheapest is to cut one
    # positive edge, e.g. {0,1}{2} (cost 1), not keep all three (cost 5).
    g = signed_graph_from_edges(3, [0, 1, 0], [1, 2, 2], [1.0, 1.0, -5.0])
    # pass 1: item 0 joins {1} (gain 1 > 0); item 1 stays (S own = 1, S{2} = 1: tie);
    # item 2: S{0,1} = 1 - 5 = -4 < 0 = stay alone. Pass 2 moves nothing.
    np.testing.assert_array_equal(cc_local_search(g), [0, 0, 1])
    assert cc_cost([0, 0, 1], g) == 1.0


def test_local_search_rejects_bad_input_and_warns():
    g = signed_graph_from_edges(3, [0, 1], [1, 2], [1.0, 1.0])
    with pytest.raises(ValueError, match="labels has 2 entries"):
        cc_local_search(g, labels=[0, 1])
    with pytest.raises(ValueError, match="max_passes"):
        cc_local_search(g, max_passes=0)
    from sklearn.exceptions import ConvergenceWarning

    with pytest.warns(ConvergenceWarning, match="max_passes=1"):
        labels = cc_local_search(g, max_passes=1)  # the first pass moves items
    np.testing.assert_array_equal(labels, [0, 0, 0])


# ------------------------------------------------------------------- pivot


@FAST
@given(
    st.lists(st.integers(1, 5), min_size=1, max_size=6),
    st.integers(0, 2**32 - 1),
    st.randoms(use_true_random=False),
)
def test_pivot_recovers_disjoint_cliques(sizes, seed, rnd):
    # complete graph: +1 inside the cliques, -1 between them; items shuffled
    truth = np.repeat(np.arange(len(sizes)), sizes)
    rnd.shuffle(truth)
    n = truth.shape[0]
    pairs = np.array(list(itertools.combinations(range(n), 2)), dtype=np.int64).reshape(-1, 2)
    w = np.where(truth[pairs[:, 0]] == truth[pairs[:, 1]], 1.0, -1.0)
    g = signed_graph_from_edges(n, pairs[:, 0], pairs[:, 1], w)
    labels = pivot(g, random_state=seed)
    np.testing.assert_array_equal(labels, relabel_contiguous(truth))
    assert cc_cost(labels, g) == 0.0


@FAST
@given(graphs(max_n=10), st.integers(0, 2**32 - 1), st.integers(2, 5))
def test_pivot_is_seeded_and_more_runs_never_hurt(g, seed, n_runs):
    one = pivot(g, random_state=seed)
    np.testing.assert_array_equal(one, pivot(g, random_state=seed))
    # run 1 of n_runs uses the same first order as the single run
    many = pivot(g, random_state=seed, n_runs=n_runs)
    assert cc_cost(many, g) <= cc_cost(one, g)
    np.testing.assert_array_equal(relabel_contiguous(one), one)


def test_pivot_kernel_hand_checked():
    # path 0 -+- 1 -+- 2 -+- 3; order 1, 3, ... : pivot 1 takes {0, 2}, pivot 3 is alone
    g = signed_graph_from_edges(4, [0, 1, 2], [1, 2, 3], [1.0, 1.0, 1.0])
    labels = pivot_kernel(g.indptr, g.indices, g.weights, np.array([1, 3, 0, 2], dtype=np.int64))
    np.testing.assert_array_equal(labels, [0, 0, 0, 1])
    # order 0, 2: pivot 0 takes {1}; pivot 2 takes {3}
    labels = pivot_kernel(g.indptr, g.indices, g.weights, np.array([0, 2, 1, 3], dtype=np.int64))
    np.testing.assert_array_equal(labels, [0, 0, 1, 1])


# ------------------------------------------------------ union-find, labels


@FAST
@given(edge_lists(max_n=15))
def test_connected_components_matches_scipy(data):
    n, u, v, _ = data
    ours = connected_components(n, u, v)
    A = scipy.sparse.coo_matrix((np.ones(u.shape[0]), (u, v)), shape=(n, n))
    k, theirs = scipy.sparse.csgraph.connected_components(A, directed=False)
    # ours is already canonical (first appearance); scipy's is relabelled to compare
    np.testing.assert_array_equal(ours, relabel_contiguous(theirs))
    assert ours.max(initial=-1) + 1 == k


def test_connected_components_hand_checked_and_validation():
    # self-loops and repeated edges are allowed here
    # edges (4,5), (1,2) twice, (2,2): components {0}, {1,2}, {3}, {4,5}
    np.testing.assert_array_equal(connected_components(6, [4, 1, 1, 2], [5, 2, 2, 2]), [0, 1, 1, 2, 3, 3])
    with pytest.raises(ValueError, match=r"v\[0\] = 6"):
        connected_components(6, [0], [6])
    with pytest.raises(ValueError, match="same length"):
        connected_components(6, [0, 1], [2])


def test_union_find_class():
    uf = UnionFind(5)
    assert uf.union(3, 4) is True
    assert uf.union(4, 3) is False
    assert uf.union(0, 4) is True
    assert uf.find(0) == uf.find(3) == uf.find(4)
    assert uf.find(1) == 1
    np.testing.assert_array_equal(uf.labels(), [0, 1, 2, 0, 0])
    with pytest.raises(ValueError, match="outside"):
        uf.find(5)


@pytest.mark.parametrize(
    "labels, expected",
    [
        ([7, 7, 3, 9, 3], [0, 0, 1, 2, 1]),
        ([-1, 5, -1, -8], [0, 1, 0, 2]),
        ([0, 1, 2], [0, 1, 2]),
        ([2, 1, 0], [0, 1, 2]),
        ([4, 4, 4], [0, 0, 0]),
        ([], []),
    ],
)
def test_relabel_contiguous_examples(labels, expected):
    out = relabel_contiguous(np.array(labels, dtype=np.int64))
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, expected)


@FAST
@given(st.lists(st.integers(-1000, 1000), max_size=40))
def test_relabel_contiguous_keeps_the_partition(labels):
    labels = np.array(labels, dtype=np.int64)
    out = relabel_contiguous(labels)
    np.testing.assert_array_equal(out[:, None] == out[None, :], labels[:, None] == labels[None, :])
    # first appearance: each new label is exactly one more than the max so far
    seen = -1
    for x in out:
        assert x <= seen + 1
        seen = max(seen, x)
