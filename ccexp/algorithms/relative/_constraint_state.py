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
:class:`StateComponents` (:func:`state_components`)
    the components of the graph on the current clusters with an edge
    ``a b`` per active ``ab|c``: ``comp`` (n,), the root slot of each live
    slot's component; ``n_comp`` (1,), their number; ``member_ptr``,
    ``members``: the slots of component ``r`` in
    ``members[member_ptr[r]:member_ptr[r+1]]``; ``tree_ptr``, ``tree``: the
    constraints whose edges joined it (a spanning tree), the same way.

All are rebuilt in O(n + m) once per merge and shared by that state's tests.
"""

from __future__ import annotations

from collections import namedtuple

from numba import njit

from ...cc.union_find import uf_find, uf_union

ConstraintSlots = namedtuple("ConstraintSlots", ["a", "b", "c", "active"])
SlotIncidence = namedtuple("SlotIncidence", ["ab_ptr", "ab_con", "c_ptr", "c_con"])
StateComponents = namedtuple("StateComponents", ["comp", "n_comp", "member_ptr", "members", "tree_ptr", "tree"])


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def state_components(slots, cons, comps, parent, size, fill):
    """Fill ``comps`` (:class:`StateComponents`): the first level of TestCompatibility without the pair's edge.

    Parameters
    ----------
    slots : int64 array
        The live slots.
    cons : ConstraintSlots
    comps : StateComponents
        Filled in place.
    parent, size, fill : int64 arrays (n,)
        Scratch (a union-find over slots, the spanning edges).

    Notes
    -----
    O((n + m) alpha(n)). Within a component, ``members`` and ``tree`` are
    listed in reverse order of the slots and of the joining constraints;
    which slot is a component's root does not matter to the tests.
    """
    SA, SB, active = cons.a, cons.b, cons.active
    comp0, m_ptr, m_list, t_ptr, t_list = comps.comp, comps.member_ptr, comps.members, comps.tree_ptr, comps.tree
    n = m_ptr.shape[0] - 1
    n_alive = slots.shape[0]
    for t in range(n_alive):
        parent[slots[t]] = slots[t]
        size[slots[t]] = 1
    n_comp = n_alive
    n_t = 0
    for q in range(SA.shape[0]):
        if active[q]:
            if uf_union(parent, size, SA[q], SB[q]):
                fill[n_t] = q
                n_t += 1
                n_comp -= 1
    for x in range(n + 1):
        m_ptr[x] = 0
        t_ptr[x] = 0
    for t in range(n_alive):
        x = slots[t]
        r = uf_find(parent, x)
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
    comps.n_comp[0] = n_comp
