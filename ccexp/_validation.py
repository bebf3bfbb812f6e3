"""Input checks shared by the public API.

Every public entry point validates its input once, here, and raises a
``ValueError`` that names the argument and the bad value; the numba kernels
behind it trust their input.
"""

from __future__ import annotations

import numbers

import numpy as np


def as_index_array(value, name: str, n_items: int, width: int) -> np.ndarray:
    """Return ``value`` as a C-contiguous ``int64`` array of shape ``(m, width)``.

    Parameters
    ----------
    value : array-like
        Rows of item indices (triplets, pairs, ...).
    name : str
        The argument's name, used in error messages.
    n_items : int
        Items are ``0 .. n_items - 1``.
    width : int
        Number of columns (3 for triplets, 2 for pairs).

    Raises
    ------
    ValueError
        If the array is not integer-valued, has the wrong shape, holds an
        index outside ``[0, n_items)`` or repeats an item within a row.
    """
    arr = np.asarray(value)
    if arr.size == 0:
        return np.empty((0, width), dtype=np.int64)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(
            f"{name} must be an integer array of item indices, got dtype {arr.dtype}"
        )
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ValueError(f"{name} must have shape (m, {width}), got {arr.shape}")
    lo, hi = int(arr.min()), int(arr.max())
    if lo < 0 or hi >= n_items:
        bad = lo if lo < 0 else hi
        row = int(np.argwhere((arr < 0) | (arr >= n_items))[0, 0])
        raise ValueError(
            f"{name} holds item index {bad} (row {row}: {arr[row].tolist()}), "
            f"outside [0, {n_items}) for n_items={n_items}"
        )
    same = np.zeros(len(arr), dtype=bool)
    for i in range(width):
        for j in range(i + 1, width):
            same |= arr[:, i] == arr[:, j]
    if same.any():
        row = int(np.flatnonzero(same)[0])
        raise ValueError(
            f"{name} repeats an item within row {row}: {arr[row].tolist()}; "
            "the items of one row must be distinct"
        )
    return np.ascontiguousarray(arr, dtype=np.int64)


def check_fraction(value, name: str) -> float:
    """A fraction in (0, 1]."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ValueError(f"{name} must be a number in (0, 1], got {value!r}")
    value = float(value)
    if not (0.0 < value <= 1.0):
        raise ValueError(f"{name} must be in (0, 1], got {value!r}")
    return value


def check_probability(value, name: str) -> float:
    """A probability in [0, 1]."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    value = float(value)
    if not (0.0 <= value <= 1.0):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return value


def check_positive_int(value, name: str, minimum: int = 1) -> int:
    """An integer at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_labels(labels, name: str = "labels", n_items: int | None = None) -> np.ndarray:
    """A 1-d integer label vector (any integer values)."""
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer)):
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise ValueError(f"{name} must hold integer cluster labels, got dtype {arr.dtype}")
    if n_items is not None and arr.shape[0] != n_items:
        raise ValueError(f"{name} has {arr.shape[0]} entries, expected {n_items}")
    return arr.astype(np.int64, copy=False)


def check_features(X, name: str = "X") -> np.ndarray:
    """A finite 2-d float feature matrix."""
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional (n_items, n_features), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(
            f"{name} holds a non-finite value ({arr[tuple(bad)]}) at row {bad[0]}, column {bad[1]}"
        )
    return arr


def unknown_name_error(kind: str, name: str, valid) -> ValueError:
    """The error for an unknown registry name, listing the valid ones."""
    valid = sorted(valid)
    return ValueError(f"unknown {kind} {name!r}; valid {kind}s are: {', '.join(valid)}")
