"""Datasets: synthetic generators and file loaders, behind one registry."""

from ..registry import DATASETS
from . import synthetic  # noqa: F401  (registers)
from .dataset import Dataset


def load_dataset(name: str, random_state=None, **params) -> Dataset:
    """Load or generate the dataset registered as ``name``.

    Examples
    --------
    >>> load_dataset("synthetic_labels", n=6, k=2, shuffle=False).y
    array([0, 0, 0, 1, 1, 1])
    """
    return DATASETS.get(name)(random_state=random_state, **params)


def list_datasets() -> list[str]:
    """Registered dataset names."""
    return DATASETS.names()


__all__ = ["Dataset", "list_datasets", "load_dataset"]
