"""Clustering aggregation (Gionis, Mannila and Tsaparas 2007).

m input clusterings (or the categorical attributes of a table) define the
correlation-clustering weights ``X_uv`` (:mod:`.weights`); the algorithms of
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
from .weights import EncodedClusterings, dense_weights, disagreement, encode, lower_bound, total_weights

__all__ = [
    "Agglomerative",
    "AggregationEstimator",
    "Balls",
    "BestClustering",
    "EncodedClusterings",
    "Furthest",
    "Limbo",
    "LocalSearch",
    "Rock",
    "Sampling",
    "dense_weights",
    "disagreement",
    "encode",
    "local_search_labels",
    "lower_bound",
    "total_weights",
]
