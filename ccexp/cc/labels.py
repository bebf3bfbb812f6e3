"""Canonical cluster labels: the one relabelling.

Algorithms return labels ``0 .. h-1`` numbered in order of first appearance,
so two runs that find the same partition return the same array, and tests
can compare partitions with ``==``. :func:`relabel_first_appearance` is the
kernel every family uses (the CC and triplet local searches between passes,
the active local search after its restarts); :func:`relabel_contiguous` is
its validated wrapper for any integer ids.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._validation import check_labels


@njit(cache=True)
def relabel_first_appearance(labels):
    """Relabel in place to ``0 .. h-1`` in order of first appearance; return ``h``.

    Parameters
    ----------
    labels : int64 array (n,)
        Non-negative ids (trusted); rewritten in place.

    Returns
    -------
    h : int
        The number of distinct ids.

    Notes
    -----
    O(n + max(labels)), no sort: this is what keeps a local-search pass
    (kernel + relabel) linear, since the ids of a pass stay below ``2n``
    (CC) or ``n + 1`` (triplets, active).
    """
    n = labels.shape[0]
    if n == 0:
        return 0
    mapping = np.full(labels.max() + 1, -1, dtype=np.int64)
    h = 0
    for i in range(n):
        c = labels[i]
        if mapping[c] < 0:
            mapping[c] = h
            h += 1
        labels[i] = mapping[c]
    return h


def relabel_contiguous(labels) -> np.ndarray:
    """Map cluster labels to ``0 .. h-1`` in order of first appearance.

    Parameters
    ----------
    labels : array-like of int, shape (n_items,)
        Any integer cluster ids (negative and sparse ids are fine).

    Returns
    -------
    ndarray of int64, shape (n_items,)
        ``out[i] == out[j]`` iff ``labels[i] == labels[j]``; the cluster of
        item 0 is 0, the next new cluster met when reading left to right is
        1, and so on.

    Notes
    -----
    O(n log n): one ``np.unique`` (a sort) maps any ids to ``0 .. h-1``,
    then :func:`relabel_first_appearance` renumbers them. Kernels whose ids
    are bounded call that kernel directly.

    Examples
    --------
    >>> relabel_contiguous([7, 7, 3, 9, 3]).tolist()
    [0, 0, 1, 2, 1]
    """
    arr = check_labels(labels, "labels", allow_empty=True)
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    _, inverse = np.unique(arr, return_inverse=True)
    out = np.ascontiguousarray(inverse.reshape(-1), dtype=np.int64)
    relabel_first_appearance(out)
    return out
