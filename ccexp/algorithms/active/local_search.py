"""Max-correlation local search with a dynamic number of clusters (Algorithm 2).

Aronsson & Chehreghani (2024), Section 2.4: maximise Delta^MaxCor (Eq. 5),
equivalently minimise the correlation-clustering cost of Eq. 2 (Eqs. 3-6),
by single-item moves, opening a new cluster when every existing one scores
below zero; T restarts from random clusterings, the best one kept.
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_labels, check_positive_int, check_random_state
from . import _kernels as K

#: double precision machine epsilon, the paper's eta
ETA = 2.0**-52


def check_similarity_matrix(S, name: str = "S") -> np.ndarray:
    """A float64 C-contiguous symmetric copy of ``S`` with a zero diagonal."""
    S = np.array(S, dtype=np.float64, copy=True, order="C")
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError(f"{name} must be finite")
    if not np.allclose(S, S.T, rtol=0.0, atol=1e-12):
        raise ValueError(f"{name} must be symmetric")
    np.fill_diagonal(S, 0.0)
    return S


def max_correlation_objective(S, labels) -> float:
    """Delta^MaxCor(C) of Eq. 5: the summed similarity of the pairs inside clusters.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[0, 1, -1], [1, 0, -1], [-1, -1, 0]], dtype=float)
    >>> max_correlation_objective(S, np.array([0, 0, 1]))
    1.0
    """
    S = check_similarity_matrix(S)
    labels = check_labels(labels, "labels", n_items=S.shape[0])  # encoded, never cast
    return float(K.max_correlation_plain(S, labels))  # the reference loop (the fast one is checked against it)


def _local_search(S, k, n_restarts, eta, max_passes, rng, ST=None, smax=None, objective=True):
    """Algorithm 2 on a validated matrix; returns (labels, objective, passes per restart).

    The restarts of :func:`max_correlation_clustering` (and of the benches).
    The active estimator writes the same loop around the same kernel in its
    ``fit_problem``, so that its parameters reach the kernel in one call
    (issue 30); ``tests/test_active.py`` holds the two to the same clustering.

    ``objective=False`` returns None for the objective (the exact sum of
    Eq. 5 costs about 0.1 ms at N = 1000).

    ``ST`` is the C-contiguous transpose of ``S``; None when ``S`` is exactly
    symmetric.  ``smax`` is an upper bound on max |S| (None: computed here).
    The kernel's rounding bounds grow with it, so any bound keeps the run
    bitwise the same (a looser one only lets fewer visits skip the exact sums).
    """
    n = S.shape[0]
    ST = S if ST is None else ST
    M = np.empty_like(S)  # the kernel's per-cluster sums, shared by the restarts
    if smax is None:
        smax = K.abs_max(S)  # max |S|, the same for every restart (S^T holds the same values)
    k = min(k, n)  # line 2
    best_labels = np.zeros(n, dtype=np.int64)  # line 4: {z}
    best = -np.inf
    passes = []
    for _ in range(n_restarts):  # line 5
        seeds = rng.integers(0, 2**31 - 1, size=2)
        labels = K.random_labels(n, k, int(seeds[0]))  # lines 6-7
        delta, n_passes = K.local_search_sums(S, ST, labels, int(seeds[1]), eta, max_passes, M, smax)
        passes.append(int(n_passes))
        if delta > best:  # lines 30-33
            best, best_labels = delta, labels
    K.relabel_first_appearance(best_labels)
    # the incremental objective carries rounding; report the exact sum of Eq. 5
    return best_labels, (float(K.max_correlation(S, best_labels)) if objective else None), passes


def max_correlation_clustering(S, k=None, n_restarts: int = 3, eta: float = ETA, max_passes: int = 1000, random_state=None):
    """Cluster a signed similarity matrix by Algorithm 2 of Aronsson & Chehreghani (2024).

    Parameters
    ----------
    S : array (N, N)
        Symmetric pairwise similarities; the diagonal is ignored.
    k : int, optional
        Number of clusters of the random initial clustering (line 7);
        default N.  The number of clusters then changes as items move.
    n_restarts : int
        T, the number of random restarts (paper: 3).
    eta : float
        Stopping threshold on the change of the objective over a pass
        (paper: 2**-52).
    max_passes : int
        Safety cap on passes per restart.
    random_state : int, Generator or None

    Returns
    -------
    labels : int64 array (N,)
        Contiguous cluster ids in order of first appearance.
    objective : float
        Delta^MaxCor (Eq. 5) of ``labels``.

    Notes
    -----
    The first pass of a restart sweeps every row, O(N^2); later passes read
    per-cluster sums of the delta term of Eq. 7, O(N k + moves N), and are
    bitwise the plain row sweep (see ``_kernels.local_search_sums``).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 0, 1, 1, 2])
    >>> S = np.where(y[:, None] == y[None, :], 1.0, -1.0)
    >>> labels, obj = max_correlation_clustering(S, random_state=0)
    >>> labels.tolist(), obj
    ([0, 0, 1, 1, 2], 2.0)
    """
    S = check_similarity_matrix(S)
    n = S.shape[0]
    k = n if k is None else check_positive_int(k, "k")
    n_restarts = check_positive_int(n_restarts, "n_restarts")
    max_passes = check_positive_int(max_passes, "max_passes")
    if not eta >= 0:
        raise ValueError(f"eta must be >= 0, got {eta!r}")
    ST = np.ascontiguousarray(S.T)  # S may be symmetric only within 1e-12
    labels, obj, _ = _local_search(S, k, n_restarts, float(eta), max_passes, check_random_state(random_state), ST)
    return labels, obj
