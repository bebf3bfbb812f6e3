"""ReCon's agglomeration (Liu, Zhang and Wang 2011, Section 4.2), the numba driver.

Clusters live in *slots* ``0 .. n-1``: merging slots ``i`` and ``j`` keeps
the larger cluster's slot and retires the other. A cluster's identity in
the output follows scipy's linkage convention (items ``0 .. n-1``, the
cluster formed by merge ``t`` is ``n + t``). The Python wrapper in
``recon.py`` validates the input; these kernels trust it. No fastmath:
merge heights and the order of merges must be reproducible to the bit.

State, as named tuples of arrays (layouts in the modules that use them):

:class:`Clusters` (here)
    ``C`` (n, d) centroids; ``size``, ``cid`` (scipy id), ``slot_of`` (the
    slot of each item), ``head``, ``tail``, ``nxt`` (each slot's items as a
    linked list, ``-1`` ends it), ``cnt`` (active constraint incidences per
    slot), all (n,); ``alive`` bool (n,).
:class:`LinkageQueue` (here; kernels in :mod:`._linkage_queue`)
    ``D`` (n, n) squared centroid distances, ``rej`` bool (n, n) rejected
    pairs, ``nn``, ``mind`` (n,) nearest allowed partner and its bound,
    ``heap``, ``pos`` (n,) the indexed heap.
:class:`PeelWork`, :class:`ReferenceWork`, :class:`BothWork` (here)
    what the TestCompatibility kernels read and scribble on, one type per
    implementation (the type chooses the test at compile time): ``inc``,
    ``comps`` (:mod:`._constraint_state`; the merges keep them current), ``luf``
    (:class:`~._compat_levels.StampedUnionFind`), ``peel``
    (:class:`~._compat_peel.PeelScratch`), ``fill`` (n,) scratch for
    the incidence, ``cert`` (n, n) int32 the
    incompatibility certificates (see :func:`_test_peel`); ``levels`` (three slot-triple arrays)
    and ``luf`` for the reference; both of them, sharing ``luf``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit
from numba.extending import overload

from ..._jit import borrowing_njit
from ._compat_levels import StampedUnionFind, test_compatibility
from ._compat_peel import PeelScratch, test_compatibility_peel
from ._constraint_state import (
    ConstraintSlots,
    SlotIncidence,
    forbidden,
    init_components,
    merge_components,
    new_components,
    slot_incidence,
    update_constraints,
)
from ._linkage_queue import dist2, heap_down, heap_remove, heap_up, heap_update, rescan

Clusters = namedtuple("Clusters", ["C", "size", "alive", "cid", "slot_of", "head", "tail", "nxt", "cnt"])
LinkageQueue = namedtuple("LinkageQueue", ["D", "rej", "nn", "mind", "heap", "pos"])
PeelWork = namedtuple("PeelWork", ["inc", "comps", "luf", "peel", "fill", "cert"])
ReferenceWork = namedtuple("ReferenceWork", ["levels", "luf"])
BothWork = namedtuple("BothWork", ["peel", "reference"])


@njit(cache=True)
def _new_clusters(X, R):
    """Every item its own cluster; ``cnt`` from the constraints ``R``."""
    n = X.shape[0]
    cnt = np.zeros(n, dtype=np.int64)
    for q in range(R.shape[0]):
        for p in range(3):
            cnt[R[q, p]] += 1
    return Clusters(
        X.copy(),
        np.ones(n, dtype=np.int64),
        np.ones(n, dtype=np.bool_),
        np.arange(n, dtype=np.int64),
        np.arange(n, dtype=np.int64),
        np.arange(n, dtype=np.int64),
        np.arange(n, dtype=np.int64),
        np.full(n, -1, dtype=np.int64),
        cnt,
    )


def _stamped_union_find(n):
    return StampedUnionFind(np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.zeros(n, dtype=np.int64))


def _peel_work(n, m, luf=None):
    """Scratch of the peeling TestCompatibility for n slots and m constraints."""
    mm = max(m, 1)
    inc = SlotIncidence(
        np.zeros(n + 1, dtype=np.int64),
        np.empty(max(2 * m, 1), dtype=np.int64),
        np.zeros(n + 1, dtype=np.int64),
        np.empty(mm, dtype=np.int64),
    )
    peel = PeelScratch(
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        np.empty(n, dtype=np.int64),
        np.empty(n, dtype=np.int64),
        np.zeros(mm, dtype=np.int64),
        np.empty(n, dtype=np.int64),
        np.empty(n, dtype=np.int64),
        np.empty(m + n + 1, dtype=np.int64),
        np.empty(m + n + 1, dtype=np.int64),
    )
    luf = _stamped_union_find(n) if luf is None else luf
    return PeelWork(inc, new_components(n, m), luf, peel, np.empty(n, dtype=np.int64),
                    np.zeros((n, n), dtype=np.int32))


def _reference_work(n, m, luf=None):
    """Scratch of the reference TestCompatibility: three slot-triple arrays and a stamped union-find."""
    mm = max(m, 1)
    levels = (np.empty(mm, dtype=np.int64), np.empty(mm, dtype=np.int64), np.empty(mm, dtype=np.int64))
    return ReferenceWork(levels, _stamped_union_find(n) if luf is None else luf)


def _both_work(n, m):
    """Both tests' scratch, sharing one stamped union-find (the tick runs through both)."""
    peel = _peel_work(n, m)
    return BothWork(peel, _reference_work(n, m, peel.luf))


