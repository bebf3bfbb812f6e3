"""A CrowdClust-style baseline (Gomes, Welinder, Krause & Perona, NIPS 2011) for triplets.

Ukkonen (2017, Section V) fed CrowdClust the pairwise labels a triplet
implies -- (a, b, c): (a, b) "same", (a, c) and (b, c) "different" -- capped
its optimisation at 20 iterations, took its 4-dimensional item embedding and
clustered it with a Dirichlet-process mixture (:mod:`.dpmm`).
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.mixture import BayesianGaussianMixture
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import threadpool_limits

from ..._validation import check_positive_int, check_random_state
from ...registry import ALGORITHMS
from ..base import RANDOM_STATE
from .base import TripletEstimator
from . import _crowdclust_kernels as K
from . import _crowdclust_vb as V
from .dpmm import DP_CONSTRAINTS, cluster_embedding

#: Largest n for which pair labels are counted in a dense n x n table.
DENSE_PAIR_MAX_ITEMS = 4096


def triplet_pair_labels(triplets, n_items: int):
    """The pairwise labels implied by triplets, counted per unordered pair.

    A triplet (a, b, c) (c the outlier) says (a, b) "same" and (a, c),
    (b, c) "different" (Ukkonen 2017, Section V, on feeding CrowdClust).

    Returns
    -------
    pi, pj : int64 arrays (P,)
        The pairs with at least one label, ``pi < pj``, sorted.
    n_same, n_diff : float64 arrays (P,)
        How often each pair is labelled "same" / "different".
    """
    T = np.asarray(triplets, dtype=np.int64)
    n = int(n_items)
    lo_s, hi_s = np.minimum(T[:, 0], T[:, 1]), np.maximum(T[:, 0], T[:, 1])
    apart = np.concatenate([T[:, [0, 2]], T[:, [1, 2]]])
    lo_d, hi_d = apart.min(axis=1), apart.max(axis=1)
    if n <= DENSE_PAIR_MAX_ITEMS:
        same = np.bincount(lo_s * n + hi_s, minlength=n * n)
        diff = np.bincount(lo_d * n + hi_d, minlength=n * n)
        keys = np.flatnonzero(same + diff)
        n_same, n_diff = same[keys], diff[keys]
    else:
        k_s, k_d = lo_s * n + hi_s, lo_d * n + hi_d
        keys, inv = np.unique(np.concatenate([k_s, k_d]), return_inverse=True)
        n_same = np.bincount(inv[: len(k_s)], minlength=len(keys))
        n_diff = np.bincount(inv[len(k_s):], minlength=len(keys))
    return keys // n, keys % n, n_same.astype(np.float64), n_diff.astype(np.float64)


def _item_csr(pi, pj, n1, n0, n):
    """Both directions of every pair, grouped by item: ``indptr, nbr, n1, n0``."""
    src = np.concatenate([pi, pj])
    dst = np.concatenate([pj, pi])
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst[order], np.concatenate([n1, n1])[order], np.concatenate([n0, n0])[order]


def crowdclust_embedding(
    pi, pj, n_same, n_diff, n_items: int, n_components: int = 4, max_iter: int = 20, tol: float = 1e-6,
    sigma_x: float = 1.0, sigma_w: float = 1.0, sigma_tau: float = 1.0, random_state=None,
):
    """MAP embedding of the single-annotator CrowdClust model by bound maximisation.

    Model (Gomes et al. 2011 with one annotator): x_i ~ N(0, sigma_x^2 I),
    symmetric W with entries ~ N(0, sigma_w^2), tau ~ N(0, sigma_tau^2), and
    P(pair (i, j) labelled "same") = sigma(x_i^T W x_j + tau).  One
    iteration updates every x_i in turn, then W, then tau, each to the
    maximiser of the Jaakkola-Jordan bound made tight at the current point
    (:mod:`._crowdclust_kernels`), so the negative log posterior never
    increases.

    Parameters
    ----------
    pi, pj, n_same, n_diff : arrays (P,)
        Pairs and label counts, see :func:`triplet_pair_labels`.
    n_items, n_components : int
    max_iter : int
        Iterations (Ukkonen capped CrowdClust at 20).
    tol : float
        Stop early when an iteration lowers the objective by less than
        ``tol`` times its value.
    sigma_x, sigma_w, sigma_tau : float
        Prior standard deviations.
    random_state : int, Generator or None
        Seeds the start x_i ~ N(0, I) (W starts at the identity, tau at 0).

    Returns
    -------
    X : float64 array (n_items, n_components)
    info : dict
        ``W``, ``tau``, ``history`` (objective before the first and after
        every iteration), ``n_iter``, ``converged``.
    """
    n = check_positive_int(n_items, "n_items")
    D = check_positive_int(n_components, "n_components")
    max_iter = check_positive_int(max_iter, "max_iter")
    for name, v in (("sigma_x", sigma_x), ("sigma_w", sigma_w), ("sigma_tau", sigma_tau)):
        if not float(v) > 0:
            raise ValueError(f"{name} must be > 0, got {v!r}")
    px, pw, pt = 1.0 / sigma_x**2, 1.0 / sigma_w**2, 1.0 / sigma_tau**2
    pi = np.ascontiguousarray(pi, dtype=np.int64)
    pj = np.ascontiguousarray(pj, dtype=np.int64)
    n1 = np.ascontiguousarray(n_same, dtype=np.float64)
    n0 = np.ascontiguousarray(n_diff, dtype=np.float64)
    indptr, nbr, e1, e0 = _item_csr(pi, pj, n1, n0, n)
    X = check_random_state(random_state).standard_normal((n, D))
    W = np.eye(D)
    tau = 0.0
    history = [K.neg_log_posterior(X, W, tau, pi, pj, n1, n0, px, pw, pt)]
    converged = False
    it = 0
    with threadpool_limits(limits=1, user_api="blas"):
        for it in range(1, max_iter + 1):
            K.update_items(X, W, tau, indptr, nbr, e1, e0, px)
            W, tau = K.update_annotator(X, W, tau, pi, pj, n1, n0, pw, pt)
            history.append(K.neg_log_posterior(X, W, tau, pi, pj, n1, n0, px, pw, pt))
            if history[-2] - history[-1] <= tol * abs(history[-1]):
                converged = True
                break
    return X, {"W": W, "tau": float(tau), "history": np.array(history), "n_iter": it, "converged": converged}


#: How :class:`CrowdClustDPMM` fits the embedding: Gomes et al.'s variational Bayes, or point estimates (MAP).
INFERENCES = ("vb", "map")
#: The prior of the items' coordinates: N(0, sigma_x^2 I), or Gomes et al.'s mixture fitted along (VB only).
ITEM_PRIORS = ("normal", "mixture")


def crowdclust_vb_embedding(
    pi, pj, n_same, n_diff, n_items: int, n_components: int = 4, max_iter: int = 20, tol: float = 1e-6,
    sigmas=(1.0, 1.0, 1.0), item_prior: str = "normal", random_state=None,
):
    """Variational-Bayes fit of the single-annotator CrowdClust model (Gomes et al., NIPS 2011).

    Mean-field Gaussian posteriors over every x_i, W's upper triangle and
    tau, each updated in closed form on the Jaakkola-Jordan bound made
    tight at the current posterior (:mod:`._crowdclust_vb`): the items in
    turn, then W, then tau, per iteration.  The embedding is the posterior
    means.

    Parameters
    ----------
    pi, pj, n_same, n_diff : arrays (P,)
        Pairs and label counts, see :func:`triplet_pair_labels`.
    n_items, n_components : int
    max_iter : int
        Iterations (Ukkonen capped CrowdClust at 20).
    tol : float
        Stop early when an iteration raises the evidence bound by less than
        ``tol`` times its magnitude (with ``item_prior="normal"``).
    sigmas : (float, float, float)
        Prior standard deviations of x's coordinates, of W's entries
        (Frobenius) and of tau.
    item_prior : {"normal", "mixture"}
        ``"normal"``: x_i ~ N(0, sigma_x^2 I).  ``"mixture"``: Gomes et al.'s
        model, whose prior on the items is a Dirichlet-process Gaussian
        mixture learnt with them: after each iteration scikit-learn's DP
        mixture is fitted to the posterior means and each item's prior
        becomes the responsibility-weighted Gaussian of its components (in
        natural parameters); the first iteration uses the normal prior.
    random_state : int, Generator or None
        Seeds the start (means N(0, I), W = I, tau = 0, no variance) and the
        mixture's fits.

    Returns
    -------
    X : float64 array (n_items, n_components)
        Posterior means.
    info : dict
        ``history`` (the evidence bound after every iteration, non-decreasing
        with the normal prior), ``n_iter``, ``converged``, ``W``, ``tau``.
    """
    n = check_positive_int(n_items, "n_items")
    D = check_positive_int(n_components, "n_components")
    max_iter = check_positive_int(max_iter, "max_iter")
    if item_prior not in ITEM_PRIORS:
        raise ValueError(f"item_prior must be one of {ITEM_PRIORS}, got {item_prior!r}")
    sx, sw, st = (float(v) for v in sigmas)
    for name, v in (("sigma_x", sx), ("sigma_w", sw), ("sigma_tau", st)):
        if not v > 0:
            raise ValueError(f"{name} must be > 0, got {v!r}")
    pi = np.ascontiguousarray(pi, dtype=np.int64)
    pj = np.ascontiguousarray(pj, dtype=np.int64)
    n1 = np.ascontiguousarray(n_same, dtype=np.float64)
    n0 = np.ascontiguousarray(n_diff, dtype=np.float64)
    indptr, nbr, e1, e0 = _item_csr(pi, pj, n1, n0, n)
    rng = check_random_state(random_state)
    idx = V.widx(D)
    Q = D * (D + 1) // 2
    mu = rng.standard_normal((n, D))
    S = np.zeros((n, D, D))
    M = np.einsum("na,nb->nab", mu, mu)
    mu_w = np.array([1.0 if a == b else 0.0 for a in range(D) for b in range(a, D)])
    S_w = np.zeros((Q, Q))
    mu_t, s_t = 0.0, 0.0
    prior_w = np.array([1.0 if a == b else 2.0 for a in range(D) for b in range(a, D)]) / sw**2
    prior_prec = np.broadcast_to(np.eye(D) / sx**2, (n, D, D)).copy()
    prior_h = np.zeros((n, D))
    T = np.empty((n, D, D))
    history, converged, it = [], False, 0
    with threadpool_limits(limits=1, user_api="blas"):
        for k in range(n):
            T[k] = V.ewmw(M[k], mu_w, S_w, idx)
        for it in range(1, max_iter + 1):
            tau = np.array([mu_t, s_t])
            V.update_items((mu, S, M), T, (indptr, nbr), (e1, e0), (prior_prec, prior_h), (mu_w, S_w), tau, idx)
            mu_w, S_w, num, den = V.update_annotator((mu, M), T, (pi, pj), (n1, n0), prior_w, (mu_w, S_w), tau, idx)
            s_t = 1.0 / (1.0 / st**2 + den)
            mu_t = num * s_t
            history.append(_vb_bound((mu, S, M), T, (pi, pj, n1, n0), (mu_w, S_w, prior_w), np.array([mu_t, s_t]),
                                     idx, (prior_prec, prior_h), st))
            if item_prior == "mixture":
                prior_prec, prior_h = _mixture_prior(mu, rng)
            elif len(history) > 1 and history[-1] - history[-2] <= tol * abs(history[-1]):
                converged = True
                break
    return mu.copy(), {"history": np.array(history), "n_iter": it, "converged": converged,
                       "W": V.mean_w(mu_w, idx), "tau": float(mu_t)}


def _vb_bound(post, T, labels, qw, tau, idx, prior, st):
    """The evidence lower bound: the labels' bound minus the KL of each posterior from its prior."""
    mu, S, M = post
    pi, pj, n1, n0 = labels
    mu_w, S_w, prior_w = qw
    prior_prec, prior_h = prior
    mu_t, s_t = tau
    lik = V.bound_terms((mu, M), T, (pi, pj), (n1, n0), mu_w, tau, idx)
    kl = _items_kl(mu, S, prior_prec, prior_h)
    kl += 0.5 * (np.sum(prior_w * np.diag(S_w)) + np.sum(prior_w * mu_w**2) - len(mu_w)
                 - np.sum(np.log(prior_w)) - np.linalg.slogdet(S_w)[1])
    kl += 0.5 * ((s_t + mu_t**2) / st**2 - 1.0 + np.log(st**2) - np.log(s_t))
    return float(lik - kl)


