"""Numba kernels of the synthetic triplet generator (Ukkonen 2017, Section V-A).

Randomness enters as pre-drawn arrays, so each kernel's output is a function
of its inputs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Rules for a 3-set whose labels do not single out an outlier (all three in
# one cluster, or all three in different clusters).  See ``triplets.py``.
AMBIGUOUS_ROTATE = 0  # outlier = sorted item at position (i + j + l) mod 3
AMBIGUOUS_LAST = 1  # outlier = the largest index
AMBIGUOUS_RANDOM = 2  # outlier = position drawn uniformly (pre-drawn array)
AMBIGUOUS_DROP = 3  # the 3-set yields no triplet


@njit(cache=True)
def fill_triplets(n, y, ranks, rule, random_pos, out):
    """Write the triplets of the selected 3-sets into ``out``.

    Walks all 3-sets ``i < j < l`` in lexicographic order, keeping those whose
    rank appears in the sorted array ``ranks``; no list of tuples is built.

    Parameters
    ----------
    n : int
        Number of items.
    y : int64[n]
        Ground-truth labels.
    ranks : int64[m]
        Sorted lexicographic ranks of the selected 3-sets.
    rule : int
        One of the ``AMBIGUOUS_*`` constants.
    random_pos : int64[m]
        Values in {0, 1, 2}; used by ``AMBIGUOUS_RANDOM`` only.
    out : int64[m, 3]
        Output buffer; each row becomes ``(a, b, outlier)``.

    Returns
    -------
    int
        Number of rows written (fewer than ``m`` under ``AMBIGUOUS_DROP``).

    Notes
    -----
    O(C(n, 3)) time: the walk visits every 3-set once and does O(1) work.
    """
    m = ranks.shape[0]
    if m == 0:
        return 0
    rank = 0
    nxt = 0
    w = 0
    for i in range(n - 2):
        for j in range(i + 1, n - 1):
            for l in range(j + 1, n):
                if rank == ranks[nxt]:
                    yi = y[i]
                    yj = y[j]
                    yl = y[l]
                    if yi == yj and yj != yl:
                        out[w, 0] = i
                        out[w, 1] = j
                        out[w, 2] = l
                        w += 1
                    elif yi == yl and yl != yj:
                        out[w, 0] = i
                        out[w, 1] = l
                        out[w, 2] = j
                        w += 1
                    elif yj == yl and yl != yi:
                        out[w, 0] = j
                        out[w, 1] = l
                        out[w, 2] = i
                        w += 1
                    elif rule != AMBIGUOUS_DROP:
                        if rule == AMBIGUOUS_ROTATE:
                            pos = (i + j + l) % 3
                        elif rule == AMBIGUOUS_LAST:
                            pos = 2
                        else:
                            pos = random_pos[nxt]
                        if pos == 0:
                            out[w, 0] = j
                            out[w, 1] = l
                            out[w, 2] = i
                        elif pos == 1:
                            out[w, 0] = i
                            out[w, 1] = l
                            out[w, 2] = j
                        else:
                            out[w, 0] = i
                            out[w, 1] = j
                            out[w, 2] = l
                        w += 1
                    nxt += 1
                    if nxt == m:
                        return w
                rank += 1
    return w


@njit(cache=True)
def swap_outliers(triplets, rows, sides):
    """Make ``rows`` noisy: swap the outlier with item ``sides[r]`` (0 or 1)."""
    for r in range(rows.shape[0]):
        t = rows[r]
        s = sides[r]
        tmp = triplets[t, 2]
        triplets[t, 2] = triplets[t, s]
        triplets[t, s] = tmp
