"""The pairwise objective: how many must-link and cannot-link constraints labels violate (Zhu et al. 2013)."""

from __future__ import annotations

import numpy as np


def violated(labels: np.ndarray, must_link, cannot_link) -> tuple[int, int]:
    """(violated must-links, violated cannot-links) of ``labels``.

    Examples
    --------
    >>> violated(np.array([0, 0, 1]), np.array([[0, 2]]), np.array([[0, 1]]))
    (1, 1)
    """
    labels = np.asarray(labels)
    v_ml = int(np.sum(labels[must_link[:, 0]] != labels[must_link[:, 1]])) if len(must_link) else 0
    v_cl = int(np.sum(labels[cannot_link[:, 0]] == labels[cannot_link[:, 1]])) if len(cannot_link) else 0
    return v_ml, v_cl


def pairwise_objective(labels: np.ndarray, problem) -> dict:
    """Violated constraints (must- and cannot-links together) and each kind apart.

    Keyed on ``must_link`` in :data:`ccexp.objectives.OBJECTIVES`: the pairwise
    oracle always sets both fields.
    """
    ml = problem.must_link if problem.must_link is not None else np.empty((0, 2), dtype=np.int64)
    cl = problem.cannot_link if problem.cannot_link is not None else np.empty((0, 2), dtype=np.int64)
    v_ml, v_cl = violated(labels, ml, cl)
    m = len(ml) + len(cl)
    return {
        "objective": v_ml + v_cl,
        "objective_fraction": (v_ml + v_cl) / m if m else 0.0,
        "violated_must_link": v_ml,
        "violated_cannot_link": v_cl,
    }
