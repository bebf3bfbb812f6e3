"""Algorithm 2 of Aronsson & Chehreghani (2024) by per-cluster sums: one state, one-pass kernels.

The local search of :mod:`._local_search_kernels` (lines 8-29: single-item
moves, a new cluster when every score is negative) split the way
scikit-learn's ``_kmeans_single_lloyd`` drives ``lloyd_iter_chunked_dense``
and pynndescent's heap functions share one tuple of arrays: a
:data:`MaxCorState` (:func:`maxcor_state`) holds everything a restart
mutates, :func:`maxcor_pass` runs one pass over it (lines 11-28),
:func:`build_sums` fills its per-cluster sums, and :func:`local_search_sums`
is the thin driver of lines 8-10 and 29 (the stopping rule).  The kernels can
be driven from Python pass by pass as well (``tests/test_active_speed.py``
does): numba's random state, seeded by :func:`seed_visits`, is shared by all
of them.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ._local_search_kernels import (
    N_ACTIVE,
    _move_item,
    _open_cluster,
    _pair_order,
    abs_max,
    cluster_slots,
    max_correlation,
)

#: unit roundoff of float64 arithmetic (round to nearest): fl(a + b) = (a + b)(1 + d), |d| <= _UNIT
_UNIT = 2.0**-53
#: a visit sweeps row u (the plain kernel's way) while more than N / _SWEEP_SHARE clusters are
#: open (the first iteration starts from about 0.63 N clusters): reading that many cluster sums
#: M[c, u], one cache line each, costs more than one sweep of the row
_SWEEP_SHARE = 4

#: What one restart of :func:`local_search_sums` mutates (a tuple of arrays, numba-typed as a named tuple).
#:
#: ``slots``: the cluster ids (:func:`~._local_search_kernels.cluster_slots`; ``slots.labels`` is the
#: caller's array, overwritten); ``head``, ``nxt``, ``prv``: the doubly linked member list of each
#: cluster in ascending item order (``head[c]`` its first member, -1 if empty; -1 at the ends);
#: ``M[c, :]``: the sum of the rows ``ST[v]`` over the members v of c; ``err[c]``, ``bound[c]``: the
#: rounding bounds of ``M[c, :]`` (see :func:`local_search_sums`); ``acc``, ``cand``: per-visit
#: scratch (``acc`` all zero between visits); ``order``: the visiting order, shuffled each pass;
#: ``smax``: an upper bound of max |S|.  The sums and the lists are valid after :func:`build_sums`.
MaxCorState = namedtuple("MaxCorState", "slots head nxt prv M err bound acc cand order smax")


@njit(cache=True)
def maxcor_state(labels, M, smax):
    """The state of a restart from ``labels`` (ids in ``[0, N)``), with ``M`` (N, N) as the sums' storage."""
    n = labels.shape[0]
    return MaxCorState(
        cluster_slots(labels),
        np.full(n, -1, dtype=np.int64),
        np.full(n, -1, dtype=np.int64),
        np.full(n, -1, dtype=np.int64),
        M,
        np.zeros(n, dtype=np.float64),
        np.zeros(n, dtype=np.float64),
        np.zeros(n, dtype=np.float64),
        np.empty(n, dtype=np.int64),
        np.arange(n),
        float(smax),
    )


@njit(cache=True)
def seed_visits(seed):
    """Seed numba's generator, which draws the visiting orders of :func:`maxcor_pass` (line 12)."""
    np.random.seed(seed)


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
def _grown(err, bound, size, smax, c):
    """``M[c, :]`` took one more rounded update: its error bound grows (see :func:`local_search_sums`)."""
    err[c] += _UNIT * (size[c] * smax + err[c])
    bound[c] = _score_bound(err[c], size[c], smax)


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
def _list_move(head, nxt, prv, c_from, c_to, u):
    """``u`` leaves the member list of ``c_from`` for that of ``c_to``, kept in ascending order (O(|c_to|))."""
    p = prv[u]
    q = nxt[u]
    if p >= 0:
        nxt[p] = q
    else:
        head[c_from] = q
    if q >= 0:
        prv[q] = p
    # as cheap as the row updates of a move
    p = -1
    q = head[c_to]
    while q >= 0 and q < u:
        p = q
        q = nxt[q]
    prv[u] = p
    nxt[u] = q
    if p >= 0:
        nxt[p] = u
    else:
        head[c_to] = u
    if q >= 0:
        prv[q] = u


