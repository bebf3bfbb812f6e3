"""Numba kernel of COP-KMeans (Wagstaff, Cardie, Rogers, Schroedl 2001)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def cop_assign_pass(X, centers, order, ml_ptr, ml_idx, cl_ptr, cl_idx, labels):
    """One assignment step of COP-KMeans (Table 1, step 2 of Wagstaff et al.).

    Points are visited in ``order``; each goes to the nearest center whose
    cluster violates none of its constraints with the points assigned so far
    in this pass (``violate-constraints``: a must-link partner assigned
    elsewhere, or a cannot-link partner assigned to that cluster).

    Parameters
    ----------
    X : float64 (n, d)
    centers : float64 (k, d)
    order : int64 (n,)
    ml_ptr, ml_idx, cl_ptr, cl_idx : int64
        CSR adjacency of the must- and cannot-link graphs.
    labels : int64 (n,)
        Output, overwritten (-1 = not assigned yet).

    Returns
    -------
    int
        -1 if every point was assigned, else the first point with no
        feasible cluster (the algorithm fails there).

    Notes
    -----
    O(n k d + |constraints| k).
    """
    n, d = X.shape
    k = centers.shape[0]
    labels[:] = -1
    dist = np.empty(k)
    for t in range(n):
        i = order[t]
        for c in range(k):
            s = 0.0
            for f in range(d):
                diff = X[i, f] - centers[c, f]
                s += diff * diff
            dist[c] = s
        cand = np.argsort(dist)
        chosen = -1
        for q in range(k):
            c = cand[q]
            ok = True
            for p in range(ml_ptr[i], ml_ptr[i + 1]):
                lj = labels[ml_idx[p]]
                if lj >= 0 and lj != c:
                    ok = False
                    break
            if ok:
                for p in range(cl_ptr[i], cl_ptr[i + 1]):
                    if labels[cl_idx[p]] == c:
                        ok = False
                        break
            if ok:
                chosen = c
                break
        if chosen < 0:
            return i
        labels[i] = chosen
    return -1
