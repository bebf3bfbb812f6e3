"""ROCK's heap of candidate merges (one record per entry, issue 31): it pops in (goodness desc, pair asc) order.

``merge_clusters``' merges are a function of that order alone (at most one
entry of a pair is current at a time), so the heap is checked against a sort,
ties included, with pushes and pops interleaved as the merges interleave them.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ccexp.algorithms.aggregation import _rock_kernels as K


def pair(a, b):
    return a * 2**32 + b


@settings(max_examples=80, deadline=None)
@given(ops=st.lists(st.one_of(
    st.tuples(st.just("push"), st.sampled_from([0.0, 0.5, 1.0, 2.0, 0.25]), st.integers(0, 5), st.integers(0, 5)),
    st.just(("pop",))), min_size=1, max_size=120))
def test_the_heap_pops_in_goodness_then_pair_order(ops):
    heap = np.empty(2, dtype=K.HEAP_ENTRY)  # small: the pushes grow it
    size = 0
    model = []  # the entries held, as (-g, pair, stamp)
    for t, op in enumerate(ops):
        if op[0] == "push":
            _, g, a, b = op
            heap = K._push(heap, size, g, pair(a, b), t)
            size += 1
            model.append((-g, pair(a, b), t))
        elif size:
            top = (-heap[0]["g"], int(heap[0]["ab"]), int(heap[0]["s"]))
            best = min(model, key=lambda x: x[:2])
            assert top[:2] == best[:2]  # the largest goodness, then the smallest pair
            model.remove(next(x for x in model if x == top))  # the entry popped is one the heap held
            size = K._pop(heap, size)
    assert size == len(model)


def test_pair_order_is_lexicographic():
    pairs = [(a, b) for a in range(4) for b in range(4)]
    assert sorted(pairs, key=lambda p: pair(*p)) == sorted(pairs)
    assert K._before(1.0, pair(3, 4), 1.0, pair(3, 5)) and not K._before(1.0, pair(3, 5), 1.0, pair(3, 4))
    assert K._before(2.0, pair(9, 9), 1.0, pair(0, 1))
