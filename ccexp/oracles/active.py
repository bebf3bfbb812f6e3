"""The ``pairwise_similarity`` oracle of Aronsson & Chehreghani (2024), Section 2.2.

It turns a dataset into a :class:`~ccexp.problem.Problem` whose ``oracle``
is a :class:`~ccexp.problem_oracle.PairwiseSimilarityOracle`: noisy,
non-persistent answers to similarity queries (``preset="paper"`` or
``"authors"``, see there).  The oracle object holds the ground truth; an
algorithm sees only the answers.
"""

from __future__ import annotations

import numpy as np

from ..problem import Problem
from ..problem_oracle import NOISE_PRESETS, PairwiseSimilarityOracle  # noqa: F401  (NOISE_PRESETS: the presets this oracle takes)
from ..registry import ORACLES

@ORACLES.register("pairwise_similarity", produces="similarity", needs=("y",))
def pairwise_similarity_oracle(dataset, gamma=0.2, lam=0.1, budget=None, random_state=None, preset="paper",
                               noise_range=None) -> Problem:
    """A :class:`~ccexp.problem.Problem` whose ``oracle`` answers noisy similarity queries.

    The problem also carries the dataset's features ``X`` when it has them
    (for the k-means initialisation of sigma_0 and for feature-based
    baselines); ``meta["init_k"]`` passes on the dataset's k-means k
    (Section 4.1) where it names one.  ``preset="authors"`` gives the
    authors' code's noise (see :class:`PairwiseSimilarityOracle`) and, as
    their script does, the number of classes as the k-means k, and
    ``meta["init_n_init"]``, the k-means initialisations behind their stored
    runs of the dataset, where the dataset names them.
    """
    if dataset.y is None:
        raise ValueError(f"the pairwise_similarity oracle needs ground-truth labels; dataset {dataset.name!r} has none")
    oracle = PairwiseSimilarityOracle(dataset.y, gamma=gamma, lam=lam, budget=budget, random_state=random_state,
                                      preset=preset, noise_range=noise_range)
    n = dataset.n_items
    meta = {"n_edges": n * (n - 1) // 2}
    if preset == "authors":
        # their run_experiments.py: k-means with k = the number of classes (from Y)
        meta["init_k"] = int(np.unique(dataset.y).shape[0])
        if "stored_kmeans_n_init" in dataset.params:  # the initialisations behind their stored runs of it
            meta["init_n_init"] = int(dataset.params["stored_kmeans_n_init"])
    elif "kmeans_k" in dataset.params:
        meta["init_k"] = int(dataset.params["kmeans_k"])
    return Problem(n_items=n, X=dataset.X, oracle=oracle, meta=meta)
