"""Numba kernels of CrowdClust's variational Bayes (Gomes, Welinder, Krause & Perona, NIPS 2011).

The model of :mod:`._crowdclust_kernels` (items x_i in R^D, one annotator
with a symmetric W and a bias tau, P("same" | i, j) = sigma(x_i^T W x_j +
tau)), fitted as Gomes et al. fit it: a factorised Gaussian posterior
q(x_i) = N(mu_i, S_i), q(w) = N(mu_w, S_w) over W's upper triangle
(w_ab, a <= b), q(tau) = N(mu_t, s_t), and for each labelled pair p the
Jaakkola-Jordan bound

    n1 log sigma(s) + n0 log sigma(-s) >= N (log sigma(xi) - xi / 2 + lam(xi) xi^2)
                                          + (n1 - n0) s / 2 - N lam(xi) s^2,

made tight at xi_p^2 = E[s_p^2] (N = n1 + n0).  The bound is quadratic in
each block, so each block's update is a Gaussian in closed form; xi is
re-tightened before each block that uses it, so the lower bound on the
evidence (:func:`elbo`) never decreases.

Second moments used throughout (x_i, x_j, w, tau independent under q):
E[x_i^T W x_j] = mu_i^T E[W] mu_j; E[(x_i^T W x_j)^2] = tr(E[W M_j W] M_i)
with M = S + mu mu^T; E[W M W]_ab = (E[W] M E[W])_ab + sum_cd Cov(W_ac, W_db) M_cd.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._crowdclust_kernels import _jj_lambda, _solve_spd


@njit(cache=True)
def widx(D):
    """``idx[a, b]``: the position of W_ab (= W_ba) in the upper-triangle vector w."""
    idx = np.empty((D, D), dtype=np.int64)
    q = 0
    for a in range(D):
        for b in range(a, D):
            idx[a, b] = q
            idx[b, a] = q
            q += 1
    return idx


@njit(cache=True)
def mean_w(mu_w, idx):
    """E[W] as a D x D matrix."""
    D = idx.shape[0]
    W = np.empty((D, D))
    for a in range(D):
        for b in range(D):
            W[a, b] = mu_w[idx[a, b]]
    return W


@njit(cache=True)
def ewmw(M, mu_w, S_w, idx):
    """E[W M W] for a symmetric M under q(w) (see the module docstring)."""
    D = M.shape[0]
    W = mean_w(mu_w, idx)
    out = W @ M @ W
    for a in range(D):
        for b in range(D):
            acc = 0.0
            for c in range(D):
                for d in range(D):
                    acc += S_w[idx[a, c], idx[d, b]] * M[c, d]
            out[a, b] += acc
    return out


@njit(cache=True)
def _pair_of(idx):
    """``(pa, pb)``: the entry (a, b), a <= b, of W that position q of w holds (the inverse of :func:`widx`)."""
    D = idx.shape[0]
    Q = D * (D + 1) // 2
    pa = np.empty(Q, dtype=np.int64)
    pb = np.empty(Q, dtype=np.int64)
    for a in range(D):
        for b in range(a, D):
            pa[idx[a, b]] = a
            pb[idx[a, b]] = b
    return pa, pb


@njit(cache=True)
def _phi_moments(mi, mj, Mi, Mj, idx, ephi, ephiphi):
    """E[phi] and E[phi phi^T] of phi_ab = x_ia x_jb + x_ib x_ja (a < b), phi_aa = x_ia x_ja (into the arrays given)."""
    pa, pb = _pair_of(idx)
    ephi[:] = 0.0
    ephiphi[:, :] = 0.0
    _add_phi_moments(mi, mj, Mi, Mj, pa, pb, 1.0, 1.0, ephi, ephiphi)


@njit(cache=True)
def _add_phi_moments(mi, mj, Mi, Mj, pa, pb, c, lam2, h, A):
    """``h += c E[phi]`` and ``A += lam2 E[phi phi^T]`` for one pair (see :func:`_phi_moments`).

    The sweep over the pairs adds each pair's moments straight into its
    update instead of storing them first: every entry takes the same float
    operations (the moment rounded to a double, then scaled and added), so
    ``h`` and ``A`` are bitwise what the stored moments gave
    (``tests/test_crowdclust_vb_speed.py``).
    """
    Q = h.shape[0]
    for q in range(Q):
        a, b = pa[q], pb[q]
        h[q] += c * (mi[a] * mj[b] + (mi[b] * mj[a] if a != b else 0.0))
    for q in range(Q):
        a, b = pa[q], pb[q]
        for r in range(Q):
            e, f = pa[r], pb[r]
            # E[x_ia x_jb x_ie x_jf] = Mi[a, e] Mj[b, f]; expand both symmetrised sums
            v = Mi[a, e] * Mj[b, f]
            if e != f:
                v += Mi[a, f] * Mj[b, e]
            if a != b:
                v += Mi[b, e] * Mj[a, f]
                if e != f:
                    v += Mi[b, f] * Mj[a, e]
            A[q, r] += lam2 * v


@njit(cache=True)
def expected_s2(i, j, mu, M, T, mu_w, tau, idx):
    """E[s^2] for pair (i, j), with T[j] = E[W M_j W] (tables kept current by the caller); tau = (mean, var)."""
    return _expected_s2_at(i, j, mu, M, T, mean_w(mu_w, idx), tau[0], tau[1])


@njit(cache=True)
def _expected_s2_at(i, j, mu, M, T, W, mu_t, s_t):
    """:func:`expected_s2` with E[W] given (the sweeps over the pairs build it once, not once per pair)."""
    D = mu.shape[1]
    quad = 0.0
    for a in range(D):
        for b in range(D):
            quad += T[j, a, b] * M[i, b, a]
    lin = 0.0
    for a in range(D):
        acc = 0.0
        for b in range(D):
            acc += W[a, b] * mu[j, b]
        lin += mu[i, a] * acc
    return quad + 2.0 * mu_t * lin + mu_t * mu_t + s_t


@njit(cache=True)
def update_items(post, T, csr, counts, prior, qw, tau, idx):
    """One Gauss-Seidel sweep of q(x_i) = N(mu_i, S_i) (in place), then refresh M_i and T_i = E[W M_i W].

    ``post = (mu, S, M)``; ``csr = (indptr, nbr)`` and ``counts = (n1, n0)`` list
    every item's pairs; ``prior = (prior_prec, prior_h)``; ``qw = (mu_w, S_w)``;
    ``tau = (mean, variance)``.

    Precision: prior_prec[i] + sum_j 2 N lam E[W M_j W]; linear term: prior_h[i] +
    sum_j ((n1 - n0) / 2 - 2 N lam mu_t) E[W] mu_j.  ``prior_prec`` (n, D, D) and
    ``prior_h`` (n, D) are each item's Gaussian prior in natural form (N(0, sigma^2 I):
    I / sigma^2 and 0; a mixture prior: its component's).
    """
    mu, S, M = post
    indptr, nbr = csr
    n1, n0 = counts
    prior_prec, prior_h = prior
    mu_w, S_w = qw
    mu_t, s_t = tau[0], tau[1]
    n, D = mu.shape
    W = mean_w(mu_w, idx)
    A = np.empty((D, D))
    h = np.empty(D)
    u = np.empty(D)
    for i in range(n):
        A[:, :] = prior_prec[i]
        h[:] = prior_h[i]
        for e in range(indptr[i], indptr[i + 1]):
            j = nbr[e]
            N = n1[e] + n0[e]
            lam2 = 2.0 * N * _jj_lambda(math.sqrt(max(_expected_s2_at(i, j, mu, M, T, W, mu_t, s_t), 0.0)))
            for a in range(D):
                acc = 0.0
                for b in range(D):
                    acc += W[a, b] * mu[j, b]
                u[a] = acc
            c = 0.5 * (n1[e] - n0[e]) - lam2 * mu_t
            for a in range(D):
                h[a] += c * u[a]
                for b in range(D):
                    A[a, b] += lam2 * T[j, a, b]
        Si = np.linalg.inv(A)
        Si = 0.5 * (Si + Si.T)
        for a in range(D):
            acc = 0.0
            for b in range(D):
                acc += Si[a, b] * h[b]
            mu[i, a] = acc
        S[i] = Si
        for a in range(D):
            for b in range(D):
                M[i, a, b] = Si[a, b] + mu[i, a] * mu[i, b]
        T[i] = ewmw(M[i], mu_w, S_w, idx)


@njit(cache=True)
def update_annotator(post, T, pairs, counts, prior_w, qw, tau, idx):
    """q(w), then tau's sufficient statistics, each tight at the current point.

    ``post = (mu, M)``; ``pairs = (pi, pj)``; ``counts = (n1, n0)``; ``qw =
    (mu_w, S_w)``; ``tau = (mean, variance)``.  ``prior_w`` is the prior
    precision of w (a vector: W's Frobenius prior weighs an off-diagonal entry
    twice, as the MAP fit does).  Returns ``(mu_w, S_w, num, den)``: q(tau) has
    precision ``1 / sigma_tau^2 + den`` and mean ``num / precision``.  Refreshes
    ``T`` at the new q(w).
    """
    mu, M = post
    pi, pj = pairs
    n1, n0 = counts
    mu_w, S_w = qw
    mu_t, s_t = tau[0], tau[1]
    D = mu.shape[1]
    Q = mu_w.shape[0]
    A = np.zeros((Q, Q))
    h = np.zeros(Q)
    W = mean_w(mu_w, idx)  # E[W] at the current q(w), for the bound's xi
    pa, pb = _pair_of(idx)
    for p in range(pi.shape[0]):
        i, j = pi[p], pj[p]
        N = n1[p] + n0[p]
        lam2 = 2.0 * N * _jj_lambda(math.sqrt(max(_expected_s2_at(i, j, mu, M, T, W, mu_t, s_t), 0.0)))
        c = 0.5 * (n1[p] - n0[p]) - lam2 * mu_t
        _add_phi_moments(mu[i], mu[j], M[i], M[j], pa, pb, c, lam2, h, A)
    for q in range(Q):
        A[q, q] += prior_w[q]
    S_w = np.linalg.inv(A)
    S_w = 0.5 * (S_w + S_w.T)
    mu_w = S_w @ h
    # tau, with the bound re-tightened at the new q(w)
    n = mu.shape[0]
    for k in range(n):
        T[k] = ewmw(M[k], mu_w, S_w, idx)
    num = 0.0
    den = 0.0
    W = mean_w(mu_w, idx)
    for p in range(pi.shape[0]):
        i, j = pi[p], pj[p]
        N = n1[p] + n0[p]
        lam2 = 2.0 * N * _jj_lambda(math.sqrt(max(_expected_s2_at(i, j, mu, M, T, W, mu_t, s_t), 0.0)))
        lin = 0.0
        for a in range(D):
            acc = 0.0
            for b in range(D):
                acc += W[a, b] * mu[j, b]
            lin += mu[i, a] * acc
        num += 0.5 * (n1[p] - n0[p]) - lam2 * lin
        den += lam2
    return mu_w, S_w, num, den


@njit(cache=True)
def bound_terms(post, T, pairs, counts, mu_w, tau, idx):
    """The Jaakkola-Jordan bound on the labels' log-likelihood, summed over pairs (xi_p tight).

    ``post = (mu, M)``, ``pairs = (pi, pj)``, ``counts = (n1, n0)``, ``tau = (mean, variance)``.
    """
    mu, M = post
    pi, pj = pairs
    n1, n0 = counts
    mu_t = tau[0]
    D = mu.shape[1]
    W = mean_w(mu_w, idx)
    total = 0.0
    for p in range(pi.shape[0]):
        i, j = pi[p], pj[p]
        N = n1[p] + n0[p]
        s2 = max(_expected_s2_at(i, j, mu, M, T, W, mu_t, tau[1]), 0.0)
        xi = math.sqrt(s2)
        lam = _jj_lambda(xi)
        lin = 0.0
        for a in range(D):
            acc = 0.0
            for b in range(D):
                acc += W[a, b] * mu[j, b]
            lin += mu[i, a] * acc
        es = lin + mu_t
        # log sigma(xi) - xi / 2, stably
        lsx = -math.log1p(math.exp(-xi)) - 0.5 * xi if xi >= 0 else xi - math.log1p(math.exp(xi)) - 0.5 * xi
        total += N * (lsx + lam * s2) + 0.5 * (n1[p] - n0[p]) * es - N * lam * s2
    return total
