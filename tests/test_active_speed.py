"""Speed-ups of the active-learning selection that must not change a single choice."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ccexp.algorithms.active import _kernels as K
from ccexp.algorithms.active.strategies import BatchSelector


def _state(n, seed, n_levels):
    """A symmetric S whose magnitudes take few values (many ties, as sigma_0's +-0.1), and query counts."""
    rng = np.random.default_rng(seed)
    levels = rng.choice([0.0, 0.1, 0.2, 1 / 3, 0.5, 1.0], size=n_levels, replace=False)
    S = rng.choice(levels, size=(n, n)) * rng.choice([-1.0, 1.0], size=(n, n))
    S = np.triu(S, 1)
    S = S + S.T
    counts = rng.integers(0, 4, size=(n, n)).astype(np.int32)
    counts = np.triu(counts, 1)
    counts = counts + counts.T
    return S, counts


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 40), st.integers(0, 2**31 - 1), st.integers(1, 6), st.integers(1, 900),
       st.sampled_from([1, 2, 3, None]))
def test_uncertainty_selection_equals_the_plain_one(n, seed, n_levels, n_want, cap):
    # same edges in the same order and the same generator state after, whatever the ties and the cap
    S, counts = _state(n, seed, n_levels)
    fast = BatchSelector(n, "uncertainty", 1.0, 0.0, cap, None, "uniform")
    plain = BatchSelector(n, "uncertainty", 1.0, 0.0, cap, None, "uniform")
    r1, r2 = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
    bu, bv = fast.select(S, None, counts, n_want, r1)
    pu, pv = plain._uncertainty_reference(S, counts, n_want, r2)
    np.testing.assert_array_equal(bu, pu)
    np.testing.assert_array_equal(bv, pv)
    assert r1.integers(0, 2**62) == r2.integers(0, 2**62)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 30), st.integers(0, 2**31 - 1), st.integers(1, 6), st.integers(1, 500))
def test_least_magnitude_cut_is_the_order_statistic(n, seed, n_levels, n_want):
    S, counts = _state(n, seed, n_levels)
    iu = np.triu_indices(n, 1)
    vals = np.abs(S[iu])[counts[iu] < 2]
    thr, m = K.least_magnitude_cut(S, counts, 2, n_want)
    assert m == vals.shape[0]
    if 0 < n_want < m:
        assert thr == np.partition(vals, n_want - 1)[n_want - 1]


def test_least_magnitude_cut_by_hand():
    S = np.array([[0, -0.5, 0.1, 0.3], [-0.5, 0, 0.1, -0.2], [0.1, 0.1, 0, 1.0], [0.3, -0.2, 1.0, 0]])
    counts = np.zeros((4, 4), dtype=np.int32)
    # magnitudes of the 6 edges: 0.5 0.1 0.3 0.1 0.2 1.0 -> sorted 0.1 0.1 0.2 0.3 0.5 1.0
    assert K.least_magnitude_cut(S, counts, 3, 3) == (0.2, 6)
    assert K.least_magnitude_cut(S, counts, 3, 2) == (0.1, 6)
    counts[0, 2] = counts[2, 0] = 3  # capped: one 0.1 leaves the candidates
    assert K.least_magnitude_cut(S, counts, 3, 2) == (0.2, 5)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60), st.integers(1, 60), st.integers(0, 2**31 - 1))
def test_max_correlation_is_bitwise_the_plain_double_loop(n, k, seed):
    # the local search's stopping rule and restart comparison see this sum: same bits, same run
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(n, n)) / 3
    S = np.triu(S, 1)
    S = S + S.T
    labels = rng.integers(0, min(k, n), size=n)
    assert K.max_correlation(S, labels) == K.max_correlation_plain(S, labels)


def test_max_correlation_by_hand():
    S = np.array([[0, 1, -1], [1, 0, -2], [-1, -2, 0]], dtype=float)
    assert K.max_correlation(S, np.array([0, 0, 1])) == 1.0
    assert K.max_correlation(S, np.array([2, 0, 2])) == -1.0
    assert K.max_correlation(S, np.array([1, 1, 1])) == -2.0


def test_run_json_records_the_wall_time(tmp_path):
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from _sweeps import DATASET, ORACLE, SMALL

    from ccexp.runner.sweep import run_sweep

    res = run_sweep(SMALL, DATASET, ORACLE, tmp_path, n_jobs=1, progress=False, max_tasks=1)
    run = json.loads((res.directory / "run.json").read_text())
    assert run["wall_seconds"] == round(res.seconds, 3) and run["wall_seconds"] > 0
    assert run["n_pending"] == res.n_run > 0 and run["n_cases"] == res.n_cases
    assert run["runner"]["n_jobs"] == 1 and run["runner"]["backend"] == "loky"
