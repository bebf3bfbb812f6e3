"""Estimator conventions shared by every algorithm family.

scikit-learn habits: parameters in ``__init__`` and no work there,
``random_state``, ``fit(...)`` returns ``self`` and sets ``labels_``.  Each
estimator has a natural ``fit`` (``LsADVC().fit(triplets)``) and the uniform
``fit_problem(problem)`` through which the runner reaches all of them.

Estimators on a feature matrix (:class:`FeatureEstimator`) follow
scikit-learn's signature exactly: ``fit(X, y=None, *, must_link=None, ...)``,
the supervision as keywords, so that ``sklearn.utils.estimator_checks``,
pipelines and ``clone`` treat them as any clusterer.

Parameters are validated at fit time by scikit-learn's machinery: a class
states ``_parameter_constraints`` (:mod:`sklearn.utils._param_validation`'s
``Interval``, ``StrOptions``, ...) and every ``fit`` / ``fit_problem`` calls
``self._validate_params()`` first.  ``random_state`` stays ours
(:func:`ccexp._validation.check_random_state`): the runner passes numpy
``Generator`` and ``SeedSequence`` objects, which scikit-learn's constraint
does not accept, and our integer seeds draw from ``default_rng``'s stream.
"""

from __future__ import annotations

import functools
import inspect

from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils.validation import validate_data

from .._validation import check_random_state

#: ``_parameter_constraints`` entry of ``random_state``: checked by
#: :func:`ccexp._validation.check_random_state` instead (see the module docstring).
RANDOM_STATE = "no_validation"


def validate_params(estimator) -> None:
    """What every ``fit`` checks first: ``random_state``, then the class's ``_parameter_constraints``.

    Also for an estimator that another one builds and runs through an inner
    entry point (SAMPLING's wrapped algorithm, LOCALSEARCH's ``init``), so
    that its parameters are refused as its own ``fit`` would refuse them.

    Raises
    ------
    ValueError
        scikit-learn's ``InvalidParameterError``, naming the parameter.
    """
    check_random_state(getattr(estimator, "random_state", None), "random_state")
    if getattr(type(estimator), "_parameter_constraints", None) is not None:
        estimator._validate_params()


def _validates_params(method):
    """Validate ``random_state`` and the ``_parameter_constraints`` before ``method``."""

    @functools.wraps(method)  # keeps the signature: the runner inspects fit_problem's parameters
    def wrapper(self, *args, **kwargs):
        validate_params(self)
        return method(self, *args, **kwargs)

    wrapper._validates_params = True
    return wrapper


def validates_params_first(method):
    """Mark ``method`` (a ``fit`` or ``fit_problem``) as calling :func:`validate_params` itself, first.

    :class:`ProblemEstimator` then leaves it unwrapped: the check is a
    statement of the method, not a call around it, and the method's own calls
    (to the algorithm) are one frame nearer the caller (issue 30: a parameter
    reaches its use in few calls).  tests/test_parameter_constraints.py fits
    every registered estimator with each invalid value, so a marked method
    that forgets the check fails there.
    """
    method._validates_params = True
    return method


@functools.lru_cache(maxsize=None)
def hook_params(hook) -> tuple[str, ...]:
    """The keyword-only parameters of a family's hook (a function): the estimator parameters it is handed.

    A family's shared driver (``_fit_encoded`` of the aggregation algorithms,
    ``_fit`` of COBRAS, ...) reads these attributes itself and passes them
    to the subclass's hook as keywords, so that the hook is a function of its
    arguments and every parameter is read 4 calls from ``python -m ccexp``
    (issue 30; ``scripts/parameter_reach.py``).  The hook's signature is where
    its parameters are named, once.  Each driver reads them in a loop of its
    own (``kw[name] = getattr(self, name)``) rather than through a helper:
    a helper would be one more frame between ``main`` and the read.

    Examples
    --------
    >>> def _cluster(self, enc, *, alpha, item_order="index"):
    ...     pass
    >>> hook_params(_cluster)
    ('alpha', 'item_order')
    """
    return tuple(name for name, p in inspect.signature(hook).parameters.items() if p.kind is p.KEYWORD_ONLY)


