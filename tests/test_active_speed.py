"""Speed-ups of the active-learning selection that must not change a single choice."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from _scoring import score_reference, score_violating
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


@pytest.mark.parametrize("n", [70, 203])
def test_uncertainty_selection_step_after_step_equals_the_plain_one(n):
    # one selector over a run: the cut of the previous step is the next one's guess (a hit while
    # sigma_0's magnitude is at the cut, a miss when answers move it), rows longer than a block
    rng = np.random.default_rng(n)
    S = np.triu(rng.choice([-0.1, 0.1], size=(n, n)), 1)
    S = S + S.T
    counts = np.zeros((n, n), dtype=np.int32)
    fast = BatchSelector(n, "uncertainty", 1.0, 0.0, 3, None, "uniform")
    plain = BatchSelector(n, "uncertainty", 1.0, 0.0, 3, None, "uniform")
    r1, r2 = np.random.default_rng(1), np.random.default_rng(1)
    hits = 0
    for step in range(40):
        guess = fast._last_cut
        bu, bv = fast.select(S, None, counts, 97, r1)
        pu, pv = plain._uncertainty_reference(S, counts, 97, r2)
        np.testing.assert_array_equal(bu, pu)
        np.testing.assert_array_equal(bv, pv)
        hits += fast._last_cut == guess
        # answers: the mean moves away from 0.1, sometimes below it (a new cut), or to exactly 0.1
        ans = rng.choice([-1.0, -0.3, 0.1, 0.2, 1.0], size=bu.shape[0])
        counts[bu, bv] += 1
        counts[bv, bu] = counts[bu, bv]
        S[bu, bv] = (S[bu, bv] + ans) / 2
        S[bv, bu] = S[bu, bv]
    assert r1.integers(0, 2**62) == r2.integers(0, 2**62)
    assert 0 < hits < 40  # both paths taken


@pytest.mark.parametrize("seed", range(6))
def test_pick_at_magnitude_by_blocks_on_long_rows(seed):
    # rows of 300 items: the look-ups skip whole blocks of 64; every rank, a few, and the last ones
    rng = np.random.default_rng(seed)
    n = 300
    S, counts = _state(n, seed, 3)
    thr = float(np.sort(np.abs(S[np.triu_indices(n, 1)]))[2000])
    iu, iv = np.triu_indices(n, 1)
    ok = counts[iu, iv] < 3
    iu, iv, mag = iu[ok], iv[ok], np.abs(S[iu[ok], iv[ok]])
    below, tied = mag < thr, mag == thr
    row_below, row_tied = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    nb, nt = K.count_at_magnitude(S, counts, 3, thr, row_below, row_tied)
    for ranks in (np.arange(nt), np.sort(rng.choice(nt, size=50, replace=False)), np.arange(nt - 5, nt)):
        bu, bv = np.empty(nb, dtype=np.int64), np.empty(nb, dtype=np.int64)
        tu, tv = np.empty(len(ranks), dtype=np.int64), np.empty(len(ranks), dtype=np.int64)
        K.pick_at_magnitude(S, counts, 3, thr, (row_below, row_tied), ranks, (bu, bv), (tu, tv))
        np.testing.assert_array_equal(np.c_[bu, bv], np.c_[iu[below], iv[below]])
        np.testing.assert_array_equal(np.c_[tu, tv], np.c_[iu[tied][ranks], iv[tied][ranks]])


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


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 40), st.integers(0, 2**31 - 1), st.integers(1, 6), st.sampled_from([1, 2, 3, 4]),
       st.data())
def test_count_and_pick_at_magnitude_equal_the_listed_edges(n, seed, n_levels, cap, data):
    # the edges below and at a cut, counted per row and looked up by rank, against numpy's lists
    S, counts = _state(n, seed, n_levels)
    iu, iv = np.triu_indices(n, 1)
    ok = counts[iu, iv] < cap
    iu, iv = iu[ok], iv[ok]
    mag = np.abs(S[iu, iv])
    thr = data.draw(st.sampled_from(sorted(set(mag.tolist()) | {0.0, 0.15, 2.0})))
    below, tied = mag < thr, mag == thr
    row_below = np.full(n, -1, dtype=np.int64)
    row_tied = np.full(n, -1, dtype=np.int64)
    nb, nt = K.count_at_magnitude(S, counts, cap, thr, row_below, row_tied)
    assert (nb, nt) == (below.sum(), tied.sum())
    np.testing.assert_array_equal(row_below, np.bincount(iu[below], minlength=n))
    np.testing.assert_array_equal(row_tied, np.bincount(iu[tied], minlength=n))
    ranks = np.array(sorted(data.draw(st.sets(st.integers(0, max(nt - 1, 0)), max_size=nt))), dtype=np.int64)
    bu, bv = np.full(nb, -1, dtype=np.int64), np.full(nb, -1, dtype=np.int64)
    tu, tv = np.full(len(ranks), -1, dtype=np.int64), np.full(len(ranks), -1, dtype=np.int64)
    assert K.pick_at_magnitude(S, counts, cap, thr, (row_below, row_tied), ranks, (bu, bv), (tu, tv)) == (nb, len(ranks))
    np.testing.assert_array_equal(bu, iu[below])
    np.testing.assert_array_equal(bv, iv[below])
    np.testing.assert_array_equal(tu, iu[tied][ranks])
    np.testing.assert_array_equal(tv, iv[tied][ranks])


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

    from ccexp.runner.sweep import RunnerOptions, run_sweep, sweep_spec

    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False, max_tasks=1))
    run = json.loads((res.directory / "run.json").read_text())
    assert run["wall_seconds"] == round(res.seconds, 3) and run["wall_seconds"] > 0
    assert run["n_pending"] == res.n_run > 0 and run["n_cases"] == res.n_cases
    assert run["runner"]["n_jobs"] == 1 and run["runner"]["backend"] == "loky"


# --------------------------------------------------------------------------
# Algorithm 2 by per-cluster sums: bitwise the plain kernel
# --------------------------------------------------------------------------
def _similarities(n, seed, kind):
    """Symmetric S, zero diagonal: noisy reals, few levels (exact ties), sums that round
    differently by order (0.1 + 0.2 != 0.3), or the running means of +-1 answers with sigma_0 +-0.1."""
    rng = np.random.default_rng(seed)
    if kind == "normal":
        A = rng.normal(size=(n, n)) / 3
    elif kind == "levels":
        A = rng.choice([-1.0, -0.1, 0.1, 1.0], size=(n, n))
    elif kind == "decimals":
        A = rng.choice([-0.3, -0.2, -0.1, 0.1, 0.2, 0.3, 0.7], size=(n, n))
    else:  # "means"
        y = rng.integers(0, max(1, n // 8), size=n)
        total = np.where(y[:, None] == y[None, :], 0.1, -0.1) * rng.choice([-1.0, 1.0])
        counts = rng.integers(0, 4, size=(n, n))
        for c in range(3):
            total = total + np.where(counts > c, rng.choice([-1.0, 1.0], size=(n, n)), 0.0)
        A = total / (counts + 1)
    A = np.triu(A, 1)
    return A + A.T


KINDS = ["normal", "levels", "decimals", "means"]


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 70), st.integers(0, 2**31 - 1), st.sampled_from(KINDS), st.floats(0.0, 1.0),
       st.sampled_from([1, 2, 3, 30, 1000]), st.sampled_from([2.0**-52, 0.0, 1e-3, 1.0, 3.0]),
       st.sampled_from([1.0, 2.0**50]))
def test_local_search_by_sums_is_bitwise_the_plain_kernel(n, seed, kind, k_share, max_passes, eta, scale):
    # eta >= 1 or |S| near 2^52 / N^2: the start's objective can stop the search before its first
    # pass, so the kernel computes it first instead of during that pass (see local_search_sums)
    S = _similarities(n, seed, kind) * scale
    k = max(1, int(round(k_share * n)))  # from one cluster to k = N (the first iteration: the sweep path)
    start = K.random_labels(n, k, seed)
    plain, fast = start.copy(), start.copy()
    d0, p0 = K.local_search_run_plain(S, plain, seed + 1, eta, max_passes)
    d1, p1 = K.local_search_run(S, fast, seed + 1, eta, max_passes)
    np.testing.assert_array_equal(fast, plain)
    assert (d1, p1) == (d0, p0)  # the incremental objective: same floats, same stopping


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**31 - 1), st.sampled_from(KINDS), st.floats(0.0, 1.0))
def test_the_one_pass_kernels_driven_from_python_are_the_plain_kernel(n, seed, kind, k_share):
    # the state of the local search is explicit: a Python loop over maxcor_pass (the driver's
    # schedule: sums from the second pass on, the start's objective inside the first) is the run
    S = _similarities(n, seed, kind)
    start = K.random_labels(n, max(1, int(round(k_share * n))), seed)
    plain = start.copy()
    d0, p0 = K.local_search_run_plain(S, plain, seed + 1, 2.0**-52, 1000)
    labels = start.copy()
    K.seed_visits(seed + 1)
    state = K.maxcor_state(labels, np.empty((n, n)), K.abs_max(S))
    delta_old, delta = K.maxcor_pass(S, S, state, 0.0, True, False)
    passes = 1
    while abs(delta - delta_old) > 2.0**-52:
        if passes == 1:
            K.build_sums(S, state)
        delta_old, delta = K.maxcor_pass(S, S, state, delta, False, True)
        passes += 1
    np.testing.assert_array_equal(labels, plain)
    assert state.slots.labels is labels
    assert (delta, passes) == (d0, p0)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 70), st.integers(0, 2**31 - 1), st.sampled_from(KINDS), st.integers(1, 6),
       st.floats(0.0, 1.0))
def test_violating_edges_are_numpys(n, seed, kind, k, zeros):
    # R(u, v) > 0 (Section 2.1): S >= 0 across clusters (zero excluded: R = 0), S < 0 within one;
    # in row-major order, into buffers of exactly N (N - 1) / 2 slots (every edge may violate)
    rng = np.random.default_rng(seed)
    S = _similarities(n, seed, kind)
    S[rng.random((n, n)) < zeros * 0.3] = 0.0
    labels = rng.integers(0, k, size=n)
    iu, iv = np.triu_indices(n, 1)
    s, same = S[iu, iv], labels[iu] == labels[iv]
    keep = np.where(same, s < 0.0, s > 0.0)
    size = n * (n - 1) // 2
    out_u = np.full(size + 1, -7, dtype=np.int64)  # one guard slot past the room
    out_v = np.full(size + 1, -7, dtype=np.int64)
    m = K.violating_edges(S, labels, out_u[:size], out_v[:size])
    assert m == keep.sum() and out_u[size] == out_v[size] == -7
    np.testing.assert_array_equal(out_u[:m], iu[keep])
    np.testing.assert_array_equal(out_v[:m], iv[keep])


def test_violating_edges_every_edge_by_hand():
    # one cluster of negative weights: all 3 edges violate, the buffers are full and not overrun
    S = -np.ones((3, 3))
    out_u = np.full(4, -7, dtype=np.int64)
    out_v = np.full(4, -7, dtype=np.int64)
    assert K.violating_edges(S, np.zeros(3, dtype=np.int64), out_u[:3], out_v[:3]) == 3
    assert out_u.tolist() == [0, 0, 1, -7] and out_v.tolist() == [1, 2, 2, -7]
    # two clusters {0, 1} {2}: only the positive weight across clusters violates
    S = np.array([[0.0, 0.5, 0.2], [0.5, 0.0, -0.1], [0.2, -0.1, 0.0]])
    assert K.violating_edges(S, np.array([0, 0, 1]), out_u[:3], out_v[:3]) == 1
    assert (out_u[0], out_v[0]) == (0, 2)


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 60), st.integers(0, 2**31 - 1), st.sampled_from(KINDS), st.floats(0.0, 1.0),
       st.floats(1.0, 16.0))
def test_local_search_by_sums_with_a_looser_max_is_bitwise_the_plain_kernel(n, seed, kind, k_share, factor):
    # the active loop passes a running maximum of |S|, not max |S| itself: any upper bound only
    # loosens the rounding bounds, so the candidates still hold every maximiser and the run is the same
    S = _similarities(n, seed, kind)
    k = max(1, int(round(k_share * n)))
    start = K.random_labels(n, k, seed)
    plain, fast = start.copy(), start.copy()
    d0, p0 = K.local_search_run_plain(S, plain, seed + 1, 2.0**-52, 1000)
    smax = K.abs_max(S) * factor
    d1, p1 = K.local_search_sums(S, S, fast, seed + 1, 2.0**-52, 1000, np.empty((n, n)), smax)
    np.testing.assert_array_equal(fast, plain)
    assert (d1, p1) == (d0, p0)


def test_abs_max_is_numpys():
    rng = np.random.default_rng(0)
    for n in (1, 3, 4, 5, 67):
        S = rng.normal(size=(n, n))
        S[-1, -1] = -7.5  # the extreme in the last row's tail, negative
        assert K.abs_max(S) == np.abs(S).max() == 7.5


def _plain_restarts(monkeypatch):
    from ccexp.algorithms.active import local_search as LS

    def plain(S, ST, labels, seed, eta, max_passes, M, smax):
        return K.local_search_run_plain(S, labels, seed, eta, max_passes)

    monkeypatch.setattr(LS.K, "local_search_sums", plain)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 60), st.integers(0, 2**31 - 1), st.sampled_from(KINDS),
       st.sampled_from([(3, 1000), (5, 30)]))
def test_restarts_are_bitwise_the_plain_ones(n, seed, kind, schedule):
    # Algorithm 2 as the active loop calls it: the paper's T = 3, and the authors' preset T = 5 x 30 passes
    import pytest

    from ccexp.algorithms.active.local_search import ETA, _local_search

    S = _similarities(n, seed, kind)
    T, max_passes = schedule
    k = int(np.random.default_rng(seed).integers(1, n + 1))
    fast = _local_search(S, k, T, ETA, max_passes, np.random.default_rng(seed))
    with pytest.MonkeyPatch.context() as mp:
        _plain_restarts(mp)
        plain = _local_search(S, k, T, ETA, max_passes, np.random.default_rng(seed))
    np.testing.assert_array_equal(fast[0], plain[0])
    assert fast[1:] == plain[1:]


def test_nearly_symmetric_input_reads_rows_as_the_plain_kernel(monkeypatch):
    # max_correlation_clustering accepts S symmetric within 1e-12: the sums then come from S's transpose
    from ccexp.algorithms.active.local_search import max_correlation_clustering

    rng = np.random.default_rng(3)
    S = _similarities(50, 3, "decimals") + np.triu(rng.normal(scale=1e-13, size=(50, 50)), 1)
    fast = max_correlation_clustering(S, k=5, random_state=0)
    _plain_restarts(monkeypatch)
    plain = max_correlation_clustering(S, k=5, random_state=0)
    np.testing.assert_array_equal(fast[0], plain[0])
    assert fast[1] == plain[1]


def test_local_search_by_sums_by_hand():
    # two blocks {0, 1, 2} and {3, 4}: from the all-in-one clustering, 3 and 4 leave, 4 joins 3
    S = -np.ones((5, 5))
    S[:3, :3] = 1.0
    S[3:, 3:] = 1.0
    np.fill_diagonal(S, 0.0)
    labels = np.zeros(5, dtype=np.int64)
    delta, n_passes = K.local_search_run(S, labels, 0, 2.0**-52, 1000)
    assert labels[0] == labels[1] == labels[2] != labels[3] == labels[4]
    assert delta == 4.0 == K.max_correlation(S, labels)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["paper", "authors"]), st.sampled_from(["maxexp", "uniform"]))
def test_active_runs_are_bitwise_the_plain_ones(seed, preset, strategy):
    # whole runs of Algorithm 1: every clustering of the history, the queries and the similarities
    import pytest

    from ccexp.algorithms.active import ActiveCorrelationClustering
    from ccexp.oracles.active import PairwiseSimilarityOracle

    y = np.random.default_rng(seed).integers(0, 4, size=30)

    def run():
        est = ActiveCorrelationClustering(strategy, max_queries=0.6, batch_size=8, preset=preset, random_state=seed)
        return est.fit(PairwiseSimilarityOracle(y, gamma=0.2, preset=preset, random_state=seed))

    fast = run()
    with pytest.MonkeyPatch.context() as mp:
        _plain_restarts(mp)
        plain = run()
    assert len(fast.history_) == len(plain.history_)
    for a, b in zip(fast.history_, plain.history_):
        np.testing.assert_array_equal(a["labels"], b["labels"])
    np.testing.assert_array_equal(fast.similarity_, plain.similarity_)
    assert fast.objective_ == plain.objective_


# --------------------------------------------------------------------------
# maxmin / maxexp selection (Algorithm 3): bitwise the plain one
# --------------------------------------------------------------------------
def _triangles_plain(sel, S, labels, counts, n_want, rng):
    """BatchSelector._triangles as it was: numpy's gathers of the scores."""
    from ccexp.algorithms.active.strategies import top_b_with_ties

    m = K.violating_edges(S, labels, sel.viol_u, sel.viol_v)
    size = sel.n if sel.xi is None else int(np.floor(sel.xi * m))
    size = K.sample_prefix(sel.viol_u, sel.viol_v, m, size, sel._seed(rng))
    code = K.MAXMIN if sel.strategy == "maxmin" else K.MAXEXP
    info = np.zeros((sel.n, sel.n))
    code = K.MAXEXP_UNPRUNED if code == K.MAXEXP else code
    t, _ = K.score_bad_triangles(S, sel.viol_u, sel.viol_v, size, code, sel.beta, sel._seed(rng),
                                 K.Credits(info, sel.touched_u, sel.touched_v))
    tu, tv = sel.touched_u[:t].copy(), sel.touched_v[:t].copy()
    scores = info[tu, tv]
    ok = counts[tu, tv] < sel.cap
    tu, tv, scores = tu[ok], tv[ok], scores[ok]
    pick = top_b_with_ties(scores, n_want, rng)
    bu = np.empty(n_want, dtype=np.int64)
    bv = np.empty(n_want, dtype=np.int64)
    k = pick.shape[0]
    bu[:k], bv[:k] = tu[pick], tv[pick]
    if k < n_want:
        sel.mark[bu[:k], bv[:k]] = 1
        bu, bv = sel._random(counts, n_want, rng, bu, bv, k)
        sel.mark[bu, bv] = 0
    return bu, bv


