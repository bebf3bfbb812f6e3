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
    t, n_pruned = K.score_bad_triangles(S, eu, ev, m, code, beta, seed, K.Credits(info, tu, tv))
    return info, tu[:t].copy(), tv[:t].copy(), n_pruned


def score_reference(S, eu, ev, strategy, beta, seed):
    """Lines 4-18 of Algorithm 3 in plain Python: a loop over every w, numpy's legacy generator.

    ``np.random.RandomState(seed).randint(0, k)`` draws the same stream as numba's
    ``np.random.seed(seed)`` / ``np.random.randint(0, k)`` (Mersenne Twister seeded by
    ``init_genrand``, masked rejection), so the kernel's draws can be replayed here.  No
    pruning (an optimisation that must not change a credit).  Returns (info, touched u,
    touched v, the generator's next draw).
    """
    rs = np.random.RandomState(seed)
    n = S.shape[0]
    info = np.zeros((n, n))
    touched = []
    for u, v in zip(eu.tolist(), ev.tolist()):
        s_uv = float(S[u, v])
        for w in range(n):
            if w in (u, v):
                continue
            s_uw, s_vw = float(S[u, w]), float(S[v, w])
            if (s_uv >= 0) + (s_uw >= 0) + (s_vw >= 0) != 2:
                continue
            mags = [abs(s_uv), abs(s_uw), abs(s_vw)]
            lo = min(mags)
            tied = [e for e, m in zip([(u, v), (u, w), (v, w)], mags) if m == lo]
            a, b = sorted(tied[0] if len(tied) == 1 else tied[rs.randint(0, len(tied))])
            value = lo if strategy == K.MAXMIN else K.expected_cost(s_uv, s_uw, s_vw, beta)
            if value > info[a, b]:
                if info[a, b] == 0.0:
                    touched.append((a, b))
                info[a, b] = value
    tu = np.array([t[0] for t in touched], dtype=np.int64)
    tv = np.array([t[1] for t in touched], dtype=np.int64)
    return info, tu, tv, rs.randint(0, 2**31 - 1)
