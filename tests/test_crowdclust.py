"""The CrowdClust-style baseline (Gomes et al. 2011, as Ukkonen 2017 ran it)."""

import itertools

import numpy as np
import pytest

import ccexp
from ccexp.algorithms.triplets import _crowdclust_kernels as K
from ccexp.algorithms.triplets.crowdclust import CrowdClustDPMM, crowdclust_embedding, triplet_pair_labels


def _softplus(z):
    return np.logaddexp(0.0, z)


def ref_neg_log_posterior(X, W, tau, pi, pj, n1, n0, px, pw, pt):
    s = np.einsum("pa,ab,pb->p", X[pi], W, X[pj]) + tau
    return (np.sum(n1 * _softplus(-s) + n0 * _softplus(s)) + 0.5 * px * np.sum(X**2) + 0.5 * pw * np.sum(W**2)
            + 0.5 * pt * tau**2)


def test_pair_labels_by_hand():
    T = np.array([[0, 1, 2], [1, 0, 3], [2, 3, 0]])
    pi, pj, same, diff = triplet_pair_labels(T, 4)
    got = {(int(a), int(b)): (int(s), int(d)) for a, b, s, d in zip(pi, pj, same, diff)}
    # (0,1) same twice; (0,2) diff (t1) + diff (t3); (1,2) diff; (0,3) diff (t2) + diff (t3);
    # (1,3) diff; (2,3) same
    assert got == {(0, 1): (2, 0), (0, 2): (0, 2), (1, 2): (0, 1), (0, 3): (0, 2), (1, 3): (0, 1), (2, 3): (1, 0)}


def test_pair_labels_sparse_path_agrees(monkeypatch):
    import ccexp.algorithms.triplets.crowdclust as cc

    rng = np.random.default_rng(0)
    T = np.array([rng.choice(30, 3, replace=False) for _ in range(200)])
    dense = triplet_pair_labels(T, 30)
    monkeypatch.setattr(cc, "DENSE_PAIR_MAX_ITEMS", 1)
    sparse = triplet_pair_labels(T, 30)
    for a, b in zip(dense, sparse):
        np.testing.assert_array_equal(a, b)