@njit(cache=True)
def _new_queue(C, alive):
    """Distances, nearest allowed partners and the heap of all singletons."""
    n = C.shape[0]
    D = np.empty((n, n))
    for i in range(n):
        D[i, i] = np.inf
        for j in range(i + 1, n):
            D[i, j] = dist2(C, i, j)
            D[j, i] = D[i, j]
    rej = np.zeros((n, n), dtype=np.bool_)
    nn = np.full(n, -1, dtype=np.int64)
    mind = np.full(n, np.inf)
    for k in range(n):
        rescan(k, D, alive, rej, nn, mind)
    heap = np.arange(n, dtype=np.int64)
    pos = np.arange(n, dtype=np.int64)
    for p in range(n // 2 - 1, -1, -1):
        heap_down(heap, pos, mind, p, n)
    return LinkageQueue(D, rej, nn, mind, heap, pos)


@borrowing_njit
def _test_peel(i, j, slots, cons, work, stale, tick, counters, n_merges):
    """TestCompatibility by peeling, unless a certificate already shows the pair incompatible.

    Rebuilds the state's incidence first when ``stale``.

    Notes
    -----
    Certificates (``counters[8]`` counts the tests they answer): the test
    finds the largest ``S'`` holding ``i, j`` with ``G(S')`` connected
    (:func:`~._compat_peel.test_compatibility_peel`), and the pair is
    incompatible iff ``|S'| > 2``.  A merge of two clusters maps ``S'`` to
    a set that is still connected in the new state: a constraint's edge
    survives its relabelling, except the edges of ``ab|c`` whose ``a, b``
    the merge joined, which it contracts; and a ``c`` merged into a
    cluster of ``S'`` only adds edges.  The set loses a slot only when the
    merge joins two of its own.  So ``|S'| - (merges since)`` stays a lower
    bound, for the pair and for the clusters either of them merges into
    (:func:`_after_merge`), and while it is at least 3 the pair is
    incompatible without a test.  ``cert[i, j]`` holds ``|S'| + n_merges``
    at the test.  Why it pays: a rejected pair is tested again only after
    one of its clusters merged, and a merge with a third cluster rarely
    frees a pair that needed many clusters joined first.
    """
    cert = work.cert
    if cert[i, j] - n_merges >= 3:
        counters[8] += 1
        return False, tick, stale
    if stale:
        slot_incidence(cons, work.inc, work.fill)
    size, tick = test_compatibility_peel(i, j, slots, cons, work.inc, work.comps, work.luf, work.peel, tick, counters)
    if size > 2:
        cert[i, j] = size + n_merges
        cert[j, i] = size + n_merges
    return size <= 2, tick, False


@borrowing_njit
def _inherit_peel_certificates(cert, keep, gone):
    """The merged cluster ``keep`` holds the certificates of both its parts (the larger bound)."""
    for x in range(cert.shape[0]):
        c = max(cert[keep, x], cert[gone, x])
        cert[keep, x] = c
        cert[x, keep] = c


@borrowing_njit
def _peel_after_merge(work, keep, gone):
    """Peeling's state after ``gone`` merged into ``keep``: its components, and its certificates."""
    merge_components(keep, gone, work.comps)
    _inherit_peel_certificates(work.cert, keep, gone)


def _init_state(work, slots, cons):
    """Before the first merge, by the type of ``work`` (see the overload); numba-compiled callers only."""
    raise NotImplementedError("only callable from numba-compiled code")


@overload(_init_state)
def _init_state_by_work(work, slots, cons):
    """Peeling's components of the singletons (:func:`~._constraint_state.init_components`)."""
    kind = getattr(work, "instance_class", None)
    if kind is PeelWork:
        return lambda work, slots, cons: init_components(slots, cons, work.comps)
    if kind is BothWork:
        return lambda work, slots, cons: init_components(slots, cons, work.peel.comps)
    return lambda work, slots, cons: None


def _after_merge(work, keep, gone):
    """After a merge, by the type of ``work`` (see the overload); numba-compiled callers only."""
    raise NotImplementedError("only callable from numba-compiled code")


@overload(_after_merge)
def _after_merge_by_work(work, keep, gone):
    """Peeling's components follow the merge (:func:`~._constraint_state.merge_components`) and its
    certificates pass to the merged cluster (:func:`_test_peel`); the reference keeps neither."""
    kind = getattr(work, "instance_class", None)
    if kind is PeelWork:
        return lambda work, keep, gone: _peel_after_merge(work, keep, gone)
    if kind is BothWork:
        return lambda work, keep, gone: _peel_after_merge(work.peel, keep, gone)
    return lambda work, keep, gone: None


@borrowing_njit
def _test_reference(i, j, slots, cons, work, stale, tick, counters):
    """TestCompatibility by the level-by-level recursion (leaves ``stale`` as it was)."""
    ok, tick = test_compatibility(i, j, slots.shape[0], cons, work.levels, work.luf, tick, counters)
    return ok, tick, stale


def _test_compatibility(work, i, j, slots, cons, stale, tick, counters, n_merges):
    """Line 11 of ReCon, by the type of ``work`` (see the overload); numba-compiled callers only."""
    raise NotImplementedError("only callable from numba-compiled code")


@overload(_test_compatibility)
def _test_compatibility_by_work(work, i, j, slots, cons, stale, tick, counters, n_merges):
    """TestCompatibility by peeling (:class:`PeelWork`), the reference recursion (:class:`ReferenceWork`), or both.

    Each implementation returns ``(ok, tick, stale)``.  Peeling rebuilds the
    state's incidence first when ``stale`` and leaves it fresh.
    :class:`BothWork` uses the reference's answer and counts a disagreement
    in ``counters[7]`` (for the tests).  The choice is made at
    typing time from the scratch's type, so a caller compiles only the test
    it runs (the peel and reference kernels cost ~10 s of a cold numba
    cache between them).
    """
    kind = getattr(work, "instance_class", None)
    if kind is PeelWork:

        def peel(work, i, j, slots, cons, stale, tick, counters, n_merges):
            return _test_peel(i, j, slots, cons, work, stale, tick, counters, n_merges)

        return peel
    if kind is ReferenceWork:

        def reference(work, i, j, slots, cons, stale, tick, counters, n_merges):
            return _test_reference(i, j, slots, cons, work, stale, tick, counters)

        return reference
    if kind is BothWork:

        def both(work, i, j, slots, cons, stale, tick, counters, n_merges):
            ok, tick, stale = _test_peel(i, j, slots, cons, work.peel, stale, tick, counters, n_merges)
            ok_ref, tick, stale = _test_reference(i, j, slots, cons, work.reference, stale, tick, counters)
            if ok_ref != ok:
                counters[7] += 1
            return ok_ref, tick, stale

        return both
    return None


@borrowing_njit
def _merge(i, j, n_merges, Z, cl, cons, R, inc_ptr, inc_con):
    """Merge slots ``i`` and ``j`` (the larger keeps its slot); write linkage row ``n_merges``; return ``(keep, gone)``."""
    n = cl.size.shape[0]
    size, cid, head, tail, nxt = cl.size, cl.cid, cl.head, cl.tail, cl.nxt
    keep, gone = (i, j) if size[i] >= size[j] else (j, i)
    Z[n_merges, 0] = min(cid[i], cid[j])
    Z[n_merges, 1] = max(cid[i], cid[j])
    Z[n_merges, 3] = size[i] + size[j]
    tot = size[keep] + size[gone]
    C = cl.C
    for f in range(C.shape[1]):
        C[keep, f] = (size[keep] * C[keep, f] + size[gone] * C[gone, f]) / tot
    slot_of = cl.slot_of
    x = head[gone]
    while x >= 0:
        slot_of[x] = keep
        x = nxt[x]
    nxt[tail[keep]] = head[gone]
    tail[keep] = tail[gone]
    update_constraints(keep, gone, R, cons, inc_ptr, inc_con, head, nxt, slot_of, cl.cnt)
    size[keep] = tot
    cl.alive[gone] = False
    cid[keep] = n + n_merges
    return keep, gone


@borrowing_njit
def _update_queue(keep, cl, lq, hsize):
    """The merged cluster's distances; neighbours it came closer to lower their bound."""
    alive, C = cl.alive, cl.C
    n = alive.shape[0]
    D, rej, nn, mind, heap, pos = lq.D, lq.rej, lq.nn, lq.mind, lq.heap, lq.pos
    for k in range(n):
        if alive[k] and k != keep:
            d = dist2(C, keep, k)
            D[keep, k] = d
            D[k, keep] = d
            rej[keep, k] = False
            rej[k, keep] = False
            if d < mind[k]:
                mind[k] = d
                nn[k] = keep
                heap_up(heap, pos, mind, pos[k])
    rescan(keep, D, alive, rej, nn, mind)
    heap_update(heap, pos, mind, keep, hsize)


@njit(cache=True)
def _agglomerate(X, R, inc_ptr, inc_con, work):
    """ReCon (Section 4.2): centroid-linkage agglomeration under relative constraints.

    Parameters
    ----------
    X : float64 array (n, d)
        Features in the metric's space (squared Euclidean between centroids).
    R : int64 array (m, 3)
        Constraints ``ab|c`` on items, assumed consistent (OneTree first).
    inc_ptr, inc_con : int64 arrays
        CSR item -> incident constraint ids.
    work : PeelWork, ReferenceWork, BothWork or None
        The scratch of TestCompatibility (line 11), whose type chooses the
        test: by peeling (:func:`~._compat_peel.test_compatibility_peel`), by
        the level-by-level recursion (:func:`~._compat_levels.test_compatibility`,
        the reference), or both (the reference's answer used, disagreements
        counted, for the tests).  None skips the test: the naive constrained
        agglomeration (line 9 only), which can dead-end.

    Returns
    -------
    Z : float64 array (n-1, 4)
        scipy linkage rows ``(id1, id2, height, size)`` for the merges done
        (``n_merges`` of them; the rest is zero).
    n_merges : int
        ``n - 1`` for a complete hierarchy, fewer at a dead end.
    counters : int64 array (9,)
        Candidate pairs examined, forbidden pairs (line 9),
        TestCompatibility calls, incompatible pairs, nearest-neighbour
        rescans, the work inside TestCompatibility (levels and constraints
        scanned by the recursion; connectivity checks and constraints and
        edges visited by peeling), disagreements of the two (mode 2), and
        the calls that a certificate answered without peeling (modes 0 and 2).

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
    state's incidence and O(alpha(n)) for its components, then per test the two clusters'
    components and the searches (see :func:`~._compat_peel.test_compatibility_peel`).
    """
    n = X.shape[0]
    cl = _new_clusters(X, R)
    cons = ConstraintSlots(R[:, 0].copy(), R[:, 1].copy(), R[:, 2].copy(), np.ones(R.shape[0], dtype=np.bool_))
    lq = _new_queue(cl.C, cl.alive)
    D, rej, nn, mind, heap, pos = lq.D, lq.rej, lq.nn, lq.mind, lq.heap, lq.pos
    alive, cnt, head, nxt, size = cl.alive, cl.cnt, cl.head, cl.nxt, cl.size
    counters = np.zeros(9, dtype=np.int64)
    Z = np.zeros((max(n - 1, 0), 4))
    tick = 1
    stale = True  # the state's incidence needs a rebuild
    if work is not None:
        _init_state(work, heap, cons)
    hsize = n
    n_alive = n
    n_merges = 0
    while n_alive > 1:
        i = heap[0]
        if mind[i] == np.inf:
            break  # dead end: every remaining pair is rejected
        j = nn[i]
        if j < 0 or not alive[j] or rej[i, j] or D[i, j] != mind[i]:
            counters[4] += 1
            rescan(i, D, alive, rej, nn, mind)
            heap_update(heap, pos, mind, i, hsize)
            continue
        counters[0] += 1
        ok = True
        if cnt[i] > 0 and cnt[j] > 0:
            if forbidden(i, j, cons, inc_ptr, inc_con, head, nxt, size):
                counters[1] += 1
                ok = False
            elif work is not None:
                counters[2] += 1
                ok, tick, stale = _test_compatibility(work, i, j, heap[:n_alive], cons, stale, tick, counters,
                                                      n_merges)
                if not ok:
                    counters[3] += 1
        if not ok:
            rej[i, j] = True
            rej[j, i] = True
            counters[4] += 1
            rescan(i, D, alive, rej, nn, mind)
            heap_update(heap, pos, mind, i, hsize)
            continue
        Z[n_merges, 2] = np.sqrt(D[i, j])
        keep, gone = _merge(i, j, n_merges, Z, cl, cons, R, inc_ptr, inc_con)
        if work is not None:
            _after_merge(work, keep, gone)
        stale = True
        n_merges += 1
        n_alive -= 1
        hsize = heap_remove(heap, pos, mind, gone, hsize)
        if n_alive == 1:
            break
        _update_queue(keep, cl, lq, hsize)
    return Z, n_merges, counters


#: scratch builders by TestCompatibility implementation (kernel ``mode`` 0, 1, 2 of :func:`recon_agglomerate`)
_WORK = (_peel_work, _reference_work, _both_work)


def recon_agglomerate(X, R, inc_ptr, inc_con, check_compatibility, mode=0):
    """ReCon's agglomeration (:func:`_agglomerate`), TestCompatibility by peeling (0), reference (1) or both (2).

    ``check_compatibility=False``, or no constraint at all (no test could
    run then: only pairs of clusters that both touch a constraint are
    tested), passes no scratch, and the kernel compiled for that case holds
    no TestCompatibility.
    """
    work = _WORK[mode](X.shape[0], R.shape[0]) if check_compatibility and R.shape[0] else None
    return _agglomerate(X, R, inc_ptr, inc_con, work)
