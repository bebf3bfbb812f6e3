"""ReCon, OneTree, the cut and the SVM metric (Liu, Zhang and Wang 2011)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.cluster.hierarchy import linkage

import ccexp
from ccexp.algorithms.relative import (
    Hierarchical,
    ReCon,
    constrained_linkage,
    cut_hierarchy,
    hierarchy_violations,
    induced_triplet,
    is_consistent,
    learn_svm_metric,
    linkage_to_parent,
    one_tree,
)
from ccexp.objectives.relative import partition_violations


# --- helpers: random binary trees and their induced triplets -----------------


def random_binary_tree(n, rng):
    """A random rooted binary tree on leaves 0..n-1 as a parent array (random joins)."""
    parent = [-1] * n
    roots = list(range(n))
    while len(roots) > 1:
        i, j = sorted(rng.choice(len(roots), 2, replace=False))
        node = len(parent)
        parent.append(-1)
        parent[roots[i]] = node
        parent[roots[j]] = node
        roots = [r for t, r in enumerate(roots) if t not in (i, j)] + [node]
    return np.array(parent)


def all_induced(parent, n):
    """Every rooted triplet the tree induces, as rows (a, b, c) = ab|c."""
    out = []
    for a, b, c in itertools.combinations(range(n), 3):
        t = induced_triplet(parent, a, b, c)
        if t is not None:
            out.append(t)
    return np.array(out, dtype=np.int64).reshape(-1, 3)


def binary_trees(leaves):
    """All rooted binary trees on ``leaves`` as nested tuples (insert each leaf on every edge)."""
    if len(leaves) == 1:
        yield leaves[0]
        return
    for t in binary_trees(leaves[:-1]):
        yield from _insert(t, leaves[-1])


def _insert(t, x):
    yield (t, x)
    if isinstance(t, tuple):
        for left in _insert(t[0], x):
            yield (left, t[1])
        for right in _insert(t[1], x):
            yield (t[0], right)


def nested_to_parent(t, n):
    parent = [-1] * n

    def walk(node):
        if not isinstance(node, tuple):
            return node
        idx = len(parent)
        parent.append(-1)
        for child in node:
            parent[walk(child)] = idx
        return idx

    walk(t)
    return np.array(parent)


# --- OneTree ----------------------------------------------------------------------


def test_one_tree_rejects_ab_c_with_ac_b():
    assert one_tree(np.array([[0, 1, 2], [0, 2, 1]]), 3) is None
    assert not is_consistent(np.array([[0, 1, 2], [0, 2, 1]]), 3)


def test_one_tree_builds_figure_1c():
    # Fig. 1(c): ((a, b), (c, d)) induces ab|c, ab|d, cd|a, cd|b
    R = np.array([[0, 1, 2], [0, 1, 3], [2, 3, 0], [2, 3, 1]])
    parent = one_tree(R, 4)
    assert parent is not None and hierarchy_violations(parent, R) == 0


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 14), st.integers(0, 2**31), st.floats(0.05, 1.0))
def test_one_tree_accepts_sets_induced_from_random_binary_trees(n, seed, share):
    rng = np.random.default_rng(seed)
    tree = random_binary_tree(n, rng)
    R = all_induced(tree, n)
    R = R[rng.random(len(R)) < share]
    parent = one_tree(R, n)
    assert parent is not None
    assert hierarchy_violations(parent, R) == 0


def test_one_tree_agrees_with_brute_force_on_five_items():
    rng = np.random.default_rng(0)
    n = 5
    trees = [nested_to_parent(t, n) for t in binary_trees(list(range(n)))]
    assert len(trees) == 105  # (2n - 3)!! rooted binary trees
    triples = list(itertools.combinations(range(n), 3))
    for _ in range(60):
        rows = []
        for a, b, c in [triples[i] for i in rng.choice(len(triples), rng.integers(1, 6), replace=False)]:
            x, y, z = [(a, b, c), (a, c, b), (b, c, a)][rng.integers(3)]
            rows.append((x, y, z))
        R = np.array(rows)
        brute = any(hierarchy_violations(t, R) == 0 for t in trees)
        assert is_consistent(R, n) == brute


# --- ReCon ------------------------------------------------------------------------


def test_dead_end_example_of_section_4_2():
    # a, b, c, d = 0, 1, 2, 3 with ab|c and cd|a; b and d are the closest pair
    X = np.array([[0.0, 0.0], [5.0, 0.0], [5.0, 10.0], [5.5, 0.2]])
    R = np.array([[0, 1, 2], [2, 3, 0]])
    Z, n_merges, counts = constrained_linkage(X, R, check_compatibility=False)
    assert n_merges == 1 and set(Z[0, :2]) == {1, 3}  # naive: merges b, d, then is stuck
    Z, n_merges, counts = constrained_linkage(X, R, check_compatibility=True)
    assert n_merges == 3 and counts["incompatible"] >= 1  # ReCon refuses b, d
    assert hierarchy_violations(linkage_to_parent(Z, 4), R) == 0
    naive = ReCon(n_clusters=2, check_compatibility=False, min_branch_size=1).fit(X, relative=R)
    assert naive.status_ == "dead_end"
    est = ReCon(n_clusters=2, min_branch_size=1).fit(X, relative=R)
    assert est.status_ == "ok" and est.labels_.tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])


@settings(max_examples=40, deadline=None)
@given(st.integers(4, 30), st.integers(0, 2**31), st.floats(0.0, 1.0), st.integers(1, 4))
def test_hierarchy_satisfies_every_constraint(n, seed, share, k):
    """Definition 4.1 on the dendrogram, Definition 4.2 on the plain k-cut."""
    rng = np.random.default_rng(seed)
    tree = random_binary_tree(n, rng)
    R = all_induced(tree, n)
    R = R[rng.random(len(R)) < share * 30 / max(len(R), 1)]  # sparse to dense sets
    X = rng.normal(size=(n, 2))
    est = ReCon(n_clusters=min(k, n), min_branch_size=1).fit(X, relative=R)
    assert est.n_merges_ == n - 1 and est.status_ == "ok"
    assert hierarchy_violations(linkage_to_parent(est.linkage_, n), R) == 0
    assert partition_violations(est.labels_, R).sum() == 0
    assert len(np.unique(est.labels_)) == min(k, n)



# --- TestCompatibility: peeling against the level-by-level recursion ----------------


def _random_relative(n, rng, kind):
    """Constraints of one of three kinds: from a random tree, from two or three classes, or random triples."""
    if kind == "tree":
        R = all_induced(random_binary_tree(n, rng), n)
        return R[rng.random(len(R)) < rng.uniform(0.02, 0.5)]
    if kind == "classes":  # ab|c with a, b of one class and c of another (relative_random's shape)
        y = rng.integers(0, rng.integers(2, 4), n)
        rows = []
        for _ in range(int(rng.integers(0, 2 * n))):
            a, b, c = rng.choice(n, 3, replace=False)
            if y[a] == y[b] != y[c]:
                rows.append((a, b, c))
        return np.array(rows, dtype=np.int64).reshape(-1, 3)
    # random triples: mostly inconsistent, which the agglomeration must still treat alike
    return np.array([rng.choice(n, 3, replace=False) for _ in range(int(rng.integers(0, 3 * n)))],
                    dtype=np.int64).reshape(-1, 3)


def _assert_peel_matches_reference(X, R):
    Zp, n_p, cp = constrained_linkage(X, R, compatibility_test="peel")
    Zr, n_r, cr = constrained_linkage(X, R, compatibility_test="reference")
    Zb, n_b, cb = constrained_linkage(X, R, compatibility_test="both")
    assert cb["disagreements"] == 0  # every call answered alike, state by state
    np.testing.assert_array_equal(Zp, Zr)
    assert n_p == n_r == n_b
    np.testing.assert_array_equal(Zb, Zr)
    logical = ("candidates", "forbidden", "compatibility_tests", "incompatible", "rescans")
    assert [cp[k] for k in logical] == [cr[k] for k in logical]
    # the answers that certificates gave without peeling were checked against the reference too
    assert cb["certified"] == cp["certified"] <= cp["incompatible"] and cr["certified"] == 0
    return cr, cb


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 40), st.integers(0, 2**31), st.sampled_from(["tree", "classes", "random"]), st.booleans())
def test_peeling_compatibility_test_equals_the_recursion(n, seed, kind, ties):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    if ties:
        X = np.round(X)  # duplicate points and equal distances
    _assert_peel_matches_reference(X, _random_relative(n, rng, kind))


def test_peeling_equals_the_recursion_where_it_fails_deep():
    """Two classes and about |D| constraints: the regime of deep incompatibilities (Transfusion)."""
    n_tests = n_incompatible = n_certified = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        n = 150
        y = (rng.random(n) < 0.3).astype(int)
        X = rng.normal(size=(n, 3)) + 0.7 * y[:, None]  # overlapping classes
        if seed % 2:
            X = np.round(X, 1)
        ds = ccexp.data.Dataset(name="toy", y=y, X=X)
        R = ccexp.make_problem("relative_random", ds, fraction=1.0, random_state=seed).relative
        c, both = _assert_peel_matches_reference(X, R)
        n_tests += c["compatibility_tests"]
        n_incompatible += c["incompatible"]
        n_certified += both["certified"]
    assert n_incompatible > 1000 and n_tests > n_incompatible  # both answers were exercised
    assert 100 < n_certified < n_incompatible  # ... and the certificates, beside peeling


def _greatest_connected_set(n, R, i, j):
    """Plain Python: shrink S to the component of i in G(S) (an edge a b per ab|c inside S, and i j) until stable."""
    S = set(range(n))
    while True:
        adj = {v: set() for v in S}
        adj[i].add(j)
        adj[j].add(i)
        for a, b, c in R:
            if a in S and b in S and c in S:
                adj[a].add(b)
                adj[b].add(a)
        seen, todo = {i}, [i]
        while todo:
            for w in adj[todo.pop()] - seen:
                seen.add(w)
                todo.append(w)
        if seen == S:
            return len(S)
        S = seen


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 12), st.integers(0, 2**31), st.sampled_from(["tree", "classes", "random"]))
def test_peeling_returns_the_size_of_the_greatest_connected_set(n, seed, kind):
    """The size the certificates rely on, for every pair of the first state, against a plain-Python fixed point."""
    from ccexp.algorithms.relative._agglomerate import _peel_work
    from ccexp.algorithms.relative._compat_peel import test_compatibility_peel
    from ccexp.algorithms.relative._constraint_state import ConstraintSlots, init_components, slot_incidence

    rng = np.random.default_rng(seed)
    R = _random_relative(n, rng, kind)
    R = R[R[:, 0] != R[:, 1]]
    work = _peel_work(n, len(R))
    cons = ConstraintSlots(R[:, 0].copy(), R[:, 1].copy(), R[:, 2].copy(), np.ones(len(R), dtype=np.bool_))
    slots = np.arange(n, dtype=np.int64)
    slot_incidence(cons, work.inc, work.fill)
    init_components(slots, cons, work.comps)
    counters = np.zeros(9, dtype=np.int64)
    tick = 1
    for i, j in itertools.combinations(range(n), 2):
        size, tick = test_compatibility_peel(i, j, slots, cons, work.inc, work.comps, work.luf, work.peel, tick,
                                             counters)
        assert size == _greatest_connected_set(n, R.tolist(), i, j), (i, j)


def _components_plain(live, cons):
    """Plain Python: the components of the live slots with an edge a b per active ab|c, as frozensets."""
    parent = {v: v for v in live}

    def find(v):
        while parent[v] != v:
            v = parent[v]
        return v

    for a, b, on in zip(cons.a, cons.b, cons.active):
        if on:
            parent[find(int(a))] = find(int(b))
    groups = {}
    for v in live:
        groups.setdefault(find(v), set()).add(v)
    return {frozenset(g) for g in groups.values()}


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 30), st.integers(0, 2**31), st.sampled_from(["tree", "classes", "random"]))
def test_components_kept_by_the_merges_equal_a_rebuild(n, seed, kind):
    """After every merge of a random order: the members, the count, and spanning edges that connect each component."""
    from ccexp.algorithms.relative._agglomerate import _merge, _new_clusters
    from ccexp.algorithms.relative._constraint_state import (
        ConstraintSlots,
        component_of,
        init_components,
        merge_components,
        new_components,
    )
    from ccexp.algorithms.relative.recon import incidence

    rng = np.random.default_rng(seed)
    R = _random_relative(n, rng, kind)
    R = R[R[:, 0] != R[:, 1]]
    cl = _new_clusters(np.zeros((n, 1)), R)
    cons = ConstraintSlots(R[:, 0].copy(), R[:, 1].copy(), R[:, 2].copy(), np.ones(len(R), dtype=np.bool_))
    inc_ptr, inc_con = incidence(R, n)
    comps = new_components(n, len(R))
    init_components(np.arange(n, dtype=np.int64), cons, comps)
    Z = np.zeros((n - 1, 4))
    for t in range(n - 1):
        live = [int(v) for v in np.flatnonzero(cl.alive)]
        i, j = (int(v) for v in rng.choice(live, 2, replace=False))
        keep, gone = _merge(i, j, t, Z, cl, cons, R, inc_ptr, inc_con)
        merge_components(keep, gone, comps)
        live.remove(gone)
        expected = _components_plain(live, cons)
        assert comps.n_comp[0] == len(expected)
        for group in expected:
            r = component_of(comps, next(iter(group)))
            members, x = [], comps.m_head[r]
            while x >= 0:
                members.append(int(x))
                x = comps.m_nxt[x]
            assert sorted(members) == sorted(group)  # every live slot once, no retired one
            assert {component_of(comps, v) for v in group} == {r}
            # the spanning edges still active join the whole component
            edges, q = [], comps.t_head[r]
            while q >= 0:
                if cons.active[q]:
                    edges.append((int(cons.a[q]), int(cons.b[q])))
                q = comps.t_nxt[q]
            assert all(a in group and b in group for a, b in edges)
            joined = {v: v for v in group}

            def root(v):
                while joined[v] != v:
                    v = joined[v]
                return v

            for a, b in edges:
                joined[root(a)] = root(b)
            assert len({root(v) for v in group}) == 1


def test_unknown_compatibility_test_is_rejected():
    with pytest.raises(ValueError, match="compatibility_test"):
        constrained_linkage(np.zeros((3, 1)), np.array([[0, 1, 2]]), compatibility_test="fast")

def test_outlier_cut_keeps_constraints_when_it_can_and_counts_them():
    rng = np.random.default_rng(1)
    X = np.concatenate([rng.normal(0, 0.3, (30, 2)), rng.normal(5, 0.3, (30, 2)), [[20.0, 20.0]]])
    Z = linkage(X, "centroid")
    labels, info = cut_hierarchy(Z, len(X) - 1, X, 2, min_branch_size=3)
    assert info["n_outlier_branches"] >= 1 and len(np.unique(labels)) == 2
    plain, _ = cut_hierarchy(Z, len(X) - 1, X, 2, min_branch_size=1)
    assert np.bincount(plain).min() == 1  # the plain cut isolates the far point
    assert labels[-1] == labels[30]  # the outlier joins its nearest cluster


def test_hierarchical_equals_scipy_centroid_linkage():
    X = np.random.default_rng(2).normal(size=(120, 3))
    Z, n_merges, _ = constrained_linkage(X, np.empty((0, 3), dtype=np.int64))
    ref = linkage(X, "centroid")
    np.testing.assert_array_equal(Z[:, :2], ref[:, :2])
    np.testing.assert_allclose(Z[:, 2:], ref[:, 2:], rtol=1e-12, atol=1e-12)
    est = Hierarchical(n_clusters=3, min_branch_size=1).fit(X)
    assert len(np.unique(est.labels_)) == 3


def test_recon_without_constraints_is_hierarchical():
    X = np.random.default_rng(3).normal(size=(60, 2))
    a = ReCon(n_clusters=3).fit(X, relative=np.empty((0, 3), dtype=np.int64))
    b = Hierarchical(n_clusters=3).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)


def test_inconsistent_input_greedy_fallback_or_error():
    X = np.random.default_rng(4).normal(size=(6, 2))
    R = np.array([[0, 1, 2], [3, 4, 5], [0, 2, 1]])  # the third contradicts the first
    est = ReCon(n_clusters=2, min_branch_size=1).fit(X, relative=R)
    assert est.status_ == "inconsistent" and est.n_dropped_ == 1
    assert hierarchy_violations(linkage_to_parent(est.linkage_, 6), R[:2]) == 0
    with pytest.raises(ValueError, match="inconsistent"):
        ReCon(n_clusters=2, on_inconsistent="raise").fit(X, relative=R)


def test_fit_problem_reads_k_and_scores_the_objective():
    y = np.repeat([0, 1, 2], 20)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 2)) + 4 * y[:, None]
    ds = ccexp.data.Dataset(name="toy", y=y, X=X)
    prob = ccexp.make_problem("relative_random", ds, fraction=1.0, random_state=0)
    for name in ("recon", "recon_svm", "hierarchical", "kmeans", "kmeans_svm"):
        est = ccexp.make_algorithm(name, random_state=0).fit_problem(prob)
        assert len(np.unique(est.labels_)) == 3
        s = ccexp.score(est.labels_, y, problem=prob)
        assert s["objective"] == partition_violations(est.labels_, prob.relative).sum()
    assert ccexp.score(ReCon(min_branch_size=1).fit_problem(prob).labels_, y, problem=prob)["objective"] == 0


def test_recon_is_deterministic():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 4, size=(80, 2)).astype(float)  # many exact ties
    y = (X[:, 0] > 1).astype(int)
    ds = ccexp.data.Dataset(name="toy", y=y, X=X)
    prob = ccexp.make_problem("relative_random", ds, fraction=1.0, random_state=0)
    a = ReCon().fit_problem(prob)
    b = ReCon().fit_problem(prob)
    np.testing.assert_array_equal(a.linkage_, b.linkage_)


# --- SVM metric ---------------------------------------------------------------------


def test_svm_metric_weight_on_the_informative_feature_dominates():
    rng = np.random.default_rng(7)
    n = 200
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 4))  # three noise features
    X[:, 2] = 3.0 * y + 0.3 * rng.normal(size=n)  # feature 2 carries the classes
    ds = ccexp.data.Dataset(name="toy", y=y, X=X)
    R = ccexp.make_problem("relative_random", ds, n_constraints=150, random_state=0).relative
    w, info = learn_svm_metric(X, R)
    assert np.argmax(w) == 2 and w[2] > 5 * np.delete(w, 2).max()
    assert np.all(w >= 0)
    assert 0 <= info["gap"] <= 1e-4 * info["primal"]


def test_svm_metric_is_the_qp_optimum_on_a_small_case():
    """Against a brute-force primal: no feasible perturbation lowers the objective."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(12, 3))
    R = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11], [0, 3, 6]])
    w, info = learn_svm_metric(X, R, C=1.0)
    from ccexp.algorithms.relative.svm_metric import comparison_features

    Z = comparison_features(X, R)

    def primal(v):
        return 0.5 * v @ v + np.maximum(0, 1 - Z @ v).sum()

    best = primal(w)
    for _ in range(2000):
        v = np.maximum(w + rng.normal(scale=0.05, size=3), 0)
        assert primal(v) >= best - 1e-6
    assert info["gap"] <= 1e-4 * max(1.0, info["primal"])


def test_svm_metric_without_constraints_is_euclidean():
    w, _ = learn_svm_metric(np.ones((3, 2)), np.empty((0, 3), dtype=np.int64))
    assert w.tolist() == [1.0, 1.0]