def _items_kl(mu, S, prior_prec, prior_h) -> float:
    """sum_i KL(N(mu_i, S_i) || N(P_i^-1 h_i, P_i^-1)), the items' part of the bound's KL.

    The per-item terms come from numpy's stacked linear algebra (one LAPACK
    call per matrix, as a call per item makes) and are added in item order, so
    the sum is bitwise that of a loop over the items
    (``tests/test_crowdclust_vb_speed.py`` holds it to that loop); a loop of numpy calls
    cost 3.6 ms per bound at n = 160, 20 bounds per fit.
    """
    D = mu.shape[1]
    m0 = np.linalg.solve(prior_prec, prior_h[..., None])[..., 0]
    d = mu - m0
    trace = np.trace(prior_prec @ S, axis1=1, axis2=2)
    quad = ((d[:, None, :] @ prior_prec) @ d[:, :, None])[:, 0, 0]
    terms = 0.5 * (trace + quad - D - np.linalg.slogdet(prior_prec)[1] - np.linalg.slogdet(S)[1])
    kl = 0.0
    for v in terms.tolist():  # in item order, as the loop adds them
        kl += v
    return kl


def _mixture_prior(mu, rng):
    """Each item's prior from a DP mixture fitted to the posterior means (natural parameters)."""
    n, D = mu.shape
    bgm = BayesianGaussianMixture(n_components=min(30, n), weight_concentration_prior_type="dirichlet_process",
                                  max_iter=500, reg_covar=1e-4,
                                  covariance_prior=np.atleast_2d(np.cov(mu.T)) + 1e-4 * np.eye(D),
                                  random_state=int(rng.integers(2**32)))
    resp = bgm.fit(mu).predict_proba(mu)
    P = np.einsum("nk,kab->nab", resp, bgm.precisions_)
    h = np.einsum("nk,kab,kb->na", resp, bgm.precisions_, bgm.means_)
    return P, h


