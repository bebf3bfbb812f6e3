"""Clustering with relative constraints (Liu, Zhang and Wang, KDD 2011).

- ``recon``: ReCon (OneTree feasibility, centroid-linkage agglomeration with
  TestCompatibility and UpdateConstraints, k-partition with an outlier
  threshold), with ``metric: euclidean | svm``;
- ``hierarchical``, ``kmeans``, ``kmeans_svm``: the paper's baselines;
- :class:`SVMMetric`: the Schultz-Joachims (2003) metric, an estimator-side
  transform;
- the ``relative`` objective (constraints violated by a partition) is
  :mod:`ccexp.objectives.relative`.
"""

from .cut import cut_hierarchy
from .hierarchy import (
    greedy_consistent_subset,
    hierarchy_violations,
    induced_triplet,
    is_consistent,
    linkage_to_parent,
    one_tree,
)
from .kmeans import KMeansBaseline, KMeansSVM
from .recon import Hierarchical, ReCon, ReConSVM, constrained_linkage
from .svm_metric import SVMMetric, learn_svm_metric

__all__ = [
    "Hierarchical",
    "KMeansBaseline",
    "KMeansSVM",
    "ReCon",
    "ReConSVM",
    "SVMMetric",
    "constrained_linkage",
    "cut_hierarchy",
    "greedy_consistent_subset",
    "hierarchy_violations",
    "induced_triplet",
    "is_consistent",
    "learn_svm_metric",
    "linkage_to_parent",
    "one_tree",
]
