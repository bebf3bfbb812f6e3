"""What each algorithm reads and each oracle gives: the supervision kinds, declared.

Every registered algorithm declares, as class attributes,

``reads``
    a tuple of the supervision kinds (:data:`KINDS`) its ``fit_problem``
    can read, e.g. ``reads = ("triplets",)``;
``needs_features``
    ``True`` when it cannot run without the items' features ``problem.X``.

and every registered oracle declares, as an attribute of its factory,

``produces``
    the one kind of supervision the :class:`~ccexp.problem.Problem` it
    builds carries (``@ORACLES.register("pairwise", produces="pairwise")``
    sets it); ``"none"`` for an oracle that hands over the features only.

A kind says what an algorithm reads, not how the questions were chosen:
pairs an active strategy picked and then handed over as must-link /
cannot-link constraints are ``pairwise``, while ``similarity`` is an oracle
the algorithm itself queries while it runs.

The runner pairs an experiment's oracles and algorithms from these
declarations (:func:`pairing_error`): an algorithm runs under an oracle
whose kind it reads.  An algorithm that reads ``"none"`` ignores the
supervision (an unsupervised baseline on the features), so it runs under
every kind, as the floor the supervised readers are measured against;
only such an algorithm runs under an oracle that gives ``"none"``.  In an
experiment whose grids each list their algorithms, one that no grid lists
(a plugin's) joins the grids of the kinds it reads
(:func:`ccexp.runner.config.place_by_declaration`).  ``needs_features`` is
printed by ``python -m ccexp.list algorithms`` and checked by
``tests/test_capabilities.py``; the runner does not check it against the
dataset (the configs do not say which datasets have features): the
estimator's own ``problem.require("X", ...)`` refuses a problem without.
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


def algorithm_reads(name: str) -> tuple[str, ...]:
    """The supervision kinds the algorithm registered as ``name`` reads (its declared ``reads``)."""
    from .registry import ALGORITHMS

    cls = ALGORITHMS.get(name)
    check_declaration(cls, name)
    return tuple(cls.reads)


def needs_features(name: str) -> bool:
    """Whether the algorithm registered as ``name`` needs the items' features."""
    from .registry import ALGORITHMS

    cls = ALGORITHMS.get(name)
    check_declaration(cls, name)
    return bool(cls.needs_features)


def oracle_produces(name: str) -> str:
    """The supervision kind of the problems the oracle registered as ``name`` builds."""
    from .registry import ORACLES

    factory = ORACLES.get(name)
    check_declaration(factory, name, "oracle")
    return factory.produces


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


def describe_reads(name: str) -> str:
    """``"reads pairwise, needs features"``: an algorithm's declaration in words."""
    reads = algorithm_reads(name)
    what = "no supervision (features only)" if reads == ("none",) else (
        reads[0] if len(reads) == 1 else f"{', '.join(reads[:-1])} or {reads[-1]}")
    return f"reads {what}, {'needs' if needs_features(name) else 'does not need'} features"


def pairing_error(algorithm: str, oracle: str) -> str | None:
    """Why ``algorithm`` cannot run on the problems of ``oracle``, in one line, or None when it can.

    Examples
    --------
    >>> pairing_error("ls_ad_vc", "triplets") is None
    True
    >>> pairing_error("cop_kmeans", "triplets")
    "algorithm 'cop_kmeans' reads pairwise, needs features; oracle 'triplets' gives triplets"
    """
    reads = algorithm_reads(algorithm)
    kind = oracle_produces(oracle)
    if can_read(reads, kind):
        return None
    return f"algorithm {algorithm!r} {describe_reads(algorithm)}; oracle {oracle!r} gives {kind}"


__all__ = ["KINDS", "algorithm_reads", "can_read", "check_declaration", "describe_reads", "needs_features",
           "oracle_produces", "pairing_error", "problem_kind"]
