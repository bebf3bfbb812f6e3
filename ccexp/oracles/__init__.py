"""Oracles: the noise models that turn a dataset into a :class:`Problem`.

An oracle sees the ground truth in order to simulate supervision; the
problem it returns never carries it.  Every module of this package registers
its oracles on import (``@ORACLES.register("name")``).
"""

from .._plugins import import_submodules
from .._validation import check_parameters, check_random_state
from ..registry import ORACLES
from .triplets import generate_triplets

import_submodules(__name__, __path__)


def make_problem(oracle: str, dataset, random_state=None, **params):
    """Simulate the supervision ``oracle`` on ``dataset``.

    Raises
    ------
    ValueError
        For an unknown ``oracle`` (listing the registered ones) or a
        ``random_state`` that :func:`ccexp._validation.check_random_state` refuses.
    ccexp._validation.UnknownParameterError
        (a ``TypeError`` and a ``ValueError``) for a keyword the oracle does
        not take, listing those it does.

    Examples
    --------
    >>> from ccexp import load_dataset
    >>> prob = make_problem("triplets", load_dataset("synthetic_labels", n=20, k=2, random_state=0),
    ...                     fraction=0.5, noise=0.1, random_state=0)
    >>> prob.triplets.shape
    (570, 3)
    """
    factory = ORACLES.get(oracle)
    check_parameters(factory, params, f"oracle {oracle!r}", skip=("dataset",))
    check_random_state(random_state)  # also for the oracles that draw nothing
    return factory(dataset, random_state=random_state, **params)


def list_oracles() -> list[str]:
    """Registered oracle names."""
    return ORACLES.names()


__all__ = ["generate_triplets", "list_oracles", "make_problem"]