def test_objective_matches_reference():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((6, 3))
    W = rng.standard_normal((3, 3))
    W = W + W.T
    pi, pj = np.array([0, 1, 2, 0]), np.array([1, 4, 5, 5])
    n1, n0 = np.array([2.0, 0, 1, 3]), np.array([0.0, 4, 1, 1])
    got = K.neg_log_posterior(X, W, 0.3, pi, pj, n1, n0, 1.0, 2.0, 0.5)
    assert got == pytest.approx(ref_neg_log_posterior(X, W, 0.3, pi, pj, n1, n0, 1.0, 2.0, 0.5), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("noise", [0.0, 0.2])
def test_objective_never_increases(seed, noise):
    ds = ccexp.load_dataset("synthetic_labels", n=40, k=3, random_state=seed)
    prob = ccexp.make_problem("triplets", ds, fraction=0.1, noise=noise, random_state=seed)
    pi, pj, n1, n0 = triplet_pair_labels(prob.triplets, 40)
    _, info = crowdclust_embedding(pi, pj, n1, n0, 40, max_iter=30, tol=0.0, random_state=seed)
    h = info["history"]
    assert len(h) == 31
    assert np.all(np.diff(h) <= 1e-9 * np.abs(h[:-1])), np.diff(h).max()


def _clean_pair_triplets(y):
    """All triplets whose labels single out the outlier (two in one cluster, the third elsewhere)."""
    rows = []
    for a, b, c in itertools.combinations(range(len(y)), 3):
        for i, j, k in ((a, b, c), (a, c, b), (b, c, a)):
            if y[i] == y[j] != y[k]:
                rows.append((i, j, k))
    return np.array(rows)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("inference", ["vb", "map"])
def test_recovers_three_clusters_from_clean_labels(seed, inference):
    y = np.random.default_rng(seed).permutation(np.repeat([0, 1, 2], 10))
    T = _clean_pair_triplets(y)
    est = CrowdClustDPMM(inference=inference, random_state=seed).fit(T, n_items=30)
    assert ccexp.score(est.labels_, y)["ari"] == pytest.approx(1.0)
    assert est.n_iter_ <= 20
    h = est.objective_history_
    # MAP: the negative log posterior never increases; VB: the evidence bound never decreases
    assert np.all(np.diff(h) <= 0) if inference == "map" else np.all(np.diff(h) >= -1e-9 * np.abs(h[1:]))


# ---------------------------------------------------------------- variational Bayes (Gomes et al. 2011)
def _random_posterior(rng, n=5, D=3):
    from ccexp.algorithms.triplets import _crowdclust_vb as V

    idx = V.widx(D)
    Q = D * (D + 1) // 2
    mu = rng.standard_normal((n, D))
    A = rng.standard_normal((n, D, D))
    S = 0.1 * np.einsum("nab,ncb->nac", A, A) + 0.01 * np.eye(D)
    M = S + np.einsum("na,nb->nab", mu, mu)
    mu_w = rng.standard_normal(Q)
    B = rng.standard_normal((Q, Q))
    S_w = 0.05 * B @ B.T + 0.01 * np.eye(Q)
    return V, idx, mu, S, M, mu_w, S_w


def test_second_moments_against_monte_carlo():
    # E[W M W], E[phi], E[phi phi^T] and E[s^2] (the quantities every VB update is built from) against
    # sampling from the factorised posterior
    rng = np.random.default_rng(0)
    V, idx, mu, S, M, mu_w, S_w = _random_posterior(rng)
    D, Q = mu.shape[1], len(mu_w)
    mu_t, s_t = 0.4, 0.09
    T = np.stack([V.ewmw(M[k], mu_w, S_w, idx) for k in range(len(mu))])
    ephi, epp = np.empty(Q), np.empty((Q, Q))
    V._phi_moments(mu[0], mu[1], M[0], M[1], idx, ephi, epp)
    draws = 400_000
    w = rng.multivariate_normal(mu_w, S_w, size=draws)
    Wd = w[:, idx]  # (draws, D, D)
    x0 = rng.multivariate_normal(mu[0], S[0], size=draws)
    x1 = rng.multivariate_normal(mu[1], S[1], size=draws)
    tau = rng.normal(mu_t, np.sqrt(s_t), size=draws)
    xx = np.einsum("na,nb->nab", x1, x1)
    mc_ewmw = np.einsum("nab,nbc,ncd->ad", Wd, xx, Wd) / draws
    np.testing.assert_allclose(T[1], mc_ewmw, atol=0.05 * np.abs(T[1]).max())
    phi = np.stack([x0[:, a] * x1[:, b] + (x0[:, b] * x1[:, a] if a != b else 0.0)
                    for a in range(D) for b in range(a, D)], axis=1)
    np.testing.assert_allclose(ephi, phi.mean(0), atol=0.03)
    np.testing.assert_allclose(epp, phi.T @ phi / draws, atol=0.05 * np.abs(epp).max())
    s = np.einsum("na,nab,nb->n", x0, Wd, x1) + tau
    assert V.expected_s2(0, 1, mu, M, T, mu_w, np.array([mu_t, s_t]), idx) == pytest.approx(np.mean(s**2), rel=0.03)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("noise", [0.0, 0.2])
def test_vb_evidence_bound_never_decreases(seed, noise):
    from ccexp.algorithms.triplets.crowdclust import crowdclust_vb_embedding

    ds = ccexp.load_dataset("synthetic_labels", n=40, k=3, random_state=seed)
    prob = ccexp.make_problem("triplets", ds, fraction=0.1, noise=noise, random_state=seed)
    pi, pj, n1, n0 = triplet_pair_labels(prob.triplets, 40)
    _, info = crowdclust_vb_embedding(pi, pj, n1, n0, 40, max_iter=25, tol=0.0, random_state=seed)
    h = info["history"]
    assert len(h) == 25 and np.all(np.diff(h) >= -1e-9 * np.abs(h[1:])), np.diff(h).min()


def test_vb_options_and_validation():
    y = np.repeat([0, 1, 2], 8)
    T = _clean_pair_triplets(y)
    est = CrowdClustDPMM(item_prior="mixture", max_iter=4, random_state=0).fit(T, n_items=24)
    assert est.embedding_.shape == (24, 4) and est.n_iter_ == 4
    with pytest.raises(ValueError, match="inference"):
        CrowdClustDPMM(inference="ep").fit(T, n_items=24)
    with pytest.raises(ValueError, match="item_prior"):
        CrowdClustDPMM(inference="map", item_prior="mixture").fit(T, n_items=24)
    with pytest.raises(ValueError, match="dp"):
        CrowdClustDPMM(dp="mbvdp").fit(T, n_items=24)


def test_registered_estimator_is_reproducible():
    ds = ccexp.load_dataset("synthetic_labels", n=60, k=4, random_state=2)
    prob = ccexp.make_problem("triplets", ds, fraction=0.1, noise=0.1, random_state=2)
    a = ccexp.make_algorithm("crowdclust_dpmm", random_state=5).fit_problem(prob)
    b = CrowdClustDPMM(random_state=5).fit_problem(prob)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.status_ == "ok" and set(a.timings_) == {"pairs", "embedding", "dpmm"}


def test_validation_names_the_argument():
    with pytest.raises(ValueError, match="sigma_x"):
        CrowdClustDPMM(sigma_x=0.0).fit(np.array([[0, 1, 2]]))
    with pytest.raises(ValueError, match="max_iter"):
        CrowdClustDPMM(max_iter=0).fit(np.array([[0, 1, 2]]))
