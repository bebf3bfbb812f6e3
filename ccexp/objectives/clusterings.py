"""The correlation-clustering instance of m input clusterings (Gionis et al. 2007, Section 3).

``X_uv`` is the fraction of the m clusterings that separate ``u`` and ``v``;
a clustering with a missing value (``-1``) on ``u`` or ``v`` counts as a coin
that puts them together with probability ``p`` (Section 2, "Missing
values"), so it adds ``(1 - p) / m`` to the expected ``X_uv``.  The cost of a
clustering C (Problem 2) is

    d(C) = sum_{u<v, C(u)=C(v)} X_uv + sum_{u<v, C(u)!=C(v)} (1 - X_uv),

the disagreement error ED of Tables 2 and 3 (over unordered pairs: with
p = 1/2 the class labels of Votes cost 34,184 and the lower bound
``sum_{u<v} min(X_uv, 1 - X_uv)`` is 28,805, the values of Table 2).
``m * d(C)`` is the number of disagreements D(C) of Problem 1 (5 in the
example of Figure 1).

Nothing here builds the n x n matrix unless asked to (:func:`dense_weights`):
d(C) comes from contingency counts in O(n m), the lower bound from the
distinct label rows.

This module sits with the objectives, below the algorithms: the aggregation
family (which works on :class:`EncodedClusterings`) and the clusterings
oracles (which validate ``p`` with :func:`check_p`) both import it.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
from scipy.spatial.distance import squareform

from .kernels import condensed_x, lower_bound_kernel


@dataclass(frozen=True, eq=False)
class EncodedClusterings:
    """m clusterings of n items, renumbered for the kernels.

    Attributes
    ----------
    codes : int64 array (n, m)
        Item-major: ``codes[u, j]`` in ``0 .. L_j - 1``, ``-1`` if missing.
    off : int64 array (m + 1,)
        Histogram offsets: clustering j owns slots ``off[j] .. off[j+1]-1``,
        the last of them counting missing values (``off[j+1] - off[j] = L_j + 1``).
    q : float
        ``1 - p``, the expected disagreement of a missing value.
    """

    codes: np.ndarray
    off: np.ndarray
    q: float

    @property
    def n_items(self) -> int:
        """n, the number of items (rows of ``codes``)."""
        return int(self.codes.shape[0])

    @property
    def m(self) -> int:
        """m, the number of input clusterings (Gionis, Mannila and Tsaparas 2007, Section 2)."""
        return int(self.codes.shape[1])

    def subset(self, items) -> "EncodedClusterings":
        """The clusterings restricted to ``items`` (codes and offsets kept)."""
        return EncodedClusterings(np.ascontiguousarray(self.codes[items]), self.off, self.q)


def check_p(p) -> float:
    """Validate the missing-value coin ``p`` (probability of 'together')."""
    try:
        val = float(p)
    except (TypeError, ValueError):
        raise ValueError(f"p must be a probability in [0, 1], got {p!r}") from None
    if not 0.0 <= val <= 1.0:
        raise ValueError(f"p must be a probability in [0, 1], got {p!r}")
    return val


def encode(clusterings, p: float = 0.5) -> EncodedClusterings:
    """Validate and renumber m clusterings of n items.

    Parameters
    ----------
    clusterings : int array-like of shape (m, n)
        One clustering per row, any integer ids, ``-1`` for a missing value.
    p : float in [0, 1], default 0.5
        Probability that a clustering with a missing value on a pair puts
        the pair together (the paper's coin).

    Returns
    -------
    EncodedClusterings

    Raises
    ------
    ValueError
        For a wrong shape, non-integer labels, labels below -1, m = 0 or a bad p.
    """
    q = 1.0 - check_p(p)
    C = np.asarray(clusterings)
    if C.ndim != 2:
        raise ValueError(f"clusterings must be a 2-d array of shape (m, n), got shape {C.shape}")
    if C.shape[0] == 0:
        raise ValueError("clusterings must hold at least one clustering (m >= 1), got m = 0")
    if C.size and (C.dtype == bool or not np.issubdtype(C.dtype, np.integer)):
        raise ValueError(f"clusterings must be integer labels, got dtype {C.dtype}")
    if C.size and C.min() < -1:
        raise ValueError(f"clusterings use -1 for a missing value; got label {C.min()}")
    m, n = C.shape
    codes = np.full((n, m), -1, dtype=np.int64)
    widths = np.empty(m, dtype=np.int64)
    for j in range(m):
        row = C[j]
        present = row >= 0
        uniq, inv = np.unique(row[present], return_inverse=True)
        codes[present, j] = inv.reshape(-1)
        widths[j] = uniq.shape[0] + 1  # + the missing slot
    off = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(widths, out=off[1:])
    return EncodedClusterings(np.ascontiguousarray(codes), off, q)


def _as_encoded(clusterings, p) -> EncodedClusterings:
    return clusterings if isinstance(clusterings, EncodedClusterings) else encode(clusterings, p)


def _pair_sums(enc: EncodedClusterings, groups: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """m * (sum of X over the pairs inside each group), as (pairs, m-weighted X sums).

    Per clustering j and group g with n_g members, of which a_g present in j:
    the pairs with a missing value add q each, the present pairs add one
    unless they share a label.  O(n m) with bincounts.
    """
    sizes = np.bincount(groups, minlength=n_groups).astype(np.float64)
    pairs = sizes * (sizes - 1) / 2
    q_part = np.zeros(n_groups)
    int_part = np.zeros(n_groups)
    for j in range(enc.m):
        col = enc.codes[:, j]
        present = col >= 0
        g = groups[present]
        a = np.bincount(g, minlength=n_groups).astype(np.float64)
        width = int(enc.off[j + 1] - enc.off[j])
        same = np.bincount(g * width + col[present], minlength=n_groups * width).astype(np.float64)
        present_pairs = a * (a - 1) / 2
        q_part += pairs - present_pairs
        int_part += present_pairs - (same * (same - 1) / 2).reshape(n_groups, width).sum(axis=1)
    return pairs, enc.q * q_part + int_part


def disagreement(labels, clusterings, p: float = 0.5) -> float:
    """The cost d(C) of Problem 2 (the disagreement error ED of Tables 2 and 3).

    Parameters
    ----------
    labels : int array-like of shape (n,)
        The clustering C.
    clusterings : int array-like of shape (m, n), or EncodedClusterings
        The input clusterings, ``-1`` for missing.
    p : float, default 0.5
        The missing-value coin (ignored for an EncodedClusterings).

    Returns
    -------
    float
        ``sum_{together} X_uv + sum_{apart} (1 - X_uv)`` over unordered pairs;
        ``m`` times it is the number of disagreements of Problem 1.

    Notes
    -----
    O(n m): ``d(C) = 2 S_in - S_all + (pairs apart)`` with ``S_in`` the sum of
    X inside the clusters of C and ``S_all`` over all pairs, both from
    contingency counts.

    Examples
    --------
    The example of Figure 1 (5 disagreements over m = 3 clusterings):

    >>> C = [[0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 2, 3], [0, 1, 0, 1, 2, 2]]
    >>> 3 * disagreement([0, 1, 0, 1, 2, 2], C)
    5.0
    """
    enc = _as_encoded(clusterings, p)
    lab = np.asarray(labels)
    if lab.shape != (enc.n_items,):
        raise ValueError(f"labels must have shape ({enc.n_items},), got {lab.shape}")
    _, groups = np.unique(lab, return_inverse=True)
    groups = groups.reshape(-1).astype(np.int64)
    k = int(groups.max()) + 1 if groups.size else 0
    pairs_in, s_in = _pair_sums(enc, groups, k)
    n = enc.n_items
    _, s_all = _pair_sums(enc, np.zeros(n, dtype=np.int64), 1)
    apart = n * (n - 1) / 2 - pairs_in.sum()
    # one division at the end: the numerator is a sum of multiples of q
    return float((2.0 * s_in.sum() - s_all[0] + enc.m * apart) / enc.m)


def lower_bound(clusterings, p: float = 0.5, max_distinct: int = 40_000) -> float:
    """``sum_{u<v} min(X_uv, 1 - X_uv)``, a lower bound on d(C) for every C (Tables 2, 3).

    Parameters
    ----------
    clusterings : int array-like (m, n) or EncodedClusterings
    p : float, default 0.5
    max_distinct : int, default 40000
        Above this many distinct label rows the O(U^2 m) sum is not
        attempted and NaN is returned.

    Notes
    -----
    Items with identical label rows share every X, so the sum runs over the
    U distinct rows weighted by their multiplicities: O(n m log n + U^2 m),
    which keeps it cheap for 1M points aggregated from 9 k-means runs.
    """
    enc = _as_encoded(clusterings, p)
    rows, counts = np.unique(enc.codes, axis=0, return_counts=True)
    if rows.shape[0] > max_distinct:
        return float("nan")
    return float(lower_bound_kernel(np.ascontiguousarray(rows), counts.astype(np.float64), enc.q))


def dense_weights(clusterings, p: float = 0.5, max_items: int = 5000) -> np.ndarray:
    """The full matrix ``X`` (n x n, zero diagonal), for small n: tests and examples.

    Raises
    ------
    ValueError
        If n exceeds ``max_items`` (the matrix is O(n^2) memory).
    """
    enc = _as_encoded(clusterings, p)
    n = enc.n_items
    if n > max_items:
        raise ValueError(f"dense_weights builds an n x n matrix; n={n} exceeds max_items={max_items}")
    return squareform(condensed_x(enc.codes, enc.q)) if n > 1 else np.zeros((n, n))


def condensed_weights(enc: EncodedClusterings, max_items: int) -> np.ndarray:
    """X as a condensed vector (scipy's pair order), guarded by ``max_items``."""
    n = enc.n_items
    if n > max_items:
        raise ValueError(
            f"this algorithm needs the n(n-1)/2 pairwise weights; n={n} exceeds max_items={max_items} "
            "(raise max_items if memory allows, or wrap it in 'sampling')"
        )
    return condensed_x(enc.codes, enc.q)


def total_weights(enc: EncodedClusterings) -> np.ndarray:
    """``sum_v X_uv`` for every u in O(n m) (BALLS' visiting order)."""
    n, m = enc.codes.shape
    out = np.zeros(n)
    for j in range(m):
        col = enc.codes[:, j]
        present = col >= 0
        n_present = int(present.sum())
        n_missing = n - n_present
        cnt = np.bincount(col[present], minlength=int(enc.off[j + 1] - enc.off[j]))
        # present u: differs from present v with another label, coin with missing v
        w_present = (n_present - cnt[np.where(present, col, 0)]) + enc.q * n_missing
        w_missing = enc.q * (n - 1)
        out += np.where(present, w_present, w_missing)
    return out / m


#: Per problem, its coin, encoded clusterings and lower bound (:func:`clusterings_objective`); an entry
#: goes with its problem.  Safe to keep: a Problem is frozen and its clusterings are a read-only copy.
_PER_PROBLEM: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def clusterings_objective(labels: np.ndarray, problem) -> dict:
    """ED = d(C) and its lower bound for a problem with input clusterings.

    The coin ``p`` is read from ``problem.meta["missing_p"]`` (default 1/2).
    The encoding and the lower bound depend on the problem alone, and every
    case of an instance (each algorithm, sample size, item order) scores
    against the same problem, so both are computed once per problem: the
    bound's sort of the label rows took half of agg_scalability's wall time
    when it ran for every case (29.6 of 58 s for one trial, 1M-point inputs).
    """
    p = problem.meta.get("missing_p", 0.5)
    known = _PER_PROBLEM.get(problem)
    if known is None or known[0] != p:
        enc = encode(problem.clusterings, p)
        known = (p, enc, lower_bound(enc))
        _PER_PROBLEM[problem] = known
    _, enc, bound = known
    return {"objective": disagreement(labels, enc), "lower_bound": bound}
