"""Debug mode: the triplet kernels (Ukkonen 2017) run with numba's bounds checking.

numba does not check array bounds by default, so a scratch buffer that is
too short corrupts memory silently. Here every kernel of
``algorithms/triplets/_kernels.py`` (and the shared relabelling and objective kernel it uses) is
recompiled from its Python source with ``boundscheck=True`` and the drivers
run on small inputs: an out-of-bounds access raises ``IndexError`` instead.
The kernels call no other jitted function, so recompiling each one checks
all of its accesses.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from ccexp.algorithms.triplets import _kernels as K
from ccexp.algorithms.triplets import local_search as LS
from ccexp.algorithms.triplets.vertex_cover import triplet_vertex_cover
from ccexp.cc import labels as cc_labels
from ccexp.objectives import kernels as objective_kernels

KERNELS = (
    "item_partners",
    "local_search_pass",
    "pair_keys",
    "group_by_key",
    "approx_vertex_cover",
    "approx_vertex_cover_by_triplet",
    "remove_redundant",
)


def _checked(fn):
    return njit(boundscheck=True)(fn.py_func)


@pytest.fixture(scope="module")
def checked():
    """The kernels compiled with bounds checking (once for the module)."""
    out = {name: _checked(getattr(K, name)) for name in KERNELS}
    out["relabel_first_appearance"] = _checked(cc_labels.relabel_first_appearance)
    out["triplet_cost"] = _checked(objective_kernels.triplet_cost)  # the objective's kernel, s(f, T)
    return out


@pytest.fixture
def bounds_checked(monkeypatch, checked):
    """Swap the checked kernels in where the drivers look them up."""
    for name in KERNELS:
        monkeypatch.setattr(K, name, checked[name])
    monkeypatch.setattr(LS, "relabel_first_appearance", checked["relabel_first_appearance"])
    monkeypatch.setattr(LS, "triplet_cost", checked["triplet_cost"])
    return checked


def _random_triplets(rng, n, m):
    t = np.array([rng.choice(n, 3, replace=False) for _ in range(m)], dtype=np.int64).reshape(-1, 3)
    return t


def test_local_search_and_cover_in_bounds(bounds_checked):
    # small random instances, every tie-break, from one cluster and from singletons, every cover order;
    # the checked run must give what the unchecked kernels give
    rng = np.random.default_rng(3)
    for n, m in ((3, 1), (5, 12), (8, 60), (12, 200)):
        T = _random_triplets(rng, n, m)
        for tie in ("first", "stay", "last", "random"):
            for start in (np.zeros(n, dtype=np.int64), np.arange(n, dtype=np.int64)):
                labels, n_passes, _ = LS.triplet_local_search(T, n, start, max_passes=50, tie_break=tie, random_state=1)
                assert bounds_checked["triplet_cost"](T, labels) >= 0
                assert labels.min() == 0 and labels.max() < n
        for vc_order in ("pairs", "triplets", "random_pairs", "random_triplets"):
            for red in ("input", "reverse", "random"):
                covered, info = triplet_vertex_cover(T, n, vc_order=vc_order, redundant_order=red, random_state=2)
                assert covered.shape == (m,) and info["n_matched"] >= int(covered.sum())


def test_checked_equals_unchecked(monkeypatch, checked):
    rng = np.random.default_rng(4)
    n, m = 9, 80
    T = _random_triplets(rng, n, m)
    start = rng.integers(0, 3, n).astype(np.int64)
    plain = LS.triplet_local_search(T, n, start, max_passes=50, tie_break="first")
    for name in KERNELS:
        monkeypatch.setattr(K, name, checked[name])
    monkeypatch.setattr(LS, "relabel_first_appearance", checked["relabel_first_appearance"])
    debug = LS.triplet_local_search(T, n, start, max_passes=50, tie_break="first")
    np.testing.assert_array_equal(plain[0], debug[0])
    assert plain[1:] == debug[1:]


def _zero_crossing_triplets():
    """Item 0's cluster score crosses 0 at every triplet when the triplets are read in input order.

    With items 1, 2 in cluster 0 and item 3 in cluster 1, ``(1, 2, 0)``
    (0 the outlier of a together pair) takes 1 from cluster 0 and
    ``(0, 1, 3)`` (partner 1 apart from 3) adds 1 back: the kernel before
    issue 31 appended cluster 0 to ``touched`` at every other triplet.
    """
    return np.array([(1, 2, 0), (0, 1, 3)] * 10, dtype=np.int64)


def test_touched_needs_2n_entries_not_the_item_degree(checked):
    # item 0 has degree 20 > 2n + 1 = 9: reading its pair-member triplets (adds) before its
    # outlier triplets (subtractions), a cluster's score leaves 0 at most twice, so 2n entries do
    T = _zero_crossing_triplets()
    n, m = 4, T.shape[0]
    labels = np.array([0, 0, 0, 1], dtype=np.int64)
    indptr, first, second = checked["item_partners"](T, n)
    assert indptr[2] - indptr[0] == m  # item 0 is in every triplet
    gain = np.zeros(2 * n + 1, dtype=np.int64)
    lab = labels.copy()
    moved, k_new = checked["local_search_pass"](indptr, first, second, lab, 2, gain, np.empty(2 * n, dtype=np.int64),
                                                K.TIE_STAY, np.zeros(1))
    assert not gain.any()  # the kernel leaves its score buffer clean
    # item 0 satisfies all (0, 1, 3) in cluster 0 and no (1, 2, 0) there: it stays
    assert lab[0] == 0 and moved >= 0 and k_new >= 2


def test_a_cluster_can_take_two_touched_entries(checked):
    # item 0 (cluster 0): (0, 1, 3) adds 1 to cluster 1 (partner 1 apart from outlier 3), then the two
    # (1, 2, 0) take 2 from it (0 the outlier of the together pair {1, 2}): its score goes 0 -> 1 -> 0 -> -1
    # and cluster 1 is listed twice; the branch-free append writes slot 1 in between
    T = np.array([(0, 1, 3), (1, 2, 0), (1, 2, 0)], dtype=np.int64)
    n = 4
    labels = np.array([0, 1, 1, 2], dtype=np.int64)
    indptr, first, second = checked["item_partners"](T, n)
    gain = np.zeros(2 * n + 1, dtype=np.int64)
    with pytest.raises(IndexError):
        checked["local_search_pass"](indptr, first, second, labels.copy(), 3, gain, np.empty(1, dtype=np.int64),
                                     K.TIE_STAY, np.zeros(1))
    gain[:] = 0
    lab = labels.copy()
    checked["local_search_pass"](indptr, first, second, lab, 3, gain, np.empty(2 * n, dtype=np.int64), K.TIE_STAY,
                                 np.zeros(1))
    assert not gain.any()
    # item 0 scores 1 in cluster 1 and 2 (= O, both outlier triplets satisfied) anywhere else: it stays in 0
    assert lab[0] == 0
