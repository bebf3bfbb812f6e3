"""Clustering aggregation (Gionis, Mannila and Tsaparas 2007).

m input clusterings (or the categorical attributes of a table) define the
correlation-clustering weights ``X_uv`` (:mod:`ccexp.objectives.clusterings`); the algorithms of
Section 4 minimise the disagreement cost d(C) of Problem 2:
BESTCLUSTERING, BALLS, AGGLOMERATIVE, FURTHEST, LOCALSEARCH and the
SAMPLING wrapper of Section 4.1; the categorical baselines ROCK and LIMBO
of Section 5.2.

Every estimator of the family takes ``fit(clusterings)`` of shape
``(m clusterings, n items)``, ``-1`` missing, as ``problem.clusterings``
holds them; ROCK and LIMBO read its transpose as their table of n records
with m categorical attributes (:mod:`.estimator`).
"""

from .agglomerative import Agglomerative
from .balls import Balls
from .best_clustering import BestClustering
from .estimator import AggregationEstimator, CategoricalEstimator
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
    "CategoricalEstimator",
    "Furthest",
    "Limbo",
    "LocalSearch",
    "Rock",
    "Sampling",
    "local_search_labels",
]
