"""The relative-constraint objective: constraints a partition violates (Liu et al. 2011, Definition 4.2)."""

from __future__ import annotations

import numpy as np


def partition_violations(labels: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Which constraints a partition violates (Definition 4.2).

    ``ab|c`` is violated when ``a, c`` or ``b, c`` share a cluster but not
    all three do.

    Examples
    --------
    >>> partition_violations(np.array([0, 0, 1, 1]), np.array([[0, 1, 2], [0, 2, 3], [2, 3, 0]])).tolist()
    [False, True, False]
    """
    R = np.asarray(R, dtype=np.int64).reshape(-1, 3)
    la, lb, lc = labels[R[:, 0]], labels[R[:, 1]], labels[R[:, 2]]
    return ((la == lc) | (lb == lc)) & ~((la == lb) & (lb == lc))


def relative_objective(labels: np.ndarray, problem) -> dict:
    """Violated constraints ``ab|c`` (a, c or b, c together but not all three) and their share."""
    m = problem.relative.shape[0]
    bad = int(partition_violations(np.asarray(labels, dtype=np.int64), problem.relative).sum()) if m else 0
    return {"objective": bad, "objective_fraction": bad / m if m else 0.0}
