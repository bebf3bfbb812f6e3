"""The pairwise-constraint oracle of Zhu, Loy and Gong (2013), perfect or imperfect.

``n_constraints`` distinct unordered pairs are drawn uniformly at random and
labelled must-link (same ground-truth class) or cannot-link (different
classes); then ``round(invalid_fraction * n_constraints)`` of them, chosen
at random, have their label flipped: the imperfect oracle of Section IV-B
("a fixed ratio (15%) of random invalid constraints that disagree with the
ground truth").  The runner seeds the oracle from the instance alone, so
every algorithm of a case sees the same constraint set.

The problem carries the features, ``must_link``, ``cannot_link`` and
``meta["n_clusters"]`` (the true k, which every method of the paper is given).
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import check_labels, check_probability, check_random_state
from ..problem import Problem
from ..registry import ORACLES


def random_pairs(n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` distinct unordered pairs ``(i, j)``, ``i < j``, uniform over all n(n-1)/2.

    Pairs are drawn by their rank in the upper triangle, without replacement.
    """
    total = n * (n - 1) // 2
    if m > total:
        raise ValueError(f"n_constraints must be at most {total} (all pairs of {n} items), got {m}")
    ranks = rng.choice(total, size=m, replace=False)
    # rank r -> (i, j): row i holds n - 1 - i pairs
    starts = np.cumsum(np.concatenate([[0], np.arange(n - 1, 0, -1)]))
    i = np.searchsorted(starts, ranks, side="right") - 1
    j = ranks - starts[i] + i + 1
    return np.stack([i, j], axis=1).astype(np.int64)


def pairwise_constraints(y, n_constraints: int, invalid_fraction: float = 0.0, random_state=None):
    """Random must-link / cannot-link pairs from labels, a fraction of them flipped.

    Parameters
    ----------
    y : int array (n,)
        Ground-truth labels.
    n_constraints : int
    invalid_fraction : float in [0, 1]
        Share of the constraints whose label is flipped (rounded to a count).
    random_state : int, Generator or None

    Returns
    -------
    must_link, cannot_link : int64 arrays (p, 2), (q, 2)
        p + q = n_constraints, in the order drawn.
    invalid : bool array (n_constraints,)
        Which drawn pairs were flipped, over the rows of
        ``np.concatenate([must_link, cannot_link])``.
    """
    y = check_labels(y, "y")  # encoded, never cast: 0.1 and 0.2 stay two classes
    if isinstance(n_constraints, bool) or not isinstance(n_constraints, numbers.Integral) or n_constraints < 0:
        raise ValueError(f"n_constraints must be an integer >= 0, got {n_constraints!r}")
    invalid_fraction = check_probability(invalid_fraction, "invalid_fraction")
    rng = check_random_state(random_state)
    pairs = random_pairs(y.shape[0], int(n_constraints), rng)
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    flip = np.zeros(len(pairs), dtype=bool)
    flip[rng.choice(len(pairs), size=int(round(invalid_fraction * len(pairs))), replace=False)] = True
    is_ml = same ^ flip
    ml, cl = pairs[is_ml], pairs[~is_ml]
    return ml, cl, np.concatenate([flip[is_ml], flip[~is_ml]])


@ORACLES.register("pairwise", produces="pairwise", needs=("y", "X"))
def pairwise_oracle(dataset, n_constraints=100, invalid_fraction=0.0, random_state=None) -> Problem:
    """Must-link / cannot-link pairs from the ground truth (Zhu et al. 2013, Section IV)."""
    if dataset.y is None:
        raise ValueError(f"the pairwise oracle needs ground-truth labels; dataset {dataset.name!r} has none")
    if dataset.X is None:
        raise ValueError(f"the pairwise oracle hands algorithms the features; dataset {dataset.name!r} has none")
    ml, cl, invalid = pairwise_constraints(dataset.y, n_constraints, invalid_fraction, random_state)
    return Problem(
        n_items=dataset.n_items,
        X=dataset.X,
        must_link=ml,
        cannot_link=cl,
        meta={
            "n_clusters": int(np.unique(dataset.y).size),
            "n_constraints": int(len(ml) + len(cl)),
            "n_must_link": int(len(ml)),
            "n_cannot_link": int(len(cl)),
            "n_invalid": int(invalid.sum()),
            # the dataset's shape, so that a report can set Table I beside the paper's without reloading it
            "n_items": int(dataset.n_items),
            "n_features": int(dataset.X.shape[1]),
        },
    )
