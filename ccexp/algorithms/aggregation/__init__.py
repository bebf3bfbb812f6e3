"""Clustering aggregation (Gionis, Mannila and Tsaparas 2007).

m input clusterings (or the categorical attributes of a table) define the
correlation-clustering weights ``X_uv`` (:mod:`ccexp.objectives.clusterings`); the algorithms of
Section 4 minimise the disagreement cost d(C) of Problem 2:
BESTCLUSTERING, BALLS, AGGLOMERATIVE, FURTHEST, LOCALSEARCH and the
SAMPLING wrapper of Section 4.1; the categorical baselines ROCK and LIMBO
of Section 5.2.
"""

from .agglomerative import Agglomerative
from .balls import Balls
from .best_clustering import BestClustering
from .estimator import AggregationEstimator
from .furthest import Furthest
from .limbo import Limbo
from .local_search import LocalSearch, local_search_labels
from .rock import Rock
from .sampling import Sampling

__all__ = [
    "Agglomerative",
    "AggregationEstimator",
    "Balls",
    "BestClustering",
    "Furthest",
    "Limbo",
    "LocalSearch",
    "Rock",
    "Sampling",
    "local_search_labels",
]
