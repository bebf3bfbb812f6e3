"""Estimator conventions shared by every algorithm family.

scikit-learn habits: parameters in ``__init__`` and no work there,
``random_state``, ``fit(...)`` returns ``self`` and sets ``labels_``.  Each
estimator has a natural ``fit`` (``LsADVC().fit(triplets)``) and the uniform
``fit_problem(problem)`` through which the runner reaches all of them.
"""

from __future__ import annotations

from sklearn.base import BaseEstimator, ClusterMixin


class ProblemEstimator(ClusterMixin, BaseEstimator):
    """Base class: ``fit_problem`` dispatches to ``fit`` with the right fields."""

    #: which :class:`~ccexp.problem.Problem` field the estimator consumes
    supervision: str = ""

    def fit_problem(self, problem):  # pragma: no cover - overridden
        raise NotImplementedError

    @classmethod
    def warmup(cls) -> None:
        """Compile the numba kernels on a tiny input (kept out of timings)."""
