"""ReCon's constraints on the current clusters (Liu, Zhang and Wang 2011, Section 4.2).

The state a merge changes, and the maps its tests read. Named tuples of
arrays (numba passes them as plain structs; jitclasses compile too slowly):

:class:`ConstraintSlots`
    ``a, b, c`` : int64 (m,), the current slot of each constraint
    ``ab|c``'s items; ``active`` : bool (m,), False once ``a`` and ``b``
    share a cluster (UpdateConstraints).
:class:`SlotIncidence` (:func:`slot_incidence`)
    CSR maps slot -> active constraints holding it as ``a`` or ``b``
    (``ab_ptr`` (n+1,), ``ab_con`` (2m,)) and as ``c`` (``c_ptr``, ``c_con`` (m,)).
:class:`StateComponents` (:func:`init_components`, :func:`merge_components`)
    the components of the graph on the current clusters with an edge
    ``a b`` per active ``ab|c``: ``parent``, ``size`` (n,), a union-find
    over slots (a retired slot may stay an inner node; :func:`component_of`
    gives a slot's root); by root, the live slots as a doubly linked list
    (``m_head``, ``m_tail``, ``m_nxt``, ``m_prv`` (n,)) and the constraints
    whose edges joined the component (``t_head``, ``t_tail`` (n,),
    ``t_nxt`` (m,)); ``n_comp`` (1,), their number. ``-1`` ends a list.

The incidence is rebuilt in O(n + m) before the first test after a merge
and shared by that state's tests. The components are built once per fit
and kept current by the merges, in O(1) each: a merge of ``keep`` and
``gone`` contracts two nodes of the graph, and a constraint is deactivated
only when its ``a`` and ``b`` come together, that is, when its own edge is
contracted to a loop. Contraction never splits a component, so the new
components are the old ones with those of ``keep`` and ``gone`` joined.
The spanning edges stay spanning: two trees joined by the contraction span
the joined component, and a tree whose two ends were contracted keeps a
cycle, which the tests do not mind (they need a connected spanning
subgraph, not a tree). Loops, the spanning edges whose constraint became
inactive, stay on the lists and are skipped. (The rebuild that this
replaces took 0.19 ms a merge at n = m = 3,165, most of it the reference
counts of its union-find calls, which :mod:`ccexp._jit` now leaves out.
Measured against that cheaper rebuild: the fit takes 10-19 % less on
Letters-IJLT and Digits-389 with |D| constraints, and 7 % more on
Letters-3000, whose tests do more work from a spanning subgraph with
cycles than from a tree rebuilt in constraint order.)
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..._jit import borrowing_njit
from ...cc.union_find import uf_find, uf_union

ConstraintSlots = namedtuple("ConstraintSlots", ["a", "b", "c", "active"])
SlotIncidence = namedtuple("SlotIncidence", ["ab_ptr", "ab_con", "c_ptr", "c_con"])
StateComponents = namedtuple(
    "StateComponents",
    ["parent", "size", "m_head", "m_tail", "m_nxt", "m_prv", "t_head", "t_tail", "t_nxt", "n_comp"],
)


@borrowing_njit
def forbidden(i, j, cons, inc_ptr, inc_con, head, nxt, size):
    """Line 9 of ReCon: is some active ``ab|c`` with ``a`` or ``b`` in one cluster and ``c`` in the other?

    Parameters
    ----------
    i, j : int
        Slots of the two clusters.
    cons : ConstraintSlots
    inc_ptr, inc_con : int64 arrays
        CSR item -> incident constraint ids.
    head, nxt : int64 arrays (n,)
        Linked lists of each slot's items (``-1`` ends a list).
    size : int64 array (n,)
        Items per slot.

    Returns
    -------
    bool

    Notes
    -----
    Scans the constraints incident to the smaller cluster's items.
    """
    SA, SB, SC, active = cons.a, cons.b, cons.c, cons.active
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


@borrowing_njit
def update_constraints(keep, gone, R, cons, inc_ptr, inc_con, head, nxt, slot_of, cnt):
    """UpdateConstraints after ``gone`` merged into ``keep``: ``ab|c`` with ``a, b`` together is satisfied for good.

    Parameters
    ----------
    keep, gone : int
        The surviving slot and the absorbed one (its items already relabelled in ``slot_of``).
    R : int64 array (m, 3)
        The constraints on items.
    cons : ConstraintSlots
        Updated in place for the constraints of ``gone``'s items.
    inc_ptr, inc_con : int64 arrays
        CSR item -> incident constraint ids.
    head, nxt : int64 arrays (n,)
        Item lists; ``gone``'s list is walked from ``head[gone]``.
    slot_of : int64 array (n,)
        Current slot of each item.
    cnt : int64 array (n,)
        Active constraint incidences per slot; updated in place.

    Notes
    -----
    Scans only the absorbed (smaller) cluster's items: with union by size,
    O(n log n) relabellings in all.
    """
    SA, SB, SC, active = cons.a, cons.b, cons.c, cons.active
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


@borrowing_njit
def slot_incidence(cons, inc, fill):
    """Fill ``inc`` (:class:`SlotIncidence`) from the active constraints of ``cons``.

    ``fill`` is int64 scratch of size n. O(n + m).
    """
    SA, SB, SC, active = cons.a, cons.b, cons.c, cons.active
    adj_ptr, adj_con, c_ptr, c_con = inc.ab_ptr, inc.ab_con, inc.c_ptr, inc.c_con
    n = adj_ptr.shape[0] - 1
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


def new_components(n, m):
    """Empty :class:`StateComponents` for ``n`` slots and ``m`` constraints (filled by :func:`init_components`)."""
    return StateComponents(
        np.arange(n, dtype=np.int64),
        np.ones(n, dtype=np.int64),
        *(np.full(n, -1, dtype=np.int64) for _ in range(6)),
        np.full(max(m, 1), -1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
    )


@borrowing_njit
def component_of(comps, x):
    """The root of slot ``x``'s component."""
    return uf_find(comps.parent, x)


