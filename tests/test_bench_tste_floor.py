"""scripts/bench/bench_tste.py --part floor: it times what a bit-identical t-STE fit must compute (issue 31).

The floor is only a floor if the logs it times are the kernel's own logs and
the replay is L-BFGS-B's own path; both are checked here on small instances.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ccexp.algorithms.triplets import _tste_kernels as TK
from conftest import load_script

bt = load_script("scripts/bench/bench_tste.py")


def instance(seed, n=14, m=120, d=4):
    rng = np.random.default_rng(seed)
    T = np.array([rng.choice(n, size=3, replace=False) for _ in range(m)], dtype=np.int64)
    return T, rng.standard_normal((n, d)) * 2.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_floor_times_the_logs_of_the_kernels_own_arguments(seed):
    T, X = instance(seed)
    n, alpha = X.shape[0], 3.0
    pairs = TK.pair_indices(T, n, False)
    args = bt._kernel_arguments(X, pairs, alpha)
    # plain Python, from the kernel's formula: K_ij = (1 + d2 / alpha) ** -((alpha + 1) / 2) via exp(log1p)
    expo = (alpha + 1.0) / 2.0

    def logk(i, j):
        return 0.0 if i == j else -expo * math.log1p(float(((X[i] - X[j]) ** 2).sum()) / alpha)

    cost = 0.0
    for t, (i, j, k) in enumerate(T):
        assert args[t] == math.exp(logk(i, j)) + math.exp(logk(i, k))
        cost += math.log(args[t]) - logk(i, j)
    grad = np.empty_like(X)
    # the kernel adds the same logs in the same order: its cost is this one, to the bit
    assert TK.tste_cost_grad_pairs(X, T, alpha, False, grad, 1.0, pairs) == cost
    # and the timed loop is those logs added in order (libm's log in both)
    assert bt._logs_in_order(args) == sum(math.log(a) for a in args)


def test_the_replay_follows_the_fits_path_to_its_end():
    T, _ = instance(3, n=20, m=400)
    X0 = np.random.default_rng(4).standard_normal((20, 4))
    pairs = TK.pair_indices(T, 20, False)
    x_end, seen = bt._recorded_fit(T, pairs, X0, 3.0)
    assert len(seen) > 3
    # check=True asserts every point L-BFGS-B asks for is the recorded one
    assert np.array_equal(bt._replay(X0, seen, check=True).x, x_end)


def test_a_replay_of_other_values_is_caught():
    T, _ = instance(5, n=20, m=400)
    X0 = np.random.default_rng(6).standard_normal((20, 4))
    pairs = TK.pair_indices(T, 20, False)
    _, seen = bt._recorded_fit(T, pairs, X0, 3.0)
    x, cost, g = seen[1]
    seen[1] = (x, cost, g * 1.5)  # another gradient: the next point differs
    with pytest.raises(AssertionError, match="another path"):
        bt._replay(X0, seen, check=True)