@njit(cache=True, inline="always")
def _add_row(r, M, started, c):
    """``M[c, :] += r`` (a copy of ``r`` the first time, ``started[c]`` then set): one member's row into its sums."""
    m = M[c]
    if started[c]:
        for j in range(r.shape[0]):
            m[j] += r[j]
    else:
        for j in range(r.shape[0]):
            m[j] = r[j]
        started[c] = True


@njit(cache=True)
def _lists_and_bounds(st):
    """The member lists of the clusters of ``st`` (ascending) and the rounding bounds of their sums."""
    sl = st.slots
    labels, head, nxt, prv = sl.labels, st.head, st.nxt, st.prv
    n = labels.shape[0]
    n_active = sl.count[N_ACTIVE]
    tail = np.full(n, -1, dtype=np.int64)
    for j in range(n_active):
        head[sl.active[j]] = -1
    for v in range(n):
        c = labels[v]
        t = tail[c]
        if t < 0:
            head[c] = v
        else:
            nxt[t] = v
        prv[v] = t
        nxt[v] = -1
        tail[c] = v
    err, bound, smax = st.err, st.bound, st.smax
    for j in range(n_active):
        c = sl.active[j]
        size = sl.size[c]
        err[c] = _gamma(float(size)) * size * smax
        bound[c] = _score_bound(err[c], size, smax)


@njit(cache=True)
def build_sums(ST, st):
    """``M[c, :]`` = the sum of ``ST[v, :]`` over the members v of c (ascending), the member lists, the bounds.

    :func:`local_search_sums` builds the same state during its first pass
    instead (``maxcor_pass(..., build=True)``); this one-shot build is for a
    caller that drives the passes itself.
    """
    labels = st.slots.labels
    started = np.zeros(labels.shape[0], dtype=np.bool_)
    for v in range(labels.shape[0]):
        _add_row(ST[v], st.M, started, labels[v])
    _lists_and_bounds(st)


# The visits take the state's arrays, not the state: the pass unpacks it once (reading an array
# out of a named tuple takes a reference, an atomic increment, and a visit of the sums costs only
# O(K) operations), and they are inlined into it (numba compiles every other call as a call, with
# each array's fields as arguments).


@njit(cache=True, inline="always")
def _visit_sweep(row, labels, active, n_active, acc, u, cu):
    """Line 14 for item ``u`` by one sweep of its row (the plain kernel's visit): ``(best, best_val, s_cu)``."""
    for v in range(row.shape[0]):
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
    return best, best_val, s_cu


@njit(cache=True, inline="always")
def _candidates(M, bound, active, n_active, cand, hi, u):
    """The clusters that can hold the largest score of item ``u`` (from the sums ``M[:, u]``) in ``cand``; their number.

    One strided read of ``M[:, u]`` per open cluster: the upper ends ``M[c, u] + bound[c]`` go to
    the contiguous scratch ``hi`` (in ``active`` order) for the second loop.
    """
    lo = -np.inf
    for j in range(n_active):
        c = active[j]
        m = M[c, u]
        b = bound[c]
        hi[j] = m + b
        x = m - b
        if x > lo:
            lo = x
    n_cand = 0
    for j in range(n_active):
        if hi[j] >= lo:
            cand[n_cand] = active[j]
            n_cand += 1
    return n_cand


@njit(cache=True, inline="always")
def _best_candidate(row, head, nxt, cand, n_cand, u, cu):
    """Line 14 for item ``u`` over the candidates by exact sums: ``(best, best_val, s_cu)``."""
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
    return best, best_val, s_cu


