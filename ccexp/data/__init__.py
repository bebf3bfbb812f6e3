"""Datasets: synthetic generators and file loaders, behind one registry.

Every module of this package registers its datasets on import
(``@DATASETS.register("name")``); loaders of real files use
:func:`ccexp.data.files.data_file`.
"""

from .._plugins import import_submodules
from ..registry import DATASETS
from .dataset import Dataset

import_submodules(__name__, __path__, skip=("dataset", "files"))


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
