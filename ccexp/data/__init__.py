"""Datasets: synthetic generators and file loaders, behind one registry.

Every module of this package registers its datasets on import
(``@DATASETS.register("name")``); loaders of real files use
:func:`ccexp.data.files.data_file`.
"""

from .._plugins import import_submodules
from .._validation import check_parameters, check_random_state
from ..registry import DATASETS
from .dataset import Dataset
from .files import DataChecksumError, MissingDataError

import_submodules(__name__, __path__, skip=("dataset", "files"))


def load_dataset(name: str, random_state=None, **params) -> Dataset:
    """Load or generate the dataset registered as ``name``.

    Raises
    ------
    ValueError
        For an unknown ``name`` (listing the registered ones) or a
        ``random_state`` that :func:`ccexp._validation.check_random_state` refuses.
    ccexp._validation.UnknownParameterError
        (a ``TypeError`` and a ``ValueError``) for a keyword the loader does
        not take, listing those it does.
    MissingDataError
        (a ``FileNotFoundError``) when a real data file is absent; its
        message is one line naming the file, ``CCEXP_DATA_DIR`` and
        ``python -m ccexp.data fetch``.
    DataChecksumError
        (a ``ValueError``) when a real data file is not the original (its sha256).

    Examples
    --------
    >>> load_dataset("synthetic_labels", n=6, k=2, shuffle=False).y
    array([0, 0, 0, 1, 1, 1])
    """
    factory = DATASETS.get(name)
    check_parameters(factory, params, f"dataset {name!r}", )
    check_random_state(random_state)  # also for the loaders that draw nothing
    return factory(random_state=random_state, **params)


def list_datasets() -> list[str]:
    """Registered dataset names."""
    return DATASETS.names()


__all__ = ["DataChecksumError", "Dataset", "MissingDataError", "list_datasets", "load_dataset"]