@borrowing_njit
def _append(head, tail, nxt, key, x):
    """Append ``x`` to the list of ``key`` (``nxt`` links forward only)."""
    nxt[x] = -1
    if tail[key] >= 0:
        nxt[tail[key]] = x
    else:
        head[key] = x
    tail[key] = x


@borrowing_njit
def _concat(head, tail, nxt, into, src):
    """Move the list of ``src`` to the end of the list of ``into``; the caller fixes back links."""
    if head[src] < 0:
        return
    if tail[into] >= 0:
        nxt[tail[into]] = head[src]
    else:
        head[into] = head[src]
    tail[into] = tail[src]
    head[src] = -1
    tail[src] = -1


@borrowing_njit
def init_components(slots, cons, comps):
    """Fill ``comps`` (:class:`StateComponents`, as :func:`new_components` made it) for the live ``slots``.

    O((n + m) alpha(n)), once per fit; :func:`merge_components` keeps it current.
    """
    SA, SB, active = cons.a, cons.b, cons.active
    parent, size, t_nxt = comps.parent, comps.size, comps.t_nxt
    n_comp = slots.shape[0]
    for q in range(SA.shape[0]):
        if active[q] and uf_union(parent, size, SA[q], SB[q]):
            n_comp -= 1
            t_nxt[q] = -2  # a spanning edge, listed under its final root below
    # listed by decreasing id, as the rebuild listed them: the first level queues them in
    # this order and checks the last queued first
    for q in range(SA.shape[0] - 1, -1, -1):
        if t_nxt[q] == -2:
            _append(comps.t_head, comps.t_tail, t_nxt, uf_find(parent, SA[q]), q)
    for t in range(slots.shape[0]):
        x = slots[t]
        r = uf_find(parent, x)
        comps.m_prv[x] = comps.m_tail[r]
        _append(comps.m_head, comps.m_tail, comps.m_nxt, r, x)
    comps.n_comp[0] = n_comp


@borrowing_njit
def merge_components(keep, gone, comps):
    """After ``gone`` merged into ``keep``: ``gone`` leaves its component, and the two components join.

    O(alpha(n)); see the module docstring for why no edge needs a look.
    """
    parent, m_head, m_tail, m_nxt, m_prv = comps.parent, comps.m_head, comps.m_tail, comps.m_nxt, comps.m_prv
    rk = uf_find(parent, keep)
    rg = uf_find(parent, gone)
    if m_prv[gone] >= 0:
        m_nxt[m_prv[gone]] = m_nxt[gone]
    else:
        m_head[rg] = m_nxt[gone]
    if m_nxt[gone] >= 0:
        m_prv[m_nxt[gone]] = m_prv[gone]
    else:
        m_tail[rg] = m_prv[gone]
    if rk == rg:
        return
    uf_union(parent, comps.size, rk, rg)
    r = uf_find(parent, rk)
    other = rg if r == rk else rk
    if m_head[other] >= 0 and m_tail[r] >= 0:
        m_prv[m_head[other]] = m_tail[r]
    _concat(m_head, m_tail, m_nxt, r, other)
    _concat(comps.t_head, comps.t_tail, comps.t_nxt, r, other)
    comps.n_comp[0] -= 1
