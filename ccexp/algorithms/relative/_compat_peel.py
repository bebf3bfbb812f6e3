"""TestCompatibility of ReCon by peeling one graph (Liu, Zhang and Wang 2011, Section 4.2).

Same answers as the level-by-level recursion of :mod:`._compat_levels`
(the reference), without the work of its deep failures; see
:func:`test_compatibility_peel`. Numba kernels, no fastmath.

Scratch layout, :class:`PeelScratch` (int64 arrays; one increasing counter
hands out the mark values, so nothing is cleared between tests):

``in_s`` (n,)
    ``in_s[v] == st`` iff slot ``v`` is in S.
``vis``, ``pv``, ``pe`` (n,)
    The two-sided searches: the side's mark, the parent slot and the parent
    edge (constraint id, ``-1`` for the pair's own edge ``i j``).
``tmark`` (m,)
    ``tmark[q] == tst`` iff constraint ``q``'s edge is in the spanning subgraph T.
``qa``, ``qb`` (n,)
    The searches' queues, reused as lists of slots to drop.
``qx``, ``qy`` (m + n + 1,)
    The queued pairs still to check.

:class:`PeelTest` holds what is fixed for one test: the pair ``i, j`` and
the mark ``st`` of S.
"""

from __future__ import annotations

from collections import namedtuple

from ..._jit import borrowing_njit
from ...cc.union_find import uf_find_stamped, uf_union_stamped
from ._constraint_state import component_of

PeelScratch = namedtuple("PeelScratch", ["in_s", "vis", "pv", "pe", "tmark", "qa", "qb", "qx", "qy"])
PeelTest = namedtuple("PeelTest", ["i", "j", "st"])

#: Pairs queued per slot of S above which one union-find level replaces the searches.
RELEVEL = 4


@borrowing_njit
def _peel(dropped, n_p, test, tst, nq, cons, inc, sc):
    """Remove the slots ``dropped[:n_p]`` from S; queue the spanning edges ``a b`` that lose their ``c``.

    A constraint ``ab|c`` gives an edge only while ``a, b, c`` are all in
    S, so removing ``c`` deletes the edge between the remaining ``a, b``;
    only the deletion of an edge of the spanning subgraph (``tmark == tst``)
    can disconnect anything.  Returns the new queue length.
    """
    st = test.st
    SA, SB = cons.a, cons.b
    c_ptr, c_con = inc.c_ptr, inc.c_con
    S_mark, tmark, qx, qy = sc.in_s, sc.tmark, sc.qx, sc.qy
    for t in range(n_p):
        S_mark[dropped[t]] = 0
    for t in range(n_p):
        v = dropped[t]
        for p in range(c_ptr[v], c_ptr[v + 1]):
            q = c_con[p]
            if tmark[q] == tst and S_mark[SA[q]] == st and S_mark[SB[q]] == st:
                qx[nq] = SA[q]
                qy[nq] = SB[q]
                nq += 1
    return nq


@borrowing_njit
def _level(members, n_mem, dropped, test, ust, cons, inc, luf, sc, counters):
    """One level of the recursion on the slots ``members[:n_mem]`` (all of S), by union-find.

    Marks the edges that joined two sets (a spanning forest) with ``ust``,
    keeps the component of ``i``, drops the rest of S (listed in
    ``dropped``) and queues the spanning edges that lose their ``c``.
    Returns the new ``|S|`` and queue length; the queue is empty when S is
    connected (then the merge is refused unless S is ``{i, j}``).
    """
    i, j, st = test.i, test.j, test.st
    SA, SB, SC = cons.a, cons.b, cons.c
    adj_ptr, adj_con = inc.ab_ptr, inc.ab_con
    lparent, lsize, stamp = luf.parent, luf.size, luf.stamp
    S_mark, tmark = sc.in_s, sc.tmark
    counters[5] += 1
    unions = 0
    if uf_union_stamped(lparent, lsize, stamp, ust, i, j):
        unions += 1
    for t in range(n_mem):
        v = members[t]
        for p in range(adj_ptr[v], adj_ptr[v + 1]):
            q = adj_con[p]
            if SA[q] != v or S_mark[SB[q]] != st or S_mark[SC[q]] != st:
                continue
            counters[6] += 1
            if uf_union_stamped(lparent, lsize, stamp, ust, v, SB[q]):
                tmark[q] = ust
                unions += 1
    if n_mem - unions == 1:
        return n_mem, 0
    r = uf_find_stamped(lparent, lsize, stamp, ust, i)
    n_p = 0
    for t in range(n_mem):
        v = members[t]
        if uf_find_stamped(lparent, lsize, stamp, ust, v) != r:
            dropped[n_p] = v
            n_p += 1
    nq = _peel(dropped, n_p, test, ust, 0, cons, inc, sc)
    return lsize[r], nq


