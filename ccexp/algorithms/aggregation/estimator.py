"""The estimator shape shared by the aggregation algorithms.

Each algorithm implements ``_cluster(enc) -> labels`` on
:class:`~ccexp.algorithms.aggregation.weights.EncodedClusterings`; this base
class gives it the natural ``fit(clusterings)``, the uniform
``fit_problem(problem)``, canonical labels, timings and warm-up, and lets
SAMPLING call ``_cluster`` on a subset without re-encoding.
"""

from __future__ import annotations

import time

import numpy as np

from ...cc.labels import relabel_contiguous
from ..base import ProblemEstimator
from .weights import EncodedClusterings, check_p, encode

#: Figure 1 of the paper: three clusterings of six objects (rows = clusterings).
FIGURE1 = np.array([[0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 2, 3], [0, 1, 0, 1, 2, 2]], dtype=np.int64)


class AggregationEstimator(ProblemEstimator):
    """Base class of the clustering-aggregation algorithms (Gionis et al. 2007).

    Subclasses take ``p`` (the missing-value coin; ``None`` reads
    ``problem.meta["missing_p"]`` in :meth:`fit_problem`, else 1/2) and
    ``random_state`` among their parameters.
    """

    reads = ("clusterings",)  # capability declaration (ccexp.capabilities)
    needs_features = False

    supervision = "clusterings"

    def _p(self, problem=None) -> float:
        p = getattr(self, "p", None)
        if p is None:
            p = problem.meta.get("missing_p", 0.5) if problem is not None else 0.5
        return check_p(p)

    def fit(self, clusterings, y=None):
        """Aggregate ``clusterings`` (int array (m, n), ``-1`` missing); sets ``labels_``."""
        enc = clusterings if isinstance(clusterings, EncodedClusterings) else encode(clusterings, self._p())
        return self._fit_encoded(enc)

    def fit_problem(self, problem):
        C = problem.require("clusterings", type(self).__name__)
        return self._fit_encoded(encode(C, self._p(problem)))

    def _fit_encoded(self, enc: EncodedClusterings):
        self.timings_ = {}
        self.status_ = "ok"
        t0 = time.perf_counter()
        labels = self._cluster(enc)
        self.timings_.setdefault("cluster", time.perf_counter() - t0)
        self.labels_ = relabel_contiguous(labels)
        return self

    def _cluster(self, enc: EncodedClusterings) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def warmup(cls) -> None:
        cls().fit(FIGURE1)
