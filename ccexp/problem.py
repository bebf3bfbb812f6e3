"""What an algorithm may see: the :class:`Problem`.

Oracles build a ``Problem`` from a dataset (using the ground truth only to
simulate the supervision), algorithms read it. Neither imports the other,
and a ``Problem`` never carries the ground truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._validation import as_index_array, check_features, check_positive_int


@dataclass(frozen=True, eq=False)
class Problem:
    """Supervision for clustering ``n_items`` items, validated on construction.

    Parameters
    ----------
    n_items : int
        Items are ``0 .. n_items - 1``.
    X : ndarray of shape (n_items, n_features), optional
        Features, where the supervision kind comes with them.
    triplets : int array of shape (m, 3), optional
        Relative distance comparisons ``(a, b, c)``: ``c`` is the outlier,
        ``d(a, b) <= min(d(a, c), d(b, c))`` (Ukkonen 2017, Section II).
    must_link, cannot_link : int arrays of shape (m, 2), optional
        Pairwise constraints.
    relative : int array of shape (m, 3), optional
        Relative constraints ``ab|c`` (Liu et al. 2011).
    clusterings : int array of shape (m, n_items), optional
        Input clusterings to aggregate, ``-1`` for a missing value.
    oracle : object, optional
        An active oracle with ``query(pairs) -> values`` and a query counter.
    meta : dict
        Free-form facts about how the problem was generated (counts, rules);
        never the ground truth.

    Raises
    ------
    ValueError
        Naming the argument and the bad value, for out-of-range or repeated
        items within a row, non-integer index arrays, wrong shapes or
        non-finite features.

    Examples
    --------
    >>> import numpy as np
    >>> prob = Problem(n_items=4, triplets=np.array([[0, 1, 2], [2, 3, 0]]))
    >>> prob.triplets.shape
    (2, 3)
    """

    n_items: int
    X: np.ndarray | None = None
    triplets: np.ndarray | None = None
    must_link: np.ndarray | None = None
    cannot_link: np.ndarray | None = None
    relative: np.ndarray | None = None
    clusterings: np.ndarray | None = None
    oracle: Any = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        n = check_positive_int(self.n_items, "n_items")
        object.__setattr__(self, "n_items", n)
        if self.X is not None:
            X = check_features(self.X, "X", copy=True)  # never the caller's array
            X.setflags(write=False)
            if X.shape[0] != n:
                raise ValueError(f"X has {X.shape[0]} rows, expected n_items={n}")
            object.__setattr__(self, "X", X)
        for name, width in (("triplets", 3), ("must_link", 2), ("cannot_link", 2), ("relative", 3)):
            value = getattr(self, name)
            if value is not None:
                arr = as_index_array(value, name, n, width)  # a copy: the caller's array stays theirs
                arr.setflags(write=False)
                object.__setattr__(self, name, arr)
        if self.clusterings is not None:
            C = np.asarray(self.clusterings)
            if C.ndim != 2 or C.shape[1] != n:
                raise ValueError(f"clusterings must have shape (m, {n}), got {C.shape}")
            if C.size and not np.issubdtype(C.dtype, np.integer):
                raise ValueError(f"clusterings must be integer labels, got dtype {C.dtype}")
            if C.size and C.min() < -1:
                raise ValueError(f"clusterings use -1 for a missing value; got label {C.min()}")
            C = np.array(C, dtype=np.int64, order="C", copy=True)
            C.setflags(write=False)
            object.__setattr__(self, "clusterings", C)

    @property
    def kind(self) -> str:
        """The supervision kind this problem carries (the first field set)."""
        for name in ("triplets", "must_link", "relative", "clusterings", "oracle"):
            if getattr(self, name) is not None:
                return "pairwise" if name == "must_link" else name
        return "features" if self.X is not None else "none"

    def require(self, field_name: str, algorithm: str) -> Any:
        """Return ``field_name`` or raise a clear error naming the algorithm."""
        value = getattr(self, field_name)
        if value is None:
            raise ValueError(
                f"{algorithm} needs a problem with {field_name}, but this problem "
                f"carries {self.kind!r} supervision"
            )
        return value
