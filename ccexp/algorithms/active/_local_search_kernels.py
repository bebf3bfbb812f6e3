"""Numba kernels of Algorithm 2 of Aronsson & Chehreghani (2024): the max-correlation local search.

Delta^MaxCor (Eq. 5) of a clustering, one restart of the local search with a
dynamic number of clusters (lines 8-29) -- the plain O(N^2)-per-pass kernel
and the bitwise-equal one by per-cluster sums -- and the random initial
clusterings of line 7.  The dense symmetric ``S`` (float64, ``S[u, u] = 0``)
is the family's own data layout, which is why it keeps its own local search
(see :mod:`ccexp.cc`).  A kernel that draws calls ``np.random.seed(seed)``
first, so its output is a function of its inputs.
"""

from __future__ import annotations

import numpy as np
from numba import njit


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
def _pair_order(labels):
    """Where the plain double loop of Eq. 5 finds each item's later cluster mates.

    Returns ``(members, first, stop)``: the members of every cluster in
    ascending order, cluster after cluster (a stable counting sort), and
    for each item u the slice ``members[first[u]:stop[u]]`` of the members
    of its cluster after u.  Labels are ids in ``[0, N)``.
    """
    n = labels.shape[0]
    start = np.zeros(n + 1, dtype=np.int64)
    for u in range(n):
        start[labels[u] + 1] += 1
    for c in range(n):
        start[c + 1] += start[c]
    fill = start[:n].copy()
    members = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    stop = np.empty(n, dtype=np.int64)
    for u in range(n):
        c = labels[u]
        members[fill[c]] = u
        fill[c] += 1
        first[u] = fill[c]
        stop[u] = start[c + 1]
    return members, first, stop


@njit(cache=True)
def max_correlation(S, labels):
    """Delta^MaxCor of Eq. 5: the sum of S(u, v) over pairs u < v in one cluster.

    Visits only the pairs inside clusters, O(N + sum_c |c|^2 / 2) instead
    of O(N^2 / 2) checks, and adds them in the order of the plain double
    loop (u ascending, then v > u ascending), so the float sum is bitwise
    the same (:func:`max_correlation_plain`).  Labels are ids in ``[0, N)``.
    """
    members, first, stop = _pair_order(labels)
    total = 0.0
    for u in range(S.shape[0]):
        row = S[u]
        for t in range(first[u], stop[u]):
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
def abs_max(S):
    """max |S(u, v)| over the matrix (exact; the ``smax`` of :func:`local_search_sums`)."""
    smax = 0.0
    for u in range(S.shape[0]):
        smax = max(smax, _abs_max(S[u]))
    return smax


@njit(cache=True)
def _build_sums(ST, labels, active, n_active, size, M, members, err, bound, smax):
    """M[c, :] = sum of ST[v, :] over the members v of c (ascending), the member lists, the bounds.

    ``members = (head, nxt, prv)``: the doubly linked member list of each cluster (``head[c]`` its first
    member, -1 if empty; ``nxt``/``prv`` per item, -1 at the ends), rebuilt here in ascending item order.
    """
    head, nxt, prv = members
    n = ST.shape[0]
    tail = np.full(n, -1, dtype=np.int64)
    for j in range(n_active):
        head[active[j]] = -1
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
    for j in range(n_active):
        c = active[j]
        err[c] = _gamma(float(size[c])) * size[c] * smax
        bound[c] = _score_bound(err[c], size[c], smax)


@njit(cache=True)
def _cluster_slots(labels, n):
    """Cluster sizes, the non-empty ids in ``active[0:n_active]`` with their position in ``pos``,
    and the empty ids on the ``free[0:n_free]`` stack (ids in ``[0, n)``)."""
    size = np.zeros(n, dtype=np.int64)
    for u in range(n):
        size[labels[u]] += 1
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
    return size, active, pos, free, n_active, n_free


