"""t-STE (van der Maaten & Weinberger 2012) and the t-STE + DP-mixture baseline of Ukkonen (2017)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ccexp
from ccexp.algorithms.triplets import _tste_kernels as K
from ccexp.algorithms.triplets.dpmm import dp_mixture_labels
from ccexp.algorithms.triplets.tste import TSTEDPMM, satisfied_fraction, tste_embedding

KERNELS = [K.tste_cost_grad_direct, K.tste_cost_grad_pairs]


def ref_cost(X, T, alpha, both):
    """-sum log p_ijk with p = K_ij / (K_ij + K_ik), written as in the paper (eq. 3)."""
    def kern(i, j):
        return (1.0 + np.sum((X[i] - X[j]) ** 2) / alpha) ** (-(alpha + 1) / 2)

    cost = 0.0
    for a, b, c in T:
        anchors = [(a, b, c), (b, a, c)] if both else [(a, b, c)]
        for i, j, k in anchors:
            cost -= math.log(kern(i, j) / (kern(i, j) + kern(i, k)))
    return cost


def _random_case(seed, n=7, d=3, m=12):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    T = np.array([rng.choice(n, 3, replace=False) for _ in range(m)], dtype=np.int64)
    return X, T


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("both", [False, True])
@pytest.mark.parametrize("alpha", [1.0, 3.0])
def test_gradient_matches_finite_differences(kernel, both, alpha):
    X, T = _random_case(0)
    grad = np.empty_like(X)
    cost = kernel(X, T, alpha, both, grad)
    assert cost == pytest.approx(ref_cost(X, T, alpha, both), rel=1e-12)
    h = 1e-6
    num = np.zeros_like(X)
    scratch = np.empty_like(X)
    for i in range(X.shape[0]):
        for s in range(X.shape[1]):
            Xp, Xm = X.copy(), X.copy()
            Xp[i, s] += h
            Xm[i, s] -= h
            num[i, s] = (kernel(Xp, T, alpha, both, scratch) - kernel(Xm, T, alpha, both, scratch)) / (2 * h)
    np.testing.assert_allclose(grad, num, atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_pair_table_kernel_agrees_with_direct(seed, both):
    X, T = _random_case(seed, n=9, d=4, m=40)
    g1, g2 = np.empty_like(X), np.empty_like(X)
    c1 = K.tste_cost_grad_direct(X, T, 3.0, both, g1)
    c2 = K.tste_cost_grad_pairs(X, T, 3.0, both, g2)
    assert c1 == pytest.approx(c2, rel=1e-12)
    np.testing.assert_allclose(g1, g2, atol=1e-12)


def test_far_violations_do_not_overflow():
    # i sits on k and far from j: p_ijk ~ 0, its -log must stay finite and large.
    X = np.array([[0.0, 0.0], [1e150, 0.0], [0.0, 1e-3]])
    T = np.array([[0, 1, 2]], dtype=np.int64)
    for kernel in KERNELS:
        g = np.empty_like(X)
        cost = kernel(X, T, 1.0, False, g)
        assert np.isfinite(cost) and cost > 100
        assert np.isfinite(g).all()


def test_well_separated_triplets_are_satisfied():
    ds = ccexp.load_dataset("synthetic_labels", n=60, k=3, random_state=1)
    prob = ccexp.make_problem("triplets", ds, fraction=0.2, noise=0.0, ambiguous="drop", random_state=1)
    X, info = tste_embedding(prob.triplets, 60, n_components=4, both_anchors=True, random_state=0)
    assert info["n_iter"] >= 1
    assert satisfied_fraction(X, prob.triplets, both_anchors=True) >= 0.95


def test_satisfied_fraction_by_hand():
    X = np.array([[0.0], [1.0], [3.0], [10.0]])
    T = np.array([[0, 1, 2], [1, 2, 0], [2, 3, 1]])
    # d(0,1)=1 < d(0,2)=3 yes; d(1,2)=2 > d(1,0)=1 no; d(2,3)=7 > d(2,1)=2 no
    assert satisfied_fraction(X, T) == pytest.approx(1 / 3)
    # both anchors: (0,1,2) also needs d(1,0)=1 < d(1,2)=2: yes
    assert satisfied_fraction(X, T, both_anchors=True) == pytest.approx(1 / 3)


def test_estimator_recovers_clusters_and_is_reproducible():
    ds = ccexp.load_dataset("synthetic_labels", n=80, k=4, random_state=3)
    prob = ccexp.make_problem("triplets", ds, fraction=0.1, noise=0.1, random_state=3)
    a = TSTEDPMM(random_state=7).fit_problem(prob)
    b = ccexp.make_algorithm("tste_dpmm", random_state=7).fit_problem(prob)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.embedding_, b.embedding_)
    assert a.embedding_.shape == (80, 4)
    assert ccexp.score(a.labels_, ds.y)["ari"] > 0.9
    assert set(a.timings_) == {"embedding", "dpmm"}
    assert a.status_ == "ok"
    # natural input gives the same answer as the problem
    c = TSTEDPMM(random_state=7).fit(prob.triplets, n_items=80)
    np.testing.assert_array_equal(a.labels_, c.labels_)


def test_validation_names_the_argument():
    T = np.array([[0, 1, 2]])
    with pytest.raises(ValueError, match="anchors"):
        TSTEDPMM(anchors="middle").fit(T)
    with pytest.raises(ValueError, match="alpha"):
        tste_embedding(T, 3, alpha=0.0)
    with pytest.raises(ValueError, match="init"):
        tste_embedding(T, 3, n_components=2, init=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="triplets"):
        tste_embedding(np.array([[0, 1, 5]]), 3)


def test_dp_mixture_labels_are_contiguous_and_handle_degenerate_input():
    labels, converged = dp_mixture_labels(np.zeros((5, 2)))
    np.testing.assert_array_equal(labels, np.zeros(5))
    rng = np.random.default_rng(0)
    E = np.concatenate([rng.normal(0, 0.05, (20, 2)), rng.normal(5, 0.05, (20, 2))])
    labels, converged = dp_mixture_labels(E, random_state=0)
    assert labels[0] == 0 and set(labels) == {0, 1}
    assert converged


@pytest.mark.slow
def test_agrees_with_cblearn_when_installed():
    """Same cost as cblearn's scipy TSTE on the same embedding (cblearn is an optional peer)."""
    ste = pytest.importorskip("cblearn.embedding._ste")
    X, T = _random_case(5, n=10, d=4, m=60)
    loss, grad = ste._ste_x_grad(X.ravel(), X.shape, T, True)
    g = np.empty_like(X)
    assert K.tste_cost_grad_pairs(X, T, 3.0, False, g) == pytest.approx(loss, rel=1e-9)
    np.testing.assert_allclose(g.ravel(), grad, atol=1e-9)


