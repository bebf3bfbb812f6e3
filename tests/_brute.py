"""Brute-force helpers for tests: enumerate every set partition of a few items."""

from __future__ import annotations

import numpy as np


def all_partitions(n: int):
    """Yield every set partition of ``n`` items as an int64 label array.

    Each partition appears once, as its restricted growth string:
    ``a[0] = 0`` and ``a[i] <= 1 + max(a[:i])``, which is exactly the labelling
    in order of first appearance. The count is the Bell number B(n)
    (1, 1, 2, 5, 15, 52, 203, 877, 4140 for n = 0..8).
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    a = np.zeros(n, dtype=np.int64)
    if n == 0:
        yield a.copy()
        return

    def rec(i: int, n_blocks: int):
        if i == n:
            yield a.copy()
            return
        for c in range(n_blocks + 1):  # an existing block, or a new one
            a[i] = c
            yield from rec(i + 1, max(n_blocks, c + 1))

    yield from rec(1, 1)
