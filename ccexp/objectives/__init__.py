"""The supervision's own cost of a clustering, one module per supervision kind.

``ccexp.score(labels, y, problem=prob)`` adds these values to the
ground-truth metrics (DESIGN.md): s(f, T) for triplets (Ukkonen 2017,
Problem 2, :mod:`.triplets`), the disagreement error ED and its lower bound
for input clusterings (Gionis et al. 2007, :mod:`.clusterings`), the
violated must-link / cannot-link constraints (:mod:`.pairwise`) and the
violated relative constraints ``ab|c`` (Liu et al. 2011, :mod:`.relative`).

This package sits below the algorithms: it imports no algorithm, and an
estimator that reports its own cost, or reads the weights ``X_uv`` of input
clusterings, imports them from here (the kernels they share are in
:mod:`.kernels`).  So ``ccexp.metrics.score`` depends on the objectives and
on no algorithm.

A :class:`~ccexp.problem.Problem` field maps to a function
``f(labels, problem) -> dict`` in :data:`OBJECTIVES`; a new kind adds its
own with :func:`register_objective`.
"""

from __future__ import annotations

from typing import Callable

from .._validation import check_labels
from .clusterings import clusterings_objective
from .pairwise import pairwise_objective
from .relative import relative_objective
from .triplets import triplet_objective_values

#: Problem field -> objective function ``f(labels, problem) -> dict``, in the
#: order their values are merged (the order the families registered them in before).
OBJECTIVES: dict[str, Callable] = {
    "triplets": triplet_objective_values,
    "clusterings": clusterings_objective,
    "must_link": pairwise_objective,  # the pairwise oracle always sets must_link and cannot_link together
    "relative": relative_objective,
}


def register_objective(field: str):
    """Register the objective of problems that carry ``field`` (once per field)."""

    def decorator(fn):
        if field in OBJECTIVES:
            raise ValueError(f"an objective for {field!r} is registered twice")
        OBJECTIVES[field] = fn
        return fn

    return decorator


def problem_objective(labels, problem) -> dict:
    """Objective values of ``labels`` under ``problem``'s supervision.

    Examples
    --------
    >>> import numpy as np
    >>> from ccexp.problem import Problem
    >>> problem_objective([0, 0, 1], Problem(n_items=3, triplets=np.array([[0, 1, 2], [0, 2, 1]])))
    {'objective': 1, 'objective_fraction': 0.5}
    """
    # encoded, never cast: labels 0.1 and 0.2 are two clusters, not one
    labels = check_labels(labels, "labels", n_items=problem.n_items)
    out: dict = {}
    for field, fn in OBJECTIVES.items():
        if getattr(problem, field, None) is not None:
            out.update(fn(labels, problem))
    return out


__all__ = ["OBJECTIVES", "problem_objective", "register_objective"]
