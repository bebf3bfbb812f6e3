"""Synthetic datasets."""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int
from ..registry import DATASETS
from .dataset import Dataset


@DATASETS.register("synthetic_labels")
def synthetic_labels(n: int = 160, k: int = 4, random_state=None) -> Dataset:
    """``n`` items in ``k`` equal clusters, labels only (Ukkonen 2017, Section V-A).

    Items ``0 .. n-1`` get label ``floor(i * k / n)``: contiguous blocks whose
    sizes differ by at most one.  No features: the supervision is generated
    from the labels by an oracle.  ``random_state`` is accepted for a uniform
    interface and unused (the dataset is deterministic).
    """
    n = check_positive_int(n, "n")
    k = check_positive_int(k, "k")
    if k > n:
        raise ValueError(f"k must be at most n={n}, got k={k}")
    y = (np.arange(n, dtype=np.int64) * k) // n
    return Dataset(name="synthetic_labels", y=y, params={"n": n, "k": k})
