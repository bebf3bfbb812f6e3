"""Algorithms, one subpackage per family, behind one registry.

Each family subpackage (``triplets/``, ...) registers its estimators on
import (``@ALGORITHMS.register("name")``); this package imports them all.
"""

from .._plugins import import_submodules
from .._validation import check_parameters
from ..registry import ALGORITHMS

import_submodules(__name__, __path__, skip=("base",))


def make_algorithm(name: str, **params):
    """Build the estimator registered as ``name`` with ``params``.

    Raises
    ------
    ValueError
        For an unknown ``name``, listing the registered ones.
    ccexp._validation.UnknownParameterError
        (a ``TypeError`` and a ``ValueError``) for a keyword the estimator
        does not take, listing those it does.

    Examples
    --------
    >>> make_algorithm("ls_ad_vc", random_state=0)
    LsADVC(random_state=0)
    """
    cls = ALGORITHMS.get(name)
    check_parameters(cls, params, f"algorithm {name!r}")
    return cls(**params)


def list_algorithms() -> list[str]:
    """Registered algorithm names."""
    return ALGORITHMS.names()


__all__ = ["list_algorithms", "make_algorithm"]
