"""Axis-aligned cuts of one node of a (COP) tree (Zhu, Loy, Gong 2013, Equations 2-5, Algorithm 1).

The Gini gain of every cut of a sorted feature (Equation 4), and the best
cut that respects the node's constraints (Equation 5) under either
constraint rule (``cl_rule``; see :mod:`._forest_kernels`).  A pair is
separated by the cut at sorted position ``p`` iff ``p`` lies in the
half-open interval ``[min rank, max rank)`` of its two points.
"""

from __future__ import annotations

from numba import njit

# A split must improve the Gini impurity by more than this to count as a gain
# (Algorithm 1 keeps a split only if its gain exceeds the best so far, 0 at start).
_GAIN_EPS = 1e-12


@njit(cache=True)
def _gini(w0, w1):
    tot = w0 + w1
    if tot <= 0.0:
        return 0.0
    p0, p1 = w0 / tot, w1 / tot
    return 1.0 - p0 * p0 - p1 * p1


@njit(cache=True)
def _split_gains(v_sorted, w_sorted, c_sorted, gains):
    """Gini gain of every cut of one sorted feature (Equation 4).

    ``gains[p]`` is the gain of sending sorted positions ``0..p`` left, or
    ``-1`` where ``v[p] == v[p+1]`` (no threshold falls between them).
    O(m).
    """
    m = v_sorted.shape[0]
    t0, t1 = 0.0, 0.0
    for q in range(m):
        if c_sorted[q] == 0:
            t0 += w_sorted[q]
        else:
            t1 += w_sorted[q]
    tot = t0 + t1
    parent = _gini(t0, t1)
    l0, l1 = 0.0, 0.0
    for p in range(m - 1):
        if c_sorted[p] == 0:
            l0 += w_sorted[p]
        else:
            l1 += w_sorted[p]
        if v_sorted[p] < v_sorted[p + 1]:
            wl = l0 + l1
            wr = tot - wl
            gains[p] = parent - wl / tot * _gini(l0, l1) - wr / tot * _gini(t0 - l0, t1 - l1)
        else:
            gains[p] = -1.0
    gains[m - 1] = -1.0


@njit(cache=True)
def _mark_intervals(pairs, use, rank, diff):
    """Add +1 on the cut positions ``[min rank, max rank)`` of each used pair to ``diff``.

    A cut at position p separates a pair iff p lies in that interval.  Returns
    the number of pairs marked.
    """
    n_used = 0
    for t in range(pairs.shape[0]):
        if not use[t]:
            continue
        ra, rb = rank[pairs[t, 0]], rank[pairs[t, 1]]
        lo, hi = (ra, rb) if ra < rb else (rb, ra)
        diff[lo] += 1
        diff[hi] -= 1
        n_used += 1
    return n_used


@njit(cache=True)
def _best_cut(gains, ml, ml_use, cl, cl_use, rank, cl_rule, ml_diff, cl_diff):
    """Best valid cut of one feature: (gain, position, CL pairs separated); position -1 if none.

    O(m + |pairs|).
    """
    m = gains.shape[0]
    for p in range(m + 1):
        ml_diff[p] = 0
        cl_diff[p] = 0
    _mark_intervals(ml, ml_use, rank, ml_diff)
    n_cl = _mark_intervals(cl, cl_use, rank, cl_diff)
    best_gain, best_p, best_sep = -1.0, -1, -1
    ml_run, cl_run = 0, 0
    for p in range(m - 1):
        ml_run += ml_diff[p]
        cl_run += cl_diff[p]
        g = gains[p]
        if g < 0.0 or ml_run > 0:
            continue
        if cl_rule == 0:
            if cl_run != n_cl or g <= _GAIN_EPS:
                continue
            if g > best_gain:
                best_gain, best_p, best_sep = g, p, cl_run
        else:
            if n_cl > 0:
                if cl_run == 0:
                    continue
            elif g <= _GAIN_EPS:
                continue
            # lexicographic: gain first, then CL pairs separated (zero-gain nodes)
            if g > best_gain + _GAIN_EPS or (g > best_gain - _GAIN_EPS and cl_run > best_sep):
                best_gain, best_p, best_sep = g, p, cl_run
    return best_gain, best_p, best_sep
