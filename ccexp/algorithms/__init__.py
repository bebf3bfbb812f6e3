"""Algorithms, one subpackage per family, behind one registry.

Each family subpackage (``triplets/``, ...) registers its estimators on
import (``@ALGORITHMS.register("name")``); this package imports them all.
"""

from .._plugins import import_submodules
from ..registry import ALGORITHMS

import_submodules(__name__, __path__, skip=("base",))


def make_algorithm(name: str, **params):
    """Build the estimator registered as ``name`` with ``params``.

    Examples
    --------
    >>> make_algorithm("ls_ad_vc", random_state=0)
    LsADVC(random_state=0)
    """
    return ALGORITHMS.get(name)(**params)


def list_algorithms() -> list[str]:
    """Registered algorithm names."""
    return ALGORITHMS.names()


__all__ = ["list_algorithms", "make_algorithm"]
