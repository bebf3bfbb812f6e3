"""Numba kernels of active correlation clustering (Aronsson & Chehreghani 2024).

All kernels work on the dense symmetric similarity matrix ``S`` (float64,
``S[u, u] = 0``) and integer label arrays.  Randomness enters as a seed: a
kernel that draws calls ``np.random.seed(seed)`` first, so its output is a
function of its inputs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...cc.labels import relabel_first_appearance  # noqa: F401  (the shared relabelling; local_search.py calls it as K.relabel_first_appearance)

MAXMIN = 0
MAXEXP = 1


# --------------------------------------------------------------------------
# Algorithm 2: max-correlation local search with a dynamic number of clusters
# --------------------------------------------------------------------------
@njit(cache=True)
def max_correlation_plain(S, labels):
    """Delta^MaxCor of Eq. 5 by the plain double loop (reference of :func:`max_correlation`)."""
    n = S.shape[0]
    total = 0.0
    for u in range(n):
        lu = labels[u]
        for v in range(u + 1, n):
            if labels[v] == lu:
                total += S[u, v]
    return total


@njit(cache=True)
def max_correlation(S, labels):
    """Delta^MaxCor of Eq. 5: the sum of S(u, v) over pairs u < v in one cluster.

    Visits only the pairs inside clusters, O(N + sum_c |c|^2 / 2) instead
    of O(N^2 / 2) checks, and adds them in the order of the plain double
    loop (u ascending, then v > u ascending), so the float sum is bitwise
    the same (:func:`max_correlation_plain`).  Labels are ids in ``[0, N)``.
    """
    n = S.shape[0]
    # members of each cluster in ascending order (stable counting sort)
    start = np.zeros(n + 1, dtype=np.int64)
    for u in range(n):
        start[labels[u] + 1] += 1
    for c in range(n):
        start[c + 1] += start[c]
    fill = start[:n].copy()
    members = np.empty(n, dtype=np.int64)
    rank = np.empty(n, dtype=np.int64)  # position of u in ``members``
    for u in range(n):
        c = labels[u]
        members[fill[c]] = u
        rank[u] = fill[c]
        fill[c] += 1
    total = 0.0
    for u in range(n):
        row = S[u]
        for t in range(rank[u] + 1, start[labels[u] + 1]):
            total += row[members[t]]
    return total


#: unit roundoff of float64 arithmetic (round to nearest): fl(a + b) = (a + b)(1 + d), |d| <= _UNIT
_UNIT = 2.0**-53
#: a visit sweeps row u (the plain kernel's way) while more than N / _SWEEP_SHARE clusters are
#: open (the first iteration starts from about 0.63 N clusters): reading that many cluster sums
#: M[c, u], one cache line each, costs more than one sweep of the row
_SWEEP_SHARE = 4


@njit(cache=True)
def _member_sum(row, head, nxt, c):
    """sum of row[v] over the members v of cluster c in ascending order, from 0.0 (the plain kernel's ``acc[c]``)."""
    total = 0.0
    v = head[c]
    while v >= 0:
        total += row[v]
        v = nxt[v]
    return total


@njit(cache=True)
def _gamma(k):
    """gamma_k = k u / (1 - k u) (Higham, Accuracy and Stability, Lemma 3.1)."""
    ku = k * _UNIT
    return ku / (1.0 - ku)


@njit(cache=True)
def _score_bound(err, size, smax):
    """A bound on |M[c, u] - acc[c]| for every u; see :func:`local_search_sums`."""
    k = float(size)
    return (err + _gamma(k) * k * smax) * 1.01 + 1e-280


@njit(cache=True)
def _list_remove(head, nxt, prv, c, u):
    p = prv[u]
    q = nxt[u]
    if p >= 0:
        nxt[p] = q
    else:
        head[c] = q
    if q >= 0:
        prv[q] = p


@njit(cache=True)
def _list_insert(head, nxt, prv, c, u):
    # keep the members of c in ascending order: O(|c|), as cheap as the row updates of a move
    p = -1
    q = head[c]
    while q >= 0 and q < u:
        p = q
        q = nxt[q]
    prv[u] = p
    nxt[u] = q
    if p >= 0:
        nxt[p] = u
    else:
        head[c] = u
    if q >= 0:
        prv[q] = u


@njit(cache=True, fastmath=True)
def _abs_max(r):
    """max |r[j]| (r finite): exact in any order, so fast-math and 4 running maxima only let it vectorise."""
    m0 = 0.0
    m1 = 0.0
    m2 = 0.0
    m3 = 0.0
    n = r.shape[0]
    j = 0
    while j + 4 <= n:
        m0 = max(m0, abs(r[j]))
        m1 = max(m1, abs(r[j + 1]))
        m2 = max(m2, abs(r[j + 2]))
        m3 = max(m3, abs(r[j + 3]))
        j += 4
    while j < n:
        m0 = max(m0, abs(r[j]))
        j += 1
    return max(max(m0, m1), max(m2, m3))


@njit(cache=True)
def _build_sums(ST, labels, active, n_active, size, M, head, nxt, prv, err, bound):
    """M[c, :] = sum of ST[v, :] over the members v of c (ascending), the member lists, the bounds; returns max |S|."""
    n = ST.shape[0]
    tail = np.full(n, -1, dtype=np.int64)
    for j in range(n_active):
        head[active[j]] = -1
    smax = 0.0
    for v in range(n):
        c = labels[v]
        t = tail[c]
        r = ST[v]
        m = M[c]
        if t < 0:
            head[c] = v
            prv[v] = -1
            for j in range(n):
                m[j] = r[j]
        else:
            nxt[t] = v
            prv[v] = t
            for j in range(n):
                m[j] += r[j]
        nxt[v] = -1
        tail[c] = v
        smax = max(smax, _abs_max(r))
    for j in range(n_active):
        c = active[j]
        err[c] = _gamma(float(size[c])) * size[c] * smax
        bound[c] = _score_bound(err[c], size[c], smax)
    return smax


@njit(cache=True)
def local_search_run(S, labels, seed, eta, max_passes):
    """One restart of Algorithm 2 (lines 8-29) from ``labels``, in place; S symmetric.

    :func:`local_search_sums` with ``ST = S`` and its own workspace; see there.
    """
    n = S.shape[0]
    return local_search_sums(S, S, labels, seed, eta, max_passes, np.empty((n, n), dtype=np.float64))


@njit(cache=True)
def local_search_sums(S, ST, labels, seed, eta, max_passes, M):
    """One restart of Algorithm 2 (lines 8-29) from ``labels``, in place, by per-cluster sums.

    Bitwise the run of :func:`local_search_run_plain` (same labels,
    objective and number of passes, ``tests/test_active_speed.py``), in
    O(N K + moves N) per pass instead of O(N^2).

    Parameters
    ----------
    S : float64 array (N, N)
        Similarities with a zero diagonal.
    ST : float64 array (N, N), C-contiguous
        The transpose of ``S`` (``S`` itself when ``S`` is symmetric).
    labels : int64 array (N,)
        Initial clustering, ids in ``[0, N)``; overwritten with the local optimum.
    seed : int
        Seed of the visiting orders (line 12).
    eta : float
        Stop when a pass changes the objective by at most ``eta`` (line 10).
    max_passes : int
        Safety cap on passes.
    M : float64 array (N, N)
        Workspace (its content is ignored and overwritten).

    Returns
    -------
    objective : float
        Delta^MaxCor of the final clustering, updated incrementally (lines 19, 25).
    n_passes : int

    Notes
    -----
    The plain kernel scores every cluster c for the visited item u (line
    14, the delta term of Eq. 7) as ``acc[c]``, the float sum of S(u, v)
    over the members v of c in ascending order starting from 0.0 (for
    c = c_u: with v = u, then minus S(u, u) = 0), and picks, with ties,
    c_u when ``acc[c_u]`` is the largest, else the first largest in the
    order of ``active``.  Its stopping rule compares float objectives, so
    any other rounding of these sums could change a run.

    Here ``M[c, :] = sum_{v in c} S(:, v)`` (rows of ``ST``) is kept for the
    open clusters; a move u: a -> b is two contiguous row updates.  A visit
    reads ``M[c, u]`` for the K open clusters and computes exact ``acc``
    values (the same float operations as the plain kernel, over sorted
    member lists) only for the few clusters that can be the largest.

    Why that choice is the plain kernel's.  Let T_c = sum_{v in c} S(u, v)
    in real arithmetic, n = |c| and s = max |S|.  (i) ``acc[c]`` is a
    recursive sum of n terms of magnitude <= s, so |acc[c] - T_c| <=
    gamma_n n s (Higham, Lemma 3.1 / Eq. 4.4, gamma_n = n u / (1 - n u),
    u = 2^-53).  (ii) ``M[c, u]`` starts as a recursive sum of the same n
    terms, |M - T_c| <= err_c = gamma_n n s; every later update
    M <- fl(M +- S(w, u)) gives |fl(M +- x) - T'| <= err_c + u |M +- x| <=
    err_c + u (n' s + err_c) with T' the new exact sum over the n' members,
    which is how ``err`` grows.  So |M[c, u] - acc[c]| <= b_c := err_c +
    gamma_n n s (``_score_bound``, inflated by 1% and 1e-280 for the
    rounding of the bound itself and for subnormal results).  With
    L = max_c fl(M[c, u] - b_c), every c* with the largest ``acc`` has
    M[c*, u] + b_c* >= acc[c*] >= acc[c'] >= M[c', u] - b_c' for the c'
    attaining L, and rounding is monotone, so c* passes the test
    fl(M[c, u] + b_c) >= L: the candidates hold all maximisers.  Scanning
    the candidates in ``active`` order with the plain rule (start from c_u,
    replace on a strictly larger exact ``acc``) then picks the first
    maximiser in ``active`` order, or c_u when it is one, as the plain scan
    over all clusters does.  When c_u is the only candidate and
    fl(M[c_u, u] - b_cu) > 0 (so ``acc[c_u]`` > 0: a float difference has
    the sign of the exact one), u stays and nothing else is computed.
    Exact values enter every move (lines 19, 25), so the objective, the
    stopping rule and the restart comparison see the plain kernel's floats.

    While more than N / ``_SWEEP_SHARE`` clusters are open a visit sweeps
    row u into ``acc`` as the plain kernel does (exact directly).
    """
    np.random.seed(seed)
    n = S.shape[0]
    size = np.zeros(n, dtype=np.int64)
    for u in range(n):
        size[labels[u]] += 1
    # non-empty cluster ids in ``active[0:n_active]``, position in ``pos``;
    # empty ids on the ``free`` stack
    active = np.empty(n, dtype=np.int64)
    pos = np.full(n, -1, dtype=np.int64)
    free = np.empty(n, dtype=np.int64)
    n_active = 0
    n_free = 0
    for c in range(n):
        if size[c] > 0:
            active[n_active] = c
            pos[c] = n_active
            n_active += 1
        else:
            free[n_free] = c
            n_free += 1
    # members of each cluster, ascending (doubly linked lists from head[c]), the cluster
    # sums M and their error bounds: built once moves become rare (see _build_sums)
    head = np.full(n, -1, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)
    prv = np.full(n, -1, dtype=np.int64)
    err = np.zeros(n, dtype=np.float64)
    bound = np.zeros(n, dtype=np.float64)
    have_sums = False
    smax = 0.0
    acc = np.zeros(n, dtype=np.float64)
    cand = np.empty(n, dtype=np.int64)
    delta = max_correlation(S, labels)
    delta_old = delta - 1.0
    n_passes = 0
    order = np.arange(n)
    while abs(delta - delta_old) > eta and n_passes < max_passes:
        delta_old = delta
        n_passes += 1
        if n_passes == 2:
            # the first pass from a random clustering moves almost every item (a move costs
            # about one sweep of a row); from the second pass on moves are few
            smax = _build_sums(ST, labels, active, n_active, size, M, head, nxt, prv, err, bound)
            have_sums = True
        np.random.shuffle(order)
        for i in range(n):
            u = order[i]
            row = S[u]
            cu = labels[u]
            if not have_sums or n_active * _SWEEP_SHARE > n:
                # the plain kernel's visit
                for v in range(n):
                    acc[labels[v]] += row[v]
                acc[cu] -= row[u]
                s_cu = acc[cu]
                best = cu
                best_val = s_cu
                for j in range(n_active):
                    c = active[j]
                    if acc[c] > best_val:
                        best_val = acc[c]
                        best = c
                for j in range(n_active):
                    acc[active[j]] = 0.0
            else:
                lo = -np.inf
                for j in range(n_active):
                    c = active[j]
                    x = M[c, u] - bound[c]
                    if x > lo:
                        lo = x
                n_cand = 0
                for j in range(n_active):
                    c = active[j]
                    if M[c, u] + bound[c] >= lo:
                        cand[n_cand] = c
                        n_cand += 1
                if n_cand == 1 and cand[0] == cu and M[cu, u] - bound[cu] > 0.0:
                    continue  # u stays: its own cluster is the only possible max, and positive
                s_cu = _member_sum(row, head, nxt, cu) - row[u]
                best = cu
                best_val = s_cu
                for t in range(n_cand):
                    c = cand[t]
                    if c != cu:
                        x = _member_sum(row, head, nxt, c)
                        if x > best_val:
                            best_val = x
                            best = c
            if best_val < 0.0:
                # lines 17-22: no cluster is similar enough; u opens a new one
                # (u is not a singleton here: a singleton's own score is 0)
                c_new = free[n_free - 1]
                n_free -= 1
                active[n_active] = c_new
                pos[c_new] = n_active
                n_active += 1
                size[cu] -= 1
                size[c_new] = 1
                labels[u] = c_new
                delta -= s_cu
                if not have_sums:
                    continue
                r = ST[u]
                ma = M[cu]
                mb = M[c_new]
                for j in range(n):
                    ma[j] -= r[j]
                    mb[j] = r[j]
                err[cu] += _UNIT * (size[cu] * smax + err[cu])
                bound[cu] = _score_bound(err[cu], size[cu], smax)
                err[c_new] = 0.0
                bound[c_new] = _score_bound(0.0, 1, smax)
                _list_remove(head, nxt, prv, cu, u)
                head[c_new] = u
                nxt[u] = -1
                prv[u] = -1
            elif best != cu:
                # lines 24-26
                size[cu] -= 1
                size[best] += 1
                labels[u] = best
                delta += best_val - s_cu
                emptied = size[cu] == 0
                if emptied:
                    p = pos[cu]
                    last = active[n_active - 1]
                    active[p] = last
                    pos[last] = p
                    pos[cu] = -1
                    n_active -= 1
                    free[n_free] = cu
                    n_free += 1
                if not have_sums:
                    continue
                r = ST[u]
                mb = M[best]
                if emptied:
                    for j in range(n):
                        mb[j] += r[j]
                else:
                    ma = M[cu]
                    for j in range(n):
                        ma[j] -= r[j]
                        mb[j] += r[j]
                    err[cu] += _UNIT * (size[cu] * smax + err[cu])
                    bound[cu] = _score_bound(err[cu], size[cu], smax)
                err[best] += _UNIT * (size[best] * smax + err[best])
                bound[best] = _score_bound(err[best], size[best], smax)
                _list_remove(head, nxt, prv, cu, u)
                _list_insert(head, nxt, prv, best, u)
    return delta, n_passes


@njit(cache=True)
def local_search_run_plain(S, labels, seed, eta, max_passes):
    """One restart of Algorithm 2 (lines 8-29) from ``labels``, in place: the plain kernel.

    The reference of :func:`local_search_run` (bitwise the same labels,
    objective and number of passes; ``tests/test_active_speed.py``), kept for
    the tests and ``scripts/bench/bench_active.py``.

    Parameters
    ----------
    S : float64 array (N, N)
        Symmetric similarities with a zero diagonal.
    labels : int64 array (N,)
        Initial clustering, ids in ``[0, N)``; overwritten with the local optimum.
    seed : int
        Seed of the visiting orders (line 12).
    eta : float
        Stop when a pass changes the objective by at most ``eta`` (line 10).
    max_passes : int
        Safety cap on passes.

    Returns
    -------
    objective : float
        Delta^MaxCor of the final clustering, updated incrementally (lines 19, 25).
    n_passes : int

    Notes
    -----
    One pass is O(N^2) whatever the number of clusters k: the scores
    S_c(u) of line 14 (the delta term of Eq. 7) for every cluster c come
    from one sweep over row u that adds S(u, v) into ``acc[label(v)]``;
    the arg max and the reset then visit the k non-empty clusters only,
    O(N^2 + N k) = O(N^2) per pass.  The objective never decreases: a move
    to c_max gains S_cmax(u) - S_cu(u) >= 0 and a new singleton gains
    -S_cu(u) > 0 since S_cu(u) <= S_cmax(u) < 0.  Ties keep ``u`` where it is.
    """
    np.random.seed(seed)
    n = S.shape[0]
    size = np.zeros(n, dtype=np.int64)
    for u in range(n):
        size[labels[u]] += 1
    # non-empty cluster ids in ``active[0:n_active]``, position in ``pos``;
    # empty ids on the ``free`` stack
    active = np.empty(n, dtype=np.int64)
    pos = np.full(n, -1, dtype=np.int64)
    free = np.empty(n, dtype=np.int64)
    n_active = 0
    n_free = 0
    for c in range(n):
        if size[c] > 0:
            active[n_active] = c
            pos[c] = n_active
            n_active += 1
        else:
            free[n_free] = c
            n_free += 1
    acc = np.zeros(n, dtype=np.float64)
    delta = max_correlation(S, labels)
    delta_old = delta - 1.0
    n_passes = 0
    order = np.arange(n)
    while abs(delta - delta_old) > eta and n_passes < max_passes:
        delta_old = delta
        n_passes += 1
        np.random.shuffle(order)
        for i in range(n):
            u = order[i]
            row = S[u]
            for v in range(n):
                acc[labels[v]] += row[v]
            cu = labels[u]
            acc[cu] -= row[u]  # v != u in line 14 (zero anyway)
            s_cu = acc[cu]
            best = cu
            best_val = s_cu
            for j in range(n_active):
                c = active[j]
                if acc[c] > best_val:
                    best_val = acc[c]
                    best = c
            for j in range(n_active):
                acc[active[j]] = 0.0
            if best_val < 0.0:
                # lines 17-22: no cluster is similar enough; u opens a new one
                # (u is not a singleton here: a singleton's own score is 0)
                c_new = free[n_free - 1]
                n_free -= 1
                active[n_active] = c_new
                pos[c_new] = n_active
                n_active += 1
                size[cu] -= 1
                size[c_new] = 1
                labels[u] = c_new
                delta -= s_cu
            elif best != cu:
                # lines 24-26
                size[cu] -= 1
                size[best] += 1
                labels[u] = best
                delta += best_val - s_cu
                if size[cu] == 0:
                    p = pos[cu]
                    last = active[n_active - 1]
                    active[p] = last
                    pos[last] = p
                    pos[cu] = -1
                    n_active -= 1
                    free[n_free] = cu
                    n_free += 1
    return delta, n_passes


@njit(cache=True)
def random_labels(n, k, seed):
    """Line 7: every item in one of ``k`` clusters uniformly at random."""
    np.random.seed(seed)
    labels = np.empty(n, dtype=np.int64)
    for u in range(n):
        labels[u] = np.random.randint(0, k)
    return labels


# --------------------------------------------------------------------------
# Eqs. 11-12: expected cost of a triangle
# --------------------------------------------------------------------------
@njit(cache=True)
def expected_cost(s_uv, s_uw, s_vw, beta):
    """E[Delta_t] of Eq. 12 under the Gibbs distribution of Eq. 11.

    ``beta = inf`` puts the mass on the cheapest clusterings (their common
    cost, Eq. 15); ``beta = 0`` weights the five equally (Eq. 16).  The
    exponent is shifted by the minimum cost, so large ``beta`` cannot
    overflow.  Scalars only (no array allocation): it runs once per bad
    triangle in the selection of maxexp.
    """
    # violation of each edge when its two items are together / apart (Eq. 1)
    t1 = -s_uv if s_uv < 0.0 else 0.0
    a1 = s_uv if s_uv >= 0.0 else 0.0
    t2 = -s_uw if s_uw < 0.0 else 0.0
    a2 = s_uw if s_uw >= 0.0 else 0.0
    t3 = -s_vw if s_vw < 0.0 else 0.0
    a3 = s_vw if s_vw >= 0.0 else 0.0
    # the five clusterings of Table 1
    c0 = t1 + t2 + t3
    c1 = a1 + a2 + t3
    c2 = a1 + t2 + a3
    c3 = t1 + a2 + a3
    c4 = a1 + a2 + a3
    cmin = min(min(min(c0, c1), min(c2, c3)), c4)
    if np.isinf(beta):
        return cmin
    w0 = np.exp(-beta * (c0 - cmin))
    w1 = np.exp(-beta * (c1 - cmin))
    w2 = np.exp(-beta * (c2 - cmin))
    w3 = np.exp(-beta * (c3 - cmin))
    w4 = np.exp(-beta * (c4 - cmin))
    return (w0 * c0 + w1 * c1 + w2 * c2 + w3 * c3 + w4 * c4) / (w0 + w1 + w2 + w3 + w4)


# --------------------------------------------------------------------------
# Algorithm 3: violating edges, their sample, the bad triangles through them
# --------------------------------------------------------------------------
@njit(cache=True)
def violating_edges(S, labels, out_u, out_v):
    """Line 2: the edges u < v with R(u, v) > 0; returns their number.  O(N^2).

    An edge violates the clustering when S(u, v) >= 0 across clusters or
    S(u, v) < 0 within one (Section 2.1; zero counts as positive).  An edge
    of weight exactly 0 across clusters has R = 0 and is not listed.
    """
    n = S.shape[0]
    m = 0
    for u in range(n):
        lu = labels[u]
        row = S[u]
        for v in range(u + 1, n):
            s = row[v]
            if labels[v] == lu:
                if s < 0.0:
                    out_u[m] = u
                    out_v[m] = v
                    m += 1
            elif s > 0.0:
                out_u[m] = u
                out_v[m] = v
                m += 1
    return m


@njit(cache=True)
def sample_prefix(out_u, out_v, m, size, seed):
    """Line 3: move a uniform random ``size``-subset of the first ``m`` entries to the front.

    Partial Fisher-Yates, O(size).
    """
    np.random.seed(seed)
    size = min(size, m)
    for i in range(size):
        j = np.random.randint(i, m)
        tu = out_u[i]
        out_u[i] = out_u[j]
        out_u[j] = tu
        tv = out_v[i]
        out_v[i] = out_v[j]
        out_v[j] = tv
    return size


@njit(cache=True)
def score_bad_triangles(S, eu, ev, n_edges, strategy, beta, seed, info, touched_u, touched_v):
    """Lines 4-18 of Algorithm 3 for the first ``n_edges`` sampled edges.

    For every sampled edge (u, v) and every other item w, a bad triangle
    (exactly two non-negative weights, Theorem 1) credits its edge of least
    |S| (a random one among ties, lines 8-9) with |S(e)| (maxmin, Eq. 10)
    or with the max over its triangles of E[Delta_t] (maxexp, Eqs. 12-13).

    ``info`` is an (N, N) zero matrix written at ``[a, b]`` with ``a < b``;
    the entries written are listed in ``touched_u/v`` (the caller resets
    them).  Returns the number of touched entries.  O(n_edges N).
    """
    np.random.seed(seed)
    n = S.shape[0]
    n_touched = 0
    for i in range(n_edges):
        u = eu[i]
        v = ev[i]
        s_uv = S[u, v]
        m0 = abs(s_uv)
        p_uv = s_uv >= 0.0
        row_u = S[u]
        row_v = S[v]
        for w in range(n):
            if w == u or w == v:
                continue
            s_uw = row_u[w]
            s_vw = row_v[w]
            if p_uv + (s_uw >= 0.0) + (s_vw >= 0.0) != 2:
                continue
            # a bad triangle: credit its edge of least |S|, a random one among ties
            m1 = abs(s_uw)
            m2 = abs(s_vw)
            lo = min(m0, min(m1, m2))
            n_min = (m0 == lo) + (m1 == lo) + (m2 == lo)
            pick = 0 if n_min == 1 else np.random.randint(0, n_min)
            if m0 == lo and pick == 0:
                a, b = u, v
            else:
                if m0 == lo:
                    pick -= 1
                if m1 == lo and pick == 0:
                    a, b = u, w
                else:
                    a, b = v, w
            if a > b:
                a, b = b, a
            if strategy == MAXMIN:
                value = lo
            else:
                value = expected_cost(s_uv, s_uw, s_vw, beta)
            old = info[a, b]
            if value > old:
                if old == 0.0:
                    touched_u[n_touched] = a
                    touched_v[n_touched] = b
                    n_touched += 1
                info[a, b] = value
    return n_touched


@njit(cache=True)
def take_scores(info, counts, cap, touched_u, touched_v, n_touched, out_u, out_v, out_scores):
    """The touched edges' scores in touched order, only those asked fewer than ``cap`` times.

    One loop instead of numpy's gathers and copies; resets the touched cells of ``info``
    (written at ``[a, b]``, a < b).  Returns the number kept.
    """
    k = 0
    for i in range(n_touched):
        a = touched_u[i]
        b = touched_v[i]
        x = info[a, b]
        info[a, b] = 0.0
        if counts[a, b] < cap:
            out_u[k] = a
            out_v[k] = b
            out_scores[k] = x
            k += 1
    return k


# --------------------------------------------------------------------------
# batch selection helpers
# --------------------------------------------------------------------------
@njit(cache=True)
def fill_random(n, counts, cap, mark, out_u, out_v, n_have, n_want, seed):
    """Append distinct random edges u < v with ``counts[u, v] < cap`` and not yet marked.

    Equivalent to the random tie-break among zero scores: rejection sampling
    while it is cheap, then an exact draw from the enumerated remainder.
    ``mark`` (uint8, (N, N)) flags edges already in the batch; it is set for
    the edges appended.  Returns the new batch length.
    """
    np.random.seed(seed)
    k = n_have
    tries = 0
    limit = 20 * (n_want - n_have) + 100
    while k < n_want and tries < limit:
        tries += 1
        u = np.random.randint(0, n)
        v = np.random.randint(0, n)
        if u == v:
            continue
        if u > v:
            u, v = v, u
        if mark[u, v] or counts[u, v] >= cap:
            continue
        mark[u, v] = 1
        out_u[k] = u
        out_v[k] = v
        k += 1
    if k < n_want:
        # few eligible edges left: enumerate them and draw exactly
        m = 0
        for u in range(n):
            for v in range(u + 1, n):
                if not mark[u, v] and counts[u, v] < cap:
                    m += 1
        cu = np.empty(m, dtype=np.int64)
        cv = np.empty(m, dtype=np.int64)
        m = 0
        for u in range(n):
            for v in range(u + 1, n):
                if not mark[u, v] and counts[u, v] < cap:
                    cu[m] = u
                    cv[m] = v
                    m += 1
        take = min(n_want - k, m)
        for i in range(take):
            j = np.random.randint(i, m)
            cu[i], cu[j] = cu[j], cu[i]
            cv[i], cv[j] = cv[j], cv[i]
            mark[cu[i], cv[i]] = 1
            out_u[k] = cu[i]
            out_v[k] = cv[i]
            k += 1
    return k


@njit(cache=True)
def least_queried(counts, cap, n_want, seed, out_u, out_v):
    """The ``n_want`` edges u < v with the fewest queries (Eq. 9), random among ties.

    Edges with ``counts >= cap`` are excluded.  O(N^2).  Returns the batch length.
    """
    np.random.seed(seed)
    n = counts.shape[0]
    # histogram of the query counts below the cap
    hmax = 0
    for u in range(n):
        for v in range(u + 1, n):
            c = counts[u, v]
            if c < cap and c > hmax:
                hmax = c
    hist = np.zeros(hmax + 1, dtype=np.int64)
    for u in range(n):
        for v in range(u + 1, n):
            c = counts[u, v]
            if c < cap:
                hist[c] += 1
    # threshold count: all edges below it fit, those at it are drawn at random
    below = 0
    thr = hmax + 1
    for c in range(hmax + 1):
        if below + hist[c] >= n_want:
            thr = c
            break
        below += hist[c]
    k = 0
    n_tie = hist[thr] if thr <= hmax else 0
    need = min(n_want - below, n_tie) if thr <= hmax else 0
    # exact draw of which tied edges to keep
    keep = np.zeros(n_tie, dtype=np.uint8)
    if need > 0:
        idx = np.arange(n_tie)
        for i in range(need):
            j = np.random.randint(i, n_tie)
            idx[i], idx[j] = idx[j], idx[i]
            keep[idx[i]] = 1
    t = 0
    for u in range(n):
        for v in range(u + 1, n):
            c = counts[u, v]
            if c >= cap:
                continue
            if c < thr:
                out_u[k] = u
                out_v[k] = v
                k += 1
            elif c == thr:
                if keep[t]:
                    out_u[k] = u
                    out_v[k] = v
                    k += 1
                t += 1
    return k


@njit(cache=True)
def apply_answers(total, counts, S, bu, bv, answers):
    """Lines 9-10 of Algorithm 1: add each answer and set S to the running mean.

    ``total`` holds sigma_0 plus the answers so far and ``counts`` the
    number of answers, so S = total / (counts + 1) is the mean of Q_uv
    (which holds sigma_0).  Both triangles of the symmetric arrays are set.
    """
    for i in range(bu.shape[0]):
        u = bu[i]
        v = bv[i]
        t = total[u, v] + answers[i]
        c = counts[u, v] + 1
        total[u, v] = t
        total[v, u] = t
        counts[u, v] = c
        counts[v, u] = c
        s = t / (c + 1)
        S[u, v] = s
        S[v, u] = s


@njit(cache=True)
def eligible_magnitudes(S, counts, cap, out_vals, out_u, out_v):
    """|S(u, v)| of every edge u < v asked fewer than ``cap`` times (Eq. 8's candidates); returns their number."""
    n = S.shape[0]
    m = 0
    for u in range(n):
        for v in range(u + 1, n):
            if counts[u, v] < cap:
                out_vals[m] = abs(S[u, v])
                out_u[m] = u
                out_v[m] = v
                m += 1
    return m


@njit(cache=True)
def least_magnitude_cut(S, counts, cap, n_want):
    """The ``n_want``-th smallest |S(u, v)| over edges u < v asked fewer than ``cap`` times.

    Returns ``(threshold, m)`` with ``m`` the number of eligible edges; the
    threshold is meaningful when ``0 < n_want < m``.  One pass over the
    upper triangle with a max-heap of the ``n_want`` smallest values,
    O(N^2 + m' log n_want) where m' values enter the heap; the value equals
    ``np.partition``'s order statistic, which the uncertainty strategy
    (Eq. 8) used over a materialised array of all |E| magnitudes.
    """
    n = S.shape[0]
    heap = np.empty(max(n_want, 1), dtype=np.float64)
    h = 0
    m = 0
    for u in range(n):
        for v in range(u + 1, n):
            if counts[u, v] >= cap:
                continue
            m += 1
            x = abs(S[u, v])
            if h < n_want:
                # sift up
                i = h
                heap[i] = x
                h += 1
                while i > 0:
                    p = (i - 1) // 2
                    if heap[p] < heap[i]:
                        heap[p], heap[i] = heap[i], heap[p]
                        i = p
                    else:
                        break
            elif n_want > 0 and x < heap[0]:
                # replace the largest of the kept values, sift down
                heap[0] = x
                i = 0
                while True:
                    lft = 2 * i + 1
                    if lft >= h:
                        break
                    c = lft
                    if lft + 1 < h and heap[lft + 1] > heap[lft]:
                        c = lft + 1
                    if heap[c] > heap[i]:
                        heap[c], heap[i] = heap[i], heap[c]
                        i = c
                    else:
                        break
    return (heap[0] if h > 0 else 0.0), m


@njit(cache=True)
def split_at_magnitude(S, counts, cap, thr, below_u, below_v, tied_u, tied_v):
    """Eligible edges with |S| < ``thr`` and with |S| == ``thr``, each in row-major order of (u, v).

    Returns ``(n_below, n_tied)``; the buffers need room for the eligible edges.
    """
    n = S.shape[0]
    nb = 0
    nt = 0
    for u in range(n):
        for v in range(u + 1, n):
            if counts[u, v] >= cap:
                continue
            x = abs(S[u, v])
            if x < thr:
                below_u[nb] = u
                below_v[nb] = v
                nb += 1
            elif x == thr:
                tied_u[nt] = u
                tied_v[nt] = v
                nt += 1
    return nb, nt
