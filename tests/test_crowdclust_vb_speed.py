"""CrowdClust's variational Bayes, made faster without changing a bit (issue 31).

The sweeps over the labelled pairs build E[W] and the positions of w's
entries once instead of once per pair, and add each pair's moments into the
update without storing them; the evidence bound sums the items' KL terms from
numpy's stacked linear algebra.  Each is held here to the plain form it
replaced, to the bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccexp.algorithms.triplets import _crowdclust_vb as V
from ccexp.algorithms.triplets.crowdclust import _items_kl


def phi_moments_reference(mi, mj, Mi, Mj, D):
    """E[phi], E[phi phi^T] as the sweep computed them before: stored, in plain Python (w's entries in widx order)."""
    pairs = [(a, b) for a in range(D) for b in range(a, D)]
    ephi = np.array([mi[a] * mj[b] + (mi[b] * mj[a] if a != b else 0.0) for a, b in pairs])
    epp = np.empty((len(pairs), len(pairs)))
    for q, (a, b) in enumerate(pairs):
        for r, (c, d) in enumerate(pairs):
            v = Mi[a, c] * Mj[b, d]
            if c != d:
                v += Mi[a, d] * Mj[b, c]
            if a != b:
                v += Mi[b, c] * Mj[a, d]
                if c != d:
                    v += Mi[b, d] * Mj[a, c]
            epp[q, r] = v
    return ephi, epp


def posterior(seed, n=6, D=4):
    rng = np.random.default_rng(seed)
    mu = rng.standard_normal((n, D)) * rng.uniform(0.1, 5.0)
    A = rng.standard_normal((n, D, D))
    S = np.einsum("nab,ncb->nac", A, A) / D + 0.01 * np.eye(D)
    M = S + np.einsum("na,nb->nab", mu, mu)
    return rng, mu, S, M


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), D=st.integers(1, 5))
def test_adding_the_moments_directly_equals_adding_the_stored_moments(seed, D):
    rng, mu, S, M = posterior(seed, D=D)
    idx = V.widx(D)
    Q = D * (D + 1) // 2
    pa, pb = V._pair_of(idx)
    A0 = rng.standard_normal((Q, Q))
    h0 = rng.standard_normal(Q)
    A1, h1 = A0.copy(), h0.copy()
    for i, j in [(0, 1), (2, 3), (1, 4), (5, 5)]:
        c, lam2 = rng.standard_normal(), rng.uniform(0.0, 3.0)
        ephi, epp = phi_moments_reference(mu[i], mu[j], M[i], M[j], D)
        for q in range(Q):  # the update as it was written, through the stored moments
            h0[q] += c * ephi[q]
            for r in range(Q):
                A0[q, r] += lam2 * epp[q, r]
        V._add_phi_moments(mu[i], mu[j], M[i], M[j], pa, pb, c, lam2, h1, A1)
    assert np.array_equal(A0, A1) and np.array_equal(h0, h1)


def test_pair_of_inverts_widx():
    for D in range(1, 6):
        idx = V.widx(D)
        pa, pb = V._pair_of(idx)
        assert [idx[a, b] for a, b in zip(pa, pb)] == list(range(D * (D + 1) // 2))
        assert all(a <= b for a, b in zip(pa, pb))


@pytest.mark.parametrize("seed", range(4))
def test_expected_s2_with_w_given_is_expected_s2(seed):
    rng, mu, S, M = posterior(seed)
    D = mu.shape[1]
    idx = V.widx(D)
    Q = D * (D + 1) // 2
    mu_w = rng.standard_normal(Q)
    B = rng.standard_normal((Q, Q))
    S_w = 0.05 * B @ B.T + 0.01 * np.eye(Q)
    T = np.stack([V.ewmw(M[k], mu_w, S_w, idx) for k in range(len(mu))])
    tau = np.array([0.3, 0.2])
    W = V.mean_w(mu_w, idx)
    for i, j in [(0, 1), (3, 2), (4, 4)]:
        assert V._expected_s2_at(i, j, mu, M, T, W, tau[0], tau[1]) == V.expected_s2(i, j, mu, M, T, mu_w, tau, idx)


def items_kl_loop(mu, S, prior_prec, prior_h):
    """The items' KL as the evidence bound summed it before: a loop of numpy calls, item after item."""
    kl = 0.0
    for i in range(mu.shape[0]):
        P = prior_prec[i]
        m0 = np.linalg.solve(P, prior_h[i])
        d = mu[i] - m0
        kl += 0.5 * (np.trace(P @ S[i]) + d @ P @ d - mu.shape[1] - np.linalg.slogdet(P)[1]
                     - np.linalg.slogdet(S[i])[1])
    return kl


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), D=st.integers(1, 5), normal=st.booleans())
def test_items_kl_equals_the_loop_over_items(seed, n, D, normal):
    rng, mu, S, _ = posterior(seed, n=n, D=D)
    if normal:  # the normal prior x ~ N(0, sigma^2 I): the same precision for every item, h = 0
        prior_prec = np.broadcast_to(np.eye(D) / rng.uniform(0.3, 3.0) ** 2, (n, D, D)).copy()
        prior_h = np.zeros((n, D))
    else:  # a mixture prior: each item its own Gaussian
        B = rng.standard_normal((n, D, D))
        prior_prec = np.einsum("nab,ncb->nac", B, B) + np.eye(D)
        prior_h = rng.standard_normal((n, D))
    assert _items_kl(mu, S, prior_prec, prior_h) == items_kl_loop(mu, S, prior_prec, prior_h)
