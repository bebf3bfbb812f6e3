"""The shared entry points of every triplet estimator."""

from __future__ import annotations

import numpy as np

from ..._validation import as_index_array, check_positive_int
from ..base import ProblemEstimator, validate_params, validates_params_first


#: items beyond twice those the triplets name that ``fit`` infers from the largest index without ``n_items``
SPARSE_SLACK = 1000


class TripletEstimator(ProblemEstimator):
    """Base of the triplet family: validates once, then calls ``_fit(T, n_items)``.

    Subclasses implement ``_fit(self, T, n_items)`` on a validated C-contiguous
    int64 array ``T`` of rows ``(a, b, c)`` (``c`` the outlier).
    """

    reads = ("triplets",)  # capability declaration (ccexp.capabilities)
    needs_features = False

    supervision = "triplets"

    @validates_params_first
    def fit(self, triplets, y=None, n_items=None):
        """Cluster the items of ``triplets`` (rows (a, b, c), c the outlier).

        ``n_items`` defaults to the largest index + 1, as long as the indices
        are not sparse (at most :data:`SPARSE_SLACK` more than twice the
        items they name): an index alone would size every array, and
        ``[[2**31 - 1, 0, 1]]`` asked for 22 GB (issue 33).  No triplet is
        refused: there is nothing to cluster from (it used to return labels
        for one invented item).

        Raises
        ------
        ValueError
            For an empty ``triplets``, or sparse indices without ``n_items``.
        """
        validate_params(self)
        arr = np.asarray(triplets)
        if arr.size == 0:
            raise ValueError(f"triplets must hold at least one triplet (a, b, c), got shape {arr.shape}")
        if n_items is None and not np.issubdtype(arr.dtype, np.integer):
            n_items = 1  # not item indices: as_index_array says so
        elif n_items is None:
            n_items, distinct = int(arr.max()) + 1, np.unique(arr).size
            if n_items > 2 * distinct + SPARSE_SLACK:
                raise ValueError(f"triplets: the largest index, {n_items - 1}, would make {n_items:,} items for the "
                                 f"{distinct} the triplets name, and size every array by it; pass n_items=N (the "
                                 f"number of items) or renumber the items 0 .. N-1")
        n_items = check_positive_int(n_items, "n_items")
        return self._fit(as_index_array(arr, "triplets", n_items, 3), n_items)

    @validates_params_first
    def fit_problem(self, problem):
        """Cluster the items of a :class:`~ccexp.problem.Problem` with triplets.

        Validates the parameters first (:func:`~ccexp.algorithms.base.validate_params`), as every estimator's
        ``fit_problem`` does, then runs the algorithm's ``_fit``.
        """
        validate_params(self)
        return self._fit(problem.require("triplets", type(self).__name__), problem.n_items)

    def _fit(self, T, n_items):  # pragma: no cover - abstract
        raise NotImplementedError
