"""Oracles: the noise models that turn a dataset into a :class:`Problem`.

An oracle sees the ground truth in order to simulate supervision; the
problem it returns never carries it.
"""

from ..registry import ORACLES
from .triplets import generate_triplets, recorded_oracle, triplets_oracle

ORACLES.register("triplets")(triplets_oracle)
ORACLES.register("recorded")(recorded_oracle)


def make_problem(oracle: str, dataset, random_state=None, **params):
    """Simulate the supervision ``oracle`` on ``dataset``.

    Examples
    --------
    >>> from ccexp import load_dataset
    >>> prob = make_problem("triplets", load_dataset("synthetic_labels", n=20, k=2),
    ...                     fraction=0.5, noise=0.1, random_state=0)
    >>> prob.triplets.shape
    (570, 3)
    """
    return ORACLES.get(oracle)(dataset, random_state=random_state, **params)


def list_oracles() -> list[str]:
    """Registered oracle names."""
    return ORACLES.names()


__all__ = ["generate_triplets", "list_oracles", "make_problem"]