@ALGORITHMS.register("crowdclust_dpmm")
class CrowdClustDPMM(TripletEstimator):
    """CrowdClust-style embedding of triplet-implied pair labels, then a DP mixture.

    The CrowdClust baseline of Ukkonen (2017), Section V: each triplet
    (a, b, c) becomes the pair labels (a, b) "same", (a, c) and (b, c)
    "different"; CrowdClust (Gomes et al., NIPS 2011) embeds the items in
    4 dimensions, at most 20 iterations; MB-VDP clusters the embedding.

    By default the embedding is fitted as Gomes et al. fit it, by
    variational Bayes (``inference="vb"``); ``inference="map"`` keeps the
    point estimates of the earlier version.  Against Gomes et al. (also in
    experiments/ukkonen2017/README.md):

    - **one annotator**: triplets carry no worker ids, so all labels share
      one (W, tau);
    - **Gaussian prior on x** (default ``item_prior="normal"``): Gomes et
      al. put a DP mixture as the prior of x and fit it jointly
      (``item_prior="mixture"``); by default the mixture runs afterwards, on
      the embedding, as Ukkonen's two-step pipeline does with MB-VDP;
    - scikit-learn's Dirichlet-process ``BayesianGaussianMixture`` stands in
      for MB-VDP by default (:func:`.dpmm.cluster_embedding`; ``dp="vdp"``:
      the greedy variational DP that MB-VDP builds on).

    Parameters
    ----------
    n_components : int
        Embedding dimension (the paper: 4).
    max_iter : int
        Iterations of the embedding (the paper: capped at 20).
    tol : float
        Relative change of the objective below which it stops early.
    sigma_x, sigma_w, sigma_tau : float
        Prior standard deviations of the item coordinates, of W's entries
        and of the bias.
    inference : {"vb", "map"}
        Gomes et al.'s variational Bayes (:func:`crowdclust_vb_embedding`,
        the embedding the posterior means), or point estimates
        (:func:`crowdclust_embedding`).
    item_prior : {"normal", "mixture"}
        With ``inference="vb"``: x_i ~ N(0, sigma_x^2 I), or Gomes et al.'s
        DP-mixture prior on the items fitted along.
    dp : {"sklearn", "vdp"}
        The DP mixture that clusters the embedding
        (:func:`.dpmm.cluster_embedding`).
    dp_max_components : int
        Truncation of the DP mixture.
    dp_covariance : str
        Covariance type of the mixture components.
    random_state : int, Generator or None

    Attributes
    ----------
    labels_ : int64 array (n_items,)
    embedding_ : float64 array (n_items, n_components)
    objective_history_ : float64 array
        MAP: the negative log posterior before the first and after every
        iteration (non-increasing); VB: the evidence lower bound after every
        iteration (non-decreasing with the normal prior).
    n_iter_ : int
    converged_ : dict
        ``{"embedding": bool, "dpmm": bool}``.
    status_ : str
        ``"ok"`` (the iteration cap is part of the method as the paper ran it).
    timings_ : dict
        Seconds in ``pairs``, ``embedding`` and ``dpmm``.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([[0, 1, 2], [0, 1, 3], [2, 3, 0], [2, 3, 1]] * 5)
    >>> CrowdClustDPMM(random_state=0).fit(T).embedding_.shape
    (4, 4)
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "sigma_x": [Interval(Real, 0, None, closed="neither")],
        "sigma_w": [Interval(Real, 0, None, closed="neither")],
        "sigma_tau": [Interval(Real, 0, None, closed="neither")],
        "inference": [StrOptions(set(INFERENCES))],
        "item_prior": [StrOptions(set(ITEM_PRIORS))],
        **DP_CONSTRAINTS,
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        n_components=4,
        max_iter=20,
        tol=1e-6,
        sigma_x=1.0,
        sigma_w=1.0,
        sigma_tau=1.0,
        inference="vb",
        item_prior="normal",
        dp="sklearn",
        dp_max_components=30,
        dp_covariance="full",
        random_state=None,
    ):
        self.n_components = n_components
        self.max_iter = max_iter
        self.tol = tol
        self.sigma_x = sigma_x
        self.sigma_w = sigma_w
        self.sigma_tau = sigma_tau
        self.inference = inference
        self.item_prior = item_prior
        self.dp = dp
        self.dp_max_components = dp_max_components
        self.dp_covariance = dp_covariance
        self.random_state = random_state

    def _fit(self, T, n_items):
        if self.item_prior != "normal" and self.inference == "map":  # each alone: its constraint; the pair: here
            raise ValueError(f"item_prior={self.item_prior!r} needs inference='vb' (MAP fits the normal prior only)")
        rng = check_random_state(self.random_state)
        emb_seed, dp_seed = rng.spawn(2)
        t0 = time.perf_counter()
        pi, pj, n1, n0 = triplet_pair_labels(T, n_items)
        t1 = time.perf_counter()
        if self.inference == "map":
            X, info = crowdclust_embedding(
                pi, pj, n1, n0, n_items, self.n_components, self.max_iter, self.tol,
                self.sigma_x, self.sigma_w, self.sigma_tau, random_state=emb_seed,
            )
        else:
            X, info = crowdclust_vb_embedding(
                pi, pj, n1, n0, n_items, self.n_components, self.max_iter, self.tol,
                (self.sigma_x, self.sigma_w, self.sigma_tau), self.item_prior, random_state=emb_seed,
            )
        t2 = time.perf_counter()
        self.labels_, dp_converged = cluster_embedding(
            X, self.dp, max_components=self.dp_max_components, covariance_type=self.dp_covariance,
            random_state=dp_seed,
        )
        t3 = time.perf_counter()
        self.embedding_ = X
        self.W_ = info["W"]
        self.tau_ = info["tau"]
        self.objective_history_ = info["history"]
        self.n_iter_ = info["n_iter"]
        self.converged_ = {"embedding": info["converged"], "dpmm": dp_converged}
        self.status_ = "ok"
        self.timings_ = {"pairs": t1 - t0, "embedding": t2 - t1, "dpmm": t3 - t2}
        return self

    @classmethod
    def warmup(cls) -> None:
        T = np.array([[0, 1, 2], [0, 1, 3], [2, 3, 0], [2, 3, 1]], dtype=np.int64)
        cls(max_iter=2).fit(T)
