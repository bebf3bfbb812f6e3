"""The synthetic triplet oracle of Ukkonen (2017), Section V-A.

All C(n, 3) candidate 3-sets of the items, a random fraction ``a`` of them
kept, each turned into a triplet (a, b, c) with c the outlier as the ground
truth says, then a fraction ``b`` made noisy by swapping the outlier with
one of the two other items, chosen at random.
"""

from __future__ import annotations

from math import comb

import numpy as np

from .._validation import check_fraction, check_labels, check_probability, check_random_state, unknown_name_error
from ..problem import Problem
from ..registry import ORACLES
from . import _triplet_kernels as K

AMBIGUOUS_RULES = {
    "rotate": K.AMBIGUOUS_ROTATE,
    "last": K.AMBIGUOUS_LAST,
    "random": K.AMBIGUOUS_RANDOM,
    "drop": K.AMBIGUOUS_DROP,
}


def generate_triplets(
    y,
    fraction: float = 1.0,
    noise: float = 0.0,
    ambiguous: str = "rotate",
    order: str = "shuffled",
    random_state=None,
) -> tuple[np.ndarray, dict]:
    """Draw the triplets of Ukkonen (2017), Section V-A, from labels ``y``.

    Parameters
    ----------
    y : int array of shape (n,)
        Ground-truth labels.
    fraction : float in (0, 1]
        The paper's ``a``: the fraction of all C(n, 3) 3-sets kept
        (``round(a * C(n, 3))`` of them, at least one, drawn without
        replacement).
    noise : float in [0, 1]
        The paper's ``b``: the fraction of the kept triplets whose outlier is
        swapped with one of the other two items (chosen at random).
    ambiguous : {"rotate", "last", "random", "drop"}
        The outlier of a 3-set that is all in one cluster or all in different
        clusters, where the labels single none out.  ``"rotate"`` (default)
        takes the item at sorted position ``(i + j + l) mod 3``: a fixed rule
        (so ``a = 1, b = 0`` yields a fixed set of triplets, as the paper
        says of its generator) that is not tied to item order the way
        ``"last"`` (the largest index) is.  ``"random"`` draws the position;
        ``"drop"`` emits no triplet for such 3-sets.
    order : {"shuffled", "sorted"}
        Row order of the output.  ``"shuffled"`` (default): random order, as
        a random subset comes out of a sampler.  ``"sorted"``: by 3-set.  The
        order matters: the vertex-cover clean-up of Ls-*-VC keeps triplets
        greedily in input order.  ``experiments/ukkonen2017/README.md``
        measures both choices against the paper's Table I.
    random_state : int, SeedSequence or Generator, optional

    Returns
    -------
    triplets : int64 array of shape (m, 3)
        Rows ``(a, b, c)`` with ``c`` the outlier.
    info : dict
        ``n_candidates``, ``n_triplets``, ``n_noisy``, ``n_ambiguous_dropped``.

    Notes
    -----
    O(C(n, 3)) time and O(m) memory: the kernel walks the 3-sets in
    lexicographic order against the sorted ranks of the kept ones; no Python
    list of tuples is built.
    """
    y = check_labels(y, "y", allow_empty=True)  # encoded, never cast: 0.1 and 0.2 stay two classes
    if y.shape[0] < 3:
        raise ValueError(f"y must be a 1-d label array with at least 3 items, got shape {y.shape}")
    fraction = check_fraction(fraction, "fraction")
    noise = check_probability(noise, "noise")
    if ambiguous not in AMBIGUOUS_RULES:
        raise unknown_name_error("ambiguous rule", ambiguous, AMBIGUOUS_RULES)
    if order not in ("shuffled", "sorted"):
        raise unknown_name_error("order", order, ("shuffled", "sorted"))
    rng = check_random_state(random_state)
    n = y.shape[0]
    n_candidates = comb(n, 3)
    if fraction >= 1.0:
        ranks = np.arange(n_candidates, dtype=np.int64)
    else:
        m = max(1, int(round(fraction * n_candidates)))
        ranks = np.sort(rng.choice(n_candidates, size=m, replace=False)).astype(np.int64)
    m = ranks.shape[0]
    rule = AMBIGUOUS_RULES[ambiguous]
    random_pos = (
        rng.integers(0, 3, size=m, dtype=np.int64) if rule == K.AMBIGUOUS_RANDOM else np.zeros(1, dtype=np.int64)
    )
    out = np.empty((m, 3), dtype=np.int64)
    written = K.fill_triplets(n, y, ranks, rule, random_pos, out)
    triplets = out[:written] if written < m else out
    n_noisy = int(round(noise * written))
    if n_noisy:
        rows = rng.choice(written, size=n_noisy, replace=False).astype(np.int64)
        sides = rng.integers(0, 2, size=n_noisy, dtype=np.int64)
        K.swap_outliers(triplets, rows, sides)
    if order == "shuffled":
        triplets = triplets[rng.permutation(written)]
    info = {
        "n_candidates": n_candidates,
        "n_triplets": int(written),
        "n_noisy": n_noisy,
        "n_ambiguous_dropped": int(m - written),
    }
    return triplets, info


@ORACLES.register("triplets", produces="triplets", needs=("y",))
def triplets_oracle(
    dataset, fraction=1.0, noise=0.0, ambiguous="rotate", order="shuffled", random_state=None
) -> Problem:
    """Build a triplet :class:`~ccexp.problem.Problem` from a dataset's labels."""
    if dataset.y is None:
        raise ValueError(f"the triplets oracle needs ground-truth labels; dataset {dataset.name!r} has none")
    triplets, info = generate_triplets(dataset.y, fraction, noise, ambiguous, order, random_state)
    return Problem(n_items=dataset.n_items, triplets=triplets, meta=info)


def triplets_memory(n_items: int, fraction=1.0, **_) -> int:
    """Bytes :func:`generate_triplets` allocates for ``n_items`` items: an estimate made before it runs.

    Per kept triplet: its rank, its row and the shuffled copy of the row,
    and its place in the permutation (8 + 24 + 24 + 8 bytes); below a
    fraction of 1, the sampler may also hold every candidate's rank (8
    bytes each).  ``dataset.n=5000`` with all triplets: 2.1e10 triplets,
    1.2 TiB, refused before the sweep (issue 33, item 14) where numpy used
    to abort the sweep asking for 155 GiB.

    >>> triplets_memory(160, 0.1) // 2**20  # exp1's n = 160 at a = 0.1: 9 MiB
    9
    """
    n_candidates = comb(int(n_items), 3)
    try:
        fraction = float(fraction)
    except (TypeError, ValueError):
        return 0  # the oracle refuses it itself
    m = max(1, int(round(min(fraction, 1.0) * n_candidates)))
    return 64 * m + (8 * n_candidates if fraction < 1.0 else 0)


triplets_oracle.memory_bytes = triplets_memory


@ORACLES.register("recorded", produces="triplets", needs=("triplets",))
def recorded_oracle(dataset, random_state=None) -> Problem:
    """Pass a dataset's recorded triplets (e.g. crowdsourced ones) through."""
    if dataset.triplets is None:
        raise ValueError(f"dataset {dataset.name!r} has no recorded triplets")
    return Problem(n_items=dataset.n_items, triplets=dataset.triplets, meta={"n_triplets": len(dataset.triplets)})
