"""Numba kernels of the CrowdClust-style embedding (Gomes et al., NIPS 2011).

The model: items x_i in R^D, one annotator with a symmetric W (D x D) and
a bias tau; a pair (i, j) is labelled "same" with probability
sigma(s_ij), s_ij = x_i^T W x_j + tau.  A pair seen n1 times "same" and n0
times "different" contributes n1 log sigma(s) + n0 log sigma(-s).

Every update maximises the Jaakkola-Jordan lower bound
log sigma(z) >= log sigma(xi) + (z - xi) / 2 - lam(xi) (z^2 - xi^2),
lam(xi) = tanh(xi / 2) / (4 xi), made tight at the current point (xi = |s|),
which is quadratic in the block being updated.  Each block update therefore
never lowers the log posterior (a minorise-maximise step).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _jj_lambda(s):
    """lam(|s|) = tanh(|s| / 2) / (4 |s|), with its limit 1/8 at 0."""
    a = abs(s)
    if a < 1e-6:
        return 0.125 - a * a / 96.0
    return math.tanh(0.5 * a) / (4.0 * a)


@njit(cache=True, inline="always")
def _softplus(z):
    """log(1 + e^z) without overflow."""
    if z > 0.0:
        return z + math.log1p(math.exp(-z))
    return math.log1p(math.exp(z))


@njit(cache=True)
def neg_log_posterior(X, W, tau, pi, pj, n1, n0, prior_x, prior_w, prior_tau):
    """-log p(X, W, tau | labels) up to a constant.

    ``prior_*`` are the Gaussian prior precisions (1 / sigma^2) of the
    entries of X, of W (Frobenius) and of tau.  O(P D^2) for P pairs.
    """
    D = X.shape[1]
    f = 0.0
    for p in range(pi.shape[0]):
        s = tau
        for a in range(D):
            acc = 0.0
            for b in range(D):
                acc += W[a, b] * X[pj[p], b]
            s += X[pi[p], a] * acc
        f += n1[p] * _softplus(-s) + n0[p] * _softplus(s)
    f += 0.5 * prior_x * np.sum(X * X) + 0.5 * prior_w * np.sum(W * W) + 0.5 * prior_tau * tau * tau
    return f


@njit(cache=True)
def _solve_spd(A, b):
    """Solve A x = b for a small symmetric positive definite A (Cholesky, in place on copies)."""
    n = A.shape[0]
    L = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            acc = A[i, j]
            for k in range(j):
                acc -= L[i, k] * L[j, k]
            if i == j:
                L[i, i] = math.sqrt(acc)
            else:
                L[i, j] = acc / L[j, j]
    y = np.empty(n)
    for i in range(n):
        acc = b[i]
        for k in range(i):
            acc -= L[i, k] * y[k]
        y[i] = acc / L[i, i]
    x = np.empty(n)
    for i in range(n - 1, -1, -1):
        acc = y[i]
        for k in range(i + 1, n):
            acc -= L[k, i] * x[k]
        x[i] = acc / L[i, i]
    return x


@njit(cache=True)
def update_items(X, W, tau, indptr, nbr, n1, n0, prior_x):
    """One Gauss-Seidel sweep of bound-maximising updates of every x_i (in place).

    For item i with neighbours j (u_j = W x_j, lam_j at the current s_ij):
    (sum_j 2 N lam u_j u_j^T + prior_x I) x_i = sum_j ((n1 - n0) / 2 - 2 N lam tau) u_j.
    O(P D^2) per sweep.
    """
    n, D = X.shape
    A = np.empty((D, D))
    rhs = np.empty(D)
    u = np.empty(D)
    for i in range(n):
        if indptr[i + 1] == indptr[i]:
            continue  # no evidence: the prior's mode is 0, but keep the start (harmless for clustering)
        A[:, :] = 0.0
        for a in range(D):
            A[a, a] = prior_x
        rhs[:] = 0.0
        for e in range(indptr[i], indptr[i + 1]):
            j = nbr[e]
            for a in range(D):
                acc = 0.0
                for b in range(D):
                    acc += W[a, b] * X[j, b]
                u[a] = acc
            s = tau
            for a in range(D):
                s += X[i, a] * u[a]
            N = n1[e] + n0[e]
            lam2 = 2.0 * N * _jj_lambda(s)
            c = 0.5 * (n1[e] - n0[e]) - lam2 * tau
            for a in range(D):
                rhs[a] += c * u[a]
                for b in range(D):
                    A[a, b] += lam2 * u[a] * u[b]
        x = _solve_spd(A, rhs)
        for a in range(D):
            X[i, a] = x[a]


@njit(cache=True)
def update_annotator(X, W, tau, pi, pj, n1, n0, prior_w, prior_tau):
    """Bound-maximising update of W, then of tau; returns the new (W, tau).

    W is parametrised by its upper triangle, w_ab for a <= b, with
    s = sum_ab w_ab phi_ab + tau, phi_aa = x_ia x_ja and
    phi_ab = x_ia x_jb + x_ib x_ja (a < b); the Frobenius prior weighs an
    off-diagonal entry twice.  O(P D^4).
    """
    D = X.shape[1]
    Q = D * (D + 1) // 2
    A = np.zeros((Q, Q))
    rhs = np.zeros(Q)
    phi = np.empty(Q)
    for p in range(pi.shape[0]):
        i = pi[p]
        j = pj[p]
        q = 0
        s = tau
        for a in range(D):
            for b in range(a, D):
                if a == b:
                    v = X[i, a] * X[j, a]
                else:
                    v = X[i, a] * X[j, b] + X[i, b] * X[j, a]
                phi[q] = v
                s += W[a, b] * v
                q += 1
        N = n1[p] + n0[p]
        l2 = 2.0 * N * _jj_lambda(s)
        c = 0.5 * (n1[p] - n0[p]) - l2 * tau
        for q1 in range(Q):
            rhs[q1] += c * phi[q1]
            for q2 in range(Q):
                A[q1, q2] += l2 * phi[q1] * phi[q2]
    q = 0
    for a in range(D):
        for b in range(a, D):
            A[q, q] += prior_w if a == b else 2.0 * prior_w
            q += 1
    w = _solve_spd(A, rhs)
    W2 = np.empty((D, D))
    q = 0
    for a in range(D):
        for b in range(a, D):
            W2[a, b] = w[q]
            W2[b, a] = w[q]
            q += 1
    # tau given the new W (bound made tight again at the new s).
    num = 0.0
    den = prior_tau
    for p in range(pi.shape[0]):
        i = pi[p]
        j = pj[p]
        s0 = 0.0
        for a in range(D):
            acc = 0.0
            for b in range(D):
                acc += W2[a, b] * X[j, b]
            s0 += X[i, a] * acc
        l2 = 2.0 * (n1[p] + n0[p]) * _jj_lambda(s0 + tau)
        num += 0.5 * (n1[p] - n0[p]) - l2 * s0
        den += l2
    return W2, num / den
