"""The objective s(f, T) of Problem 2 (Ukkonen 2017, Section II-B)."""

from __future__ import annotations

import numpy as np

from .._validation import as_index_array, check_labels
from .kernels import triplet_cost


def triplet_objective(labels, triplets) -> int:
    """Number of triplets (a, b, c) that ``labels`` leave unsatisfied.

    s(f, T) = sum over (a, b, c) in T of I{f(a) != f(b) or f(a) = f(c) or
    f(b) = f(c)}: a triplet is satisfied iff f(a) = f(b) != f(c).

    Examples
    --------
    >>> triplet_objective([0, 0, 1], [[0, 1, 2], [0, 2, 1]])
    1
    """
    labels = check_labels(labels)
    triplets = as_index_array(triplets, "triplets", labels.shape[0], 3)
    return int(triplet_cost(triplets, np.ascontiguousarray(labels)))


def triplet_objective_values(labels: np.ndarray, problem) -> dict:
    """s(f, T) and its share of |T|, for a problem with ``triplets``."""
    m = problem.triplets.shape[0]
    cost = int(triplet_cost(problem.triplets, labels))
    return {"objective": cost, "objective_fraction": cost / m if m else 0.0}
