"""Region-growing rounding of the correlation-clustering LP (Demaine et al. 2006).

Demaine, Emanuel, Fiat and Immorlica, "Correlation clustering in general
weighted graphs", Theor. Comput. Sci. 361 (2006), Section 4 (the rounding of
Garg, Vazirani and Yannakakis for multicut, applied to the LP of
:func:`ccexp.cc.exact.cc_lp`).  With ``x`` the LP distances:

* a ball ``B(u, r)`` holds the remaining nodes ``v`` with ``x_uv <= r``;
* ``cut(B)`` is the weight of the positive edges with one end in ``B``;
* ``vol(B(u, r)) = I + sum_{v,w in B, (v,w) in E+} w_vw x_vw
  + sum_{v in B, w not in B, (v,w) in E+} w_vw (r - x_uv)``, with the seed
  volume ``I = F / n`` and ``F = sum_{E+} w_e x_e``;
* Round: pick a node ``u``, grow ``r`` from 0 until
  ``cut(B(u, r)) <= c ln(n + 1) vol(B(u, r))``, output ``B(u, r)`` as a
  cluster, remove it, repeat until no node is left.

With ``c = 2`` a radius below 1/2 exists for every ball (their Lemma), so a
negative edge inside a ball has ``x <= 2r < 1`` and is paid for by its LP
term; the result is an O(log n) approximation.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path


def region_growing(x: np.ndarray, W: np.ndarray, c: float = 2.0, order=None):
    """Round LP distances into a partition by growing balls.

    Parameters
    ----------
    x : float array (n, n)
        Symmetric LP distances (a semi-metric in [0, 1], 0 on the diagonal).
    W : float array (n, n)
        Signed weights; only the positive part enters ``cut`` and ``vol``.
    c : float
        The constant of the stopping rule (Demaine et al.: 2).
    order : array-like of int, optional
        The order in which nodes are picked as centres (default: index order;
        "pick any node" in the paper).

    Returns
    -------
    labels : int64 array (n,)
    info : dict
        ``radii`` of the balls and ``n_over_half``, the balls that grew to a
        radius >= 1/2 (the lemma's continuous argument bounds r below 1/2;
        the procedure as published checks the rule only when a node enters,
        so a larger radius is possible and is counted rather than hidden).

    Notes
    -----
    Step 3 of Round grows r from 0; nodes enter at their distances (all
    nodes at one distance together).  Between two entries ``cut`` is
    constant and ``vol`` grows linearly with slope ``cut``, so the rule is
    checked at each entry and, failing that, solved for the smallest r
    before the next entry (and below 1/2): the continuous growth of the
    lemma's proof.  Checking only at the entries (a literal reading) would
    miss these radii: on an integral LP solution the next entry is at
    distance 1 and every ball would swallow all remaining nodes.  O(n^2)
    per ball.
    """
    x = np.asarray(x, dtype=np.float64)
    W = np.asarray(W, dtype=np.float64)
    n = x.shape[0]
    Wp = np.where(W > 0, W, 0.0)
    np.fill_diagonal(Wp, 0.0)
    iu, iv = np.triu_indices(n, 1)
    F = float((Wp[iu, iv] * x[iu, iv]).sum())
    seed_vol = F / n if n else 0.0
    bound = c * math.log(n + 1)
    labels = np.full(n, -1, dtype=np.int64)
    alive = np.ones(n, dtype=bool)
    order = np.arange(n) if order is None else np.asarray(order, dtype=np.int64)
    radii, k = [], 0
    for u in order:
        if not alive[u]:
            continue
        rem = np.flatnonzero(alive)
        d = x[u, rem]
        srt = np.argsort(d, kind="stable")
        rem, d = rem[srt], d[srt]
        Wr = Wp[np.ix_(rem, rem)]
        xr = x[np.ix_(rem, rem)]
        # out[v]: positive weight from v to the remaining nodes outside the ball
        out = Wr.sum(axis=1)
        inside_vol = 0.0
        size = 0  # the ball is rem[:size]
        r = 0.0
        while size < rem.size:
            # grow r to the next distance: every node at that distance enters
            r = float(d[size])
            end = size
            while end < rem.size and d[end] <= r:
                end += 1
            for v in range(size, end):
                inside_vol += float((Wr[v, :v] * xr[v, :v]).sum())  # v with the nodes already in
                out -= Wr[:, v]
            size = end
            ball_out = out[:size]
            cut = float(ball_out.sum())
            vol = seed_vol + inside_vol + float((ball_out * (r - d[:size])).sum())
            if cut <= bound * vol + 1e-12 * max(1.0, cut):
                break
            # Until the next node enters, cut stays and vol grows linearly in
            # r: the continuous growth of the proof may meet the rule inside
            # this interval (at the smallest such r, same node set).
            r_hi = min(float(d[size]) if size < rem.size else 0.5, 0.5)
            slope = float(ball_out.sum())
            if r < 0.5 and slope > 0:
                r_star = r + (cut / bound - vol) / slope
                if r_star < r_hi:
                    r = max(r, r_star)
                    break
        labels[rem[:size]] = k
        alive[rem[:size]] = False
        radii.append(r)
        k += 1
    radii = np.asarray(radii)
    return labels, {"radii": radii, "n_over_half": int((radii >= 0.5).sum())}


def edge_metric(x: np.ndarray, W: np.ndarray) -> np.ndarray:
    """The shortest-path metric of the LP values on the evidence edges, capped at 1.

    The LP of :func:`ccexp.cc.exact.cc_lp` has a variable for every pair,
    but a pair that carries no weight costs nothing, so the solver may leave
    it anywhere its triangle inequalities allow (often 0, which would put
    two items with no evidence between them in one ball).  The shortest-path
    distance over the edges with ``W != 0``, with ``x`` as lengths, is the
    largest such choice: it keeps every negative edge's value (the triangle
    inequalities already bound it by every path), can only shorten a
    positive edge (never raising the LP objective), and satisfies all
    triangle inequalities.  So it is an optimal LP solution as well, one
    that separates items with no evidence between them.
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    iu, iv = np.triu_indices(n, 1)
    has = np.asarray(W)[iu, iv] != 0
    # csgraph drops explicit zeros: a length-0 edge gets a tiny positive length
    lengths = np.maximum(x[iu, iv][has], 1e-12)
    G = csr_matrix((lengths, (iu[has], iv[has])), shape=(n, n))
    D = shortest_path(G, method="D", directed=False)
    D = np.minimum(D, 1.0)
    D[D <= 1e-9] = 0.0
    np.fill_diagonal(D, 0.0)
    return D