def _code_step(X, T, alpha):
    """The step tste-theano computes (its tste_grad_python, re-derived here in numpy), one anchor per row."""
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    Kt = (1 + D2 / alpha) ** (-(alpha + 1) / 2)
    G = np.zeros_like(X)
    const = (alpha + 1) / alpha
    for a, b, c in T:
        P = Kt[a, b] / (Kt[a, b] + Kt[a, c])
        ab = (1 - P) * Kt[a, b] * (X[a] - X[b])
        ac = (1 - P) * Kt[a, c] * (X[a] - X[c])
        G[a] += const * (ab - ac)
        G[b] -= const * ab
        G[c] += const * ac
    return G


@pytest.mark.parametrize("alpha", [1.0, 3.0])
def test_tste_theano_step_is_the_codes(alpha):
    X, T = _random_case(4, n=8, d=4, m=30)
    g_code, g_grad = np.empty_like(X), np.empty_like(X)
    c1 = K.tste_cost_grad_pairs(X, T, alpha, False, g_code, (alpha + 1) / 2)
    c2 = K.tste_cost_grad_pairs(X, T, alpha, False, g_grad)
    assert c1 == c2  # same cost, another step
    np.testing.assert_allclose(g_code, _code_step(X, T, alpha), atol=1e-12)
    if alpha == 1.0:  # the code's 2-D default: its step is the gradient
        np.testing.assert_allclose(g_code, g_grad, atol=1e-12)
    else:
        assert not np.allclose(g_code, g_grad)