@borrowing_njit
def _mark_path(u, pv, pe, tmark, tst):
    """Add the search-tree path from ``u`` to its root to the spanning subgraph."""
    while pv[u] >= 0:
        if pe[u] >= 0:
            tmark[pe[u]] = tst
        u = pv[u]


@borrowing_njit
def _expand(v, marks, queue, tail, test, tst, cons, inc, sc, counters):
    """Visit the neighbours of ``v`` in ``G(S)`` for one side of a two-sided search.

    ``marks`` is ``(own, other_side)``, the two searches' marks in ``vis``;
    new slots are appended to ``queue`` at ``tail``. Returns the new queue
    tail, or -1 when the other side's mark was met; then the path joining
    the two roots joins the spanning subgraph.
    """
    own, other_side = marks
    i, j, st = test.i, test.j, test.st
    SA, SB, SC = cons.a, cons.b, cons.c
    adj_ptr, adj_con = inc.ab_ptr, inc.ab_con
    S_mark, vis, pv, pe, tmark = sc.in_s, sc.vis, sc.pv, sc.pe, sc.tmark
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


@borrowing_njit
def _first_level(test, comps, cons, sc, tick0):
    """S and T of the first level, from the state's components; returns ``(|S|, queue length)``.

    S is the union of the components of ``i`` and ``j`` (joined by the
    pair's edge), T their spanning edges, marked with ``tick0 + 1``; those
    whose ``c`` is outside S are queued.  The spanning edges that merges
    turned into loops are no edges and are skipped; the cycles that merges
    closed stay in T, which only needs to connect S (measured: a spanning
    tree picked from them per test costs more than the pairs it saves).
    """
    st = test.st
    tst = tick0 + 1
    SA, SB, SC, active = cons.a, cons.b, cons.c, cons.active
    S_mark, tmark, qx, qy = sc.in_s, sc.tmark, sc.qx, sc.qy
    ri = component_of(comps, test.i)
    rj = component_of(comps, test.j)
    n_s = 0
    nq = 0
    for r in (ri, rj):
        x = comps.m_head[r]
        while x >= 0:
            S_mark[x] = st
            n_s += 1
            x = comps.m_nxt[x]
        if ri == rj:
            break
    if n_s <= 2:
        return n_s, nq
    for r in (ri, rj):
        q = comps.t_head[r]
        while q >= 0:
            if active[q]:
                tmark[q] = tst
                if S_mark[SC[q]] != st:
                    qx[nq] = SA[q]
                    qy[nq] = SB[q]
                    nq += 1
            q = comps.t_nxt[q]
        if ri == rj:
            break
    return n_s, nq


@borrowing_njit
def _two_sided_search(x, y, sa, sb, test, tst, cons, inc, sc, counters):
    """Search from ``x`` and from ``y`` in turns (marks ``sa``, ``sb``) until they meet or one runs out.

    Returns ``(side, n_c)``: ``side`` -1 if they met, 0 if ``x``'s search
    ran out first (its component is ``sc.qa[:n_c]``), 1 if ``y``'s did
    (``sc.qb[:n_c]``).
    """
    qa, qb, vis, pv = sc.qa, sc.qb, sc.vis, sc.pv
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
    while True:
        ta = _expand(qa[ha], (sa, sb), qa, ta, test, tst, cons, inc, sc, counters)
        if ta < 0:
            return -1, 0
        ha += 1
        if ha == ta:
            return 0, ta
        tb = _expand(qb[hb], (sb, sa), qb, tb, test, tst, cons, inc, sc, counters)
        if tb < 0:
            return -1, 0
        hb += 1
        if hb == tb:
            return 1, tb


