"""The shared entry points of every triplet estimator."""

from __future__ import annotations

import numpy as np

from ..._validation import as_index_array, check_positive_int
from ..base import ProblemEstimator


class TripletEstimator(ProblemEstimator):
    """Base of the triplet family: validates once, then calls ``_fit(T, n_items)``.

    Subclasses implement ``_fit(self, T, n_items)`` on a validated C-contiguous
    int64 array ``T`` of rows ``(a, b, c)`` (``c`` the outlier).
    """

    reads = ("triplets",)  # capability declaration (ccexp.capabilities)
    needs_features = False

    supervision = "triplets"

    def fit(self, triplets, y=None, n_items=None):
        """Cluster the items of ``triplets`` (rows (a, b, c), c the outlier).

        ``n_items`` defaults to the largest index + 1.
        """
        arr = np.asarray(triplets)
        if n_items is None:
            n_items = int(arr.max()) + 1 if arr.size else 1
        n_items = check_positive_int(n_items, "n_items")
        return self._fit(as_index_array(arr, "triplets", n_items, 3), n_items)

    def fit_problem(self, problem):
        """Cluster the items of a :class:`~ccexp.problem.Problem` with triplets."""
        return self._fit(problem.require("triplets", type(self).__name__), problem.n_items)

    def _fit(self, T, n_items):  # pragma: no cover - abstract
        raise NotImplementedError
