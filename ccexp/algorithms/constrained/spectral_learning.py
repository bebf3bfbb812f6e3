"""Spectral Learning (Kamvar, Klein, Manning 2003), as the baseline SL of Zhu et al. (2013).

"It extends SPClust by trivially adjusting the elements in a data affinity
matrix with 1 and 0 to satisfy must-link and cannot-link constraints"
(Zhu et al., Section III): the Gaussian k-NN affinity of ``spectral``, with
w_ij = w_ji = 1 for a must-link and 0 for a cannot-link, then the same NJW
spectral step.  (Kamvar et al. normalise additively, N = (A + d_max I - D) /
d_max; we keep SPClust's normalisation so that SL differs from SPClust only
in the constraints, which is how Zhu et al. describe it.)
"""

from __future__ import annotations

import numpy as np

from ...registry import ALGORITHMS
from .spectral import SpectralClustering


def impose_constraints(W: np.ndarray, must_link: np.ndarray, cannot_link: np.ndarray) -> np.ndarray:
    """A copy of ``W`` with 1 on must-link and 0 on cannot-link pairs (both orders).

    A pair listed as both keeps 0 (cannot-links are written last).

    Examples
    --------
    >>> impose_constraints(np.full((3, 3), 0.5), np.array([[0, 1]]), np.array([[1, 2]]))
    array([[0.5, 1. , 0.5],
           [1. , 0.5, 0. ],
           [0.5, 0. , 0.5]])
    """
    W = np.array(W, dtype=np.float64, copy=True)
    for pairs, value in ((must_link, 1.0), (cannot_link, 0.0)):
        if len(pairs):
            W[pairs[:, 0], pairs[:, 1]] = value
            W[pairs[:, 1], pairs[:, 0]] = value
    return W


@ALGORITHMS.register("spectral_learning")
class SpectralLearning(SpectralClustering):
    """SL: spectral clustering of the affinity with constraints imposed as 1 / 0.

    Parameters and attributes as :class:`~.spectral.SpectralClustering`;
    only the affinity differs.
    """

    reads = ("pairwise",)  # capability declaration (ccexp.capabilities)
    needs_features = True

    def _constrain(self, W, ml, cl):
        return impose_constraints(W, ml, cl)
