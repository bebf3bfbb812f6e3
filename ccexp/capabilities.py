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
dataset: the estimator's own ``problem.require("X", ...)`` refuses a problem
without.  An oracle also declares ``needs``, the dataset attributes it
cannot do without (labels, features, categorical attributes, recorded
triplets); before a sweep the runner loads each dataset of the grid once and
refuses, in one line, a dataset an oracle cannot feed on
(:func:`dataset_fit_error`), instead of a case aborting the sweep.
"""

from __future__ import annotations

from .kinds import KINDS, can_read, check_declaration, problem_kind
from .registry import ALGORITHMS, ORACLES


def algorithm_reads(name: str) -> tuple[str, ...]:
    """The supervision kinds the algorithm registered as ``name`` reads (its declared ``reads``)."""
    cls = ALGORITHMS.get(name)
    check_declaration(cls, name)
    return tuple(cls.reads)


def needs_features(name: str) -> bool:
    """Whether the algorithm registered as ``name`` needs the items' features."""
    cls = ALGORITHMS.get(name)
    check_declaration(cls, name)
    return bool(cls.needs_features)


def oracle_produces(name: str) -> str:
    """The supervision kind of the problems the oracle registered as ``name`` builds."""
    factory = ORACLES.get(name)
    check_declaration(factory, name, "oracle")
    return factory.produces


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


#: what each dataset attribute an oracle may need is, in words
DATASET_PARTS = {"y": "ground-truth labels", "X": "features", "categorical": "categorical attributes",
                 "triplets": "recorded triplets"}


def dataset_fit_error(dataset, oracle: str) -> str | None:
    """Why the oracle registered as ``oracle`` cannot build a problem from ``dataset``, in one line; None if it can.

    From the oracle's declared ``needs`` (the dataset attributes it cannot
    do without, :meth:`ccexp.registry.Registry.register`); an oracle that
    declares none is not checked (its own error then comes when it runs).

    Examples
    --------
    >>> from ccexp.data.dataset import Dataset
    >>> import numpy as np
    >>> dataset_fit_error(Dataset("votes", y=np.array([0, 1, 1]), categorical=np.zeros((3, 2), int)),
    ...                   "clusterings_linkage")
    "oracle 'clusterings_linkage' needs the dataset's features; dataset 'votes' has none"
    """
    needs = getattr(ORACLES.get(oracle), "needs", ()) or ()
    missing = [DATASET_PARTS.get(a, a) for a in needs if getattr(dataset, a, None) is None]
    if not missing:
        return None
    return f"oracle {oracle!r} needs the dataset's {' and '.join(missing)}; dataset {dataset.name!r} has none"


__all__ = ["DATASET_PARTS", "KINDS", "algorithm_reads", "can_read", "check_declaration", "dataset_fit_error",
           "describe_reads", "needs_features", "oracle_produces", "pairing_error", "problem_kind"]
