"""BESTCLUSTERING (Gionis et al. 2007, Section 4): the input clustering of least cost."""

from __future__ import annotations

import numpy as np

from ...registry import ALGORITHMS
from ..base import RANDOM_STATE
from .estimator import AggregationEstimator
from ...objectives.clusterings import EncodedClusterings, disagreement


@ALGORITHMS.register("best_clustering")
class BestClustering(AggregationEstimator):
    """The input clustering C_i minimising D(C_i), a 2(1 - 1/m)-approximation.

    Parameters
    ----------
    p : float or None
        Missing-value coin (see :class:`AggregationEstimator`).
    random_state : None
        Accepted for a uniform interface; deterministic.

    Attributes
    ----------
    labels_ : int array (n,)
    best_index_ : int
        Which input clustering won (the first on ties).
    costs_ : float array (m,)
        d(C_i) of every input clustering.

    Notes
    -----
    A missing value of the winning clustering becomes one more cluster
    (all its missing items together), as the categorical attribute value
    '?' would; on Votes this gives the paper's k = 3. O(n m^2).
    """

    deterministic = True  # the input clustering of least D(C); ties: the first input clustering

    _parameter_constraints = {"p": AggregationEstimator.P_CONSTRAINT, "random_state": RANDOM_STATE}

    def __init__(self, p=None, random_state=None):
        self.p = p
        self.random_state = random_state

    def _cluster(self, enc: EncodedClusterings) -> np.ndarray:
        m = enc.m
        candidates = [_as_clustering(enc.codes[:, j]) for j in range(m)]
        self.costs_ = np.array([disagreement(c, enc) for c in candidates])
        self.best_index_ = int(np.argmin(self.costs_))
        return candidates[self.best_index_]


def _as_clustering(col: np.ndarray) -> np.ndarray:
    out = col.copy()
    out[out < 0] = col.max() + 1
    return out
