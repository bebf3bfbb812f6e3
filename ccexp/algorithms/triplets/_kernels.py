"""Numba kernels for triplet correlation clustering (Ukkonen 2017).

The constraint graph of Definition 1 is never built.  Two triplets conflict
only through an item pair {u, v} that one of them holds as its "together"
pair (u, v both non-outliers) and the other as an "apart" pair (one of u, v
is the outlier).  Every triplet (a, b, c) therefore sits in three pair lists:
the together-list of {a, b} and the apart-lists of {a, c} and {b, c}; the
constraint graph is the union, over pairs, of the complete bipartite graphs
between a pair's together-list and its apart-list.  The kernels below work
on those lists (a CSR over ``2 * pair_id + side``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

TOGETHER = 0
APART = 1


# --------------------------------------------------------------------------
# local search, Algorithm 2
# --------------------------------------------------------------------------
@njit(cache=True)
def item_partners(triplets, n):
    """Each item's triplets as contiguous (other, other) item pairs: ``indptr[2n+1], first[3m], second[3m]``.

    Item u's incidences where it is a pair member sit in
    ``[indptr[2u], indptr[2u+1])`` with ``first`` = its partner and
    ``second`` = the outlier; those where it is the outlier sit in
    ``[indptr[2u+1], indptr[2u+2])`` with ``first``, ``second`` = the pair.
    A pass of :func:`local_search_pass` then reads u's triplets as one
    sequential run of int32 pairs instead of jumping to scattered rows of
    ``triplets`` (issue 31: the jumps, not the arithmetic, set its speed).
    Within a segment the triplets keep their input order.
    """
    m = triplets.shape[0]
    counts = np.zeros(2 * n + 1, dtype=np.int64)
    for t in range(m):
        counts[2 * triplets[t, 0] + 1] += 1
        counts[2 * triplets[t, 1] + 1] += 1
        counts[2 * triplets[t, 2] + 2] += 1
    indptr = np.cumsum(counts)
    fill = indptr[:-1].copy()
    first = np.empty(3 * m, dtype=np.int32)
    second = np.empty(3 * m, dtype=np.int32)
    for t in range(m):
        a = triplets[t, 0]
        b = triplets[t, 1]
        c = triplets[t, 2]
        e = fill[2 * a]
        first[e] = b
        second[e] = c
        fill[2 * a] = e + 1
        e = fill[2 * b]
        first[e] = a
        second[e] = c
        fill[2 * b] = e + 1
        e = fill[2 * c + 1]
        first[e] = a
        second[e] = b
        fill[2 * c + 1] = e + 1
    return indptr, first, second


#: ``tie_mode`` of :func:`local_search_pass`: what line 8 of Algorithm 2 does with several minimisers.
TIE_STAY, TIE_FIRST, TIE_LAST, TIE_RANDOM = 0, 1, 2, 3


@njit(cache=True)
def _item_scores(indptr, first, second, labels, gain, touched, u):
    """Line 8's scores of item ``u`` with the others fixed: ``(base, n_touched)``, ``gain`` filled.

    A triplet holding u as a pair member with partner p and outlier c is
    satisfied exactly when f(u) = f(p) and f(p) != f(c); a triplet holding u
    as the outlier of pair (a, b) is satisfied exactly when f(a) = f(b) !=
    f(u).  So with O (``base``) = number of the latter with f(a) = f(b), the
    satisfied count of u in cluster x is ``base + gain[x]``, where ``gain[x]``
    = p[x] - o[x]: p[x] counts the former whose partner is in x and o[x] the
    latter whose pair is in x.  Every cluster that no triplet of u touches,
    and a new cluster, scores ``base``.  ``touched[:n_touched]`` lists the
    clusters written in ``gain`` (a cluster twice when its running value came
    back to 0 and moved on: up in the first loop, down in the second, at most
    twice; duplicates are harmless for the max and the reset).
    """
    n_touched = 0
    # u a pair member: satisfied in cluster f(partner) when partner and outlier are apart.
    # Branch-free (the tests are coin flips to the branch predictor): always write the
    # candidate into touched[n_touched], keep it only when its score leaves 0.
    for e in range(indptr[2 * u], indptr[2 * u + 1]):
        fp = labels[first[e]]
        d = np.int64(fp != labels[second[e]])
        touched[n_touched] = fp
        n_touched += d & np.int64(gain[fp] == 0)
        gain[fp] += d
    # u the outlier: satisfied outside the pair's cluster when the pair is together
    base = 0
    for e in range(indptr[2 * u + 1], indptr[2 * u + 2]):
        fa = labels[first[e]]
        d = np.int64(fa == labels[second[e]])
        base += d
        touched[n_touched] = fa
        n_touched += d & np.int64(gain[fa] == 0)
        gain[fa] -= d
    return base, n_touched


@njit(cache=True)
def _item_scores_all(indptr, first, second, labels, gain, u):
    """:func:`_item_scores` without the list of touched clusters: ``base``, ``gain`` filled.

    For the tie rules that scan every id 0 .. k_new anyway ("first",
    "last"): the caller resets ``gain[0:k_new]`` after the choice.  The list's
    bookkeeping (a store whose address depends on the previous score) chains
    every triplet to the one before; without it only two triplets of u
    scored in one cluster depend on each other.
    """
    for e in range(indptr[2 * u], indptr[2 * u + 1]):
        fp = labels[first[e]]
        gain[fp] += np.int64(fp != labels[second[e]])
    base = 0
    for e in range(indptr[2 * u + 1], indptr[2 * u + 2]):
        fa = labels[first[e]]
        d = np.int64(fa == labels[second[e]])
        base += d
        gain[fa] -= d
    return base


@njit(cache=True)
def _best_cluster(gain, touched, n_touched, base, cur_gain, k_new, tie_mode, draws, u):
    """Line 8's choice among the scores of :func:`_item_scores`: ``(best, best_c)``, the best score and its cluster.

    Tie-breaking (``tie_mode``; the estimators' ``tie_break`` parameter,
    whose default is "first"):

    * TIE_STAY ("stay"): u moves only on a strict improvement, so each
      move lowers s(f, T) and the search terminates; among equally good
      targets the smallest touched cluster id wins, and the new cluster
      ``k_new`` is taken only when no touched cluster reaches the best score
      (joining an unrelated cluster on no evidence would be an arbitrary
      tie-break).  O(deg(u)) per item, O(|T| + n) per pass.
    * TIE_FIRST ("first"): line 8 of Algorithm 2 read literally, f(u) <- the
      first minimiser over the ids 0 .. k_new, even when u's current cluster
      is also a minimiser.  An item without decisive evidence then drifts
      into the lowest-numbered cluster.  O(deg(u) + k) per item, O(|T| + n k)
      per pass; termination relies on the caller's pass cap.
    * TIE_LAST ("last"): the last minimiser over the ids 0 .. k_new (a loop
      that keeps a later id on equal cost, ``<=`` where "first" has ``<``),
      the new cluster included.  Same cost; termination relies on the cap.
    * TIE_RANDOM ("random"): u stays when its cluster is a minimiser (as
      "stay"), else moves to a minimiser drawn uniformly over the ids
      0 .. k_new (untouched and new clusters included) with ``draws[u]``
      (read by this rule only: the other rules' callers pass one draw).
      O(deg(u) + k) per item.
    """
    best = base
    best_c = k_new
    if tie_mode == TIE_FIRST:
        # untouched ids score ``base``: scan all ids for the first maximum
        for c in range(k_new - 1, -1, -1):
            g = base + gain[c]
            if g >= best:
                best = g
                best_c = c
    elif tie_mode == TIE_LAST:
        # the last maximum over 0 .. k_new; gain[k_new] is 0 (the new cluster, untouched)
        for c in range(k_new + 1):
            g = base + gain[c]
            if g >= best:
                best = g
                best_c = c
    else:
        for i in range(n_touched):
            c = touched[i]
            g = base + gain[c]
            if g > best or (g == best and c < best_c):
                best = g
                best_c = c
        if tie_mode == TIE_RANDOM and best > cur_gain:
            # gain[c] is 0 for every untouched id up to k_new (buffer length >= k_new + n)
            count = 0
            for c in range(k_new + 1):
                if base + gain[c] == best:
                    count += 1
            pick = min(int(draws[u] * count), count - 1)
            for c in range(k_new + 1):
                if base + gain[c] == best:
                    if pick == 0:
                        best_c = c
                        break
                    pick -= 1
    return best, best_c


@njit(cache=True)
def local_search_pass(indptr, first, second, labels, k_new, gain, touched, tie_mode, draws):
    """One pass of Algorithm 2 (lines 7-12) over the items in index order.

    Item u reads its triplets from :func:`item_partners`: one sequential
    run of (item, item) pairs, the pair-member triplets first.  Its scores
    (:func:`_item_scores`) are sums over its triplets, so the order it reads
    them in changes nothing but the speed; :func:`_best_cluster` then applies
    line 8 with the tie rule ``tie_mode``.  The rules "first" and "last" scan
    every id anyway, so they score by :func:`_item_scores_all`, which keeps
    no list of touched clusters, and reset all of ``gain[0:k_new]``: the
    same scores and choices, and a pass about 1.9x faster (8.4 -> 4.5 ms CPU
    at n = 160, 669,920 triplets, k = 8; ``scripts/bench/bench_triplets.py
    --part pass``).

    Why not the shared :func:`ccexp.cc._kernels.cc_local_search_pass`: a
    triplet is not an edge.  Its satisfaction depends on three labels at
    once, so the gain of a move is not a sum of per-neighbour weights, and
    the signed graph of a triplet set would count each triplet's pairs
    independently (that is Ukkonen's approximation, ``triplet_approx``,
    not Algorithm 2).

    Parameters
    ----------
    indptr, first, second : arrays
        :func:`item_partners` of the validated triplets (outlier last).
    labels : int64 array (n,)
        Cluster ids in ``[0, k_new)``; updated in place.
    k_new : int
        The id of the next new cluster (every id ``>= k_new`` is unused).
    gain : int64 array, length >= ``k_new + n``, all zero
        Per-cluster score; left all zero on exit.  A pass opens at most
        ``n`` new clusters; after the caller's relabelling ``k_new <= n``,
        so ``2 n + 1`` suffices.
    touched : int64 array, length >= ``2 n``
        Scratch list of the cluster ids written in ``gain`` (rules "stay" and
        "random"; the other two reset every id below ``k_new``).  A cluster is
        appended when its score leaves 0; u's pair-member triplets only add
        and its outlier triplets only subtract, so that happens at most
        twice per cluster (up from 0, then down through 0), and only the
        clusters of the other n - 1 items are scored.  (The kernel before
        issue 31 interleaved the two kinds in input order, where a score
        could cross 0 at every triplet and ``touched`` needed the item's
        degree.)  numba does not check bounds
        (``tests/test_triplet_kernels_boundscheck.py`` runs these kernels
        with ``boundscheck=True``).
    tie_mode : int
        One of the TIE_* rules of :func:`_best_cluster`.
    draws : float64 array (n,), or (1,) unless ``tie_mode`` is TIE_RANDOM
        Uniform draws in [0, 1), one per item (read by TIE_RANDOM only).

    Returns
    -------
    n_moved : int
        Items that changed cluster in this pass.
    k_new : int
        The next unused cluster id.
    """
    n = labels.shape[0]
    moved = 0
    literal = tie_mode == TIE_FIRST or tie_mode == TIE_LAST
    for u in range(n):
        if literal:
            base = _item_scores_all(indptr, first, second, labels, gain, u)
            n_touched = 0
        else:
            base, n_touched = _item_scores(indptr, first, second, labels, gain, touched, u)
        cur = labels[u]
        cur_gain = base + gain[cur]
        best, best_c = _best_cluster(gain, touched, n_touched, base, cur_gain, k_new, tie_mode, draws, u)
        if literal:
            gain[:k_new] = 0  # every label is below k_new
        else:
            for i in range(n_touched):
                gain[touched[i]] = 0
        if best > cur_gain or (literal and best == cur_gain and best_c != cur):
            labels[u] = best_c
            moved += 1
            if best_c == k_new:
                k_new += 1
    return moved, k_new


# --------------------------------------------------------------------------
# vertex cover of the implicit constraint graph (Section IV-B)
# --------------------------------------------------------------------------
@njit(cache=True)
def pair_keys(triplets, n):
    """Dense pair-side keys ``2 * (u * n + v) + side`` (u < v) for the 3 slots.

    Slot 0: the together pair {a, b}; slots 1, 2: the apart pairs {a, c}, {b, c}.
    """
    m = triplets.shape[0]
    keys = np.empty(3 * m, dtype=np.int64)
    for t in range(m):
        a = triplets[t, 0]
        b = triplets[t, 1]
        c = triplets[t, 2]
        for s in range(3):
            if s == 0:
                u, v, side = a, b, TOGETHER
            elif s == 1:
                u, v, side = a, c, APART
            else:
                u, v, side = b, c, APART
            if u > v:
                u, v = v, u
            keys[3 * t + s] = 2 * (u * n + v) + side
    return keys


@njit(cache=True)
def dense_pair_keys(triplets, n):
    """:func:`pair_keys` as int32, for ``2 n^2 < 2^31`` (the dense pair ids): half the bytes to write and read."""
    m = triplets.shape[0]
    keys = np.empty(3 * m, dtype=np.int32)
    for t in range(m):
        a = triplets[t, 0]
        b = triplets[t, 1]
        c = triplets[t, 2]
        u, v = (a, b) if a < b else (b, a)
        keys[3 * t] = 2 * (u * n + v) + TOGETHER
        u, v = (a, c) if a < c else (c, a)
        keys[3 * t + 1] = 2 * (u * n + v) + APART
        u, v = (b, c) if b < c else (c, b)
        keys[3 * t + 2] = 2 * (u * n + v) + APART
    return keys


@njit(cache=True)
def group_by_key(keys, n_keys):
    """Counting sort of incidences by key: ``indptr[n_keys+1]``, ``members[3m]``.

    ``members`` holds triplet ids (int32: half the bytes the cover's walks
    read); within a key they ascend.
    """
    counts = np.zeros(n_keys + 1, dtype=np.int64)
    for e in range(keys.shape[0]):
        counts[keys[e] + 1] += 1
    indptr = np.cumsum(counts)
    fill = indptr[:-1].copy()
    members = np.empty(keys.shape[0], dtype=np.int32)
    for e in range(keys.shape[0]):
        k = keys[e]
        members[fill[k]] = e // 3
        fill[k] += 1
    return indptr, members


@njit(cache=True)
def approx_vertex_cover(indptr, members, n_pairs, covered, order):
    """Approx-VC (Gavril, Yannakakis) on the implicit constraint graph.

    A maximal matching, grown pair by pair: for pair p, match uncovered
    triplets of its together-list with uncovered triplets of its apart-list
    until one side has none left; both endpoints of each matched edge join
    the cover.  Afterwards every pair has a fully covered side, so every
    constraint-graph edge is covered (the matching is maximal), and the cover
    is at most twice the minimum.  O(|T| + number of pairs).  The pairs are
    visited in ``order`` (a permutation of ``0 .. n_pairs - 1``; the caller's
    default is index order).
    """
    for q in range(n_pairs):
        p = order[q]
        i = indptr[2 * p]
        i_end = indptr[2 * p + 1]
        j = indptr[2 * p + 1]
        j_end = indptr[2 * p + 2]
        while True:
            while i < i_end and covered[members[i]]:
                i += 1
            while j < j_end and covered[members[j]]:
                j += 1
            if i == i_end or j == j_end:
                break
            covered[members[i]] = True
            covered[members[j]] = True
            i += 1
            j += 1


@njit(cache=True)
def approx_vertex_cover_by_triplet(keys, indptr, members, n_keys, covered, order):
    """Approx-VC taking the triplets in ``order``: each uncovered one is matched to its first uncovered neighbour.

    The neighbours of triplet t are the members of the opposite side of each
    of its three pair keys (``keys[3 t + s] ^ 1``); a pointer per key skips
    the covered ones (covered only grows), so the walk is O(|T| + keys).
    Another order of the edges of the same maximal-matching algorithm
    (Gavril, Yannakakis): any maximal matching gives a vertex cover.
    """
    ptr = indptr[:n_keys].copy()
    for q in range(order.shape[0]):
        t = order[q]
        if covered[t]:
            continue
        for s in range(3):
            key = keys[3 * t + s] ^ 1
            e = ptr[key]
            end = indptr[key + 1]
            while e < end and covered[members[e]]:
                e += 1
            ptr[key] = e
            if e < end:
                covered[t] = True
                covered[members[e]] = True
                break


@njit(cache=True)
def remove_redundant(keys, n_keys, covered, order):
    """Drop redundant vertices from the cover (Section IV-B), visiting the triplets in ``order``.

    A covered triplet is redundant when all its constraint-graph neighbours
    are covered, i.e. for each of its three pair keys the opposite side of
    that pair holds no uncovered triplet.  Un-covering it makes its
    neighbours non-redundant, which the running counts reflect.
    Returns the number removed from the cover.  O(|T| + number of keys).
    """
    # per key, its uncovered members: counted from the triplets' side (a sequential read of
    # ``keys`` and ``covered``) rather than the keys' (a jump into ``covered`` per member)
    m = covered.shape[0]
    uncovered = np.zeros(n_keys, dtype=np.int32)
    for t in range(m):
        if not covered[t]:
            for s in range(3):
                uncovered[keys[3 * t + s]] += 1
    removed = 0
    for q in range(m):
        t = order[q]
        if not covered[t]:
            continue
        redundant = True
        for s in range(3):
            if uncovered[keys[3 * t + s] ^ 1] != 0:
                redundant = False
                break
        if redundant:
            covered[t] = False
            removed += 1
            for s in range(3):
                uncovered[keys[3 * t + s]] += 1
    return removed

