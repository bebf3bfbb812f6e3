"""Canonical cluster labels.

Algorithms return labels ``0 .. h-1`` numbered in order of first appearance,
so two runs that find the same partition return the same array, and tests
can compare partitions with ``==``.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_labels


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
    O(n log n): one ``np.unique`` (a sort). The local search driver uses a
    linear-time kernel instead, because its ids are bounded.

    Examples
    --------
    >>> relabel_contiguous([7, 7, 3, 9, 3]).tolist()
    [0, 0, 1, 2, 1]
    """
    arr = check_labels(labels, "labels", allow_empty=True)
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    _, first, inverse = np.unique(arr, return_index=True, return_inverse=True)
    # np.unique numbers the distinct values in sorted order; re-rank them by
    # the position where each first occurs.
    rank = np.empty(first.shape[0], dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.shape[0], dtype=np.int64)
    return rank[inverse.reshape(-1)]
