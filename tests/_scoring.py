"""Algorithm 3's scoring over every violating edge, for the tests of the active strategies."""

from __future__ import annotations

import numpy as np

from ccexp.algorithms.active import _kernels as K


def score_violating(S, labels, code, beta, seed):
    """``score_bad_triangles`` on all violating edges of ``labels``: (info, touched u, touched v, n_pruned)."""
    n = S.shape[0]
    eu = np.empty(n * n, dtype=np.int64)
    ev = np.empty(n * n, dtype=np.int64)
    m = K.violating_edges(S, labels, eu, ev)
    info = np.zeros((n, n))
    tu = np.empty(n * n, dtype=np.int64)
    tv = np.empty(n * n, dtype=np.int64)
    t, n_pruned = K.score_bad_triangles(S, eu, ev, m, code, beta, seed, info, tu, tv)
    return info, tu[:t].copy(), tv[:t].copy(), n_pruned
