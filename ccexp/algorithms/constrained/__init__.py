"""Constrained clustering with must-link / cannot-link pairs (Zhu, Loy, Gong 2013).

COP-RF and its baselines: ``spectral`` (SPClust), ``cop_kmeans``,
``spectral_learning`` (SL), ``e2cp``, ``forest_e2cp`` and ``cop_rf``; the
pairwise objective (violated constraints) is :mod:`ccexp.objectives.pairwise`.
"""

from .cop_kmeans import COPKMeans
from .cop_rf import COPRF
from .e2cp import E2CP, ForestE2CP, constraint_matrix, e2cp_adjust, e2cp_propagate, scale_propagation
from .forest import forest_affinity
from .spectral import SpectralClustering, njw_spectral, scale_symmetric
from .spectral_learning import SpectralLearning, impose_constraints

__all__ = [
    "COPKMeans",
    "COPRF",
    "E2CP",
    "ForestE2CP",
    "SpectralClustering",
    "SpectralLearning",
    "constraint_matrix",
    "e2cp_adjust",
    "e2cp_propagate",
    "scale_propagation",
    "forest_affinity",
    "impose_constraints",
    "njw_spectral",
    "scale_symmetric",
]
