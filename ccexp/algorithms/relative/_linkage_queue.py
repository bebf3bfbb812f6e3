"""The priority queue of ReCon's centroid linkage (Liu, Zhang and Wang 2011, Section 4.2).

Clusters live in *slots* ``0 .. n-1``. The queue is an indexed binary
min-heap of slots ordered by ``(mind[slot], slot)``, where ``mind[k]`` is a
lower bound on the squared distance from ``k`` to its nearest *allowed*
partner ``nn[k]`` (Muellner's generic linkage algorithm, 2011, with the
rejected pairs excluded). Layout: ``heap[p]`` is the slot at heap position
``p``, ``pos[slot]`` its position (``-1`` once removed), ``heap[:size]`` the
live part.

Numba kernels, no fastmath: the order of merges must be reproducible to the bit.
"""

from __future__ import annotations

import numpy as np

from ..._jit import borrowing_njit


@borrowing_njit
def heap_less(mind, a, b):
    """Whether slot ``a`` ranks before slot ``b``: smaller bound, then smaller slot."""
    return mind[a] < mind[b] or (mind[a] == mind[b] and a < b)


@borrowing_njit
def _heap_swap(heap, pos, p, q):
    a = heap[p]
    b = heap[q]
    heap[p] = b
    heap[q] = a
    pos[b] = p
    pos[a] = q


@borrowing_njit
def heap_up(heap, pos, mind, p):
    """Sift the slot at position ``p`` up after its bound decreased."""
    while p > 0:
        up = (p - 1) // 2
        if heap_less(mind, heap[p], heap[up]):
            _heap_swap(heap, pos, p, up)
            p = up
        else:
            return


@borrowing_njit
def heap_down(heap, pos, mind, p, size):
    """Sift the slot at position ``p`` down after its bound increased."""
    while True:
        left = 2 * p + 1
        if left >= size:
            return
        best = left
        if left + 1 < size and heap_less(mind, heap[left + 1], heap[left]):
            best = left + 1
        if heap_less(mind, heap[best], heap[p]):
            _heap_swap(heap, pos, p, best)
            p = best
        else:
            return


@borrowing_njit
def heap_update(heap, pos, mind, slot, size):
    """Restore the heap order after ``mind[slot]`` changed either way."""
    heap_up(heap, pos, mind, pos[slot])
    heap_down(heap, pos, mind, pos[slot], size)


@borrowing_njit
def heap_remove(heap, pos, mind, slot, size):
    """Remove ``slot``; returns the new size."""
    p = pos[slot]
    size -= 1
    if p < size:
        _heap_swap(heap, pos, p, size)
        moved = heap[p]
        heap_up(heap, pos, mind, p)
        heap_down(heap, pos, mind, pos[moved], size)
    pos[slot] = -1
    return size


@borrowing_njit
def dist2(C, i, j):
    """Squared Euclidean distance between the centroids in rows ``i`` and ``j`` of ``C``."""
    s = 0.0
    for f in range(C.shape[1]):
        d = C[i, f] - C[j, f]
        s += d * d
    return s


@borrowing_njit
def rescan(k, D, alive, rej, nn, mind):
    """Exact nearest allowed neighbour of slot ``k`` (smallest slot on ties), into ``nn[k]``, ``mind[k]``.

    Parameters
    ----------
    k : int
    D : float64 array (n, n)
        Squared centroid distances between live slots.
    alive : bool array (n,)
    rej : bool array (n, n)
        Pairs rejected since either cluster last merged.
    nn, mind : arrays (n,)
        Updated at ``k``.
    """
    best = np.inf
    arg = -1
    for j in range(D.shape[0]):
        if alive[j] and j != k and not rej[k, j] and D[k, j] < best:
            best = D[k, j]
            arg = j
    nn[k] = arg
    mind[k] = best
