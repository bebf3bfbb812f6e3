"""Issue 31 (item 2) speed paths of the active kernels, each against the path it replaced.

The local search's first pass builds the per-cluster sums as it goes
(``maxcor_pass(..., build=True)``) instead of ``build_sums`` after it, and
maxexp's expected triangle cost no longer computes exp(-0.0) for the cheapest
clustering: the runs, and the costs, must be bitwise those of before.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from ccexp.algorithms.active import _kernels as K
from ccexp.algorithms.active._maxcor_sums import maxcor_pass, maxcor_state, seed_visits
from test_active_speed import KINDS, _similarities


def _first_pass(S, start, seed, build):
    """A state after one first pass from ``start`` (the driver's first call), then built the old way if not ``build``."""
    n = S.shape[0]
    labels = start.copy()
    seed_visits(seed)
    state = maxcor_state(labels, np.full((n, n), np.nan), K.abs_max(S))
    out = maxcor_pass(S, S, state, 0.0, True, False, build)
    if not build:
        K.build_sums(S, state)
    return state, out


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**31 - 1), st.sampled_from(KINDS), st.floats(0.0, 1.0))
def test_sums_built_during_the_first_pass_are_build_sums_within_their_bounds(n, seed, kind, k_share):
    # the same pass (labels, objective), the same member lists and bounds; the sums add the rows in
    # visiting order instead of ascending order, so they may differ in the last bits, never beyond the bound
    S = _similarities(n, seed, kind)
    start = K.random_labels(n, max(1, int(round(k_share * n))), seed)
    during, d1 = _first_pass(S, start, seed + 1, True)
    after, d0 = _first_pass(S, start, seed + 1, False)
    assert d1 == d0
    np.testing.assert_array_equal(during.slots.labels, after.slots.labels)
    active = after.slots.active[: after.slots.count[0]]
    for name in ("head", "err", "bound"):
        np.testing.assert_array_equal(getattr(during, name)[active], getattr(after, name)[active])
    members = np.flatnonzero(np.isin(after.slots.labels, active))
    for name in ("nxt", "prv"):
        np.testing.assert_array_equal(getattr(during, name)[members], getattr(after, name)[members])
    for c in active:
        # both within err_c of the exact sums (Higham, Eq. 4.4, any order): within twice the bound of each other
        assert not np.isnan(during.M[c]).any()
        assert np.all(np.abs(during.M[c] - after.M[c]) <= 2 * after.bound[c])


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**31 - 1), st.sampled_from(KINDS), st.floats(0.0, 1.0),
       st.booleans())
def test_either_first_pass_schedule_driven_from_python_is_the_plain_kernel(n, seed, kind, k_share, build):
    S = _similarities(n, seed, kind)
    start = K.random_labels(n, max(1, int(round(k_share * n))), seed)
    plain = start.copy()
    d0, p0 = K.local_search_run_plain(S, plain, seed + 1, 2.0**-52, 1000)
    state, (delta_old, delta) = _first_pass(S, start, seed + 1, build)
    passes = 1
    while abs(delta - delta_old) > 2.0**-52:
        delta_old, delta = maxcor_pass(S, S, state, delta, False, True)
        passes += 1
    np.testing.assert_array_equal(state.slots.labels, plain)
    assert (delta, passes) == (d0, p0)


@njit(cache=False)
def _expected_cost_before(s_uv, s_uw, s_vw, beta):
    """``expected_cost`` as it was before issue 31 (h31s): all five exps computed."""
    t1 = -s_uv if s_uv < 0.0 else 0.0
    a1 = s_uv if s_uv >= 0.0 else 0.0
    t2 = -s_uw if s_uw < 0.0 else 0.0
    a2 = s_uw if s_uw >= 0.0 else 0.0
    t3 = -s_vw if s_vw < 0.0 else 0.0
    a3 = s_vw if s_vw >= 0.0 else 0.0
    c0 = t1 + t2 + t3
    c1 = a1 + a2 + t3
    c2 = a1 + t2 + a3
    c3 = t1 + a2 + a3
    c4 = a1 + a2 + a3
    cmin = min(min(min(c0, c1), min(c2, c3)), c4)
    if np.isinf(beta):
        return cmin
    w0 = np.exp(-beta * (c0 - cmin))
    w1 = np.exp(-beta * (c1 - cmin))
    w2 = np.exp(-beta * (c2 - cmin))
    w3 = np.exp(-beta * (c3 - cmin))
    w4 = np.exp(-beta * (c4 - cmin))
    return (w0 * c0 + w1 * c1 + w2 * c2 + w3 * c3 + w4 * c4) / (w0 + w1 + w2 + w3 + w4)


_SIM = st.one_of(st.sampled_from([0.0, -0.0, 0.1, -0.1, 0.2, -0.2, 1.0, -1.0, 1 / 3, -1 / 3]),
                 st.floats(-5.0, 5.0, allow_nan=False))


@settings(max_examples=2000, deadline=None)
@given(_SIM, _SIM, _SIM, st.sampled_from([0.0, 0.5, 1.0, 2.5, 10.0, 1e3, np.inf]))
def test_expected_cost_without_the_unit_weight_is_bitwise_the_five_exps(s_uv, s_uw, s_vw, beta):
    # exp(-beta * 0.0) = 1.0 exactly, so skipping the cheapest clustering's exp (and a tied one's) changes no bit
    got = K.expected_cost(s_uv, s_uw, s_vw, beta)
    want = _expected_cost_before(s_uv, s_uw, s_vw, beta)
    assert got == want or (np.isnan(got) and np.isnan(want))
    assert np.float64(got).tobytes() == np.float64(want).tobytes()


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 25), st.integers(0, 2**31 - 1), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_open_pairs_are_the_numpy_pairs_of_the_merge(k, seed, share_alive, share_cl):
    # COBRAS's merge: the alive cluster pairs in np.triu_indices order, those with a known cannot-link
    # left out, and their distances (with ties: a few distinct values), as the numpy lines it replaced
    from ccexp.algorithms.active import _cobras_kernels as CK

    rng = np.random.default_rng(seed)
    alive = rng.random(k) < share_alive
    CLc = rng.random((k, k)) < share_cl
    CLc = CLc | CLc.T
    Dc = rng.choice([0.5, 1.0, 2.0, np.inf], size=(k, k))
    Dc = np.minimum(Dc, Dc.T)
    idx = np.flatnonzero(alive)
    a, b = np.triu_indices(idx.shape[0], 1)
    a, b = idx[a], idx[b]
    keep = ~CLc[a, b]
    a, b = a[keep], b[keep]
    n_pairs = k * (k - 1) // 2
    out_a, out_b = np.full(n_pairs, -1, dtype=np.int64), np.full(n_pairs, -1, dtype=np.int64)
    out_d = np.full(n_pairs, np.nan)
    m = CK.open_pairs(idx, CLc, Dc, out_a, out_b, out_d)
    assert m == a.shape[0]
    np.testing.assert_array_equal(out_a[:m], a)
    np.testing.assert_array_equal(out_b[:m], b)
    np.testing.assert_array_equal(out_d[:m], Dc[a, b])
    np.testing.assert_array_equal(np.argsort(out_d[:m], kind="stable"), np.argsort(Dc[a, b], kind="stable"))
