"""Query strategies of Aronsson & Chehreghani (2024), Section 3.

``uniform``, ``uncertainty`` (Eq. 8), ``frequency`` (Eq. 9), ``maxmin``
(Eq. 10) and ``maxexp`` (Eqs. 11-13), each choosing a batch of B edges by
its top-B scores with random tie-breaks (Section 3.5), never an edge
already queried ``tau`` times.  maxmin and maxexp score edges through the
bad triangles of a sample of the violating edges (Algorithm 3), with
epsilon-greedy exploration.
"""

from __future__ import annotations

import numpy as np

from . import _kernels as K

STRATEGIES = ("uniform", "uncertainty", "frequency", "maxmin", "maxexp")
EXPLORATIONS = ("uniform", "frequency")


def expected_triangle_cost(s_uv, s_uw, s_vw, beta=1.0):
    """Expected cost E[Delta_t] of a triangle t = (u, v, w), Eqs. 11-12.

    Every one of the five clusterings of the triangle gets the Gibbs
    probability ``exp(-beta * cost) / Z`` of Eq. 11, its cost being the
    weight of the edges it violates (Eq. 1, Table 1); the result is the
    mean cost under that distribution.  ``beta = np.inf`` gives the least
    cost (Proposition 2, Eq. 15: for a bad triangle, the least |sigma|),
    ``beta = 0`` the plain mean of the five costs (Eq. 16).

    Parameters
    ----------
    s_uv, s_uw, s_vw : float or array-like
        The similarities sigma(u, v), sigma(u, w), sigma(v, w); arrays
        broadcast against each other.
    beta : float >= 0
        Inverse temperature (paper: 1).

    Returns
    -------
    float or ndarray

    Examples
    --------
    The first row of Table 2 (Appendix B.1):

    >>> round(expected_triangle_cost(1, 1, -1, beta=1), 2)
    1.18
    >>> expected_triangle_cost(1, 1, -1, beta=np.inf), expected_triangle_cost(1, 1, -1, beta=0)
    (1.0, 1.6)
    """
    beta = float(beta)
    if not beta >= 0:
        raise ValueError(f"beta must be >= 0 (np.inf allowed), got {beta!r}")
    a, b, c = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (s_uv, s_uw, s_vw)))
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b)) and np.all(np.isfinite(c))):
        raise ValueError("similarities must be finite")
    out = np.empty(a.shape, dtype=np.float64)
    for idx in np.ndindex(a.shape):
        out[idx] = K.expected_cost(float(a[idx]), float(b[idx]), float(c[idx]), beta)
    return float(out) if out.ndim == 0 else out


def top_b_with_ties(scores, n_want, rng):
    """Indices of the ``n_want`` largest ``scores``, ties at the cut drawn at random.

    The cut is the ``n_want``-th largest score (``K.kth_largest``, the value
    of ``np.partition(scores, m - n_want)[m - n_want]``); returns fewer when
    there are fewer scores.
    """
    m = scores.shape[0]
    if n_want >= m:
        return np.arange(m)
    if n_want <= 0:
        return np.empty(0, dtype=np.int64)
    thr = K.kth_largest(scores, n_want)
    above = np.flatnonzero(scores > thr)
    tied = np.flatnonzero(scores == thr)
    return np.concatenate([above, rng.choice(tied, size=n_want - above.shape[0], replace=False)])