@borrowing_njit
def test_compatibility_peel(i, j, slots, cons, inc, comps, luf, sc, tick0, counters):
    """TestCompatibility(C', S, i, j) of Section 4.2 by peeling one graph instead of rebuilding it per level.

    Same answer as :func:`~._compat_levels.test_compatibility` (the
    level-by-level recursion, kept as the reference), without the work of
    its deep failures.

    Parameters
    ----------
    i, j : int
        Slots of the two clusters to merge.
    slots : int64 array
        The current clusters' slots.
    cons : ConstraintSlots
        Current slots of each constraint's ``a, b, c``.
    inc : SlotIncidence
        :func:`~._constraint_state.slot_incidence` of the current state (active constraints only).
    comps : StateComponents
        The components of the current state (:mod:`._constraint_state`, kept current by the merges).
    luf : StampedUnionFind
        Scratch union-find over slots, reset lazily by its stamps.
    sc : PeelScratch
        Scratch (see the module docstring).
    tick0 : int
        First unused mark value (the stamps, ``in_s``, ``vis`` and
        ``tmark`` take their marks from one increasing counter).
    counters : int64 array
        ``counters[5]`` counts union-find levels and connectivity checks,
        ``counters[6]`` the constraints and edges they visit.

    Returns
    -------
    size : int
        ``|S'|``, the largest set of slots holding ``i, j`` whose ``G(S')``
        is connected (defined below): the merge is compatible iff it is 2.
        A larger ``S'`` stays connected, less at most one slot per merge,
        after the merges that follow (the driver's certificates, see
        :func:`~._agglomerate._test_peel`).
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

    The first level comes from the state's components, which the merges
    keep current: S is the union of the components of ``i`` and ``j``, and
    their spanning edges (plus the edge ``i j``) make a spanning subgraph
    T.  After that S loses components:
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
    n_alive = slots.shape[0]
    if n_alive <= 2:
        return n_alive, tick0
    # the first level from the state's components: those of i and j, joined by the pair's edge
    ri = component_of(comps, i)
    rj = component_of(comps, j)
    if comps.n_comp[0] - (1 if ri != rj else 0) == 1:
        return n_alive, tick0  # G of all the clusters is connected
    S_mark, vis, qa, qb, qx, qy = sc.in_s, sc.vis, sc.qa, sc.qb, sc.qx, sc.qy
    test = PeelTest(i, j, tick0)
    st = tick0
    tst = tick0 + 1
    tick = tick0 + 2
    n_s, nq = _first_level(test, comps, cons, sc, tick0)
    if n_s <= 2:
        return n_s, tick
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
            n_s, nq = _level(qa, n_m, qb, test, tst, cons, inc, luf, sc, counters)
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
        side, n_c = _two_sided_search(x, y, sa, sb, test, tst, cons, inc, sc, counters)
        if side < 0:
            continue
        comp = qa if side == 0 else qb
        mark = sa if side == 0 else sb
        if vis[i] == mark:
            # the component of i is all that can remain: drop the rest, rebuild T on it
            for t in range(n_alive):
                v = slots[t]
                if S_mark[v] == st and vis[v] != mark:
                    S_mark[v] = 0
            tst = tick
            tick += 1
            n_s, nq = _level(comp, n_c, qb if side == 0 else qa, test, tst, cons, inc, luf, sc, counters)
        else:
            n_s -= n_c
            other_mark = sb if side == 0 else sa
            if vis[i] == other_mark:
                # the other side's search reached i: that path joins T before
                # the drop, which queues its edges that lose their c
                _mark_path(i, sc.pv, sc.pe, sc.tmark, tst)
            else:
                qx[nq] = y if side == 0 else x
                qy[nq] = i
                nq += 1
            nq = _peel(comp, n_c, test, tst, nq, cons, inc, sc)
    return n_s, tick