@njit(cache=True)
def _rows_follow(r, ma, mb, opened, emptied):
    """The sums follow a move of the item of row ``r`` (of ``ST``) from cluster sums ``ma`` to ``mb``.

    ``opened``: ``mb`` is a new cluster's (set, lines 17-22); ``emptied``:
    ``ma``'s cluster is now empty (left alone; it returns to the free ids).
    """
    if opened:
        for j in range(r.shape[0]):
            ma[j] -= r[j]
            mb[j] = r[j]
    elif emptied:
        for j in range(r.shape[0]):
            mb[j] += r[j]
    else:
        for j in range(r.shape[0]):
            ma[j] -= r[j]
            mb[j] += r[j]


@njit(cache=True)
def maxcor_pass(S, ST, st, delta, pending, have_sums, build=False):
    """One pass of Algorithm 2 (lines 11-28): every item in a shuffled order, moved to its best cluster.

    Parameters
    ----------
    S, ST : float64 arrays (N, N)
        As :func:`local_search_sums`.
    st : MaxCorState
        Mutated in place.
    delta : float
        The objective before the pass (ignored when ``pending``).
    pending : bool
        The objective of the start is still to compute: the pass adds it up
        beside its visits (see :func:`local_search_sums`).
    have_sums : bool
        :func:`build_sums` has filled the state: visits may read the sums,
        and moves keep them.
    build : bool
        (With ``have_sums`` False.)  Fill the sums, the member lists and the
        bounds during the pass, as :func:`build_sums` would after it: each
        visited item's row of ``ST`` is added into the sums of the cluster it
        ends the visit in, which is its cluster at the end of the pass (an
        item changes cluster only at its own visit), while the row is still
        in cache from the visit's sweep.

    Returns
    -------
    (delta_before, delta_after) : floats
        The objective before and after the pass, updated by the moves' exact gains (lines 19, 25).
    """
    sl = st.slots
    labels, size, active, pos, free, count = sl
    M, err, bound, cand, acc, smax = st.M, st.err, st.bound, st.cand, st.acc, st.smax
    head, nxt, prv = st.head, st.nxt, st.prv
    n = labels.shape[0]
    if build:
        started = np.zeros(n, dtype=np.bool_)
    hi = np.empty(n, dtype=np.float64)  # _candidates' scratch
    if pending:
        members0, first0, stop0 = _pair_order(labels)
        incs = np.empty(n, dtype=np.float64)
        n_inc = 0
        start_objective = 0.0
    delta_before = delta
    order = st.order
    np.random.shuffle(order)
    for i in range(n):
        if pending:
            # the start's objective: the terms of item i with its later cluster mates
            r0 = S[i]
            for t in range(first0[i], stop0[i]):
                start_objective += r0[members0[t]]
        u = order[i]
        row = S[u]
        cu = labels[u]
        n_active = count[N_ACTIVE]
        if not have_sums or n_active * _SWEEP_SHARE > n:
            best, best_val, s_cu = _visit_sweep(row, labels, active, n_active, acc, u, cu)
        else:
            n_cand = _candidates(M, bound, active, n_active, cand, hi, u)
            if n_cand == 1 and cand[0] == cu and M[cu, u] - bound[cu] > 0.0:
                continue  # u stays: its own cluster is the only possible max, and positive
            best, best_val, s_cu = _best_candidate(row, head, nxt, cand, n_cand, u, cu)
        if best_val < 0.0:
            # lines 17-22: no cluster is similar enough; u opens a new one
            # (u is not a singleton here: a singleton's own score is 0)
            inc = -s_cu  # fl(d + (-s)) == fl(d - s)
            opened, emptied = True, False
            best = _open_cluster(size, active, pos, free, count, cu)
        elif best != cu:
            # lines 24-26
            inc = best_val - s_cu
            opened, emptied = False, _move_item(size, active, pos, free, count, cu, best)
        else:
            if build:
                _add_row(ST[u], M, started, cu)
            continue
        labels[u] = best
        if build:
            _add_row(ST[u], M, started, best)
        if have_sums:
            _rows_follow(ST[u], M[cu], M[best], opened, emptied)
            if not emptied:
                _grown(err, bound, size, smax, cu)
            if opened:
                err[best] = 0.0
                bound[best] = _score_bound(0.0, 1, smax)
            else:
                _grown(err, bound, size, smax, best)
            _list_move(head, nxt, prv, cu, best, u)
        if pending:
            incs[n_inc] = inc
            n_inc += 1
        else:
            delta += inc
    if build:
        _lists_and_bounds(st)
    if pending:
        # the first pass ends: the start's objective, then the pass's increments in their order
        delta_before = start_objective
        delta = start_objective
        for j in range(n_inc):
            delta += incs[j]
    return delta_before, delta