class BatchSelector:
    """Chooses the edges of one iteration (line 6 of Algorithm 1).

    Holds the buffers that every iteration reuses, allocated once for N
    items.  Scores live at ``[a, b]`` with ``a < b``.
    """

    def __init__(self, n, strategy, beta, epsilon, cap, xi, exploration):
        self.n = n
        self.strategy = strategy
        self.beta = float(beta)
        self.epsilon = float(epsilon)
        # most answers an edge may get (None: no cap)
        self.cap = np.iinfo(np.int32).max if cap is None else int(cap)
        self.xi = xi
        self.exploration = exploration
        n_edges = n * (n - 1) // 2
        self.viol_u = np.empty(n_edges, dtype=np.int64)
        self.viol_v = np.empty(n_edges, dtype=np.int64)
        #: the credits of maxmin / maxexp (info, touched_u, touched_v); uncertainty uses the touched
        #: lists as scratch for its candidate edges
        self.credits = K.zero_credits(n)
        self.info, self.touched_u, self.touched_v = self.credits
        self.mark = np.zeros((n, n), dtype=np.uint8)
        self._vals = None
        self._scores = None
        #: uncertainty's cut of the previous step (NaN: none yet) and its per-row counts below / at a cut
        self._last_cut = np.nan
        self.row_below = np.empty(n, dtype=np.int64)
        self.row_tied = np.empty(n, dtype=np.int64)
        #: |E_violates| of the last maxmin / maxexp step (Figure 6c), else -1
        self.n_violations = -1
        self.explored = False

    def _seed(self, rng) -> int:
        return int(rng.integers(0, 2**31 - 1))

    def _random(self, counts, n_want, rng, bu=None, bv=None, n_have=0):
        out_u = np.empty(n_want, dtype=np.int64) if bu is None else bu
        out_v = np.empty(n_want, dtype=np.int64) if bv is None else bv
        k = K.fill_random(self.n, counts, self.cap, self.mark, out_u, out_v, n_have, n_want, self._seed(rng))
        self.mark[out_u[:k], out_v[:k]] = 0
        return out_u[:k], out_v[:k]

    def _frequency(self, counts, n_want, rng):
        out_u = np.empty(n_want, dtype=np.int64)
        out_v = np.empty(n_want, dtype=np.int64)
        k = K.least_queried(counts, self.cap, n_want, self._seed(rng), out_u, out_v)
        return out_u[:k], out_v[:k]

    def _uncertainty(self, S, counts, n_want, rng):
        """Eq. 8: the ``n_want`` eligible edges of least |S|, ties at the cut drawn at random.

        The same edges, in the same order and with the same draws from
        ``rng`` as :meth:`_uncertainty_reference` (``top_b_with_ties`` over
        all |E| magnitudes), without materialising and partitioning them:
        a heap finds the cut, a count of the edges below and at it per row
        (in the heap's pass when the cut is the previous step's), and only
        the tied edges drawn are looked up (by their rank in row-major
        order), not listed.
        """
        row_below, row_tied = self.row_below, self.row_tied
        # the cut, and the counts at the previous step's cut in the same pass (the cut rarely moves)
        guess = self._last_cut
        thr, m, nb, nt = K.least_magnitude_cut_and_count(S, counts, self.cap, n_want, guess, row_below, row_tied)
        if n_want <= 0 or n_want >= m:
            return self._uncertainty_reference(S, counts, n_want, rng)
        self._last_cut = thr
        if thr != guess:
            nb, nt = K.count_at_magnitude(S, counts, self.cap, thr, row_below, row_tied)
        # as top_b_with_ties: all below the cut, then a draw without replacement among the ties
        # (rng.choice(nt) draws as rng.choice(np.arange(nt)) does and returns the same ranks)
        idx = rng.choice(nt, size=n_want - nb, replace=False)
        order = np.argsort(idx)
        bu = np.empty(n_want, dtype=np.int64)
        bv = np.empty(n_want, dtype=np.int64)
        tu = np.empty(n_want - nb, dtype=np.int64)
        tv = np.empty(n_want - nb, dtype=np.int64)
        K.pick_at_magnitude(S, counts, self.cap, thr, (row_below, row_tied), idx[order], (bu, bv), (tu, tv))
        bu[nb + order] = tu
        bv[nb + order] = tv
        return bu, bv

    def _uncertainty_reference(self, S, counts, n_want, rng):
        """Eq. 8 over the materialised array of eligible magnitudes (the plain version)."""
        if self._vals is None:
            self._vals = np.empty(self.viol_u.shape[0], dtype=np.float64)
        m = K.eligible_magnitudes(S, counts, self.cap, self._vals, self.touched_u, self.touched_v)
        pick = top_b_with_ties(-self._vals[:m], n_want, rng)
        return self.touched_u[pick].copy(), self.touched_v[pick].copy()

    def _triangles(self, S, labels, counts, n_want, rng):
        m = K.violating_edges(S, labels, self.viol_u, self.viol_v)
        self.n_violations = int(m)
        size = self.n if self.xi is None else int(np.floor(self.xi * m))
        size = K.sample_prefix(self.viol_u, self.viol_v, m, size, self._seed(rng))
        code = K.MAXMIN if self.strategy == "maxmin" else K.MAXEXP
        t, _ = K.score_bad_triangles(S, self.viol_u, self.viol_v, size, code, self.beta, self._seed(rng),
                                     self.credits)
        if self._scores is None:
            self._scores = np.empty(self.viol_u.shape[0], dtype=np.float64)
        # the scores in touched order, capped edges left out; info back to zero
        k = K.take_scores(self.credits, t, counts, self.cap, self.viol_u, self.viol_v, self._scores)
        tu, tv, scores = self.viol_u[:k], self.viol_v[:k], self._scores[:k]
        pick = top_b_with_ties(scores, n_want, rng)
        bu = np.empty(n_want, dtype=np.int64)
        bv = np.empty(n_want, dtype=np.int64)
        k = pick.shape[0]
        bu[:k], bv[:k] = tu[pick], tv[pick]
        if k < n_want:
            # fewer informative edges than B: the zero-score ties, drawn at random
            self.mark[bu[:k], bv[:k]] = 1
            bu, bv = self._random(counts, n_want, rng, bu, bv, k)
            self.mark[bu, bv] = 0
        return bu, bv

    def select(self, S, labels, counts, n_want, rng):
        """The batch: two int64 arrays (u, v), u < v, at most ``n_want`` long."""
        self.n_violations = -1
        self.explored = False
        s = self.strategy
        if s in ("maxmin", "maxexp") and self.epsilon > 0 and rng.random() < self.epsilon:
            # epsilon-greedy (Section 3.5): this batch explores instead
            self.explored = True
            s = self.exploration
        if s == "uniform":
            return self._random(counts, n_want, rng)
        if s == "frequency":
            return self._frequency(counts, n_want, rng)
        if s == "uncertainty":
            return self._uncertainty(S, counts, n_want, rng)
        return self._triangles(S, labels, counts, n_want, rng)
