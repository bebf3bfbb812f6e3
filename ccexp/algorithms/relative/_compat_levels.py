"""TestCompatibility of ReCon by its level-by-level recursion (Liu, Zhang and Wang 2011, Section 4.2).

The reference that :mod:`._compat_peel` must agree with (``recon_agglomerate``
with ``mode=2`` counts disagreements). Numba kernels, no fastmath.
"""

from __future__ import annotations

from collections import namedtuple

from ..._jit import borrowing_njit
from ...cc.union_find import uf_find_stamped, uf_union_stamped

#: A union-find over slots reset lazily by round (see
#: :func:`ccexp.cc.union_find.uf_find_stamped`): int64 arrays (n,).
StampedUnionFind = namedtuple("StampedUnionFind", ["parent", "size", "stamp"])


@borrowing_njit
def test_compatibility(i, j, n_alive, cons, work, luf, stamp0, counters):
    """TestCompatibility(C', S, i, j) of Section 4.2, the recursion unrolled into a loop.

    Parameters
    ----------
    i, j : int
        Slots of the two clusters to merge.
    n_alive : int
        |S| at the top level: the number of current clusters.
    cons : ConstraintSlots
        Current slots of each constraint's ``a, b, c`` and which are active.
    work : tuple of three int64 arrays (m,)
        Scratch: the slot triples ``(a, b, c)`` of the current level's constraints.
    luf : StampedUnionFind
        Scratch union-find over slots.
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
    SA, SB, SC, active = cons.a, cons.b, cons.c, cons.active
    wa, wb, wc = work
    lparent, lsize, stamp = luf.parent, luf.size, luf.stamp
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
        if uf_union_stamped(lparent, lsize, stamp, cur, i, j):
            unions += 1
        if n_s - unions == 1:
            return False, cur + 1
        for t in range(m):
            if uf_union_stamped(lparent, lsize, stamp, cur, wa[t], wb[t]):
                unions += 1
                if n_s - unions == 1:
                    return False, cur + 1
        r = uf_find_stamped(lparent, lsize, stamp, cur, i)
        n_next = lsize[r]
        kept = 0
        for t in range(m):
            if (
                uf_find_stamped(lparent, lsize, stamp, cur, wa[t]) == r
                and uf_find_stamped(lparent, lsize, stamp, cur, wc[t]) == r
            ):
                wa[kept] = wa[t]
                wb[kept] = wb[t]
                wc[kept] = wc[t]
                kept += 1
        if kept == 0:
            return True, cur + 1
        m = kept
        n_s = n_next
