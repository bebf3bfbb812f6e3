"""The clustering step shared by the embedding baselines of Ukkonen (2017), Section V.

Ukkonen clusters the t-STE and CrowdClust embeddings with MB-VDP, the
Dirichlet-process mixture of Gomes, Welling and Perona (CVPR 2008), because
it, like the correlation-clustering methods, chooses its own number of
clusters.  MB-VDP is not available here; scikit-learn's variational
:class:`~sklearn.mixture.BayesianGaussianMixture` with a (truncated)
Dirichlet-process prior on the weights stands in for it
(experiments/ukkonen2017/README.md).
"""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import BayesianGaussianMixture
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import threadpool_limits

from ..._validation import check_positive_int, check_random_state
from .vdp import vdp_labels


#: The priors :func:`dp_mixture_labels` can give scikit-learn's mixture (``prior``).
DP_PRIORS = ("data", "unit", "vdpgm")
#: The DP mixtures an embedding baseline can cluster with (:func:`cluster_embedding`'s ``method``).
DP_METHODS = ("sklearn", "vdp")
#: ``_parameter_constraints`` of the embedding baselines' mixture parameters (``dp``, ``dp_max_components``,
#: ``dp_covariance``: :func:`cluster_embedding`'s ``method``, ``max_components``, ``covariance_type``)
DP_CONSTRAINTS = {
    "dp": [StrOptions(set(DP_METHODS))],
    "dp_max_components": [Interval(Integral, 1, None, closed="left")],
    "dp_covariance": [StrOptions({"full", "tied", "diag", "spherical"})],
}


def dp_mixture_labels(
    embedding,
    max_components: int = 30,
    covariance_type: str = "full",
    weight_concentration_prior=None,
    max_iter: int = 500,
    n_init: int = 1,
    reg_covar: float = 1e-4,
    random_state=None,
    standardize: bool = True,
    prior: str = "data",
):
    """Cluster the rows of ``embedding`` with a Dirichlet-process Gaussian mixture.

    Parameters
    ----------
    embedding : float array (n, d)
    max_components : int
        Truncation level of the stick-breaking prior: an upper bound on the
        number of clusters, not a choice of it (capped at n).
    covariance_type : {"full", "tied", "diag", "spherical"}
    weight_concentration_prior : float, optional
        The DP concentration; scikit-learn's default ``1 / max_components``
        when None.
    max_iter, n_init : int
        Variational EM iterations and restarts.
    reg_covar : float
        Added to the diagonal of every covariance, in units of the
        embedding's overall variance, and to the Wishart prior's scale
        matrix (scikit-learn's default: the empirical covariance).  The
        embedding is centred and scaled to unit overall standard deviation
        first: t-STE and CrowdClust embeddings have arbitrary scale, and
        clean evidence can put all items in a lower-dimensional subspace
        (three tight clusters span a plane), where the empirical covariance
        is singular and scikit-learn's fit fails.
    random_state : int, Generator or None
        Seeds the mixture's k-means initialisation.
    standardize : bool
        Centre the embedding and scale it to unit overall standard deviation
        first (default).  False clusters the raw embedding (``reg_covar``
        then in the embedding's own units).
    prior : {"data", "unit", "vdpgm"}
        The Normal-Wishart prior of the components.  ``"data"`` (default):
        scikit-learn's, mean prior the data mean, mean precision 1, ``d``
        degrees of freedom, covariance prior the data's covariance (+
        ``reg_covar``).  ``"unit"``: a fixed prior not adapted to the data,
        mean 0 and covariance prior the identity (meaningful on the raw
        embedding).  ``"vdpgm"``: the defaults of Kurihara et al.'s VDP code,
        on which MB-VDP builds (:mod:`.vdp`): mean precision 0.01, ``d + 1``
        degrees of freedom, covariance prior ``(d + 1) * 0.01 * max_eig * I``.

    Returns
    -------
    labels : int64 array (n,)
        Contiguous cluster ids ``0 .. h-1`` in order of first appearance
        (components that win no item are not clusters).
    converged : bool
        Whether variational EM converged within ``max_iter``.
    """
    E = np.asarray(embedding, dtype=np.float64)
    if E.ndim != 2 or not np.isfinite(E).all():
        raise ValueError(f"embedding must be a finite 2-d array, got shape {E.shape}")
    n = E.shape[0]
    max_components = check_positive_int(max_components, "max_components")
    if n < 2:
        return np.zeros(n, dtype=np.int64), True
    # A degenerate embedding (all rows equal, e.g. no evidence at all) has
    # no covariance to fit: it is one cluster.
    if np.ptp(E, axis=0).max() <= 0.0:
        return np.zeros(n, dtype=np.int64), True
    if prior not in DP_PRIORS:
        raise ValueError(f"prior must be one of {DP_PRIORS}, got {prior!r}")
    if standardize:
        E = E - E.mean(axis=0)
        E = E / np.sqrt(np.mean(E * E))
    seed = _seed(random_state)
    d = E.shape[1]
    if prior == "data":
        extra = {"covariance_prior": _covariance_prior(E, covariance_type, reg_covar)}
    elif prior == "unit":
        extra = {"covariance_prior": _shaped(np.eye(d), covariance_type), "mean_prior": np.zeros(d)}
    else:  # vdpgm: eta0 = d + 1, B0 = eta0 * xi0 * max_eig * I, xi0 = 0.01, m0 the mean
        max_eig = float(np.max(np.linalg.eigvalsh(np.atleast_2d(np.cov(E.T)))))
        extra = {"covariance_prior": _shaped((d + 1) * 0.01 * max(max_eig, 1e-12) * np.eye(d), covariance_type),
                 "degrees_of_freedom_prior": d + 1.0, "mean_precision_prior": 0.01}
    bgm = BayesianGaussianMixture(
        n_components=min(max_components, n),
        covariance_type=covariance_type,
        weight_concentration_prior_type="dirichlet_process",
        weight_concentration_prior=weight_concentration_prior,
        max_iter=max_iter,
        n_init=n_init,
        reg_covar=reg_covar,
        random_state=seed,
        **extra,
    )
    # Small dense algebra (n x d, d ~ 4): BLAS threads only add overhead.
    with warnings.catch_warnings(), threadpool_limits(limits=1, user_api="blas"):
        # Reported through the return value (the estimators record it).
        warnings.simplefilter("ignore", ConvergenceWarning)
        raw = bgm.fit_predict(E)
    _, first = np.unique(raw, return_index=True)
    order = raw[np.sort(first)]
    remap = np.empty(raw.max() + 1, dtype=np.int64)
    remap[order] = np.arange(order.shape[0])
    return remap[raw], bool(bgm.converged_)