@njit(cache=True)
def local_search_run(S, labels, seed, eta, max_passes):
    """One restart of Algorithm 2 (lines 8-29) from ``labels``, in place; S symmetric.

    :func:`local_search_sums` with ``ST = S`` and its own workspace; see there.
    """
    n = S.shape[0]
    return local_search_sums(S, S, labels, seed, eta, max_passes, np.empty((n, n), dtype=np.float64), abs_max(S))


@njit(cache=True)
def local_search_sums(S, ST, labels, seed, eta, max_passes, M, smax):
    """One restart of Algorithm 2 (lines 8-29) from ``labels``, in place, by per-cluster sums.

    Bitwise the run of :func:`~._local_search_kernels.local_search_run_plain`
    (same labels, objective and number of passes, ``tests/test_active_speed.py``),
    in O(N K + moves N) per pass instead of O(N^2): the driver of
    :func:`maxcor_pass` over one :data:`MaxCorState`.

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
    smax : float
        max |S| (:func:`abs_max`) or any upper bound of it (the active loop
        passes the running maximum of what S has held): it bounds the rounding
        of the sums, and a looser bound only leaves more candidates for the
        exact sums, so the run is the same.  The restarts of one clustering
        share it (computing it was 30-45% of a build).

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
    row u into ``acc`` as the plain kernel does (exact directly).  The first
    pass from a random clustering moves almost every item (a move costs about
    one sweep of a row), so it sweeps, and builds the sums of the second pass
    as it goes: the row of each visited item, just swept, is added into the
    sums of the cluster it ends its visit in, which it keeps to the end of
    the pass (``maxcor_pass(..., build=True)``), instead of a separate read
    of all of ``ST`` after the pass (:func:`build_sums`).  The sums then add
    a cluster's rows in visiting order, not ascending order: the bound of
    (ii) holds for a recursive sum in any order (Higham, Eq. 4.4), so the
    candidates, and the run, are the same.  With the single strided read of
    the sums per cluster and visit (:func:`_candidates`), one iteration's T = 3
    restarts take 4-11 % less CPU at N = 1000 on acc_* states
    (``scripts/bench/bench_acc_kernels.py``; the separate build was 0.3-0.6 ms
    of a 1.4-1.6 ms restart).

    The objective of the start (Eq. 5 in the plain double loop's order) is one
    chain of dependent additions, latency-bound: about 45 us at N = 1000 and
    k = 16, 2-3% of a restart.  The first pass adds the terms of item i during
    its visit i instead, where the sweeps leave the adder idle, and keeps its
    increments to replay them onto it afterwards: the same float operations in
    the same order.  This needs the first pass to run whatever the start's
    objective is, which holds when eta < 1 and |objective| <= N^2 / 2 max|S| <
    2^52 (then |delta - fl(delta - 1)| = 1 > eta); otherwise the objective comes
    first, as in the plain kernel.
    """
    seed_visits(seed)
    n = S.shape[0]
    st = maxcor_state(labels, M, smax)
    pending = max_passes >= 1 and eta < 1.0 and 0.5 * n * n * smax < 2.0**52
    # with pending, 0.0 is a placeholder until the first pass ends (the loop's test then holds: 1 > eta)
    delta = 0.0 if pending else max_correlation(S, labels)
    delta_old = delta - 1.0
    n_passes = 0
    while abs(delta - delta_old) > eta and n_passes < max_passes:
        n_passes += 1
        # the first pass builds the sums of the second one as it goes (unless there is no second)
        delta_old, delta = maxcor_pass(S, ST, st, delta, pending, n_passes >= 2, n_passes == 1 and max_passes >= 2)
        pending = False
    return delta, n_passes


__all__ = ["MaxCorState", "build_sums", "local_search_run", "local_search_sums", "maxcor_pass", "maxcor_state",
           "seed_visits"]
