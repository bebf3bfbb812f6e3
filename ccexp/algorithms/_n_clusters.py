"""The number of clusters an estimator is asked for, shared by the feature-based families."""

from __future__ import annotations

from .._validation import check_positive_int


def n_clusters_of(est, problem) -> int:
    """``est.n_clusters``, or else the problem's ``meta["n_clusters"]`` (the true k).

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

    Raises
    ------
    ValueError
        If neither gives a k, or k is not a positive integer.
    """
    k = est.n_clusters if est.n_clusters is not None else problem.meta.get("n_clusters")
    if k is None:
        raise ValueError(
            f"{type(est).__name__} needs n_clusters: set the parameter or use an oracle that "
            "states it in problem.meta['n_clusters'] (the pairwise and relative oracles do)"
        )
    return check_positive_int(k, "n_clusters")
