"""Numba kernel of t-STE's cost and gradient (van der Maaten & Weinberger 2012).

One pass over the triplets computes the negative log-likelihood of the
embedding and its gradient together; the Python driver
(:func:`ccexp.algorithms.triplets.tste.tste_embedding`) hands both to
scipy's L-BFGS-B.  No ``fastmath``: the cost must be reproducible to the bit.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _term(X, grad, i, j, k, alpha, expo, coef):
    """Add one triplet "i is closer to j than to k" to ``grad``; return -log p_ijk.

    With the Student-t kernel ``K(d2) = (1 + d2 / alpha) ** -expo`` (expo =
    (alpha + 1) / 2), p_ijk = K_ij / (K_ij + K_ik) (eq. 3 of the paper), so
    -log p_ijk = softplus(lr) with lr = expo * log(u_ij / u_ik),
    u = 1 + d2 / alpha, computed without overflow for badly violated triplets.
    """
    d = X.shape[1]
    dij = 0.0
    dik = 0.0
    for s in range(d):
        a = X[i, s] - X[j, s]
        b = X[i, s] - X[k, s]
        dij += a * a
        dik += b * b
    uij = 1.0 + dij / alpha
    uik = 1.0 + dik / alpha
    lr = expo * math.log(uij / uik)
    if lr > 0.0:
        z = math.exp(-lr)
        nll = lr + math.log1p(z)
        q = 1.0 / (1.0 + z)  # 1 - p_ijk
    else:
        z = math.exp(lr)
        nll = math.log1p(z)
        q = z / (1.0 + z)
    # d(-log p)/dx_i = coef * (1 - p) * (x_i - x_j) / u_ij - ... (coef = (alpha + 1) / alpha)
    gij = coef * q / uij
    gik = coef * q / uik
    for s in range(d):
        a = X[i, s] - X[j, s]
        b = X[i, s] - X[k, s]
        grad[i, s] += gij * a - gik * b
        grad[j, s] -= gij * a
        grad[k, s] += gik * b
    return nll


@njit(cache=True)
def tste_cost_grad_direct(X, triplets, alpha, both_anchors, grad):
    """t-STE negative log-likelihood of ``X`` and its gradient (written into ``grad``).

    Parameters
    ----------
    X : float64 array (n, d)
        The embedding.
    triplets : int64 array (m, 3)
        Rows (i, j, k): i is closer to j than to k.
    alpha : float
        Degrees of freedom of the Student-t kernel.
    both_anchors : bool
        Also count (j, i, k) for every row: the reading of a triplet of
        Ukkonen (2017), where (a, b, c) says that c is the outlier, i.e.
        d(a, b) is below both d(a, c) and d(b, c).
    grad : float64 array (n, d)
        Overwritten with the gradient.

    Returns
    -------
    float
        Sum over the triplets of -log p_ijk (eq. 3 of van der Maaten &
        Weinberger 2012 with the Student-t kernel).

    Notes
    -----
    O(m d) time, no memory beyond ``grad``; :func:`tste_cost_grad_pairs`
    computes the same faster when an n x n table fits in memory.
    """
    grad[:, :] = 0.0
    expo = (alpha + 1.0) / 2.0
    coef = (alpha + 1.0) / alpha
    cost = 0.0
    for t in range(triplets.shape[0]):
        i = triplets[t, 0]
        j = triplets[t, 1]
        k = triplets[t, 2]
        cost += _term(X, grad, i, j, k, alpha, expo, coef)
        if both_anchors:
            cost += _term(X, grad, j, i, k, alpha, expo, coef)
    return cost


@njit(cache=True, inline="always")
def _softplus_step(cost, lr):
    """``cost + log(1 + e^lr)`` and ``1 / (1 + e^-lr)``, without overflow."""
    if lr > 0.0:
        z = math.exp(-lr)
        return cost + lr + math.log1p(z), 1.0 / (1.0 + z)
    z = math.exp(lr)
    return cost + math.log1p(z), z / (1.0 + z)


@njit(cache=True)
def pair_indices(triplets, n, both_anchors):
    """Flat indices into n x n tables of the pairs each triplet (i, j, k) reads: ``i n + j``, ``i n + k``, and
    with ``both_anchors`` ``j n + i``, ``j n + k`` (int32: n <= 46,340)."""
    m = triplets.shape[0]
    out = np.empty((m, 4 if both_anchors else 2), dtype=np.int32)
    for t in range(m):
        i = triplets[t, 0]
        j = triplets[t, 1]
        k = triplets[t, 2]
        out[t, 0] = i * n + j
        out[t, 1] = i * n + k
        if both_anchors:
            out[t, 2] = j * n + i
            out[t, 3] = j * n + k
    return out


@njit(cache=True)
def tste_cost_grad_pairs(X, triplets, alpha, both_anchors, grad, step_power=1.0, pairs=None):
    """:func:`tste_cost_grad_direct` through n x n tables of the kernel.

    Every triplet only reads K_ij, K_ik and log K_ij, which depend on item
    pairs alone: they are tabulated once per call (O(n^2 d)), and the
    gradient is accumulated as one scalar weight per pair, turned into
    vectors at the end (grad_i = sum_j S_ij (x_i - x_j)).  Per triplet: one
    log, one division, two scattered adds.

    ``step_power`` (1, the default: the gradient) weighs pair (i, j) by
    ``u_ij ** -step_power`` with u = 1 + d2 / alpha.  The t-STE code that
    Ukkonen (2017) ran (Wilber's tste-theano, after van der Maaten's tste.m)
    weighs it by the kernel K_ij = u_ij ** -((alpha + 1) / 2) instead: the
    gradient only when alpha = 1 (its 2-D default), a different step in the
    paper's 4 dimensions (alpha = 3).  ``step_power = (alpha + 1) / 2``
    computes that step (the cost is the same).

    ``pairs`` (:func:`pair_indices` of ``triplets``, int32) may be computed
    once per fit and passed to every evaluation; None: computed here.

    Notes
    -----
    O(m + n^2 d) time and O(n^2) memory.
    """
    n, d = X.shape
    expo = (alpha + 1.0) / 2.0
    coef = (alpha + 1.0) / alpha
    kern = np.empty((n, n))
    logk = np.empty((n, n))
    for i in range(n):
        kern[i, i] = 1.0
        logk[i, i] = 0.0
        for j in range(i + 1, n):
            d2 = 0.0
            for s in range(d):
                a = X[i, s] - X[j, s]
                d2 += a * a
            lk = -expo * math.log1p(d2 / alpha)
            logk[i, j] = lk
            logk[j, i] = lk
            kv = math.exp(lk)
            kern[i, j] = kv
            kern[j, i] = kv
    if pairs is None:
        pairs = pair_indices(triplets, n, both_anchors)
    acc = np.zeros((n, n))  # acc[i, j]: sum of +-(1 - p) over terms pulling i to / pushing i from j
    # the triplet pass reads the tables through flat pair indices (i n + j): one load per look-up
    # instead of a row and a column from the (i, j, k) rows (the same terms in the same order)
    kf, lf, af = kern.ravel(), logk.ravel(), acc.ravel()
    cost = 0.0
    for t in range(pairs.shape[0]):
        ij = pairs[t, 0]
        ik = pairs[t, 1]
        kij = kf[ij]
        kik = kf[ik]
        tot = kij + kik
        if tot > 0.0:
            cost += math.log(tot) - lf[ij]
            q = kik / tot
        else:  # both kernels underflowed: -log p = softplus(log K_ik - log K_ij)
            cost, q = _softplus_step(cost, lf[ik] - lf[ij])
        af[ij] += q
        af[ik] -= q
        if both_anchors:
            ji = pairs[t, 2]
            jk = pairs[t, 3]
            kjk = kf[jk]
            tot = kij + kjk
            if tot > 0.0:
                cost += math.log(tot) - lf[ij]
                q = kjk / tot
            else:
                cost, q = _softplus_step(cost, lf[jk] - lf[ij])
            af[ji] += q
            af[jk] -= q
    grad[:, :] = 0.0
    power = step_power / expo
    for i in range(n):
        for j in range(i + 1, n):
            w = (acc[i, j] + acc[j, i]) * coef * math.exp(logk[i, j] * power)  # coef (1 - p) / u_ij ** step_power
            if w != 0.0:
                for s in range(d):
                    a = w * (X[i, s] - X[j, s])
                    grad[i, s] += a
                    grad[j, s] -= a
    return cost


@njit(cache=True)
def satisfied_count(X, triplets, both_anchors):
    """Triplets (i, j, k) with d(i, j) < d(i, k) in ``X`` (and d(j, i) < d(j, k) if ``both_anchors``)."""
    count = 0
    d = X.shape[1]
    for t in range(triplets.shape[0]):
        i = triplets[t, 0]
        j = triplets[t, 1]
        k = triplets[t, 2]
        dij = 0.0
        dik = 0.0
        djk = 0.0
        for s in range(d):
            a = X[i, s] - X[j, s]
            b = X[i, s] - X[k, s]
            c = X[j, s] - X[k, s]
            dij += a * a
            dik += b * b
            djk += c * c
        if dij < dik and (not both_anchors or dij < djk):
            count += 1
    return count

