"""Triplet correlation clustering (Ukkonen 2017): objective, vertex cover, Algorithms 1 and 2."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

import ccexp
from _brute import all_partitions
from ccexp.algorithms.triplets import (
    LsAD,
    LsADVC,
    LsEQ,
    LsEQVC,
    TripletApprox,
    consistent_triplets,
    triplet_cc_instance,
    triplet_vertex_cover,
)
from ccexp.cc import cc_cost
from ccexp.objectives.triplets import triplet_objective
from ccexp.oracles import generate_triplets


# ---------------------------------------------------------------- references
def ref_objective(labels, T):
    """s(f, T) of Problem 2, written as in the paper."""
    return sum(1 for a, b, c in T if labels[a] != labels[b] or labels[a] == labels[c] or labels[b] == labels[c])


def ref_constraint_graph(T):
    """Edges of Definition 1, by brute force over pairs of triplets."""

    def stance(t):
        a, b, c = t
        return {frozenset((a, b)): "same", frozenset((a, c)): "diff", frozenset((b, c)): "diff"}

    st_ = [stance(t) for t in T]
    edges = set()
    for i, j in itertools.combinations(range(len(T)), 2):
        for pair, s in st_[i].items():
            if pair in st_[j] and st_[j][pair] != s:
                edges.add((i, j))
    return edges


def random_triplets(rng, n, m):
    rows = [rng.choice(n, size=3, replace=False) for _ in range(m)]
    return np.array(rows, dtype=np.int64).reshape(m, 3)


triplet_sets = st.integers(3, 7).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.permutations(range(n)).map(lambda p: p[:3]), min_size=1, max_size=25),
    )
)


# ---------------------------------------------------------------- objective
def test_figure1_worked_example():
    # Figure 1: a..f = 0..5; clusters {a, b, e}, {c, f}, {d}; only (a, b, c) is satisfied
    T = [[0, 1, 2], [1, 3, 2], [0, 1, 4], [0, 5, 2]]
    labels = [0, 0, 1, 2, 0, 1]
    assert triplet_objective(labels, T) == 3


@settings(max_examples=100, deadline=None)
@given(triplet_sets, st.integers(0, 2**32 - 1))
def test_objective_matches_reference(nT, seed):
    n, T = nT
    labels = np.random.default_rng(seed).integers(0, 3, size=n)
    assert triplet_objective(labels, T) == ref_objective(labels, T)


@settings(max_examples=50, deadline=None)
@given(triplet_sets, st.integers(0, 2**32 - 1))
def test_objective_invariant_under_relabelling_and_item_permutation(nT, seed):
    n, T = nT
    T = np.asarray(T)
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, size=n)
    base = triplet_objective(labels, T)
    ids = rng.permutation(10)
    assert triplet_objective(ids[labels], T) == base  # cluster ids renamed
    perm = rng.permutation(n)  # item i becomes perm[i]
    new_labels = np.empty(n, dtype=np.int64)
    new_labels[perm] = labels
    assert triplet_objective(new_labels, perm[T]) == base


# ---------------------------------------------------------------- vertex cover
def test_vertex_cover_hand_example():
    # (0,1,2) and (0,2,1) conflict on {0,1} and on {0,2}: Approx-VC covers both,
    # the redundancy pass un-covers the first (all its neighbours are covered)
    T = np.array([[0, 1, 2], [0, 2, 1]])
    covered, info = triplet_vertex_cover(T, 3)
    assert info == {"n_matched": 2, "n_redundant": 1}
    assert covered.tolist() == [False, True]
    assert consistent_triplets(T, 3).tolist() == [[0, 1, 2]]


@settings(max_examples=100, deadline=None)
@given(triplet_sets)
def test_vertex_cover_is_a_cover_without_redundant_vertices(nT):
    n, T = nT
    T = np.asarray(T, dtype=np.int64)
    edges = ref_constraint_graph(T.tolist())
    covered, info = triplet_vertex_cover(T, n)
    assert all(covered[i] or covered[j] for i, j in edges)
    # Lemma 1: what is left has no inconsistent pair
    kept = T[~covered].tolist()
    assert not ref_constraint_graph(kept)
    # after the redundancy pass every covered vertex has an uncovered neighbour
    nbrs = {i: set() for i in range(len(T))}
    for i, j in edges:
        nbrs[i].add(j)
        nbrs[j].add(i)
    for i in np.flatnonzero(covered):
        assert any(not covered[j] for j in nbrs[i])


@settings(max_examples=60, deadline=None)
@given(triplet_sets, st.sampled_from(["pairs", "triplets", "random_pairs", "random_triplets"]),
       st.sampled_from(["input", "reverse", "random"]), st.integers(0, 2**32 - 1))
def test_every_cover_order_is_a_cover_without_redundant_vertices(nT, vc_order, redundant_order, seed):
    # the edge order of Approx-VC and the order of the redundancy removal are the paper's to leave open
    # (Section IV-B); whichever is taken, the result is a vertex cover (Lemma 1 holds on what is left)
    # with no redundant vertex
    n, T = nT
    T = np.asarray(T, dtype=np.int64)
    edges = ref_constraint_graph(T.tolist())
    covered, info = triplet_vertex_cover(T, n, vc_order=vc_order, redundant_order=redundant_order, random_state=seed)
    assert all(covered[i] or covered[j] for i, j in edges)
    assert not ref_constraint_graph(T[~covered].tolist())
    nbrs = {i: set() for i in range(len(T))}
    for i, j in edges:
        nbrs[i].add(j)
        nbrs[j].add(i)
    for i in np.flatnonzero(covered):
        assert any(not covered[j] for j in nbrs[i])
    _, plain = triplet_vertex_cover(T, n, remove_redundant=False, vc_order=vc_order, random_state=seed)
    assert plain["n_redundant"] == 0 and plain["n_matched"] % 2 == 0  # a matching covers vertices in pairs


def test_cover_orders_by_hand():
    # A path of conflicts: (0,1,2) - (0,2,3) on {0,2}, (0,2,3) - (2,3,4) on {2,3}; the ends agree.
    # Pair order: pair {0,2} matches its together-list's (0,2,3) with its apart-list's (0,1,2); pair {2,3}
    # finds (0,2,3) covered. Triplet order: (0,1,2) is matched to its first uncovered neighbour, (0,2,3).
    T = np.array([[0, 1, 2], [0, 2, 3], [2, 3, 4]])
    for vc_order in ("pairs", "triplets"):
        covered, _ = triplet_vertex_cover(T, 5, remove_redundant=False, vc_order=vc_order)
        assert covered.tolist() == [True, True, False]
    # then (0,1,2)'s only neighbour is covered: redundant, un-covered (in either order: (0,2,3) keeps the
    # uncovered (2,3,4) as a neighbour)
    for order in ("input", "reverse"):
        covered, info = triplet_vertex_cover(T, 5, redundant_order=order)
        assert covered.tolist() == [False, True, False] and info["n_redundant"] == 1
    # An isolated conflicting pair: both covered, both redundant; the first visited is un-covered.
    P = np.array([[0, 1, 2], [0, 2, 1]])
    assert triplet_vertex_cover(P, 3, redundant_order="input")[0].tolist() == [False, True]
    assert triplet_vertex_cover(P, 3, redundant_order="reverse")[0].tolist() == [True, False]
    with pytest.raises(ValueError, match="vc_order"):
        triplet_vertex_cover(T, 5, vc_order="edges")
    with pytest.raises(ValueError, match="redundant_order"):
        triplet_vertex_cover(T, 5, redundant_order="sorted")


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 6).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.permutations(range(n)).map(lambda p: p[:3]), min_size=1, max_size=12))))
def test_approx_vc_is_within_twice_the_minimum_cover(nT):
    n, T = nT
    edges = ref_constraint_graph(T)
    m = len(T)
    best = min(
        len(S)
        for r in range(m + 1)
        for S in itertools.combinations(range(m), r)
        if all(i in S or j in S for i, j in edges)
    )
    _, info = triplet_vertex_cover(np.asarray(T), n, remove_redundant=False)
    assert info["n_matched"] <= 2 * best


def test_vertex_cover_compressed_pair_ids_agree_with_dense(monkeypatch):
    from ccexp.algorithms.triplets import vertex_cover as vc

    rng = np.random.default_rng(0)
    T = random_triplets(rng, 30, 400)
    dense, _ = vc.triplet_vertex_cover(T, 30)
    monkeypatch.setattr(vc, "_DENSE_PAIR_LIMIT", 0)
    compressed, _ = vc.triplet_vertex_cover(T, 30)
    np.testing.assert_array_equal(dense, compressed)


# ---------------------------------------------------------------- local search
LS_CLASSES = [LsEQ, LsAD, LsEQVC, LsADVC]


def _is_local_optimum(labels, T):
    """No single item moves to another existing cluster or a new one and lowers s(f, T)."""
    base = ref_objective(labels, T)
    ids = set(labels.tolist()) | {labels.max() + 1}
    for u in range(len(labels)):
        for c in ids:
            if c == labels[u]:
                continue
            moved = labels.copy()
            moved[u] = c
            if ref_objective(moved, T) < base:
                return False
    return True


def ref_pass(T, labels, mode, draws):
    """One pass of line 8 (Algorithm 2) in plain Python: every id 0 .. k_new scored by s(f, T) (tie modes
    "first", "last", "random"; ``labels`` contiguous from 0)."""
    labels = list(labels)
    k_new = max(labels) + 1
    for u in range(len(labels)):
        costs = {}
        for c in range(k_new + 1):
            trial = labels.copy()
            trial[u] = c
            costs[c] = ref_objective(trial, T)
        best = min(costs.values())
        ties = [c for c in range(k_new + 1) if costs[c] == best]
        if mode == "first":
            target = ties[0]
        elif mode == "last":
            target = ties[-1]
        else:  # random: stay when the own cluster is a minimiser
            target = labels[u] if labels[u] in ties else ties[min(int(draws[u] * len(ties)), len(ties) - 1)]
        labels[u] = target
        if target == k_new:
            k_new += 1
    return labels


@settings(max_examples=80, deadline=None)
@given(triplet_sets, st.sampled_from(["first", "last", "random"]), st.integers(0, 2**32 - 1))
def test_one_pass_is_line_8_with_each_tie_break(nT, mode, seed):
    from ccexp.algorithms.triplets import _kernels as K
    from ccexp.algorithms.triplets.local_search import TIE_BREAKS

    n, T = nT
    T = np.asarray(T, dtype=np.int64)
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n).astype(np.int64)
    labels = np.unique(labels, return_inverse=True)[1].astype(np.int64)  # contiguous from 0
    draws = rng.random(n)
    expected = ref_pass(T.tolist(), labels.tolist(), mode, draws)
    indptr, first, second = K.item_partners(T, n)
    gain = np.zeros(2 * n + 1, dtype=np.int64)
    got = labels.copy()
    K.local_search_pass(indptr, first, second, got, int(labels.max()) + 1, gain, np.empty(2 * n + 1, dtype=np.int64),
                        TIE_BREAKS[mode], draws)
    assert got.tolist() == expected


@pytest.mark.parametrize("tie_break", ["stay", "first", "random"])
@pytest.mark.parametrize("seed", range(12))
def test_brute_force_small_instances(seed, tie_break):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 8))
    T = random_triplets(rng, n, int(rng.integers(3, 20)))
    costs = [ref_objective(p, T.tolist()) for p in all_partitions(n)]
    optimum = min(costs)
    for cls in LS_CLASSES:
        est = cls(tie_break=tie_break, random_state=seed).fit(T, n_items=n)
        assert est.objective_ == ref_objective(est.labels_, T.tolist())
        assert est.objective_ >= optimum  # nothing beats the brute-force optimum
        used = consistent_triplets(T, n) if est.vertex_cover else T  # default cover orders: deterministic
        assert _is_local_optimum(est.labels_, used.tolist()), cls.__name__
    approx = TripletApprox(random_state=seed).fit(T, n_items=n)
    assert approx.objective_ >= optimum


def test_ls_without_vc_reaches_optimum_on_consistent_small_sets():
    # a clean instance: everything drawn from one ground truth, no ambiguity
    y = np.array([0, 0, 0, 1, 1, 1, 2])
    T, _ = generate_triplets(y, 1.0, 0.0, ambiguous="drop", random_state=0)
    for cls in (LsAD, LsADVC):
        labels = cls().fit(T, n_items=7).labels_
        assert ref_objective(labels, T.tolist()) == 0
        assert ccexp.score(labels, y)["ari"] == 1.0


def test_labels_are_contiguous_and_fit_problem_matches_fit():
    ds = ccexp.load_dataset("synthetic_labels", n=40, k=4, random_state=0)
    prob = ccexp.make_problem("triplets", ds, fraction=0.2, noise=0.1, random_state=1)
    for name in ("ls_eq", "ls_ad", "ls_eq_vc", "ls_ad_vc", "triplet_approx"):
        a = ccexp.make_algorithm(name, random_state=0).fit_problem(prob)
        b = ccexp.make_algorithm(name, random_state=0).fit(prob.triplets, n_items=40)
        np.testing.assert_array_equal(a.labels_, b.labels_)
        assert sorted(set(a.labels_.tolist())) == list(range(a.labels_.max() + 1))
        assert clone(a).get_params() == a.get_params()


def test_random_item_order_is_the_algorithm_on_permuted_items():
    # item_order="random" relabels the items by a permutation drawn from random_state: the same as running the
    # default on the permuted triplets and mapping the labels back
    ds = ccexp.load_dataset("synthetic_labels", n=40, k=4, random_state=3)
    T = ccexp.make_problem("triplets", ds, fraction=0.2, noise=0.2, random_state=4).triplets
    est = LsADVC(item_order="random", random_state=7).fit(T, n_items=40)
    from ccexp._validation import check_random_state

    seed = check_random_state(7).integers(2**63, size=3)[2]
    perm = check_random_state(seed).permutation(40)
    plain = LsADVC().fit(perm[T], n_items=40).labels_[perm]
    assert ccexp.score(est.labels_, plain)["ari"] == 1.0
    assert est.objective_ == LsADVC().fit(perm[T], n_items=40).objective_
    with pytest.raises(ValueError, match="item_order"):
        LsADVC(item_order="sorted").fit(T, n_items=40)


def test_recovers_truth_under_item_permutation():
    y = ccexp.load_dataset("synthetic_labels", n=30, k=3, random_state=0).y
    T, _ = generate_triplets(y, 1.0, 0.0, ambiguous="drop", random_state=0)
    perm = np.random.default_rng(5).permutation(30)
    y_perm = np.empty_like(y)
    y_perm[perm] = y
    for T_in, truth in ((T, y), (perm[T], y_perm)):
        labels = LsADVC().fit(T_in, n_items=30).labels_
        assert ccexp.score(labels, truth)["ari"] == 1.0


def test_ls_ad_vc_at_a1_finds_k_with_paper_generator():
    # Table I: Ls-AD-VC finds exactly k clusters at a = 1 (here n = 80 to stay fast)
    ds = ccexp.load_dataset("synthetic_labels", n=80, k=4, random_state=0)
    prob = ccexp.make_problem("triplets", ds, fraction=1.0, noise=0.2, random_state=0)
    est = ccexp.make_algorithm("ls_ad_vc").fit_problem(prob)
    assert ccexp.score(est.labels_, ds.y, problem=prob)["n_clusters"] == 4


# ---------------------------------------------------------------- Algorithm 1
@settings(max_examples=60, deadline=None)
@given(triplet_sets, st.integers(0, 2**32 - 1))
def test_definition2_instance_and_lemma2(nT, seed):
    n, T = nT
    T = np.asarray(T, dtype=np.int64)
    kept = consistent_triplets(T, n)
    graph = triplet_cc_instance(kept, n)
    dense = graph.to_dense()
    # w(u, v) = |T'_{u,v}|, + when no triplet makes u or v the outlier
    for u, v in itertools.combinations(range(n), 2):
        holders = [t for t in kept.tolist() if u in t and v in t]
        if not holders:
            assert dense[u, v] == 0
            continue
        together = all(t[2] not in (u, v) for t in holders)
        assert dense[u, v] == (len(holders) if together else -len(holders))
    # Lemma 2: s(f, T') <= c(f, G_T') <= 2 s(f, T')
    labels = np.random.default_rng(seed).integers(0, 3, size=n)
    s = ref_objective(labels, kept.tolist())
    c = cc_cost(labels, graph)
    assert s <= c <= 2 * s


def test_triplet_approx_rejects_bad_solver():
    with pytest.raises(ValueError, match="The .solver. parameter of TripletApprox must be a str among"):
        TripletApprox(solver="lp").fit(np.array([[0, 1, 2]]))
