"""Input checks shared by the public API: what scikit-learn does not do.

Every public entry point validates its input once and raises a
``ValueError`` that names the argument and the bad value; the numba kernels
behind it trust their input.  Estimators validate their parameters with
scikit-learn (``_parameter_constraints``, see :mod:`ccexp.algorithms.base`)
and a feature matrix with :func:`sklearn.utils.validation.validate_data`.
What stays here has no scikit-learn counterpart, or one that breaks a rule
of this package:

- :func:`as_index_array`: rows of item indices (triplets, pairs), with the
  offending row named;
- :func:`check_labels`: labels of any hashable type, compared, never cast;
- :func:`check_random_state`: a numpy ``Generator`` (scikit-learn's gives a
  legacy ``RandomState``, another stream: the committed results would move);
- :func:`check_positive_int`, :func:`check_fraction`,
  :func:`check_probability`: for functions outside an estimator (data
  loaders, oracles, kernels' drivers); :func:`sklearn.utils.check_scalar`
  raises ``TypeError`` for a wrong type where this package promises a
  ``ValueError``, and accepts ``True`` as an integer;
- :func:`check_features`: for functions outside an estimator; it names the
  first non-finite cell (row and column);
- :func:`check_parameters` / :func:`unknown_name_error`: the registries'
  messages, listing the valid names.
"""

from __future__ import annotations

import inspect
import numbers

import numpy as np


