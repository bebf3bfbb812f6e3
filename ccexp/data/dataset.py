"""The :class:`Dataset` type: items, ground truth and what else a source provides."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import check_labels


@dataclass(frozen=True, eq=False)
class Dataset:
    """A dataset as loaded: ground truth for the scorer, raw material for an oracle.

    Parameters
    ----------
    name : str
        Registry name (``synthetic_labels``, ``iris``, ...).
    y : array-like of shape (n,) or None
        Ground-truth labels; ``None`` for recorded crowd data without one.
        Integer labels are kept as given (as ``int64``); labels of any other
        hashable type (floats, strings, ...) are encoded as ``0 .. k-1`` in
        their sorted order (:func:`numpy.unique`), never cast, so distinct
        labels stay distinct classes.  A missing label (NaN, None) is refused.
    X : float array of shape (n, d) or None
        Features, or ``None`` for label-only datasets.
    categorical : int array of shape (n, m) or None
        Integer codes, ``-1`` for a missing value.
    triplets : int array of shape (t, 3) or None
        Recorded triplets (outlier last), passed on by the ``recorded`` oracle.
    params : dict
        The parameters the dataset was built with (e.g. ``n``, ``k``).
    """

    name: str
    y: np.ndarray | None
    X: np.ndarray | None = None
    categorical: np.ndarray | None = None
    triplets: np.ndarray | None = None
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        n = None
        if self.y is not None:
            y = np.asarray(self.y)
            if y.ndim == 1 and y.size and np.issubdtype(y.dtype, np.integer):
                y = np.ascontiguousarray(y, dtype=np.int64)
            else:
                y = check_labels(y, "y", allow_empty=True)
            object.__setattr__(self, "y", y)
            n = (y.shape[0], "y has {} entries")
        for name in ("X", "categorical"):
            arr = getattr(self, name)
            if arr is None:
                continue
            arr = np.asarray(arr)
            if arr.ndim != 2:
                raise ValueError(f"{name} must be 2-dimensional (n_items, n_columns), got shape {arr.shape}")
            if n is not None and arr.shape[0] != n[0]:
                raise ValueError(f"{name} has {arr.shape[0]} rows, but {n[1].format(n[0])}")
            object.__setattr__(self, name, arr)
            n = n or (arr.shape[0], f"{name} has {{}} rows")

    @property
    def n_items(self) -> int:
        """Number of items: rows of ``y``, ``X`` or ``categorical``, else the largest item in ``triplets`` plus one."""
        for arr in (self.y, self.X, self.categorical):
            if arr is not None:
                return int(arr.shape[0])
        if self.triplets is not None and len(self.triplets):
            return int(self.triplets.max()) + 1
        return 0

    @property
    def n_classes(self) -> int | None:
        """Number of distinct ground-truth classes, None without labels."""
        return None if self.y is None else int(np.unique(self.y).size)