def _init_with_defaults(parent_init, defaults: dict, owner: str):
    """An ``__init__`` with ``parent_init``'s parameters and some defaults replaced.

    The signature is written on the function (``__signature__``), so
    :meth:`~sklearn.base.BaseEstimator.get_params`, ``repr``, ``clone`` and
    the config layer's signature checks see the new defaults, while the
    parameter list itself is written once, in the parent.
    """
    sig = inspect.signature(parent_init)
    unknown = sorted(set(defaults) - set(sig.parameters) - {"self"})
    if unknown:
        raise TypeError(f"{owner}: defaults for unknown parameters {unknown}; valid: {list(sig.parameters)[1:]}")
    new_sig = sig.replace(parameters=[
        p.replace(default=defaults[p.name]) if p.name in defaults else p for p in sig.parameters.values()
    ])

    def __init__(self, *args, **kwargs):
        bound = new_sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        params = dict(bound.arguments)
        params.pop("self")
        parent_init(self, **params)

    __init__.__signature__ = new_sig
    __init__.__qualname__ = f"{owner}.__init__"
    __init__.__doc__ = f"Parameters as the parent class; defaults changed: {defaults}."
    return __init__


class ProblemEstimator(ClusterMixin, BaseEstimator):
    """Base class: ``fit_problem`` dispatches to ``fit`` with the right fields.

    Every ``fit`` and ``fit_problem`` a subclass defines first validates
    ``random_state`` (None, an int, a ``RandomState``, ``Generator`` or
    ``SeedSequence``; anything else is a ``ValueError``), as scikit-learn
    validates parameters at fit time, then the class's
    ``_parameter_constraints`` when it states them.  This holds for the
    deterministic estimators too, which accept ``random_state`` only for a
    uniform interface: ``random_state="abc"`` is a mistake wherever it is
    written.

    A preset (a registry name that only changes defaults) is a subclass
    declared with ``defaults=``; its parameter list is the parent's::

        class LsEQ(TripletLocalSearch, defaults={"init": "equal", "vertex_cover": False}):
            '''Ls-EQ.'''
    """

    #: which :class:`~ccexp.problem.Problem` field the estimator consumes
    supervision: str = ""

    #: True when ``labels_`` depends neither on ``random_state`` nor on the order of the items: the
    #: procedure makes no random choice.  tests/test_capabilities.py checks it (two seeds, items
    #: permuted); the reproduction page's check refuses a row of any other algorithm judged on fewer
    #: than :data:`ccexp.report.reproduction.MIN_TRIALS` trials (issue 28: randomness is measured).
    deterministic: bool = False

    #: checks of :func:`sklearn.utils.estimator_checks.check_estimator` that
    #: cannot apply, ``{check name: reason}`` (passed as its
    #: ``expected_failed_checks``; see tests/test_sklearn_conventions.py)
    _expected_failed_checks: dict = {}

    def __init_subclass__(cls, defaults: dict | None = None, **kwargs):
        super().__init_subclass__(**kwargs)
        if defaults is not None:
            cls.__init__ = _init_with_defaults(cls.__mro__[1].__init__, defaults, cls.__name__)
        # Wrapped here, once for every family, so no estimator can forget the check (unless it makes it itself:
        # validates_params_first).
        for name in ("fit", "fit_problem"):
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_validates_params", False):
                setattr(cls, name, _validates_params(method))

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


class FeatureEstimator(ProblemEstimator):
    """Base of the estimators that cluster the rows of a feature matrix ``X``.

    ``fit(X, y=None, *, <supervision>=None)`` as scikit-learn's clusterers
    (``y`` is ignored); subclasses validate ``X`` with :meth:`_validate_X`,
    which records ``n_features_in_`` as scikit-learn does.
    """

    def _validate_X(self, X):
        """``X`` as a finite float64 array (n_samples >= 2, n_features >= 1), via :func:`validate_data`."""
        return validate_data(self, X, dtype="float64", ensure_min_samples=2)
