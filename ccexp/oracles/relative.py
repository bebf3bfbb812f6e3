"""Relative-constraint oracles of Liu, Zhang and Wang (2011), Section 5.

A relative constraint ``ab|c`` says that ``(a, b)`` is the closest pair of
the three: ``d(a, b) < d(a, c)`` and ``d(a, b) < d(b, c)``.  Both oracles
read the ground-truth labels to simulate the supervision, and hand the
algorithms the features, the constraints (rows ``(a, b, c)``) and the number
of clusters ``k`` (``problem.meta["n_clusters"]``: the paper gives every
method the true k, Section 5).

- ``relative_random`` (Section 5.1): ``a, b`` from one class, ``c`` from
  another, any number of them from 0 to |D|.
- ``relative_informative`` (Section 5.2): ``GenerateConstraints``, the
  constraints that encode the two-level label hierarchy, and random subsets.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import check_labels, check_probability, check_random_state, unknown_name_error
from ..problem import Problem
from ..registry import ORACLES


def _labels(dataset, oracle: str) -> np.ndarray:
    if dataset.y is None:
        raise ValueError(f"the {oracle} oracle needs ground-truth labels; dataset {dataset.name!r} has none")
    return check_labels(dataset.y, "y")


def _count(n_constraints, fraction, total: int, of: str) -> int:
    """The number of constraints asked for: ``n_constraints``, or ``round(fraction * total)``."""
    if (n_constraints is None) == (fraction is None):
        raise ValueError(
            f"give exactly one of n_constraints and fraction (of {of}), got "
            f"n_constraints={n_constraints!r}, fraction={fraction!r}"
        )
    if n_constraints is not None:
        if isinstance(n_constraints, bool) or not isinstance(n_constraints, numbers.Integral) or n_constraints < 0:
            raise ValueError(f"n_constraints must be an integer >= 0, got {n_constraints!r}")
        return int(n_constraints)
    return int(round(check_probability(fraction, "fraction") * total))


def random_relative_constraints(y, m: int, random_state=None) -> np.ndarray:
    """``m`` distinct constraints ``ab|c``: ``a != b`` of one class, ``c`` of another (Section 5.1).

    ``a`` is drawn uniformly from the items whose class is not the only one,
    ``b`` uniformly from the rest of ``a``'s class and ``c`` uniformly from
    the items of the other classes.  Constraints are distinct up to the
    order of ``a, b`` (``ab|c`` equals ``ba|c``); draws repeat until ``m``
    distinct ones are found.

    Parameters
    ----------
    y : int array (n,)
        Ground-truth labels with at least two classes, one of them with two items.
    m : int
    random_state : int, SeedSequence or Generator, optional

    Returns
    -------
    int64 array (m, 3)
        Rows ``(a, b, c)`` in the order drawn.
    """
    y = check_labels(y, "y")  # encoded, never cast: 0.1 and 0.2 stay two classes
    rng = check_random_state(random_state)
    classes, y_code, counts = np.unique(y, return_inverse=True, return_counts=True)
    if m == 0:
        return np.empty((0, 3), dtype=np.int64)
    if classes.size < 2 or counts.max() < 2:
        raise ValueError("relative constraints need two classes and a class with two items")
    n = y.shape[0]
    order = np.argsort(y_code, kind="stable")  # items grouped by class
    start = np.concatenate([[0], np.cumsum(counts)])
    eligible = np.flatnonzero(counts[y_code] >= 2)
    n_possible = int(np.sum(counts * (counts - 1) // 2 * (n - counts)))
    if m > n_possible:
        raise ValueError(f"asked for {m} distinct constraints, only {n_possible} exist")
    seen: set[tuple[int, int, int]] = set()
    rows = []
    while len(rows) < m:
        size = 2 * (m - len(rows)) + 8
        a = eligible[rng.integers(0, eligible.size, size)]
        ca = y_code[a]
        # b: another item of a's class (skip a's own slot in the class block)
        pos = rng.integers(0, counts[ca] - 1)
        b = order[start[ca] + pos]
        b = np.where(b == a, order[start[ca] + counts[ca] - 1], b)
        # c: an item outside a's class
        pos_c = rng.integers(0, n - counts[ca])
        c = order[np.where(pos_c < start[ca], pos_c, pos_c + counts[ca])]
        for t in range(size):
            key = (min(a[t], b[t]), max(a[t], b[t]), c[t])
            if key not in seen:
                seen.add(key)
                rows.append((a[t], b[t], c[t]))
                if len(rows) == m:
                    break
    return np.array(rows, dtype=np.int64)


def informative_relative_constraints(y, representative: str = "random", random_state=None) -> np.ndarray:
    """``GenerateConstraints`` of Section 5.2: the two-level label hierarchy as constraints.

    For each cluster ``CL_i`` with representative ``d_1^i``, each other item
    ``d_j^i`` of it and each other cluster ``CL_l``: ``(d_1^i d_j^i | d_1^l)``.
    The paper's loop also visits ``j = 1``, which gives ``d_1^i d_1^i | ...``
    with a repeated item; those ``k (k - 1)`` rows are not constraints and are
    left out, so the complete set has ``(k - 1) (|D| - k)`` rows rather than
    the paper's ``(k - 1) |D|``.

    Parameters
    ----------
    y : int array (n,)
    representative : {"random", "first"}
        ``d_1^i``: an item of the cluster drawn at random, or its first item
        in dataset order.  The paper leaves the order of a cluster's items open.
    random_state : int, SeedSequence or Generator, optional

    Returns
    -------
    int64 array (m, 3)
        Grouped by cluster, then by item, then by other cluster.
    """
    if representative not in ("random", "first"):
        raise unknown_name_error("representative", representative, ("random", "first"))
    y = check_labels(y, "y")
    rng = check_random_state(random_state)
    classes = np.unique(y)
    members = [np.flatnonzero(y == c) for c in classes]
    if representative == "random":
        reps = np.array([m[rng.integers(0, m.size)] for m in members], dtype=np.int64)
    else:
        reps = np.array([m[0] for m in members], dtype=np.int64)
    blocks = []
    for i, mem in enumerate(members):
        others = np.delete(reps, i)
        items = mem[mem != reps[i]]
        if items.size == 0 or others.size == 0:
            continue
        a = np.full(items.size * others.size, reps[i], dtype=np.int64)
        b = np.repeat(items, others.size)
        c = np.tile(others, items.size)
        blocks.append(np.stack([a, b, c], axis=1))
    return np.concatenate(blocks) if blocks else np.empty((0, 3), dtype=np.int64)


def _problem(dataset, R: np.ndarray, meta: dict) -> Problem:
    """The problem handed to the algorithms; its meta also states the data's size (the paper's Table 1:
    instances, dimensions, clusters), so the report reads Table 1 from the records."""
    k = int(np.unique(dataset.y).size)
    return Problem(
        n_items=dataset.n_items,
        X=dataset.X,
        relative=R,
        meta={"n_clusters": k, "n_constraints": int(R.shape[0]), "n_items": int(dataset.n_items),
              "n_features": int(np.shape(dataset.X)[1]), **meta},
    )


@ORACLES.register("relative_random", produces="relative", needs=("y",))
def relative_random_oracle(dataset, n_constraints=None, fraction=None, random_state=None) -> Problem:
    """Random relative constraints (Section 5.1): ``n_constraints`` of them, or ``fraction * |D|``."""
    y = _labels(dataset, "relative_random")
    m = _count(n_constraints, fraction, y.shape[0], "|D|")
    R = random_relative_constraints(y, m, random_state)
    return _problem(dataset, R, {})


@ORACLES.register("relative_informative", produces="relative", needs=("y",))
def relative_informative_oracle(
    dataset, n_constraints=None, fraction=None, representative="random", random_state=None
) -> Problem:
    """Informative constraints (Section 5.2): a random subset of ``GenerateConstraints``' output.

    ``fraction=1`` gives the complete set; ``n_constraints`` or ``fraction``
    (of the complete set) a subset drawn without replacement.  Rows come in
    random order.
    """
    y = _labels(dataset, "relative_informative")
    rng = check_random_state(random_state)
    full = informative_relative_constraints(y, representative, rng)
    m = _count(n_constraints, fraction, full.shape[0], "the complete informative set")
    if m > full.shape[0]:
        raise ValueError(f"n_constraints must be at most {full.shape[0]} (the complete set), got {m}")
    R = full[rng.permutation(full.shape[0])[:m]]
    return _problem(dataset, R, {"n_informative": int(full.shape[0])})
