"""The supervision's own cost of a clustering, per problem kind.

``ccexp.score(labels, y, problem=prob)`` adds these to the ground-truth
metrics: for triplets, s(f, T) of Ukkonen (2017, Problem 2) and its share of
|T|.
"""

from __future__ import annotations

import numpy as np


def problem_objective(labels, problem) -> dict:
    """Objective values of ``labels`` under ``problem``'s supervision."""
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    if labels.shape[0] != problem.n_items:
        raise ValueError(f"labels has {labels.shape[0]} entries, the problem has n_items={problem.n_items}")
    out: dict = {}
    if problem.triplets is not None:
        from .algorithms.triplets._kernels import triplet_cost

        m = problem.triplets.shape[0]
        cost = int(triplet_cost(problem.triplets, labels))
        out["objective"] = cost
        out["objective_fraction"] = cost / m if m else 0.0
    return out
