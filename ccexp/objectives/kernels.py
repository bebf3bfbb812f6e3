"""Numba kernels of the supervision objectives, shared with the algorithms that report them.

The objectives of :mod:`ccexp.objectives` score a clustering against a
supervision kind; some estimators compute the same cost while they fit (the
triplet local search reports s(f, T), the aggregation algorithms read the
weights ``X_uv`` of the input clusterings).  Those kernels live here, below
the algorithm families, and the families import them from this public
module: an algorithm may depend on the objectives, never the other way round.

Input clusterings are read as an item-major code matrix ``codes[u, j]``
(the label of item ``u`` in clustering ``j``, renumbered to
``0 .. L_j - 1``, ``-1`` for a missing value) with ``q = 1 - p``, the
expected disagreement of a missing value (Gionis et al. 2007, Section 2):

    m * X_uv = #{j : both present and codes differ} + q * #{j : one missing}.

No fastmath: the values are sums of multiples of ``q / m`` (or counts) and
come out the same on every run.
"""

from __future__ import annotations

import numpy as np
from numba import njit


# --------------------------------------------------------------------------
# triplets: s(f, T) of Problem 2 (Ukkonen 2017)
# --------------------------------------------------------------------------
@njit(cache=True)
def triplet_cost(triplets, labels):
    """Number of unsatisfied triplets, s(f, T) of Problem 2 (Ukkonen 2017).

    A triplet (a, b, c) is satisfied iff f(a) = f(b) != f(c).  O(|T|).
    """
    cost = 0
    for t in range(triplets.shape[0]):
        fa = labels[triplets[t, 0]]
        fb = labels[triplets[t, 1]]
        fc = labels[triplets[t, 2]]
        if fa != fb or fa == fc:
            cost += 1
    return cost


# --------------------------------------------------------------------------
# input clusterings: X_uv and the lower bound of Gionis et al. (2007)
# --------------------------------------------------------------------------
@njit(cache=True)
def pair_x(codes, u, v, q):
    """m * X_uv for items ``u``, ``v`` (O(m))."""
    m = codes.shape[1]
    s = 0.0
    for j in range(m):
        a = codes[u, j]
        b = codes[v, j]
        if a < 0 or b < 0:
            s += q
        elif a != b:
            s += 1.0
    return s


@njit(cache=True)
def condensed_x(codes, q):
    """X as a condensed distance vector (scipy's order), O(n^2 m) time and n^2/2 floats."""
    n, m = codes.shape
    out = np.empty(n * (n - 1) // 2, dtype=np.float64)
    k = 0
    for u in range(n):
        for v in range(u + 1, n):
            out[k] = pair_x(codes, u, v, q) / m
            k += 1
    return out


@njit(cache=True)
def lower_bound_kernel(codes, counts, q):
    """sum over pairs of min(X, 1 - X), for distinct rows ``codes`` of multiplicities ``counts``.

    Identical rows share X, so pairs are weighted by ``counts[r] * counts[s]``
    (and ``C(counts[r], 2)`` within a row): O(U^2 m) for U distinct rows.
    """
    U, m = codes.shape
    total = 0.0
    for r in range(U):
        cr = counts[r]
        if cr > 1:
            x = pair_x(codes, r, r, q) / m
            total += 0.5 * cr * (cr - 1) * min(x, 1.0 - x)
        for s in range(r + 1, U):
            x = pair_x(codes, r, s, q) / m
            total += cr * counts[s] * min(x, 1.0 - x)
    return total