def _covariance_prior(E, covariance_type: str, reg: float):
    """scikit-learn's default Wishart scale (the data's covariance), kept positive definite."""
    return _shaped(np.atleast_2d(np.cov(E.T)) + reg * np.eye(E.shape[1]), covariance_type)


def _shaped(cov, covariance_type: str):
    """A covariance prior in the form scikit-learn wants for ``covariance_type``."""
    if covariance_type in ("full", "tied"):
        return cov
    if covariance_type == "diag":
        return np.diag(cov).copy()
    return float(np.mean(np.diag(cov)))


def cluster_embedding(embedding, method: str = "sklearn", *, max_components: int = 30, covariance_type: str = "full",
                      concentration=None, standardize: bool = True, prior: str = "data", random_state=None):
    """The clustering step of the embedding baselines: a DP mixture on the embedding.

    Parameters
    ----------
    embedding : float array (n, d)
    method : {"sklearn", "vdp"}
        ``"sklearn"`` (default): :func:`dp_mixture_labels`, scikit-learn's
        variational DP mixture (truncated at ``max_components``, k-means
        start).  ``"vdp"``: :func:`.vdp.vdp_labels`, the greedy variational DP
        of Kurihara et al. that MB-VDP builds on, with its code's defaults
        (``covariance_type`` full, its own prior; ``standardize`` and
        ``prior`` do not apply).
    max_components, covariance_type, standardize, prior
        Passed to :func:`dp_mixture_labels`.
    concentration : float, optional
        The DP concentration; None: each method's default (scikit-learn's
        ``1 / max_components``, vdpgm's 1).
    random_state : int, Generator or None

    Returns
    -------
    labels : int64 array (n,)
    converged : bool
    """
    if method == "sklearn":
        return dp_mixture_labels(embedding, max_components, covariance_type, concentration,
                                 random_state=random_state, standardize=standardize, prior=prior)
    if method == "vdp":
        labels, _ = vdp_labels(embedding, alpha=1.0 if concentration is None else float(concentration),
                               max_components=max_components)
        return labels, True
    raise ValueError(f"method must be one of {DP_METHODS}, got {method!r}")


def _seed(random_state) -> int:
    """An int seed for scikit-learn from an int, a numpy Generator or None."""
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return None if random_state is None else int(random_state) % (2**32)
    return int(check_random_state(random_state).integers(2**32))
