"""The shared kernels of ``ccexp/cc``: union-find (plain and lazily reset) and the relabelling.

Every family uses these (CC core, ReCon, nCOBRAS, the triplet and active
local searches), so they are checked here against plain-Python references.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ccexp.cc.labels import relabel_contiguous, relabel_first_appearance
from ccexp.cc.union_find import (
    connected_components_kernel,
    uf_find,
    uf_find_stamped,
    uf_labels,
    uf_union,
    uf_union_stamped,
)


def _reference_components(n, edges):
    """Components by repeated relaxation; labels in order of first appearance."""
    comp = list(range(n))
    changed = True
    while changed:
        changed = False
        for a, b in edges:
            lo = min(comp[a], comp[b])
            if comp[a] != lo or comp[b] != lo:
                comp[a] = comp[b] = lo
                changed = True
    seen = {}
    return [seen.setdefault(c, len(seen)) for c in comp]


edge_lists = st.integers(1, 25).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=40))
)


@settings(max_examples=60, deadline=None)
@given(edge_lists)
def test_union_find_matches_reference(case):
    n, edges = case
    parent = np.arange(n, dtype=np.int64)
    size = np.ones(n, dtype=np.int64)
    for a, b in edges:
        was_apart = uf_find(parent, a) != uf_find(parent, b)
        assert uf_union(parent, size, a, b) == was_apart
    ref = _reference_components(n, edges)
    assert uf_labels(parent).tolist() == ref
    # a root's size is its set's size
    for x in range(n):
        r = uf_find(parent, x)
        assert size[r] == ref.count(ref[x])
    u = np.array([e[0] for e in edges], dtype=np.int64)
    v = np.array([e[1] for e in edges], dtype=np.int64)
    assert connected_components_kernel(n, u, v).tolist() == ref


@settings(max_examples=40, deadline=None)
@given(st.lists(edge_lists, min_size=1, max_size=4))
def test_stamped_union_find_is_fresh_every_round(rounds):
    # one set of arrays reused over rounds (stamps 1, 2, ...): each round must
    # behave like a new union-find, whatever earlier rounds left behind
    n = max(case[0] for case in rounds)
    parent = np.full(n, 7, dtype=np.int64)  # garbage: never read before a stamp
    size = np.full(n, 3, dtype=np.int64)
    stamp = np.zeros(n, dtype=np.int64)
    for cur, (_, edges) in enumerate(rounds, start=1):
        for a, b in edges:
            uf_union_stamped(parent, size, stamp, cur, a, b)
        ref = _reference_components(n, edges)
        roots = [uf_find_stamped(parent, size, stamp, cur, x) for x in range(n)]
        for x in range(n):
            for y in range(n):
                assert (roots[x] == roots[y]) == (ref[x] == ref[y])
            assert size[roots[x]] == ref.count(ref[x])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=40))
def test_relabel_first_appearance(labels):
    arr = np.array(labels, dtype=np.int64)
    h = relabel_first_appearance(arr)
    seen = {}
    ref = [seen.setdefault(x, len(seen)) for x in labels]
    assert arr.tolist() == ref and h == len(seen)


def test_relabel_contiguous_any_ids():
    assert relabel_contiguous([7, -2, 7, 100, -2, 5]).tolist() == [0, 1, 0, 2, 1, 3]
    assert relabel_contiguous([]).tolist() == []
