"""Estimator conventions shared by every algorithm family.

scikit-learn habits: parameters in ``__init__`` and no work there,
``random_state``, ``fit(...)`` returns ``self`` and sets ``labels_``.  Each
estimator has a natural ``fit`` (``LsADVC().fit(triplets)``) and the uniform
``fit_problem(problem)`` through which the runner reaches all of them.
"""

from __future__ import annotations

import functools

from sklearn.base import BaseEstimator, ClusterMixin

from .._validation import check_random_state


def _checks_random_state(method):
    """Validate ``self.random_state`` (as :func:`sklearn.utils.check_random_state`) before ``method``."""

    @functools.wraps(method)  # keeps the signature: the runner inspects fit_problem's parameters
    def wrapper(self, *args, **kwargs):
        check_random_state(getattr(self, "random_state", None), "random_state")
        return method(self, *args, **kwargs)

    wrapper._checks_random_state = True
    return wrapper


class ProblemEstimator(ClusterMixin, BaseEstimator):
    """Base class: ``fit_problem`` dispatches to ``fit`` with the right fields.

    Every ``fit`` and ``fit_problem`` a subclass defines first validates
    ``random_state`` (None, an int, a ``RandomState``, ``Generator`` or
    ``SeedSequence``; anything else is a ``ValueError``), as scikit-learn
    validates parameters at fit time.  This holds for the deterministic
    estimators too, which accept ``random_state`` only for a uniform
    interface: ``random_state="abc"`` is a mistake wherever it is written.
    """

    #: which :class:`~ccexp.problem.Problem` field the estimator consumes
    supervision: str = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Wrapped here, once for every family, so no estimator can forget the check.
        for name in ("fit", "fit_problem"):
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_checks_random_state", False):
                setattr(cls, name, _checks_random_state(method))

    def fit_problem(self, problem):  # pragma: no cover - overridden
        """Fit on a :class:`~ccexp.problem.Problem`, reading its :attr:`supervision` field.

        Parameters
        ----------
        problem : Problem
            The instance: features and/or the supervision the estimator reads.

        Returns
        -------
        self
            Fitted, with ``labels_``.
        """
        raise NotImplementedError

    @classmethod
    def warmup(cls) -> None:
        """Compile the numba kernels on a tiny input (kept out of timings)."""