@njit(cache=True)
def _open_cluster(u, cu, labels, size, active, pos, free, n_active, n_free):
    """Lines 17-22 of Algorithm 2: ``u`` leaves ``cu`` (not a singleton) for a new cluster, the top free id.

    Returns ``(c_new, n_active, n_free)``.
    """
    c_new = free[n_free - 1]
    n_free -= 1
    active[n_active] = c_new
    pos[c_new] = n_active
    n_active += 1
    size[cu] -= 1
    size[c_new] = 1
    labels[u] = c_new
    return c_new, n_active, n_free


@njit(cache=True)
def _move_item(u, cu, best, labels, size, active, pos, free, n_active, n_free):
    """Lines 24-26 of Algorithm 2: ``u`` moves from ``cu`` to ``best``; an emptied ``cu`` returns to the free ids.

    Returns ``(emptied, n_active, n_free)``.
    """
    size[cu] -= 1
    size[best] += 1
    labels[u] = best
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
    return emptied, n_active, n_free


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
    row u into ``acc`` as the plain kernel does (exact directly).
    """
    np.random.seed(seed)
    n = S.shape[0]
    size, active, pos, free, n_active, n_free = _cluster_slots(labels, n)
    # members of each cluster, ascending (doubly linked lists from head[c]), the cluster
    # sums M and their error bounds: built once moves become rare (see _build_sums)
    head = np.full(n, -1, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)
    prv = np.full(n, -1, dtype=np.int64)
    err = np.zeros(n, dtype=np.float64)
    bound = np.zeros(n, dtype=np.float64)
    have_sums = False
    acc = np.zeros(n, dtype=np.float64)
    cand = np.empty(n, dtype=np.int64)
    # The objective of the start (Eq. 5 in the plain double loop's order) is one chain of dependent
    # additions, latency-bound: about 45 us at N = 1000 and k = 16, 2-3% of a restart.  Its terms of
    # item i are added during the first pass's visit i instead, where the sweeps leave the adder idle,
    # and the pass's increments to the objective are kept and replayed onto it afterwards: the same
    # float operations in the same order.  This needs the first pass to run whatever the start's
    # objective is, which holds when eta < 1 and |objective| <= N^2 / 2 max|S| < 2^52 (then
    # |delta - fl(delta - 1)| = 1 > eta); otherwise the objective comes first, as in the plain kernel.
    pending = max_passes >= 1 and eta < 1.0 and 0.5 * n * n * smax < 2.0**52
    if pending:
        members0, first0, stop0 = _pair_order(labels)
        incs = np.empty(n, dtype=np.float64)
        n_inc = 0
        start_objective = 0.0
        delta = 0.0  # a placeholder until the first pass ends (the loop's test then holds: 1 > eta)
    else:
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
            _build_sums(ST, labels, active, n_active, size, M, (head, nxt, prv), err, bound, smax)
            have_sums = True
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
                c_new, n_active, n_free = _open_cluster(u, cu, labels, size, active, pos, free, n_active, n_free)
                if pending:
                    incs[n_inc] = -s_cu  # fl(d + (-s)) == fl(d - s)
                    n_inc += 1
                else:
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
                emptied, n_active, n_free = _move_item(u, cu, best, labels, size, active, pos, free, n_active, n_free)
                if pending:
                    incs[n_inc] = best_val - s_cu
                    n_inc += 1
                else:
                    delta += best_val - s_cu
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
        if pending:
            # the first pass ends: the start's objective, then the pass's increments in their order
            pending = False
            delta_old = start_objective
            delta = start_objective
            for j in range(n_inc):
                delta += incs[j]
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
    size, active, pos, free, n_active, n_free = _cluster_slots(labels, n)
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
                _, n_active, n_free = _open_cluster(u, cu, labels, size, active, pos, free, n_active, n_free)
                delta -= s_cu
            elif best != cu:
                # lines 24-26
                _, n_active, n_free = _move_item(u, cu, best, labels, size, active, pos, free, n_active, n_free)
                delta += best_val - s_cu
    return delta, n_passes


@njit(cache=True)
def random_labels(n, k, seed):
    """Line 7: every item in one of ``k`` clusters uniformly at random."""
    np.random.seed(seed)
    labels = np.empty(n, dtype=np.int64)
    for u in range(n):
        labels[u] = np.random.randint(0, k)
    return labels
