"""The supervision's own cost of a clustering, per supervision kind.

``ccexp.score(labels, y, problem=prob)`` adds these values to the
ground-truth metrics (DESIGN.md): s(f, T) for triplets (Ukkonen 2017,
Problem 2), and what each family registers for its own kind (violated
constraints, the disagreement error ED and its lower bound, ...).

A family registers a function ``f(labels, problem) -> dict`` for the
:class:`~ccexp.problem.Problem` field it reads::

    @register_objective("relative")
    def relative_objective(labels, problem): ...
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ._validation import check_labels

#: Problem field -> objective function ``f(labels, problem) -> dict``.
OBJECTIVES: dict[str, Callable] = {}


def register_objective(field: str):
    """Register the objective of problems that carry ``field``."""

    def decorator(fn):
        if field in OBJECTIVES:
            raise ValueError(f"an objective for {field!r} is registered twice")
        OBJECTIVES[field] = fn
        return fn

    return decorator


@register_objective("triplets")
def triplet_objective_values(labels: np.ndarray, problem) -> dict:
    """s(f, T) and its share of |T|."""
    from .algorithms.triplets._kernels import triplet_cost

    m = problem.triplets.shape[0]
    cost = int(triplet_cost(problem.triplets, labels))
    return {"objective": cost, "objective_fraction": cost / m if m else 0.0}


def problem_objective(labels, problem) -> dict:
    """Objective values of ``labels`` under ``problem``'s supervision."""
    import ccexp.algorithms  # noqa: F401  (families register their objectives on import)

    # encoded, never cast: labels 0.1 and 0.2 are two clusters, not one
    labels = check_labels(labels, "labels", n_items=problem.n_items)
    out: dict = {}
    for field, fn in OBJECTIVES.items():
        if getattr(problem, field, None) is not None:
            out.update(fn(labels, problem))
    return out
