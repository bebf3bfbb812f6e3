"""A variational Dirichlet-process Gaussian mixture grown by greedy splits (Kurihara, Welling & Vlassis 2007).

Ukkonen (2017, Section V) clusters the embeddings of t-STE and CrowdClust with
MB-VDP (Gomes, Welling & Perona, CVPR 2008), whose code is not public any
more.  MB-VDP builds on the accelerated variational DP mixture of Kurihara,
Welling and Vlassis (NIPS 2007), whose public Matlab code (``vdpgm``) fixes
the defaults this module follows: start from **one** component; repeatedly
split a component in two along the principal axis of its covariance, keep the
split that lowers the free energy most, stop when no split lowers it; the
prior is an isotropic Normal-Wishart scaled to the data (``xi0 = 0.01``,
``eta0 = D + 1``, ``B0 = eta0 * xi0 * max_eig(cov(X)) * I``, ``m0`` the data
mean) and the DP concentration is 1.  The stick-breaking posterior has the
"tail" of Kurihara et al.: the last column stands for all the components not
yet instantiated, with the prior's parameters.

Written from the equations (the Normal-Wishart and Beta KL terms, the
expected log-likelihoods of Bishop, PRML 10.2, and the truncated
stick-breaking of Blei & Jordan 2006 with Kurihara et al.'s tail), not from
their code.  Two simplifications, named in
``experiments/ukkonen2017/README.md``: every candidate split is refined by
variational EM on all the data until convergence (vdpgm refines it for 10
iterations on the items it touches, then updates the best), and items are
not grouped into kd-tree nodes or MB-VDP's "clumps" (at n = 160 every item
is its own node).
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln, multigammaln, psi

from ..._validation import check_positive_int


class _Prior:
    """The Normal-Wishart prior of vdpgm (``mk_hp_prior``'s defaults) and the DP concentration."""

    def __init__(self, X, alpha: float, xi0: float, eta_p: float):
        N, D = X.shape
        cov = np.atleast_2d(np.cov(X.T)) if N > 1 else np.eye(D)
        max_eig = float(np.max(np.linalg.eigvalsh(cov))) if N > 1 else 1.0
        if not max_eig > 0:
            max_eig = 1.0
        self.D = D
        self.alpha = float(alpha)
        self.xi0 = float(xi0)
        self.m0 = X.mean(axis=0)
        self.eta0 = eta_p * D + 1.0
        self.B0 = self.eta0 * max_eig * self.xi0 * np.eye(D)
        self.logdet_B0 = float(np.linalg.slogdet(self.B0)[1])


def _posterior(X, q, prior: _Prior):
    """Posterior parameters from responsibilities ``q`` (N x (K + 1), the last column the tail)."""
    true_nc = q.sum(axis=0)
    qg = q.copy()
    qg[:, -1] = 0.0  # the tail keeps the prior's Gaussian parameters
    nc = qg.sum(axis=0)
    D = prior.D
    xi = prior.xi0 + nc
    eta = prior.eta0 + nc
    sum_x = qg.T @ X  # (K+1, D)
    safe = np.where(nc > 1e-200, nc, 1.0)
    xbar = np.where((nc > 1e-200)[:, None], sum_x / safe[:, None], prior.m0[None, :])
    diff = X[None, :, :] - xbar[:, None, :]  # (K+1, N, D)
    S = np.einsum("kn,knd,kne->kde", qg.T, diff, diff)
    v0 = xbar - prior.m0[None, :]
    B = prior.B0[None] + S + (nc * prior.xi0 / xi)[:, None, None] * np.einsum("kd,ke->kde", v0, v0)
    m = (sum_x + prior.xi0 * prior.m0[None, :]) / xi[:, None]
    g1 = 1.0 + true_nc
    g2 = prior.alpha + true_nc.sum() - np.cumsum(true_nc)
    return {"nc": nc, "true_nc": true_nc, "xi": xi, "eta": eta, "B": B, "m": m, "g1": g1, "g2": g2, "D": D}


def _log_lambda(X, post, prior: _Prior):
    """Unnormalised log responsibilities, N x (K + 1)."""
    D = post["D"]
    inv_B = np.linalg.inv(post["B"])
    logdet_B = np.linalg.slogdet(post["B"])[1]
    eta, xi = post["eta"], post["xi"]
    psi_sum = psi((eta[:, None] + 1.0 - np.arange(1, D + 1)[None, :]) / 2.0).sum(axis=1)
    d = X[None, :, :] - post["m"][:, None, :]
    maha = np.einsum("knd,kde,kne->kn", d, inv_B, d)
    e_log_px = (-0.5 * D * np.log(np.pi) - 0.5 * logdet_B + 0.5 * psi_sum - 0.5 * D / xi)[:, None] - 0.5 * eta[:, None] * maha
    g1, g2 = post["g1"], post["g2"]
    dig = psi(g1 + g2)
    e_log_v, e_log_1mv = psi(g1) - dig, psi(g2) - dig
    stick = e_log_v + np.concatenate([[0.0], np.cumsum(e_log_1mv)[:-1]])
    out = (e_log_px + stick[:, None]).T
    # the tail stands for every component after the last instantiated one (Kurihara et al. 2007)
    out[:, -1] -= np.log(1.0 - np.exp(psi(prior.alpha) - psi(1.0 + prior.alpha)))
    return out


def _free_energy(X, post, prior: _Prior, log_lambda=None) -> float:
    """Negative evidence lower bound (to be minimised), with ``q`` at its optimum given ``post``."""
    if log_lambda is None:
        log_lambda = _log_lambda(X, post, prior)
    D, a = post["D"], prior.alpha
    g1, g2 = post["g1"], post["g2"]
    dig = psi(g1 + g2)
    kl_v = (gammaln(g1 + g2) - gammaln(1.0 + a) - gammaln(g1) - gammaln(g2) + gammaln(a)
            + (g1 - 1.0) * (psi(g1) - dig) + (g2 - a) * (psi(g2) - dig))
    inv_B = np.linalg.inv(post["B"])
    logdet_B = np.linalg.slogdet(post["B"])[1]
    xi, eta, nc = post["xi"], post["eta"], post["nc"]
    dm = post["m"] - prior.m0[None, :]
    kl_mean = 0.5 * D * (prior.xi0 / xi - np.log(prior.xi0 / xi) - 1.0) + 0.5 * eta * prior.xi0 * np.einsum(
        "kd,kde,ke->k", dm, inv_B, dm)
    psi_sum = psi((eta[:, None] + 1.0 - np.arange(1, D + 1)[None, :]) / 2.0).sum(axis=1)
    kl_cov = (0.5 * prior.eta0 * (logdet_B - prior.logdet_B0) + 0.5 * nc * psi_sum
              + 0.5 * eta * (np.einsum("kde,ed->k", inv_B, prior.B0) - D)
              + multigammaln(prior.eta0 / 2.0, D) - np.array([multigammaln(e / 2.0, D) for e in eta]))
    mx = log_lambda.max(axis=1, keepdims=True)
    lse = (mx[:, 0] + np.log(np.exp(log_lambda - mx).sum(axis=1))).sum()
    return float(kl_v.sum() + kl_mean.sum() + kl_cov.sum() - lse)


def _softmax(L):
    L = L - L.max(axis=1, keepdims=True)
    P = np.exp(L)
    return P / P.sum(axis=1, keepdims=True)


def _improved(old: float, new: float, threshold: float) -> bool:
    """vdpgm's test: lower, by more than ``threshold`` relative to the old value."""
    return new < old and abs((new - old) / old) >= threshold


def _update(X, q, prior: _Prior, threshold: float, max_iter: int):
    """Variational EM from responsibilities ``q`` until the free energy stops improving (vdpgm's loop).

    Grows the truncation when the tail takes mass, drops an emptied last real
    component, and sorts the components by size once at convergence (vdpgm's
    ``do_sort``), then iterates to convergence again.  Returns (free energy, q).
    """
    f_old = np.inf
    sorted_once = False
    for _ in range(max_iter):
        post = _posterior(X, q, prior)
        L = _log_lambda(X, post, prior)
        f = _free_energy(X, post, prior, L)
        if not (np.isinf(f_old) or _improved(f_old, f, threshold)):
            if sorted_once:
                return f, q
            sorted_once = True
            order = np.argsort(-q[:, :-1].sum(axis=0), kind="stable")
            q = np.concatenate([q[:, :-1][:, order], q[:, -1:]], axis=1)
            f_old = np.inf
            continue
        f_old = f
        q = _softmax(L)
        if q[:, -1].sum() > 1e-20:  # the tail took mass: instantiate it as a component
            q = np.concatenate([q, np.zeros((q.shape[0], 1))], axis=1)
        if q.shape[1] > 2 and q[:, -2].sum() < 1e-10:
            q = np.delete(q, -2, axis=1)
    post = _posterior(X, q, prior)
    return _free_energy(X, post, prior), q


def _split(X, q, c: int, prior: _Prior):
    """Responsibilities with component ``c`` split along the principal axis of its covariance (vdpgm's 'pc')."""
    post = _posterior(X, q, prior)
    cov = post["B"][c] / post["eta"][c]
    w, V = np.linalg.eigh(cov)
    side = (X - post["m"][c]) @ V[:, np.argmax(w)] >= 0
    new = np.zeros((q.shape[0], q.shape[1] + 1))
    new[:, :-2] = q[:, :-1]
    new[:, -1] = q[:, -1]
    new[:, -2] = np.where(side, 0.0, q[:, c])
    new[:, c] = np.where(side, q[:, c], 0.0)
    return new


def vdp_labels(embedding, alpha: float = 1.0, xi0: float = 0.01, eta_p: float = 1.0, max_candidates: int = 10,
               threshold: float = 1e-5, max_iter: int = 500, max_components: int = 100):
    """Cluster the rows of ``embedding`` with the greedy variational DP mixture of vdpgm / MB-VDP.

    Parameters
    ----------
    embedding : float array (n, d)
    alpha : float
        DP concentration (vdpgm's default 1).
    xi0 : float
        Prior precision scale of the means, and the prior covariance's
        fraction of the data's largest variance (vdpgm's default 0.01).
    eta_p : float
        Prior degrees of freedom per dimension, ``eta0 = eta_p * d + 1``.
    max_candidates : int
        Components (with more than 2 items, in order) tried for a split per
        round (vdpgm's ``c_max = 10``).
    threshold : float
        Relative change of the free energy that counts as an improvement
        (vdpgm's default 1e-5).
    max_iter : int
        Cap on variational EM iterations per refinement.
    max_components : int
        Stop splitting at this many components.

    Returns
    -------
    labels : int64 array (n,)
        Contiguous ids ``0 .. h-1`` in order of first appearance.
    info : dict
        ``free_energy``, ``n_components`` (instantiated), ``n_splits``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(0, 0.1, (30, 2)), rng.normal(5, 0.1, (30, 2))])
    >>> labels, info = vdp_labels(X)
    >>> int(labels.max()) + 1, info["n_splits"]
    (2, 1)
    """
    X = np.asarray(embedding, dtype=np.float64)
    if X.ndim != 2 or not np.isfinite(X).all():
        raise ValueError(f"embedding must be a finite 2-d array, got shape {X.shape}")
    max_candidates = check_positive_int(max_candidates, "max_candidates")
    max_iter = check_positive_int(max_iter, "max_iter")
    max_components = check_positive_int(max_components, "max_components")
    if not alpha > 0 or not xi0 > 0 or not eta_p > 0:
        raise ValueError(f"alpha, xi0 and eta_p must be > 0, got {alpha!r}, {xi0!r}, {eta_p!r}")
    n = X.shape[0]
    if n < 2 or np.ptp(X, axis=0).max() <= 0.0:
        return np.zeros(n, dtype=np.int64), {"free_energy": float("nan"), "n_components": 1, "n_splits": 0}
    prior = _Prior(X, alpha, xi0, eta_p)
    q = np.zeros((n, 2))
    q[:, 0] = 1.0  # initial_K = 1
    f, q = _update(X, q, prior, threshold, max_iter)
    splits = 0
    while q.shape[1] - 1 < max_components:
        sizes = q[:, :-1].sum(axis=0)
        candidates = np.flatnonzero(sizes > 2)[:max_candidates]
        best = (np.inf, None)
        for c in candidates:
            fc, qc = _update(X, _split(X, q, int(c), prior), prior, threshold, max_iter)
            if fc < best[0]:
                best = (fc, qc)
        if best[1] is None or not _improved(f, best[0], threshold):
            break
        f, q = best
        splits += 1
    raw = np.argmax(q[:, :-1], axis=1)
    _, first = np.unique(raw, return_index=True)
    order = raw[np.sort(first)]
    remap = np.empty(q.shape[1], dtype=np.int64)
    remap[order] = np.arange(order.shape[0])
    return remap[raw], {"free_energy": f, "n_components": int(q.shape[1] - 1), "n_splits": splits}
