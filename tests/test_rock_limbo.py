"""ROCK (Guha et al. 2000) and LIMBO (Andritsos et al. 2004), the categorical baselines of Gionis et al. (2007)."""

import itertools

import numpy as np
import pytest

import ccexp
from ccexp.algorithms.aggregation import Limbo, Rock
from ccexp.algorithms.aggregation import _limbo_kernels as LK
from ccexp.algorithms.aggregation import _rock_kernels as RK
from ccexp.algorithms.aggregation.limbo import information_loss, mutual_information, tuple_items
from ccexp.algorithms.aggregation.rock import rock_f, rock_links
from ccexp.cc.labels import relabel_contiguous
from ccexp.metrics import adjusted_rand
from ccexp.problem import Problem

# Five records, three attributes; theta = 1/2: neighbours share >= 2 values
# (Jaccard 2/4), so N(0) = {1, 2}, N(1) = {0}, N(2) = {0, 3}, N(3) = {2, 4},
# N(4) = {3}. Links (common neighbours): (1,2) via 0, (0,3) via 2, (2,4) via 3.
FIVE = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 0], [1, 1, 1]])


def two_groups(rng, n=30, m=6):
    """Two groups of records on disjoint value sets, with noise inside each group."""
    A = rng.integers(0, 2, size=(n, m))
    B = rng.integers(2, 4, size=(n, m))
    A[:, : m // 2] = 0  # half the attributes fixed within a group
    B[:, : m // 2] = 2
    return np.vstack([A, B]), np.repeat([0, 1], n)


# ------------------------------------------------------------------ ROCK
def test_rock_neighbours_and_links_by_hand():
    indptr, indices, L = rock_links(FIVE, 0.5)
    nbrs = [sorted(indices[indptr[u] : indptr[u + 1]].tolist()) for u in range(5)]
    assert nbrs == [[1, 2], [0], [0, 3], [2, 4], [3]]
    expected = np.zeros((5, 5), dtype=int)
    for u, v in [(1, 2), (0, 3), (2, 4)]:
        expected[u, v] = expected[v, u] = 1
    np.testing.assert_array_equal(L, expected)


def test_rock_goodness_by_hand():
    f = rock_f(0.5)
    assert f == pytest.approx(1 / 3)
    e = 1 + 2 * f  # 5/3
    assert RK.goodness(1.0, 1.0, 1.0, e) == pytest.approx(1 / (2 ** (5 / 3) - 2))
    # {1, 2} against {4}: one link, sizes 2 and 1
    assert RK.goodness(1.0, 2.0, 1.0, e) == pytest.approx(1 / (3 ** (5 / 3) - 2 ** (5 / 3) - 1))


def test_rock_merges_by_hand():
    # all three singleton pairs tie at 1 / (2^(5/3) - 2): (0,3) then (1,2) by
    # index; then {1,2} and {4} share a link and {0,3} has none with anyone
    np.testing.assert_array_equal(Rock(n_clusters=3, theta=0.5).fit(FIVE.T).labels_, [0, 1, 1, 0, 2])
    np.testing.assert_array_equal(Rock(n_clusters=2, theta=0.5).fit(FIVE.T).labels_, [0, 1, 1, 0, 1])
    # links run out at two clusters: asking for one merges no further ...
    est = Rock(n_clusters=1, theta=0.5, label_outliers=False).fit(FIVE.T)
    np.testing.assert_array_equal(est.labels_, [0, 1, 1, 0, 1])
    assert est.n_outliers_ == 2
    # ... but the labelling phase moves 0 (neighbours 1, 2) and 3 (neighbours 2, 4) into the big cluster
    np.testing.assert_array_equal(Rock(n_clusters=1, theta=0.5).fit(FIVE.T).labels_, [0, 0, 0, 0, 0])


def rock_reference(T, theta, k):
    """Plain-Python ROCK: recompute every goodness each step; ties to the smallest pair of minimum members."""
    n = len(T)

    def sim(u, v):
        both = [a for a in range(T.shape[1]) if T[u, a] >= 0 and T[v, a] >= 0]
        c = sum(T[u, a] == T[v, a] for a in both)
        return c / (2 * len(both) - c) if both else 0.0

    nb = [{v for v in range(n) if v != u and sim(u, v) >= theta - 1e-12} for u in range(n)]
    link = {(u, v): len(nb[u] & nb[v]) for u in range(n) for v in range(n)}
    e = 1 + 2 * (1 - theta) / (1 + theta)
    clusters = [[u] for u in range(n)]
    linked = sum(any(link[u, v] for v in range(n) if v != u) for u in range(n))
    while linked > k:
        best = None
        for A, B in itertools.combinations(sorted(clusters, key=min), 2):
            lk = sum(link[u, v] for u in A for v in B)
            if lk:
                g = lk / ((len(A) + len(B)) ** e - len(A) ** e - len(B) ** e)
                if best is None or g > best[0]:
                    best = (g, A, B)
        if best is None:
            break
        clusters.remove(best[1])
        clusters.remove(best[2])
        clusters.append(best[1] + best[2])
        linked -= 1
    labels = np.empty(n, dtype=int)
    for c, members in enumerate(clusters):
        labels[members] = c
    return relabel_contiguous(labels)


@pytest.mark.parametrize("seed", range(25))
def test_rock_agrees_with_plain_python(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(4, 13)), int(rng.integers(2, 5))
    T = rng.integers(0, 3, size=(n, m))
    T[rng.random((n, m)) < 0.1] = -1
    theta, k = float(rng.choice([0.3, 0.5])), int(rng.integers(1, 4))
    got = Rock(n_clusters=k, theta=theta, label_outliers=False).fit(T.T).labels_
    np.testing.assert_array_equal(got, rock_reference(T, theta, k))


def test_rock_missing_values_drop_the_attribute_from_both_records():
    # records agree on both attributes they share: similarity 1
    T = np.array([[0, 1, -1], [0, 1, 5]])
    indptr, indices, _ = rock_links(T, 0.99)
    assert indices.tolist() == [1, 0]


def test_rock_labels_outliers_to_their_neighbours_cluster():
    rng = np.random.default_rng(0)
    T, y = two_groups(rng)
    deg = np.diff(rock_links(T, 0.5)[0])
    d = int(np.sort(deg)[5]) + 1  # at least the six records of fewest neighbours are outliers
    est = Rock(n_clusters=2, theta=0.5, min_neighbours=d, label_outliers=False).fit(T.T)
    assert est.n_outliers_ >= 6
    # they take no part in the merging, then join the group of their neighbours
    lab = Rock(n_clusters=2, theta=0.5, min_neighbours=d).fit(T.T).labels_
    assert adjusted_rand(y, lab) == 1.0


# ----------------------------------------------------------------- LIMBO
def joint(T, labels):
    """p(c, v) of a clustering of the tuples (p(t) = 1/n, p(v|t) = 1/m_t)."""
    items, indptr, V = tuple_items(T)
    n = len(T)
    P = np.zeros((labels.max() + 1, V))
    for t in range(n):
        its = items[indptr[t] : indptr[t + 1]]
        P[labels[t], its] += 1 / (n * len(its))
    return P


def mi(P):
    """I(C; V) of a joint distribution, computed directly."""
    pc = P.sum(1, keepdims=True)
    pv = P.sum(0, keepdims=True)
    nz = P > 0
    return float(np.sum(P[nz] * np.log(P[nz] / (pc @ pv)[nz])))


@pytest.mark.parametrize("seed", range(10))
def test_limbo_information_loss_is_the_drop_of_mutual_information(seed):
    rng = np.random.default_rng(seed)
    T = rng.integers(0, 3, size=(12, 4))
    T[rng.random(T.shape) < 0.15] = -1
    T[:, 0] = np.maximum(T[:, 0], 0)  # every tuple keeps a value
    labels = relabel_contiguous(rng.integers(0, 4, size=12))
    P = joint(T, labels)
    i, j = 0, 1
    merged = np.where(labels == j, i, labels)
    before, after = mi(P), mi(joint(T, relabel_contiguous(merged)))
    w = P.sum(1)
    loss = information_loss(w[i], P[i] / w[i], w[j], P[j] / w[j])
    assert loss == pytest.approx(before - after, rel=1e-10, abs=1e-14)


def test_limbo_tuple_loss_equals_dense_loss():
    rng = np.random.default_rng(1)
    V = 7
    pc = rng.random(V) * (rng.random(V) < 0.6)
    pc /= pc.sum()
    items = np.array([0, 3, 5])
    pt = np.zeros(V)
    pt[items] = 1 / 3
    assert LK.loss_tuple(0.1, items, 1 / 3, 0.4, pc) == pytest.approx(LK.loss_dense(0.1, pt, 0.4, pc), rel=1e-12)


def test_limbo_mutual_information_of_tuples():
    T = np.array([[0, 0], [0, 1], [1, -1]])
    # I(T; V) computed directly from the joint p(t, v)
    assert mutual_information(T) == pytest.approx(mi(joint(T, np.arange(3))), rel=1e-12)


def test_limbo_phi_zero_merges_only_identical_tuples():
    T = np.array([[0, 0], [0, 0], [0, 1], [1, 1], [0, 1]])
    est = Limbo(n_clusters=3, phi=0.0).fit(T.T)
    assert est.n_summaries_ == 3
    np.testing.assert_array_equal(est.labels_, [0, 0, 1, 2, 1])


# ----------------------------------------------------------------- both
@pytest.mark.parametrize("est", [Rock(n_clusters=2, theta=0.5), Limbo(n_clusters=2, phi=0.0), Limbo(n_clusters=2, phi=1.0)],
                         ids=["rock", "limbo0", "limbo1"])
def test_two_separated_groups_are_recovered(est):
    T, y = two_groups(np.random.default_rng(3))
    assert adjusted_rand(y, est.fit(T.T).labels_) == 1.0
    # through the Problem: one attribute = one input clustering
    prob = Problem(n_items=len(T), clusterings=T.T)
    np.testing.assert_array_equal(est.fit_problem(prob).labels_, est.fit(T.T).labels_)


def test_registry_and_validation():
    assert isinstance(ccexp.make_algorithm("rock"), Rock)
    assert isinstance(ccexp.make_algorithm("limbo"), Limbo)
    with pytest.raises(ValueError, match="theta"):
        Rock(theta=1.0).fit(FIVE.T)
    with pytest.raises(ValueError, match="n_clusters"):
        Limbo(n_clusters=0).fit(FIVE.T)
    with pytest.raises(ValueError, match="phi"):
        Limbo(phi=-1).fit(FIVE.T)
    with pytest.raises(ValueError, match="missing"):
        Rock().fit(np.array([[0, -2]]).T)
