"""The greedy variational DP mixture of Kurihara et al. (2007) that stands in for MB-VDP (Ukkonen 2017, Section V)."""

import numpy as np
import pytest
from scipy.special import gammaln, multigammaln

from ccexp.algorithms.triplets import vdp as V
from ccexp.algorithms.triplets.dpmm import cluster_embedding, dp_mixture_labels


def _blobs(seed, centres, sd=0.1, each=30):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.normal(c, sd, (each, len(c))) for c in centres])


def _nw_log_evidence(X, prior):
    """log p(X) of one Gaussian under the Normal-Wishart prior, in closed form (conjugacy)."""
    N, D = X.shape
    xbar = X.mean(axis=0)
    S = (X - xbar).T @ (X - xbar)
    xiN, etaN = prior.xi0 + N, prior.eta0 + N
    BN = prior.B0 + S + (prior.xi0 * N / xiN) * np.outer(xbar - prior.m0, xbar - prior.m0)
    return (-0.5 * N * D * np.log(np.pi) + multigammaln(etaN / 2, D) - multigammaln(prior.eta0 / 2, D)
            + 0.5 * prior.eta0 * np.linalg.slogdet(prior.B0)[1] - 0.5 * etaN * np.linalg.slogdet(BN)[1]
            + 0.5 * D * np.log(prior.xi0 / xiN))


def test_free_energy_of_one_component_is_the_exact_negative_log_evidence():
    # With every item in one component, q(mu, Lambda) and q(V) are the exact posteriors: the bound is tight,
    # so F = -log p(X | Normal-Wishart) - log p(all items in component 1 | stick-breaking), by hand.
    X = _blobs(0, [(0.0, 0.0, 0.0)], sd=1.0, each=40)
    prior = V._Prior(X, alpha=1.0, xi0=0.01, eta_p=1.0)
    q = np.zeros((40, 2))
    q[:, 0] = 1.0
    post = V._posterior(X, q, prior)
    N, a = 40, prior.alpha
    log_stick = gammaln(N + 1) + gammaln(1 + a) - gammaln(N + 1 + a)  # B(1 + N, a) / B(1, a)
    assert V._free_energy(X, post, prior) == pytest.approx(-_nw_log_evidence(X, prior) - log_stick, rel=1e-9)


def test_prior_follows_the_vdpgm_defaults():
    X = _blobs(1, [(0.0, 0.0), (3.0, 1.0)], sd=0.5)
    p = V._Prior(X, alpha=1.0, xi0=0.01, eta_p=1.0)
    max_eig = np.linalg.eigvalsh(np.cov(X.T)).max()
    assert p.eta0 == 3.0 and np.allclose(p.B0, 3.0 * 0.01 * max_eig * np.eye(2)) and np.allclose(p.m0, X.mean(0))


@pytest.mark.parametrize("k", [2, 3, 5])  # (one blob: the prior expects components of 10% of the data's SD)
def test_finds_well_separated_clusters(k):
    centres = [(10.0 * i, (-1) ** i * 4.0) for i in range(k)]
    X = _blobs(k, centres)
    labels, info = V.vdp_labels(X)
    truth = np.repeat(np.arange(k), 30)
    assert labels.max() + 1 == k and info["n_splits"] == k - 1
    # the same partition (labels are contiguous in order of first appearance)
    assert (labels == truth).all()


def test_free_energy_never_increases_during_variational_em():
    X = _blobs(2, [(0.0, 0.0), (2.0, 0.0), (1.0, 2.0)], sd=0.6)
    prior = V._Prior(X, 1.0, 0.01, 1.0)
    rng = np.random.default_rng(0)
    q = rng.dirichlet(np.ones(4), size=X.shape[0])
    q = np.concatenate([q, np.zeros((X.shape[0], 1))], axis=1)
    values = []
    for _ in range(30):
        post = V._posterior(X, q, prior)
        L = V._log_lambda(X, post, prior)
        values.append(V._free_energy(X, post, prior, L))
        q = V._softmax(L)
    assert all(b <= a + 1e-9 * abs(a) for a, b in zip(values, values[1:]))


def test_degenerate_and_bad_input():
    labels, info = V.vdp_labels(np.ones((5, 3)))
    assert (labels == 0).all() and info["n_splits"] == 0
    with pytest.raises(ValueError, match="embedding"):
        V.vdp_labels(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="max_candidates"):
        V.vdp_labels(np.zeros((4, 2)), max_candidates=0)
    with pytest.raises(ValueError, match="alpha"):
        V.vdp_labels(np.zeros((4, 2)), alpha=0)


def test_cluster_embedding_dispatch_and_priors():
    X = _blobs(3, [(0.0, 0.0), (6.0, 6.0)], sd=0.3)
    for method in ("sklearn", "vdp"):
        labels, _ = cluster_embedding(X, method, random_state=0)
        assert labels.max() + 1 == 2
    for prior in ("data", "unit", "vdpgm"):
        labels, _ = dp_mixture_labels(X, random_state=0, standardize=prior != "unit", prior=prior)
        assert labels.max() + 1 == 2, prior
    with pytest.raises(ValueError, match="method"):
        cluster_embedding(X, "mbvdp")
    with pytest.raises(ValueError, match="prior"):
        dp_mixture_labels(X, prior="flat")
