"""The :class:`Dataset` type: items, ground truth and what else a source provides."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, eq=False)
class Dataset:
    """A dataset as loaded: ground truth for the scorer, raw material for an oracle.

    Parameters
    ----------
    name : str
        Registry name (``synthetic_labels``, ``iris``, ...).
    y : int array of shape (n,) or None
        Ground-truth labels; ``None`` for recorded crowd data without one.
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

    @property
    def n_items(self) -> int:
        for arr in (self.y, self.X, self.categorical):
            if arr is not None:
                return int(arr.shape[0])
        if self.triplets is not None and len(self.triplets):
            return int(self.triplets.max()) + 1
        return 0

    @property
    def n_classes(self) -> int | None:
        return None if self.y is None else int(np.unique(self.y).size)