def test_gradient_descent_of_the_authors_code():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 10)
    from ccexp.oracles.triplets import generate_triplets
    T, _ = generate_triplets(y, 0.2, 0.0, random_state=1)
    for step in ("gradient", "tste_theano"):
        X, info = tste_embedding(T, 30, 4, None, True, 300, random_state=rng, optimizer="gd", options={"step": step})
        assert info["n_iter"] <= 300 and np.isfinite(X).all()
        g = np.empty_like(X)
        start = 1e-4 * np.random.default_rng(5).standard_normal((30, 4))
        # the best X it returns costs less than its start (the cost is the same kernel's)
        assert info["cost"] < K.tste_cost_grad_pairs(start, T, 3.0, True, g)
        assert info["cost"] == pytest.approx(K.tste_cost_grad_pairs(X, T, 3.0, True, g))
    with pytest.raises(ValueError, match="step"):
        tste_embedding(T, 30, 4, None, True, 10, optimizer="lbfgs", options={"step": "tste_theano"})
    with pytest.raises(ValueError, match="optimizer"):
        tste_embedding(T, 30, 4, None, True, 10, optimizer="adam")


def test_l2_penalty_enters_cost_and_gradient():
    X, T = _random_case(7, n=6, d=2, m=15)
    lam = 0.3
    plain, _ = tste_embedding(T, 6, 2, None, False, 1, init=X, options={"lam": 0.0})
    pen, info = tste_embedding(T, 6, 2, None, False, 1, init=X, options={"lam": lam})
    assert not np.allclose(plain, pen)
    # at the start point the penalised cost is the kernel's plus lam ||X||^2 (one L-BFGS-B step from X)
    g = np.empty_like(X)
    base = K.tste_cost_grad_pairs(pen, T, 1.0, False, g)
    assert info["cost"] == pytest.approx(base + lam * np.sum(pen * pen))
    with pytest.raises(ValueError, match="lam"):
        tste_embedding(T, 6, 2, None, False, 1, options={"lam": -1.0})


def test_pair_indices_are_the_flat_table_positions_each_triplet_reads():
    T = np.array([[0, 1, 2], [2, 0, 1]])
    # n = 3: (i, j) -> 3 i + j
    assert K.pair_indices(T, 3, False).tolist() == [[1, 2], [6, 7]]
    assert K.pair_indices(T, 3, True).tolist() == [[1, 2, 3, 5], [6, 7, 2, 1]]
    assert K.pair_indices(T, 3, True).dtype == np.int32


@pytest.mark.parametrize("both", [False, True])
def test_the_pair_kernel_gives_the_same_bits_with_precomputed_pair_indices(both):
    rng = np.random.default_rng(5)
    n = 30
    T = rng.integers(0, n, size=(2000, 3))
    T = T[(T[:, 0] != T[:, 1]) & (T[:, 0] != T[:, 2]) & (T[:, 1] != T[:, 2])]
    for scale in (1.0, 1e100):  # 1e100: every kernel underflows, the softplus branch
        X = rng.standard_normal((n, 4)) * scale
        g1, g2 = np.empty_like(X), np.empty_like(X)
        c1 = K.tste_cost_grad_pairs(X, T, 3.0, both, g1)
        c2 = K.tste_cost_grad_pairs(X, T, 3.0, both, g2, 1.0, K.pair_indices(T, n, both))
        assert c1 == c2 and np.isfinite(c1) and np.array_equal(g1, g2)
