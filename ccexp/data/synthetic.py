"""Synthetic datasets."""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int, check_random_state
from ..registry import DATASETS
from .dataset import Dataset


@DATASETS.register("synthetic_labels")
def synthetic_labels(n: int = 160, k: int = 4, shuffle: bool = True, random_state=None) -> Dataset:
    """``n`` items in ``k`` equal clusters, labels only (Ukkonen 2017, Section V-A).

    Cluster sizes differ by at most one.  With ``shuffle`` (default) the
    labels are assigned to the items in a random order drawn from
    ``random_state``, so an item's index says nothing about its cluster;
    without it items ``0 .. n-1`` get label ``floor(i * k / n)`` (contiguous
    blocks).  Blocks are not harmless: every index-ordered step (the local
    search's visiting order, smallest-id tie-breaks, the vertex cover's pair
    order) then correlates with the truth, and Ls-AD-VC loses much of its
    accuracy (experiments/ukkonen2017/README.md).  No features: the
    supervision is generated from the labels by an oracle.
    """
    n = check_positive_int(n, "n")
    k = check_positive_int(k, "k")
    if k > n:
        raise ValueError(f"k must be at most n={n}, got k={k}")
    y = (np.arange(n, dtype=np.int64) * k) // n
    if shuffle:
        y = check_random_state(random_state).permutation(y)
    return Dataset(name="synthetic_labels", y=y, params={"n": n, "k": k, "shuffle": bool(shuffle)})
