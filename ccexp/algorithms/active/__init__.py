"""Active correlation clustering with a noisy oracle (Aronsson & Chehreghani 2024).

Algorithm 1 (the active loop) in :mod:`.estimator`, Algorithm 2 (the
max-correlation local search) in :mod:`.local_search`, the query strategies
of Section 3 and Algorithm 3 in :mod:`.strategies`; the QECC-heur baseline in :mod:`.qecc`, COBRAS in :mod:`.cobras`, a simplified nCOBRAS in :mod:`.ncobras`.
"""

from .cobras import COBRAS
from .estimator import (
    ACCFrequency,
    ACCMaxexp,
    ACCMaxmin,
    ACCUncertainty,
    ACCUniform,
    ActiveCorrelationClustering,
    initial_similarity,
)
from .local_search import max_correlation_clustering, max_correlation_objective
from .ncobras import NCOBRAS
from .qecc import QECC
from .strategies import STRATEGIES, expected_triangle_cost

__all__ = [
    "ACCFrequency",
    "ACCMaxexp",
    "ACCMaxmin",
    "ACCUncertainty",
    "ACCUniform",
    "ActiveCorrelationClustering",
    "COBRAS",
    "NCOBRAS",
    "QECC",
    "STRATEGIES",
    "expected_triangle_cost",
    "initial_similarity",
    "max_correlation_clustering",
    "max_correlation_objective",
]
