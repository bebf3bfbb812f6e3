"""The number of clusters an estimator is asked for, shared by the feature-based families."""

from __future__ import annotations

from .._validation import check_positive_int

#: k for a bare ``fit(X)`` that neither sets ``n_clusters`` nor comes with a problem that states it:
#: scikit-learn's clusterers' default (``KMeans(n_clusters=8)``), so the estimators run with their
#: registry defaults as scikit-learn's checks call them (issue 30 item 4)
DEFAULT_N_CLUSTERS = 8


def n_clusters_of(est, problem) -> int:
    """``est.n_clusters``, or else the problem's ``meta["n_clusters"]`` (the true k), or else 8.

    The papers give every method the true number of classes (Zhu, Loy and
    Gong 2013, Section IV; Liu, Zhang and Wang 2011, Section 5); the
    pairwise and relative oracles put it in ``problem.meta``.

    Parameters
    ----------
    est : estimator
        Any estimator with an ``n_clusters`` parameter (None: take the problem's).
    problem : Problem
        The supervision problem being fitted.

    Returns
    -------
    int
        k >= 1.

    A bare ``fit(X)`` with neither gets :data:`DEFAULT_N_CLUSTERS`, as
    scikit-learn's ``KMeans`` does; the runner's problems always state k.

    Raises
    ------
    ValueError
        If k is not a positive integer.
    """
    k = est.n_clusters if est.n_clusters is not None else problem.meta.get("n_clusters", DEFAULT_N_CLUSTERS)
    return check_positive_int(k, "n_clusters")


def n_clusters_for_fit(est) -> int:
    """k for a bare ``fit(X, ...)``: ``est.n_clusters``, else :data:`DEFAULT_N_CLUSTERS` (validated)."""
    return check_positive_int(DEFAULT_N_CLUSTERS if est.n_clusters is None else est.n_clusters, "n_clusters")