def as_index_array(value, name: str, n_items: int, width: int) -> np.ndarray:
    """Return a copy of ``value`` as a C-contiguous ``int64`` array of shape ``(m, width)``.

    Parameters
    ----------
    value : array-like
        Rows of item indices (triplets, pairs, ...).  An empty list (shape
        ``(0,)``) means no rows; any other shape must be exactly
        ``(m, width)``, ``m = 0`` included.
    name : str
        The argument's name, used in error messages.
    n_items : int
        Items are ``0 .. n_items - 1``.
    width : int
        Number of columns (3 for triplets, 2 for pairs).

    Returns
    -------
    int64 array of shape (m, width)
        Always a new array: the caller's is neither aliased nor modified.

    Raises
    ------
    ValueError
        If the array is not integer-valued, has the wrong shape, holds an
        index outside ``[0, n_items)`` or repeats an item within a row.  The
        message names the first offending row and a bad value of that row.
    """
    arr = np.asarray(value)
    if arr.shape == (0,):  # ``[]``: no rows (its dtype is float64, its width unknown)
        return np.empty((0, width), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ValueError(f"{name} must have shape (m, {width}), got {arr.shape}")
    if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(
            f"{name} must be an integer array of item indices, got dtype {arr.dtype}"
        )
    arr = np.array(arr, dtype=np.int64, order="C", copy=True)
    if arr.size == 0:
        return arr
    outside = (arr < 0) | (arr >= n_items)
    if outside.any():
        row, col = (int(i) for i in np.argwhere(outside)[0])
        raise ValueError(
            f"{name} holds item index {arr[row, col]} (row {row}: {arr[row].tolist()}), "
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
    return arr


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


def check_labels(labels, name: str = "labels", n_items: int | None = None, allow_empty: bool = False) -> np.ndarray:
    """Encode a 1-d label vector of any hashable type as ``int64`` codes.

    Labels are only compared for equality, never cast: ``[0.1, 0.2, 0.3]``
    are three classes, not one (``int(0.1) == int(0.2)``).  The codes come
    from :func:`numpy.unique` (``return_inverse``), so they are ``0 .. k-1``
    in the sorted order of the distinct labels, and two items share a code
    exactly when they share a label.

    Parameters
    ----------
    labels : array-like of shape (n,)
        Integers, floats, strings, or any hashable objects of one orderable type.
    name : str
        The argument's name, used in error messages.
    n_items : int, optional
        The required length.
    allow_empty : bool
        Whether zero labels are accepted.

    Returns
    -------
    int64 array of shape (n,)

    Raises
    ------
    ValueError
        Naming ``name``: not 1-d, empty (unless allowed), the wrong length,
        a missing label (NaN or None), or labels that cannot be ordered.

    Examples
    --------
    >>> check_labels([0.1, 0.2, 0.3, 0.1]).tolist()
    [0, 1, 2, 0]
    >>> check_labels(["b", "a", "b"]).tolist()
    [1, 0, 1]
    """
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if n_items is not None and arr.shape[0] != n_items:
        raise ValueError(f"{name} has {arr.shape[0]} entries, expected {n_items}")
    if arr.size == 0:
        if not allow_empty:
            raise ValueError(f"{name} is empty; a clustering needs at least one item")
        return np.empty(0, dtype=np.int64)
    if np.issubdtype(arr.dtype, np.integer):
        # integer ids are already exact; the codes keep their order
        return np.unique(arr, return_inverse=True)[1].astype(np.int64, copy=False).reshape(-1)
    _check_no_missing(arr, name)
    try:
        codes = np.unique(arr, return_inverse=True)[1]
    except TypeError as err:  # e.g. a mix of strings and numbers in an object array
        raise ValueError(f"{name} holds labels of types that cannot be compared: {err}") from None
    return codes.astype(np.int64, copy=False).reshape(-1)


def _check_no_missing(arr: np.ndarray, name: str) -> None:
    if np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.complexfloating):
        missing = np.flatnonzero(np.isnan(arr))
    elif arr.dtype == object:
        missing = np.flatnonzero([v is None or (isinstance(v, float) and v != v) for v in arr])
    else:
        return
    if missing.size:
        i = int(missing[0])
        raise ValueError(f"{name} holds a missing label ({arr[i]}) at index {i}; every item needs a label")


def check_features(X, name: str = "X", copy: bool = False) -> np.ndarray:
    """A finite 2-d float feature matrix (a new array when ``copy``)."""
    arr = np.array(X, dtype=np.float64, copy=True) if copy else np.asarray(X, dtype=np.float64)
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


def check_random_state(seed, name: str = "random_state") -> np.random.Generator:
    """A :class:`numpy.random.Generator` from ``seed``, validated as scikit-learn does.

    Accepts what :func:`sklearn.utils.check_random_state` accepts (None, an
    integer, a ``RandomState`` instance, the ``numpy.random`` module), plus
    numpy's ``Generator``, ``BitGenerator`` and ``SeedSequence``, which the
    runner passes.  Anything else raises ``ValueError`` naming the argument,
    with scikit-learn's wording.  The stream is :func:`numpy.random.default_rng`'s,
    so a seed draws exactly what it drew before this check existed.

    Returns
    -------
    numpy.random.Generator
        ``seed`` itself when it is a Generator (its state is shared).

    Examples
    --------
    >>> int(check_random_state(0).integers(10)) == int(np.random.default_rng(0).integers(10))
    True
    >>> check_random_state("abc")
    Traceback (most recent call last):
    ValueError: random_state='abc' cannot be used to seed a numpy.random.Generator; give None, a non-negative int, a numpy RandomState, Generator or SeedSequence
    """
    if seed is np.random:
        seed = np.random.mtrand._rand
    if isinstance(seed, np.random.Generator):
        return seed
    valid = (
        seed is None
        or (isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and int(seed) >= 0)
        or isinstance(seed, (np.random.RandomState, np.random.SeedSequence, np.random.BitGenerator))
    )
    if not valid:
        raise ValueError(
            f"{name}={seed!r} cannot be used to seed a numpy.random.Generator; "
            "give None, a non-negative int, a numpy RandomState, Generator or SeedSequence"
        )
    return np.random.default_rng(seed)


class UnknownParameterError(TypeError, ValueError):
    """An unknown keyword argument; the message lists the valid ones.

    A ``TypeError`` (what Python raises for an unexpected keyword, so
    existing ``except TypeError`` keeps working) and a ``ValueError`` (this
    package's error for bad input).
    """


def check_parameters(factory, params: dict, what: str, skip: tuple = ()) -> None:
    """Refuse keyword arguments that ``factory`` does not take, listing those it does.

    Parameters
    ----------
    factory : callable
        A class (its ``__init__``) or a function, inspected with :func:`inspect.signature`.
    params : dict
        The keyword arguments about to be passed.
    what : str
        What is being built, for the message (``"algorithm 'ls_ad'"``).
    skip : tuple of str
        Parameters filled positionally by the caller (e.g. an oracle's ``dataset``).

    Raises
    ------
    UnknownParameterError
        Naming the unknown keywords and listing the valid ones.
    """
    sig = inspect.signature(factory)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values()):
        return  # cannot know; Python's own TypeError applies
    valid = sorted(
        n for n, p in sig.parameters.items()
        if n not in skip and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    )
    unknown = sorted(set(params) - set(valid))
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        raise UnknownParameterError(
            f"unknown parameter{plural} {', '.join(map(repr, unknown))} for {what}; "
            f"valid parameters are: {', '.join(valid)}"
        )