@settings(max_examples=150, deadline=None)
@given(st.integers(3, 40), st.integers(0, 2**31 - 1), st.sampled_from(KINDS), st.sampled_from(["maxmin", "maxexp"]),
       st.sampled_from([1.0, 0.0, np.inf, 3.0]), st.integers(1, 60), st.sampled_from([None, 0.3, 1.0]),
       st.sampled_from([1, 2, None]))
def test_triangle_selection_is_bitwise_the_plain_one(n, seed, kind, strategy, beta, n_want, xi, cap):
    # same edges, same order, same generator state after, twice in a row (info must be left at zero)
    S = _similarities(n, seed, kind)
    rng0 = np.random.default_rng(seed)
    labels = rng0.integers(0, max(1, n // 5), size=n)
    counts = np.triu(rng0.integers(0, 3, size=(n, n)).astype(np.int32), 1)
    counts = counts + counts.T
    fast = BatchSelector(n, strategy, beta, 0.0, cap, xi, "uniform")
    plain = BatchSelector(n, strategy, beta, 0.0, cap, xi, "uniform")
    r1, r2 = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
    for _ in range(2):
        bu, bv = fast.select(S, labels, counts, n_want, r1)
        pu, pv = _triangles_plain(plain, S, labels, counts, n_want, r2)
        np.testing.assert_array_equal(bu, pu)
        np.testing.assert_array_equal(bv, pv)
        assert not fast.info.any()
    assert r1.integers(0, 2**62) == r2.integers(0, 2**62)


def _scored(S, labels, strategy, beta, seed, prune):
    """score_bad_triangles over all violating edges: (info, touched u, touched v, n_pruned, the next draw)."""
    return (*score_violating(S, labels, strategy if prune else K.MAXEXP_UNPRUNED, beta, seed), _next_draw())


@njit(cache=True)
def _next_draw():
    # the state of numba's generator after the kernel: the same stream was drawn
    return np.random.randint(0, 2**31 - 1)


@settings(max_examples=200, deadline=None)
@given(st.integers(3, 60), st.integers(0, 2**31 - 1), st.sampled_from(KINDS), st.sampled_from([1.0, 0.0, np.inf, 3.0]))
def test_maxexp_pruning_changes_no_credit(n, seed, kind, beta):
    # every credit, the touched order and the generator's stream as without pruning
    S = _similarities(n, seed, kind)
    labels = np.random.default_rng(seed).integers(0, max(1, n // 5), size=n)
    info, tu, tv, n_pruned, draw = _scored(S, labels, K.MAXEXP, beta, seed % 1000, True)
    info0, tu0, tv0, none_pruned, draw0 = _scored(S, labels, K.MAXEXP, beta, seed % 1000, False)
    np.testing.assert_array_equal(info, info0)
    np.testing.assert_array_equal(tu, tu0)
    np.testing.assert_array_equal(tv, tv0)
    assert draw == draw0 and none_pruned == 0


@pytest.mark.parametrize("kind", ["means", "levels"])
def test_maxexp_pruning_skips_triangles_on_a_real_state(kind):
    # the states of an active run (running means of sigma_0 and answers): a large share is pruned,
    # and the credits are bitwise those of the five exps everywhere
    S = _similarities(120, 7, kind)
    labels = np.random.default_rng(7).integers(0, 12, size=120)
    info, tu, tv, n_pruned, draw = _scored(S, labels, K.MAXEXP, 1.0, 3, True)
    info0, tu0, tv0, _, draw0 = _scored(S, labels, K.MAXEXP, 1.0, 3, False)
    assert n_pruned > 0.2 * tu0.shape[0]
    np.testing.assert_array_equal(info, info0)
    np.testing.assert_array_equal(tu, tu0)
    assert draw == draw0


def test_maxexp_pruning_by_hand():
    # one cluster; edge (0, 1) of weight -0.1 violates it and is the least edge of two bad
    # triangles: w = 2 (weights 1, 1) credits it E = 0.713; w = 3 (weights 0.15, 0.15) has
    # costs summing to 3 * 0.15 + 3 * 0.15 + 2 * 0.1 = 1.1, mean 0.22 < 0.713: pruned
    # (its E would be 0.208, no credit either way)
    S = np.zeros((4, 4))
    S[0, 1] = -0.1
    S[0, 2] = S[1, 2] = 1.0
    S[0, 3] = S[1, 3] = 0.15
    S[2, 3] = -1.0
    S = S + S.T
    labels = np.zeros(4, dtype=np.int64)
    info, tu, tv, n_pruned, _ = _scored(S, labels, K.MAXEXP, 1.0, 0, True)
    assert info[0, 1] == K.expected_cost(-0.1, 1.0, 1.0, 1.0)
    assert K.expected_cost(-0.1, 0.15, 0.15, 1.0) < 0.22 < info[0, 1]
    assert n_pruned == 1
    info0, tu0, *_ = _scored(S, labels, K.MAXEXP, 1.0, 0, False)
    np.testing.assert_array_equal(info, info0)
    np.testing.assert_array_equal(tu, tu0)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from([3, 7, 63, 64, 65, 90, 128, 129]), st.integers(0, 2**31 - 1),
       st.sampled_from(KINDS + ["zeros"]), st.sampled_from([K.MAXMIN, K.MAXEXP, K.MAXEXP_UNPRUNED]),
       st.sampled_from([1.0, 0.0, np.inf]))
def test_scoring_equals_the_plain_python_loop(n, seed, kind, strategy, beta):
    # the kernel (bad triangles from sign bits, 64 w at a time; pruning) against a loop over every w
    # with numpy's legacy generator: same credits, touched order and generator stream; sizes on both
    # sides of the 64-bit words, and exact zeros of both signs
    if kind == "zeros":
        # exact zeros of both signs (-0.0 counts as non-negative), mirrored without adding
        A = np.random.default_rng(seed).choice([-1.0, -0.1, -0.0, 0.0, 0.1, 1.0], size=(n, n))
        S = np.triu(A, 1)
        lower = np.tril_indices(n, -1)
        S[lower] = A.T[lower]
        assert np.array_equal(S, S.T) and (S == 0).any()
    else:
        S = _similarities(n, seed, kind)
    labels = np.random.default_rng(seed).integers(0, max(1, n // 6), size=n)
    eu = np.empty(n * n, dtype=np.int64)
    ev = np.empty(n * n, dtype=np.int64)
    m = K.violating_edges(S, labels, eu, ev)
    m = K.sample_prefix(eu, ev, m, min(m, 40), seed % 997)  # a sample, as the selection takes
    info = np.zeros((n, n))
    tu = np.empty(n * n, dtype=np.int64)
    tv = np.empty(n * n, dtype=np.int64)
    t, _ = K.score_bad_triangles(S, eu, ev, m, strategy, beta, seed % 1000, K.Credits(info, tu, tv))
    draw = _next_draw()
    info0, tu0, tv0, draw0 = score_reference(S, eu[:m], ev[:m], strategy, beta, seed % 1000)
    np.testing.assert_array_equal(info, info0)
    np.testing.assert_array_equal(tu[:t], tu0)
    np.testing.assert_array_equal(tv[:t], tv0)
    assert draw == draw0


@pytest.mark.parametrize("n", [1, 2, 63, 64, 65, 130])
def test_sign_bits_by_hand(n):
    # bit w of row x is S[x, w] >= 0; -0.0 counts; nothing set beyond column n - 1
    rng = np.random.default_rng(n)
    S = rng.choice([-1.0, -0.0, 0.0, 0.5], size=(n, n))
    bits = K.sign_bits(S)
    assert bits.shape == (n, (n + 63) // 64) and bits.dtype == np.uint64
    for x in range(n):
        got = [(int(bits[x, w // 64]) >> (w % 64)) & 1 for w in range(bits.shape[1] * 64)]
        assert got[:n] == [int(S[x, w] >= 0) for w in range(n)]
        assert not any(got[n:])


def _least_queried_reference(counts, cap, n_want, seed):
    """Eq. 9 in numpy: eligible edges in row-major order, the threshold count, numpy's legacy
    generator replaying the kernel's draws of which tied edges to keep."""
    rs = np.random.RandomState(seed)
    iu, iv = np.triu_indices(counts.shape[0], 1)
    c = counts[iu, iv]
    ok = c < cap
    iu, iv, c = iu[ok], iv[ok], c[ok]
    hist = np.bincount(c, minlength=1) if c.size else np.zeros(1, dtype=np.int64)
    cum = np.cumsum(hist)
    hit = np.flatnonzero(cum >= n_want)
    if hit.size == 0:
        return iu, iv  # fewer eligible edges than wanted: all of them
    thr = int(hit[0])
    below = int(cum[thr] - hist[thr])
    n_tie = int(hist[thr])
    idx = np.arange(n_tie)
    keep = np.zeros(n_tie, dtype=bool)
    for i in range(min(n_want - below, n_tie)):
        j = rs.randint(i, n_tie)
        idx[i], idx[j] = idx[j], idx[i]
        keep[idx[i]] = True
    tied = np.flatnonzero(c == thr)
    chosen = (c < thr)
    chosen[tied[keep]] = True
    return iu[chosen], iv[chosen]


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 70), st.integers(0, 2**31 - 1), st.integers(0, 40), st.integers(0, 600),
       st.sampled_from([1, 2, 3, 4, 2**31 - 1]))
def test_least_queried_equals_a_numpy_reference(n, seed, max_count, n_want, cap):
    # the batch of the frequency strategy (Eq. 9): same edges in the same order, whatever the
    # counts, the cap and the batch size (fewer eligible edges than wanted: all of them)
    rng = np.random.default_rng(seed)
    counts = np.triu(rng.integers(0, max_count + 1, size=(n, n)), 1)
    counts = (counts + counts.T).astype(np.int32)
    ru, rv = _least_queried_reference(counts, cap, n_want, seed % 1000)
    for kernel in (K.least_queried, K.least_queried_plain):
        out_u = np.empty(max(n_want, 1), dtype=np.int64)
        out_v = np.empty(max(n_want, 1), dtype=np.int64)
        k = kernel(counts, cap, n_want, seed % 1000, out_u, out_v)
        np.testing.assert_array_equal(out_u[:k], ru)
        np.testing.assert_array_equal(out_v[:k], rv)


@pytest.mark.parametrize("spread", [1, 2])
@pytest.mark.parametrize("n_want", [1, 137, 2_000])
def test_least_queried_on_a_frequency_run_state(spread, n_want):
    # the strategy's own states at a realistic size: counts within one or two of each other, a cap
    # that excludes some edges, so the fast kernel skips rows and stops rows early
    rng = np.random.default_rng(n_want + spread)
    n = 300
    counts = np.triu(1 + rng.integers(0, spread + 1, size=(n, n)), 1)
    counts[rng.random((n, n)) < 0.02] = 4
    counts = np.triu(counts, 1)
    counts = (counts + counts.T).astype(np.int32)
    ru, rv = _least_queried_reference(counts, 4, n_want, 7)
    out_u = np.empty(n_want, dtype=np.int64)
    out_v = np.empty(n_want, dtype=np.int64)
    k = K.least_queried(counts, 4, n_want, 7, out_u, out_v)
    assert k == n_want
    np.testing.assert_array_equal(out_u[:k], ru)
    np.testing.assert_array_equal(out_v[:k], rv)


def test_least_queried_by_hand():
    # 4 items, counts of the 6 edges (0,1)=2 (0,2)=0 (0,3)=1 (1,2)=3 (1,3)=0 (2,3)=1, cap 3
    c = np.zeros((4, 4), dtype=np.int32)
    for (a, b), x in {(0, 1): 2, (0, 2): 0, (0, 3): 1, (1, 2): 3, (1, 3): 0, (2, 3): 1}.items():
        c[a, b] = c[b, a] = x
    out_u = np.empty(6, dtype=np.int64)
    out_v = np.empty(6, dtype=np.int64)
    # two zero-count edges and the two 1s: four wanted takes exactly those, in row-major order
    k = K.least_queried(c, 3, 4, 0, out_u, out_v)
    assert list(zip(out_u[:k], out_v[:k])) == [(0, 2), (0, 3), (1, 3), (2, 3)]
    # (1, 2) is capped: six wanted gives the five eligible edges
    k = K.least_queried(c, 3, 6, 0, out_u, out_v)
    assert list(zip(out_u[:k], out_v[:k])) == [(0, 1), (0, 2), (0, 3), (1, 3), (2, 3)]
    # three wanted: both zeros and one of the two 1s
    k = K.least_queried(c, 3, 3, 0, out_u, out_v)
    got = list(zip(out_u[:k], out_v[:k]))
    assert k == 3 and (0, 2) in got and (1, 3) in got and len({(0, 3), (2, 3)} & set(got)) == 1


# --------------------------------------------------------------------------
# top-B with ties (Section 3.5): the cut by a heap, as numpy's introselect gives it
# --------------------------------------------------------------------------
def _top_b_partition(scores, n_want, rng):
    """top_b_with_ties as it was: the cut by np.partition."""
    m = scores.shape[0]
    if n_want >= m:
        return np.arange(m)
    if n_want <= 0:
        return np.empty(0, dtype=np.int64)
    thr = np.partition(scores, m - n_want)[m - n_want]
    above = np.flatnonzero(scores > thr)
    tied = np.flatnonzero(scores == thr)
    return np.concatenate([above, rng.choice(tied, size=n_want - above.shape[0], replace=False)])


_SCORE_VALUES = st.sampled_from([0.0, -0.0, 0.1, -0.1, 0.25, 1.0, 1.5, -2.0, 3e-300, 7.0])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_SCORE_VALUES, st.floats(-5, 5)), min_size=1, max_size=300), st.data())
def test_kth_largest_is_numpys_order_statistic(values, data):
    x = np.array(values, dtype=np.float64)
    k = data.draw(st.integers(1, x.shape[0]))
    m = x.shape[0]
    assert K.kth_largest(x, k) == np.partition(x, m - k)[m - k]
    # and is the k-th of the sorted values, counted from the top
    assert K.kth_largest(x, k) == np.sort(x)[::-1][k - 1]


@settings(max_examples=200, deadline=None)
@given(st.lists(_SCORE_VALUES, min_size=1, max_size=400), st.integers(-1, 420), st.integers(0, 2**31 - 1))
def test_top_b_with_ties_is_bitwise_the_partition_one(values, n_want, seed):
    # same indices in the same order, and the generator left in the same state (the tie draw)
    from ccexp.algorithms.active.strategies import top_b_with_ties

    scores = np.array(values, dtype=np.float64)
    rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
    got = top_b_with_ties(scores, n_want, rng_a)
    want = _top_b_partition(scores, n_want, rng_b)
    np.testing.assert_array_equal(got, want)
    assert rng_a.random() == rng_b.random()


def test_kth_largest_on_a_hand_checked_case():
    x = np.array([0.5, 2.0, -1.0, 2.0, 0.0, -0.0, 3.0])
    # from the top: 3.0, 2.0, 2.0, 0.5, 0.0, -0.0, -1.0
    assert [K.kth_largest(x, k) for k in range(1, 8)] == [3.0, 2.0, 2.0, 0.5, 0.0, 0.0, -1.0]


@pytest.mark.parametrize("k", [0, -1, 4])
def test_kth_largest_refuses_a_k_outside_the_scores(k):
    with pytest.raises(ValueError, match="k must be in"):
        K.kth_largest(np.array([1.0, 2.0, 3.0]), k)
