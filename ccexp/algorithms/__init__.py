"""Algorithms, one subpackage per family, behind one registry."""

from ..registry import ALGORITHMS
from . import triplets  # noqa: F401  (registers)


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
