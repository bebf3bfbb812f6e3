"""Numba kernels of ReCon (Liu, Zhang and Wang 2011, Section 4.2).

Pure functions of arrays and scalars (no fastmath: merge heights and the
order of merges must be reproducible to the bit).  The Python wrappers in
``recon.py`` validate the input; these kernels trust it.

Clusters live in *slots* ``0 .. n-1``: merging slots ``i`` and ``j`` keeps
the larger cluster's slot and retires the other.  A cluster's identity in
the output follows scipy's linkage convention (items ``0 .. n-1``, the
cluster formed by merge ``t`` is ``n + t``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# ---------------------------------------------------------------------------
# union-find on items (OneTree's connectivity test)


@njit(cache=True)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]  # path halving
        x = parent[x]
    return x


@njit(cache=True)
def component_labels(n, a, b):
    """Connected components of the graph on ``0 .. n-1`` with edges ``(a[t], b[t])``.

    Returns labels ``0 .. n_comp-1`` in order of first appearance and
    ``n_comp``.  O((n + m) alpha(n)).
    """
    parent = np.arange(n)
    for t in range(a.shape[0]):
        ra = _find(parent, a[t])
        rb = _find(parent, b[t])
        if ra != rb:
            if ra < rb:
                parent[rb] = ra
            else:
                parent[ra] = rb
    labels = np.full(n, -1, dtype=np.int64)
    root_label = np.full(n, -1, dtype=np.int64)
    k = 0
    for x in range(n):
        r = _find(parent, x)
        if root_label[r] < 0:
            root_label[r] = k
            k += 1
        labels[x] = root_label[r]
    return labels, k


# ---------------------------------------------------------------------------
# indexed binary min-heap of slots, ordered by (mind[slot], slot)


@njit(cache=True)
def _hless(mind, a, b):
    return mind[a] < mind[b] or (mind[a] == mind[b] and a < b)


@njit(cache=True)
def _hswap(heap, pos, p, q):
    a = heap[p]
    b = heap[q]
    heap[p] = b
    heap[q] = a
    pos[b] = p
    pos[a] = q


@njit(cache=True)
def _hup(heap, pos, mind, p):
    while p > 0:
        up = (p - 1) // 2
        if _hless(mind, heap[p], heap[up]):
            _hswap(heap, pos, p, up)
            p = up
        else:
            return


@njit(cache=True)
def _hdown(heap, pos, mind, p, size):
    while True:
        left = 2 * p + 1
        if left >= size:
            return
        best = left
        if left + 1 < size and _hless(mind, heap[left + 1], heap[left]):
            best = left + 1
        if _hless(mind, heap[best], heap[p]):
            _hswap(heap, pos, p, best)
            p = best
        else:
            return


@njit(cache=True)
def _hupdate(heap, pos, mind, slot, size):
    _hup(heap, pos, mind, pos[slot])
    _hdown(heap, pos, mind, pos[slot], size)


@njit(cache=True)
def _hremove(heap, pos, mind, slot, size):
    """Remove ``slot``; returns the new size."""
    p = pos[slot]
    size -= 1
    if p < size:
        _hswap(heap, pos, p, size)
        moved = heap[p]
        _hup(heap, pos, mind, p)
        _hdown(heap, pos, mind, pos[moved], size)
    pos[slot] = -1
    return size


@njit(cache=True)
def _dist2(C, i, j):
    s = 0.0
    for f in range(C.shape[1]):
        d = C[i, f] - C[j, f]
        s += d * d
    return s


@njit(cache=True)
def _rescan(k, D, alive, rej, nn, mind):
    """Exact nearest allowed neighbour of slot ``k`` (smallest slot on ties)."""
    best = np.inf
    arg = -1
    for j in range(D.shape[0]):
        if alive[j] and j != k and not rej[k, j] and D[k, j] < best:
            best = D[k, j]
            arg = j
    nn[k] = arg
    mind[k] = best


# ---------------------------------------------------------------------------
# ReCon's constraint checks on the current clusters


@njit(cache=True)
def _forbidden(i, j, SA, SB, SC, inc_ptr, inc_con, active, head, nxt, size):
    """Line 9 of ReCon: is some active ``ab|c`` with a or b in one cluster and c in the other?

    Scans the constraints incident to the smaller cluster's items.
    """
    s, t = (i, j) if size[i] <= size[j] else (j, i)
    x = head[s]
    while x >= 0:
        for p in range(inc_ptr[x], inc_ptr[x + 1]):
            q = inc_con[p]
            if not active[q]:
                continue
            sa = SA[q]
            sb = SB[q]
            sc = SC[q]
            if sc == s and (sa == t or sb == t):
                return True
            if sc == t and (sa == s or sb == s):
                return True
        x = nxt[x]
    return False


@njit(cache=True)
def _lfind(lparent, lsize, stamp, cur, x):
    if stamp[x] != cur:
        stamp[x] = cur
        lparent[x] = x
        lsize[x] = 1
        return x
    while lparent[x] != x:  # every parent was stamped in this round
        lparent[x] = lparent[lparent[x]]
        x = lparent[x]
    return x


@njit(cache=True)
def _lunion(lparent, lsize, stamp, cur, x, y):
    rx = _lfind(lparent, lsize, stamp, cur, x)
    ry = _lfind(lparent, lsize, stamp, cur, y)
    if rx == ry:
        return False
    if lsize[rx] < lsize[ry]:
        rx, ry = ry, rx
    lparent[ry] = rx
    lsize[rx] += lsize[ry]
    return True


@njit(cache=True)
def test_compatibility(i, j, n_alive, SA, SB, SC, active, wa, wb, wc, lparent, lsize, stamp, stamp0, counters):
    """TestCompatibility(C', S, i, j) of Section 4.2, the recursion unrolled into a loop.

    Parameters
    ----------
    i, j : int
        Slots of the two clusters to merge.
    n_alive : int
        |S| at the top level: the number of current clusters.
    SA, SB, SC : int64 arrays (m,)
        Current slots of each constraint's ``a, b, c``.
    active : bool array (m,)
    wa, wb, wc : int64 arrays (m,)
        Scratch: the slot triples of the current level's constraints.
    lparent, lsize, stamp : int64 arrays (n,)
        Scratch union-find over slots, reset lazily by ``stamp``.
    stamp0 : int
        First unused stamp value.
    counters : int64 array
        ``counters[5]`` counts the levels visited, ``counters[6]`` the
        constraints scanned over them.

    Returns
    -------
    ok : bool
    stamp : int
        Next unused stamp value.

    Notes
    -----
    A level unites ``i`` and ``j`` and every ``a, b`` of its constraints;
    a single set left means no hierarchy has ``i, j`` merged (false, as
    soon as the unions reach it).  Otherwise only the component ``S_e``
    holding ``i, j`` needs a further look: the other components carry
    restrictions of the current constraints, which are consistent.  A
    level costs O(|C_e| alpha) over contiguous slot triples, so the worst
    case is O(|S| |C|) as for OneTree.
    """
    m = 0
    for q in range(SA.shape[0]):
        if active[q]:
            wa[m] = SA[q]
            wb[m] = SB[q]
            wc[m] = SC[q]
            m += 1
    n_s = n_alive
    cur = stamp0
    while True:
        if n_s <= 2:
            return True, cur
        cur += 1
        counters[5] += 1
        counters[6] += m
        unions = 0
        if _lunion(lparent, lsize, stamp, cur, i, j):
            unions += 1
        if n_s - unions == 1:
            return False, cur + 1
        for t in range(m):
            if _lunion(lparent, lsize, stamp, cur, wa[t], wb[t]):
                unions += 1
                if n_s - unions == 1:
                    return False, cur + 1
        r = _lfind(lparent, lsize, stamp, cur, i)
        n_next = lsize[r]
        kept = 0
        for t in range(m):
            if _lfind(lparent, lsize, stamp, cur, wa[t]) == r and _lfind(lparent, lsize, stamp, cur, wc[t]) == r:
                wa[kept] = wa[t]
                wb[kept] = wb[t]
                wc[kept] = wc[t]
                kept += 1
        if kept == 0:
            return True, cur + 1
        m = kept
        n_s = n_next


@njit(cache=True)
def slot_incidence(n, SA, SB, SC, active, adj_ptr, adj_con, c_ptr, c_con, fill):
    """CSR maps of the current state: slot -> active constraints with it as ``a`` or ``b``, and as ``c``.

    ``adj_ptr, c_ptr`` have ``n + 1`` entries; ``adj_con`` holds ``2 m``
    and ``c_con`` ``m`` constraint ids; ``fill`` is scratch of size ``n``.
    O(n + m); rebuilt once per merge, shared by that state's tests.
    """
    for x in range(n + 1):
        adj_ptr[x] = 0
        c_ptr[x] = 0
    for q in range(SA.shape[0]):
        if active[q]:
            adj_ptr[SA[q] + 1] += 1
            adj_ptr[SB[q] + 1] += 1
            c_ptr[SC[q] + 1] += 1
    for x in range(n):
        adj_ptr[x + 1] += adj_ptr[x]
        c_ptr[x + 1] += c_ptr[x]
    for x in range(n):
        fill[x] = adj_ptr[x]
    for q in range(SA.shape[0]):
        if active[q]:
            adj_con[fill[SA[q]]] = q
            fill[SA[q]] += 1
            adj_con[fill[SB[q]]] = q
            fill[SB[q]] += 1
    for x in range(n):
        fill[x] = c_ptr[x]
    for q in range(SA.shape[0]):
        if active[q]:
            c_con[fill[SC[q]]] = q
            fill[SC[q]] += 1


@njit(cache=True)
def state_components(n, slots, n_alive, SA, SB, active, par0, comp0, m_ptr, m_list, t_ptr, t_list, fill):
    """The first level of TestCompatibility without the pair's edge, shared by a state's tests.

    Components of the graph on the current clusters with an edge ``a b``
    for each active ``ab|c``: ``comp0[x]`` is the root slot of ``x``'s
    component, ``m_list[m_ptr[r]:m_ptr[r + 1]]`` its slots and
    ``t_list[t_ptr[r]:t_ptr[r + 1]]`` the constraints whose edges joined it
    (a spanning tree).  Returns the number of components.  O(n + m).
    """
    for t in range(n_alive):
        par0[slots[t]] = slots[t]
    n_comp = n_alive
    n_t = 0
    for q in range(SA.shape[0]):
        if active[q]:
            ra = _find(par0, SA[q])
            rb = _find(par0, SB[q])
            if ra != rb:
                par0[max(ra, rb)] = min(ra, rb)
                fill[n_t] = q
                n_t += 1
                n_comp -= 1
    for x in range(n + 1):
        m_ptr[x] = 0
        t_ptr[x] = 0
    for t in range(n_alive):
        x = slots[t]
        r = _find(par0, x)
        comp0[x] = r
        m_ptr[r + 1] += 1
    for k in range(n_t):
        t_ptr[comp0[SA[fill[k]]] + 1] += 1
    for x in range(n):
        m_ptr[x + 1] += m_ptr[x]
        t_ptr[x + 1] += t_ptr[x]
    # t_list is filled from the back of each block so that fill[] can stay the edge list
    for k in range(n_t):
        r = comp0[SA[fill[k]]]
        t_ptr[r + 1] -= 1
        t_list[t_ptr[r + 1]] = fill[k]
    for k in range(n_t):
        r = comp0[SA[fill[k]]]
        t_ptr[r + 1] += 1
    for t in range(n_alive):
        x = slots[t]
        r = comp0[x]
        m_ptr[r + 1] -= 1
        m_list[m_ptr[r + 1]] = x
    for t in range(n_alive):
        m_ptr[comp0[slots[t]] + 1] += 1
    return n_comp


@njit(cache=True)
def _peel(P, n_p, S_mark, st, SA, SB, c_ptr, c_con, tmark, tst, qx, qy, nq):
    """Remove the slots ``P[:n_p]`` from S; queue the spanning edges ``a b`` that lose their ``c``.

    A constraint ``ab|c`` gives an edge only while ``a, b, c`` are all in
    S, so removing ``c`` deletes the edge between the remaining ``a, b``;
    only the deletion of an edge of the spanning subgraph (``tmark == tst``)
    can disconnect anything.  Returns the new queue length.
    """
    for t in range(n_p):
        S_mark[P[t]] = 0
    for t in range(n_p):
        v = P[t]
        for p in range(c_ptr[v], c_ptr[v + 1]):
            q = c_con[p]
            if tmark[q] == tst and S_mark[SA[q]] == st and S_mark[SB[q]] == st:
                qx[nq] = SA[q]
                qy[nq] = SB[q]
                nq += 1
    return nq


@njit(cache=True)
def _level(members, n_mem, i, j, S_mark, st, SA, SB, SC, adj_ptr, adj_con, c_ptr, c_con,
           lparent, lsize, stamp, ust, tmark, P, qx, qy, counters):
    """One level of the recursion on the slots ``members[:n_mem]`` (all of S), by union-find.

    Marks the edges that joined two sets (a spanning forest) with ``ust``,
    keeps the component of ``i``, drops the rest of S and queues the
    spanning edges that lose their ``c``.  Returns the new ``|S|`` and queue
    length; the queue is empty when S is connected (then the merge is
    refused unless S is ``{i, j}``).
    """
    counters[5] += 1
    unions = 0
    if _lunion(lparent, lsize, stamp, ust, i, j):
        unions += 1
    for t in range(n_mem):
        v = members[t]
        for p in range(adj_ptr[v], adj_ptr[v + 1]):
            q = adj_con[p]
            if SA[q] != v or S_mark[SB[q]] != st or S_mark[SC[q]] != st:
                continue
            counters[6] += 1
            if _lunion(lparent, lsize, stamp, ust, v, SB[q]):
                tmark[q] = ust
                unions += 1
    if n_mem - unions == 1:
        return n_mem, 0
    r = _lfind(lparent, lsize, stamp, ust, i)
    n_p = 0
    for t in range(n_mem):
        v = members[t]
        if _lfind(lparent, lsize, stamp, ust, v) != r:
            P[n_p] = v
            n_p += 1
    nq = _peel(P, n_p, S_mark, st, SA, SB, c_ptr, c_con, tmark, ust, qx, qy, 0)
    return lsize[r], nq


#: Pairs queued per slot of S above which one union-find level replaces the searches.
RELEVEL = 4


@njit(cache=True)
def _mark_path(u, pv, pe, tmark, tst):
    """Add the search-tree path from ``u`` to its root to the spanning subgraph."""
    while pv[u] >= 0:
        if pe[u] >= 0:
            tmark[pe[u]] = tst
        u = pv[u]


@njit(cache=True)
def _expand(v, own, other_side, i, j, S_mark, st, SA, SB, SC, adj_ptr, adj_con, vis, pv, pe, queue, tail,
            tmark, tst, counters):
    """Visit the neighbours of ``v`` in ``G(S)`` for one side of a two-sided search.

    Returns the new queue tail, or -1 when the other side's mark was met;
    then the path joining the two roots joins the spanning subgraph.
    """
    for p in range(adj_ptr[v], adj_ptr[v + 1] + 1):
        if p < adj_ptr[v + 1]:
            q = adj_con[p]
            w = SB[q] if SA[q] == v else SA[q]
            if S_mark[w] != st or S_mark[SC[q]] != st:
                continue
        elif v == i:  # the pair under test is joined by an edge of its own
            q = -1
            w = j
        elif v == j:
            q = -1
            w = i
        else:
            break
        counters[6] += 1
        if vis[w] == own:
            continue
        if vis[w] == other_side:
            if q >= 0:
                tmark[q] = tst
            _mark_path(v, pv, pe, tmark, tst)
            _mark_path(w, pv, pe, tmark, tst)
            return -1
        vis[w] = own
        pv[w] = v
        pe[w] = q
        queue[tail] = w
        tail += 1
    return tail


@njit(cache=True)
def test_compatibility_peel(
    i, j, slots, n_alive, comp0, n_comp0, m_ptr, m_list, t_ptr, t_list, SA, SB, SC, adj_ptr, adj_con, c_ptr, c_con,
    lparent, lsize, stamp, S_mark, vis, pv, pe, tmark, qa, qb, P, qx, qy, tick0, counters,
):
    """TestCompatibility(C', S, i, j) of Section 4.2 by peeling one graph instead of rebuilding it per level.

    Same answer as :func:`test_compatibility` (the level-by-level recursion,
    kept as the reference), without the work of its deep failures.

    Parameters
    ----------
    i, j : int
        Slots of the two clusters to merge.
    slots : int64 array
        The current clusters' slots (``n_alive`` of them).
    comp0, n_comp0, m_ptr, m_list, t_ptr, t_list
        :func:`state_components` of the current state.
    SA, SB, SC : int64 arrays (m,)
        Current slots of each constraint's ``a, b, c``.
    adj_ptr, adj_con, c_ptr, c_con
        :func:`slot_incidence` of the current state (active constraints only).
    lparent, lsize, stamp : int64 arrays (n,)
        Scratch union-find, reset lazily by ``stamp``.
    S_mark, vis, pv, pe, qa, qb, P : int64 arrays (n,)
        Scratch: membership of S, the searches' marks, parents, parent
        edges and queues, a dropped set.
    tmark : int64 array (m,)
        Scratch: membership of the spanning subgraph.
    qx, qy : int64 arrays (m + n + 1,)
        Scratch: the pairs still to check.
    tick0 : int
        First unused mark value (``stamp``, ``S_mark``, ``vis`` and
        ``tmark`` take their marks from one increasing counter).
    counters : int64 array
        ``counters[5]`` counts union-find levels and connectivity checks,
        ``counters[6]`` the constraints and edges they visit.

    Returns
    -------
    ok : bool
    tick : int
        Next unused mark value.

    Notes
    -----
    Write ``G(S)`` for the graph on S with an edge ``a b`` for each
    constraint ``ab|c`` with ``a, b, c`` in S, plus the edge ``i j``.  The
    recursion keeps the component of ``i`` in ``G(S)`` until that is all of
    S.  ``G`` only loses edges when S shrinks, so that limit is the largest
    S' containing ``i, j`` with ``G(S')`` connected (the greatest fixed
    point, in whatever order components are dropped), and the merge is
    compatible iff it is ``{i, j}`` alone.

    The first level comes from the state's components, computed once for
    all the tests between two merges: S is the union of the components of
    ``i`` and ``j``, and their spanning trees (plus the edge ``i j``) make
    a spanning subgraph T.  After that S loses components:
    removing slots deletes the edges of the constraints whose ``c`` they
    hold, and each deleted edge ``x y`` of T is queued.  A queued pair is
    checked by searching from ``x`` and from ``y`` in turns (decremental
    connectivity in the manner of Even and Shiloach, 1981): meeting means
    nothing split, and the joining path enters T; a search running out
    first has found a whole component.  Without ``i`` it is dropped and the
    other side is checked against ``i``; with ``i`` it becomes S and one
    union-find level rebuilds T.  A pair whose slot has left S is checked
    against ``i`` instead.  When many pairs are queued (more than
    ``|S| / RELEVEL``), one union-find level over S replaces their
    searches.  Invariant: T (its edges still in ``G(S)``) plus
    the queued pairs connects S, so an empty queue means ``G(S)`` is
    connected.  Each slot leaves S once per call and each search stops at
    the side that runs out first, instead of O(|C_e|) union-find work at
    each of often 20 levels.
    """
    if n_alive <= 2:
        return True, tick0
    # the first level from the state's components: those of i and j, joined by the pair's edge
    ri = comp0[i]
    rj = comp0[j]
    if n_comp0 - (1 if ri != rj else 0) == 1:
        return False, tick0
    st = tick0
    tst = tick0 + 1
    tick = tick0 + 2
    n_s = 0
    nq = 0
    for r in (ri, rj):
        for p in range(m_ptr[r], m_ptr[r + 1]):
            S_mark[m_list[p]] = st
        n_s += m_ptr[r + 1] - m_ptr[r]
        if ri == rj:
            break
    if n_s <= 2:
        return True, tick
    # the spanning forest's edges in S make T; those whose c is outside S are deleted
    for r in (ri, rj):
        for p in range(t_ptr[r], t_ptr[r + 1]):
            q = t_list[p]
            tmark[q] = tst
            if S_mark[SC[q]] != st:
                qx[nq] = SA[q]
                qy[nq] = SB[q]
                nq += 1
        if ri == rj:
            break
    while n_s > 2 and nq > 0:
        if nq * RELEVEL > n_s:
            # many pairs to check: one union-find level over S is cheaper
            n_m = 0
            for t in range(n_alive):
                v = slots[t]
                if S_mark[v] == st:
                    qa[n_m] = v
                    n_m += 1
            tst = tick
            tick += 1
            n_s, nq = _level(qa, n_m, i, j, S_mark, st, SA, SB, SC, adj_ptr, adj_con, c_ptr, c_con,
                             lparent, lsize, stamp, tst, tmark, qb, qx, qy, counters)
            continue
        nq -= 1
        x = qx[nq]
        y = qy[nq]
        if S_mark[x] != st:
            if S_mark[y] != st:
                continue
            x = i
        elif S_mark[y] != st:
            y = i
        if x == y:
            continue
        counters[5] += 1
        sa = tick
        sb = tick + 1
        tick += 2
        vis[x] = sa
        vis[y] = sb
        pv[x] = -1
        pv[y] = -1
        qa[0] = x
        qb[0] = y
        ha = 0
        hb = 0
        ta = 1
        tb = 1
        side = 0  # 0: x's search ran out, 1: y's, -1: they met
        while True:
            ta = _expand(qa[ha], sa, sb, i, j, S_mark, st, SA, SB, SC, adj_ptr, adj_con, vis, pv, pe, qa, ta,
                         tmark, tst, counters)
            if ta < 0:
                side = -1
                break
            ha += 1
            if ha == ta:
                side = 0
                break
            tb = _expand(qb[hb], sb, sa, i, j, S_mark, st, SA, SB, SC, adj_ptr, adj_con, vis, pv, pe, qb, tb,
                         tmark, tst, counters)
            if tb < 0:
                side = -1
                break
            hb += 1
            if hb == tb:
                side = 1
                break
        if side < 0:
            continue
        comp = qa if side == 0 else qb
        n_c = ta if side == 0 else tb
        mark = sa if side == 0 else sb
        if vis[i] == mark:
            # the component of i is all that can remain: drop the rest, rebuild T on it
            for t in range(n_alive):
                v = slots[t]
                if S_mark[v] == st and vis[v] != mark:
                    S_mark[v] = 0
            tst = tick
            tick += 1
            n_s, nq = _level(comp, n_c, i, j, S_mark, st, SA, SB, SC, adj_ptr, adj_con, c_ptr, c_con,
                             lparent, lsize, stamp, tst, tmark, qb if side == 0 else qa, qx, qy, counters)
        else:
            n_s -= n_c
            other_mark = sb if side == 0 else sa
            if vis[i] == other_mark:
                # the other side's search reached i: that path joins T before
                # the drop, which queues its edges that lose their c
                _mark_path(i, pv, pe, tmark, tst)
            else:
                qx[nq] = y if side == 0 else x
                qy[nq] = i
                nq += 1
            nq = _peel(comp, n_c, S_mark, st, SA, SB, c_ptr, c_con, tmark, tst, qx, qy, nq)
    return n_s <= 2, tick


# ---------------------------------------------------------------------------
# the agglomeration


@njit(cache=True)
def recon_agglomerate(X, R, inc_ptr, inc_con, check_compatibility, mode=0):
    """ReCon (Section 4.2): centroid-linkage agglomeration under relative constraints.

    Parameters
    ----------
    X : float64 array (n, d)
        Features in the metric's space (squared Euclidean between centroids).
    R : int64 array (m, 3)
        Constraints ``ab|c`` on items, assumed consistent (OneTree first).
    inc_ptr, inc_con : int64 arrays
        CSR item -> incident constraint ids.
    check_compatibility : bool
        False gives the naive constrained agglomeration (line 9 only), which
        can dead-end; True is ReCon.
    mode : int
        How TestCompatibility is computed: 0 by peeling
        (:func:`test_compatibility_peel`), 1 by the level-by-level recursion
        (:func:`test_compatibility`, the reference), 2 both, the reference's
        answer used and disagreements counted (for the tests).

    Returns
    -------
    Z : float64 array (n-1, 4)
        scipy linkage rows ``(id1, id2, height, size)`` for the merges done
        (``n_merges`` of them; the rest is zero).
    n_merges : int
        ``n - 1`` for a complete hierarchy, fewer at a dead end.
    counters : int64 array (8,)
        Candidate pairs examined, forbidden pairs (line 9),
        TestCompatibility calls, incompatible pairs, nearest-neighbour
        rescans, the work inside TestCompatibility (levels and constraints
        scanned by the recursion; connectivity checks and constraints and
        edges visited by peeling), and disagreements of the two (mode 2).

    Notes
    -----
    The priority queue holds the clusters, keyed by a lower bound
    ``mind[k]`` on the distance to their nearest *allowed* partner ``nn[k]``
    (Muellner's generic linkage algorithm, 2011, with rejected pairs
    excluded).  The top cluster's bound is checked against the current
    distance; if exact, ``(k, nn[k])`` is the closest allowed pair of line 8,
    otherwise ``k``'s row is rescanned.  A merge only lowers bounds where
    the new centroid came closer, so stale bounds stay lower bounds.

    A pair rejected by line 9 or line 11 stays rejected until one of its
    clusters merges (merging other clusters only shrinks the set of
    hierarchies still possible), so it is marked and skipped; a merge
    clears the marks of the merged cluster.  Checks run only for pairs
    whose clusters both touch an active constraint: a merge involving a
    cluster that no constraint mentions cannot violate or block anything.
    UpdateConstraints deactivates ``ab|c`` once ``a`` and ``b`` share a
    cluster, scanning the constraints of the absorbed (smaller) cluster's
    items, whose labels are rewritten (union by size: O(n log n) in all).

    Cost: O(n^2 d) time and O(n^2) memory for the distance matrix, O(n) per
    rescan, plus per check O(|C|): O(|C_e|) per level of the reference
    TestCompatibility; by peeling, O(n + |C|) once per merge for the
    state's incidence and components, then per test the two clusters'
    components and the searches (see :func:`test_compatibility_peel`).
    """
    n = X.shape[0]
    m = R.shape[0]
    C = X.copy()
    size = np.ones(n, dtype=np.int64)
    alive = np.ones(n, dtype=np.bool_)
    cid = np.arange(n, dtype=np.int64)
    slot_of = np.arange(n, dtype=np.int64)
    head = np.arange(n, dtype=np.int64)
    tail = np.arange(n, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)
    active = np.ones(m, dtype=np.bool_)
    cnt = np.zeros(n, dtype=np.int64)  # active constraint incidences per slot
    for q in range(m):
        for p in range(3):
            cnt[R[q, p]] += 1
    SA = R[:, 0].copy()
    SB = R[:, 1].copy()
    SC = R[:, 2].copy()
    wa = np.empty(max(m, 1), dtype=np.int64)
    wb = np.empty(max(m, 1), dtype=np.int64)
    wc = np.empty(max(m, 1), dtype=np.int64)
    lparent = np.empty(n, dtype=np.int64)
    lsize = np.empty(n, dtype=np.int64)
    stamp = np.zeros(n, dtype=np.int64)
    cur = 1
    counters = np.zeros(8, dtype=np.int64)
    # peeling's scratch; the slot incidence is rebuilt at the first test after a merge
    adj_ptr = np.zeros(n + 1, dtype=np.int64)
    adj_con = np.empty(max(2 * m, 1), dtype=np.int64)
    c_ptr = np.zeros(n + 1, dtype=np.int64)
    c_con = np.empty(max(m, 1), dtype=np.int64)
    S_mark = np.zeros(n, dtype=np.int64)
    vis = np.zeros(n, dtype=np.int64)
    qa = np.empty(n, dtype=np.int64)
    qb = np.empty(n, dtype=np.int64)
    P = np.empty(n, dtype=np.int64)
    pv = np.empty(n, dtype=np.int64)
    pe = np.empty(n, dtype=np.int64)
    tmark = np.zeros(max(m, 1), dtype=np.int64)
    par0 = np.empty(n, dtype=np.int64)
    comp0 = np.empty(n, dtype=np.int64)
    m_ptr = np.zeros(n + 1, dtype=np.int64)
    m_list = np.empty(n, dtype=np.int64)
    t_ptr = np.zeros(n + 1, dtype=np.int64)
    t_list = np.empty(n, dtype=np.int64)
    n_comp0 = 0
    qx = np.empty(m + n + 1, dtype=np.int64)
    qy = np.empty(m + n + 1, dtype=np.int64)
    stale = True
    Z = np.zeros((max(n - 1, 0), 4))

    D = np.empty((n, n))
    for i in range(n):
        D[i, i] = np.inf
        for j in range(i + 1, n):
            D[i, j] = _dist2(C, i, j)
            D[j, i] = D[i, j]
    rej = np.zeros((n, n), dtype=np.bool_)
    nn = np.full(n, -1, dtype=np.int64)
    mind = np.full(n, np.inf)
    for k in range(n):
        _rescan(k, D, alive, rej, nn, mind)
    heap = np.arange(n, dtype=np.int64)
    pos = np.arange(n, dtype=np.int64)
    hsize = n
    for p in range(n // 2 - 1, -1, -1):
        _hdown(heap, pos, mind, p, hsize)

    n_alive = n
    n_merges = 0
    while n_alive > 1:
        i = heap[0]
        if mind[i] == np.inf:
            break  # dead end: every remaining pair is rejected
        j = nn[i]
        if j < 0 or not alive[j] or rej[i, j] or D[i, j] != mind[i]:
            counters[4] += 1
            _rescan(i, D, alive, rej, nn, mind)
            _hupdate(heap, pos, mind, i, hsize)
            continue
        counters[0] += 1
        ok = True
        if cnt[i] > 0 and cnt[j] > 0:
            if _forbidden(i, j, SA, SB, SC, inc_ptr, inc_con, active, head, nxt, size):
                counters[1] += 1
                ok = False
            elif check_compatibility:
                counters[2] += 1
                if mode != 1:
                    if stale:
                        slot_incidence(n, SA, SB, SC, active, adj_ptr, adj_con, c_ptr, c_con, P)
                        n_comp0 = state_components(
                            n, heap, n_alive, SA, SB, active, par0, comp0, m_ptr, m_list, t_ptr, t_list, P
                        )
                        stale = False
                    ok, cur = test_compatibility_peel(
                        i, j, heap, n_alive, comp0, n_comp0, m_ptr, m_list, t_ptr, t_list, SA, SB, SC, adj_ptr, adj_con, c_ptr, c_con,
                        lparent, lsize, stamp, S_mark, vis, pv, pe, tmark, qa, qb, P, qx, qy, cur, counters,
                    )
                if mode != 0:
                    ok_ref, cur = test_compatibility(
                        i, j, n_alive, SA, SB, SC, active, wa, wb, wc, lparent, lsize, stamp, cur, counters
                    )
                    if mode == 2 and ok_ref != ok:
                        counters[7] += 1
                    ok = ok_ref
                if not ok:
                    counters[3] += 1
        if not ok:
            rej[i, j] = True
            rej[j, i] = True
            counters[4] += 1
            _rescan(i, D, alive, rej, nn, mind)
            _hupdate(heap, pos, mind, i, hsize)
            continue
        # merge: keep the larger cluster's slot, absorb the smaller one
        key = D[i, j]
        keep, gone = (i, j) if size[i] >= size[j] else (j, i)
        Z[n_merges, 0] = min(cid[i], cid[j])
        Z[n_merges, 1] = max(cid[i], cid[j])
        Z[n_merges, 2] = np.sqrt(key)
        Z[n_merges, 3] = size[i] + size[j]
        tot = size[keep] + size[gone]
        for f in range(C.shape[1]):
            C[keep, f] = (size[keep] * C[keep, f] + size[gone] * C[gone, f]) / tot
        x = head[gone]
        while x >= 0:
            slot_of[x] = keep
            x = nxt[x]
        nxt[tail[keep]] = head[gone]
        tail[keep] = tail[gone]
        # UpdateConstraints: ab|c with a, b now in one cluster is satisfied for good
        cnt[keep] += cnt[gone]
        cnt[gone] = 0
        if cnt[keep] > 0:
            x = head[gone]
            while x >= 0:
                for p in range(inc_ptr[x], inc_ptr[x + 1]):
                    q = inc_con[p]
                    if not active[q]:
                        continue
                    SA[q] = slot_of[R[q, 0]]
                    SB[q] = slot_of[R[q, 1]]
                    SC[q] = slot_of[R[q, 2]]
                    if SA[q] == SB[q]:
                        active[q] = False
                        cnt[keep] -= 2
                        cnt[SC[q]] -= 1
                x = nxt[x]
        size[keep] = tot
        alive[gone] = False
        stale = True
        cid[keep] = n + n_merges
        n_merges += 1
        n_alive -= 1
        hsize = _hremove(heap, pos, mind, gone, hsize)
        if n_alive == 1:
            break
        # the merged cluster's distances; neighbours it came closer to lower their bound
        for k in range(n):
            if alive[k] and k != keep:
                d = _dist2(C, keep, k)
                D[keep, k] = d
                D[k, keep] = d
                rej[keep, k] = False
                rej[k, keep] = False
                if d < mind[k]:
                    mind[k] = d
                    nn[k] = keep
                    _hup(heap, pos, mind, pos[k])
        _rescan(keep, D, alive, rej, nn, mind)
        _hupdate(heap, pos, mind, keep, hsize)
    return Z, n_merges, counters

