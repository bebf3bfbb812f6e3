"""Oracles that turn a dataset into m input clusterings (Gionis et al. 2007).

* ``clusterings_categorical``: each categorical attribute is a clustering
  (Section 2, "Clustering categorical data"), ``-1`` where the value is missing.
* ``clusterings_kmeans``: k-means with k = 2..10 on the features (Section 5.1,
  Figure 4; Section 5.3).
* ``clusterings_linkage``: single, complete, average linkage, Ward and
  k-means, all with the same k (Section 5.1, Figure 3).

The missing-value coin ``p`` travels in ``problem.meta["missing_p"]`` so
that the scorer and the algorithms use the same rule.
"""

from __future__ import annotations

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from sklearn.cluster import KMeans

from .._validation import check_random_state
from ..objectives.clusterings import check_p
from ..problem import Problem
from ..registry import ORACLES

LINKAGE_METHODS = ("single", "complete", "average", "ward", "kmeans")


@ORACLES.register("clusterings_categorical", produces="clusterings", needs=("categorical",))
def clusterings_categorical(dataset, p: float = 0.5, random_state=None) -> Problem:
    """One clustering per categorical attribute of ``dataset.categorical``."""
    if dataset.categorical is None:
        raise ValueError(f"clusterings_categorical needs a dataset with categorical attributes; {dataset.name!r} has none")
    C = np.ascontiguousarray(dataset.categorical.T, dtype=np.int64)
    return Problem(n_items=C.shape[1], clusterings=C,
                   meta={"missing_p": check_p(p), "m": int(C.shape[0]), "n_missing": int((C < 0).sum())})


#: k-means starts: scikit-learn's default k-means++, or ``"random"``: k observations drawn at random,
#: Matlab's ``kmeans`` default start ('Start', 'sample') before R2014b (the paper's "Matlab's k-means",
#: Section 5.3, and "Matlab's defaults", Section 5.1).
KMEANS_INITS = ("k-means++", "random")


def _check_init(init) -> str:
    if init not in KMEANS_INITS:
        raise ValueError(f"init must be one of {', '.join(KMEANS_INITS)}; got {init!r}")
    return init


def _kmeans(X, k, rng, n_init, init="k-means++"):
    seed = int(rng.integers(2**31 - 1))
    return KMeans(n_clusters=k, n_init=n_init, init=init, random_state=seed).fit_predict(X).astype(np.int64)


@ORACLES.register("clusterings_kmeans", produces="clusterings", needs=("X",))
def clusterings_kmeans(dataset, k_min: int = 2, k_max: int = 10, n_init: int = 1, random_state=None,
                       init: str = "k-means++") -> Problem:
    """k-means (scikit-learn, ``n_init`` restarts) for every k in ``k_min .. k_max`` on ``dataset.X``.

    ``n_init=1`` mimics a single run of Matlab's ``kmeans`` as the paper
    used it (one random start per k, so some runs end in poor local optima).
    ``init="random"`` starts from k observations drawn at random, Matlab's
    default start in 2007 (``'Start', 'sample'``); the default keeps
    scikit-learn's k-means++ (:data:`KMEANS_INITS`).
    """
    init = _check_init(init)
    if dataset.X is None:
        raise ValueError(f"clusterings_kmeans needs features; dataset {dataset.name!r} has none")
    k_min, k_max = int(k_min), int(k_max)
    if not 1 <= k_min <= k_max:
        raise ValueError(f"need 1 <= k_min <= k_max, got k_min={k_min}, k_max={k_max}")
    rng = check_random_state(random_state)
    C = np.array([_kmeans(dataset.X, k, rng, int(n_init), init) for k in range(k_min, k_max + 1)])
    return Problem(n_items=C.shape[1], clusterings=C, meta={"missing_p": 0.5, "m": int(C.shape[0])})


@ORACLES.register("clusterings_linkage", produces="clusterings", needs=("X",))
def clusterings_linkage(dataset, k: int = 7, methods=LINKAGE_METHODS, n_init: int = 1, random_state=None,
                        init: str = "k-means++") -> Problem:
    """Single, complete, average linkage, Ward (scipy) and k-means, each cut at ``k`` clusters.

    ``init`` is the k-means start (as in :func:`clusterings_kmeans`).
    """
    init = _check_init(init)
    if dataset.X is None:
        raise ValueError(f"clusterings_linkage needs features; dataset {dataset.name!r} has none")
    rng = check_random_state(random_state)
    rows = []
    for method in methods:
        if method == "kmeans":
            rows.append(_kmeans(dataset.X, int(k), rng, int(n_init), init))
        elif method in LINKAGE_METHODS:
            Z = linkage(dataset.X, method=method)
            rows.append(fcluster(Z, t=int(k), criterion="maxclust").astype(np.int64) - 1)
        else:
            raise ValueError(f"unknown method {method!r}; valid methods are {', '.join(LINKAGE_METHODS)}")
    C = np.array(rows)
    return Problem(n_items=C.shape[1], clusterings=C,
                   meta={"missing_p": 0.5, "m": int(C.shape[0]), "methods": ",".join(methods)})
