"""The supervision kinds and the declarations that name them (see :mod:`ccexp.capabilities`).

This module holds only what the registry needs to check a plugin's
declaration while it loads it, so it sits in the base layer, below the
registry; :mod:`ccexp.capabilities` looks registered names up and pairs
algorithms with oracles.
"""

from __future__ import annotations

#: The supervision kinds, with where each comes from.
KINDS: dict[str, str] = {
    "triplets": "relative distance comparisons (a, b, c), c the outlier (Ukkonen 2017)",
    "relative": "relative constraints ab|c: a closer to b than to c (Liu, Zhang and Wang 2011)",
    "pairwise": "must-link / cannot-link pairs, however chosen (Zhu, Loy and Gong 2013)",
    "similarity": "a similarity oracle the algorithm queries itself, pair by pair (Aronsson and Chehreghani 2024)",
    "clusterings": "input clusterings to aggregate (Gionis, Mannila and Tsaparas 2007)",
    "none": "no supervision: the features only (an unsupervised baseline)",
}

#: :attr:`ccexp.problem.Problem.kind` (the field a problem carries) in the vocabulary of :data:`KINDS`.
_PROBLEM_KIND = {"oracle": "similarity", "features": "none"}


def check_declaration(obj, name: str, registry: str = "algorithm") -> None:
    """Refuse a missing or malformed capability declaration, naming ``registry`` ``name`` and the attribute.

    Raises
    ------
    ValueError
        For an algorithm whose ``reads`` is not a non-empty tuple of kinds of
        :data:`KINDS` or whose ``needs_features`` is not a bool; for an oracle
        whose ``produces`` is not one kind of :data:`KINDS`.

    Examples
    --------
    >>> class Mine:
    ...     reads = ("triplet",)
    ...     needs_features = False
    >>> check_declaration(Mine, "mine")
    Traceback (most recent call last):
    ...
    ValueError: algorithm 'mine' declares reads=('triplet',): unknown kind 'triplet'; the kinds are triplets, relative, pairwise, similarity, clusterings, none
    """
    known = ", ".join(KINDS)
    if registry == "oracle":
        kind = getattr(obj, "produces", None)
        if kind is None:
            raise ValueError(f"oracle {name!r} declares no produces (the kind of supervision it gives; one of {known}): "
                             f"register it with produces=KIND or set {getattr(obj, '__name__', name)}.produces")
        if not isinstance(kind, str) or kind not in KINDS:
            raise ValueError(f"oracle {name!r} declares produces={kind!r}; it must be one of {known}")
        return
    reads = getattr(obj, "reads", None)
    if reads is None:
        raise ValueError(f"algorithm {name!r} declares no reads (a tuple of the supervision kinds it reads: {known})")
    if not isinstance(reads, tuple) or not reads or not all(isinstance(k, str) for k in reads):
        raise ValueError(f"algorithm {name!r} declares reads={reads!r}; it must be a non-empty tuple of kinds ({known})")
    for k in reads:
        if k not in KINDS:
            raise ValueError(f"algorithm {name!r} declares reads={reads!r}: unknown kind {k!r}; the kinds are {known}")
    needs = getattr(obj, "needs_features", None)
    if not isinstance(needs, bool):
        raise ValueError(f"algorithm {name!r} declares needs_features={needs!r}; it must be True or False")


def problem_kind(problem) -> str:
    """The supervision kind ``problem`` carries, in the vocabulary of :data:`KINDS`.

    Examples
    --------
    >>> import numpy as np
    >>> from ccexp.problem import Problem
    >>> problem_kind(Problem(n_items=3, X=np.zeros((3, 1))))
    'none'
    """
    return _PROBLEM_KIND.get(problem.kind, problem.kind)


def can_read(reads: tuple[str, ...], kind: str) -> bool:
    """Whether an algorithm reading ``reads`` runs on supervision of ``kind`` ("none" readers run on any)."""
    return kind in reads or "none" in reads


__all__ = ["KINDS", "can_read", "check_declaration", "problem_kind"]
