"""Exact correlation clustering (ccexp.cc.exact) against brute force over all partitions.

Dyadic weights keep every cost exact in float64, so optima compare with ``==``.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _brute import all_partitions
from ccexp.objectives.clusterings import disagreement
from ccexp.objectives.kernels import triplet_cost
from ccexp.cc import cc_cost, signed_graph_from_edges
from ccexp.cc.exact import (
    PairObjective,
    _triplet_rows,
    all_triangles,
    cc_exact,
    cc_lp,
    pair_index,
    violated_triangles,
)

FAST = settings(max_examples=25, deadline=None)
DYADIC = [-2.0, -1.5, -1.0, -0.5, 0.0, 0.0, 0.5, 1.0, 1.5, 2.0]
try:
    import ortools  # noqa: F401  (the optional extra "exact")
    SOLVERS = ["highs", "cpsat"]
except ImportError:  # CP-SAT is optional: its cases run where ccexp[exact] is installed (CI installs it)
    SOLVERS = ["highs"]


def brute_optimum(obj: PairObjective) -> float:
    return min(obj.cost(p) for p in all_partitions(obj.n_items))


@st.composite
def weight_matrices(draw, max_n=7):
    n = draw(st.integers(2, max_n))
    vals = draw(st.lists(st.sampled_from(DYADIC), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2))
    W = np.zeros((n, n))
    iu, iv = np.triu_indices(n, 1)
    W[iu, iv] = vals
    return W + W.T


@st.composite
def triplet_sets(draw, max_n=7):
    n = draw(st.integers(3, max_n))
    m = draw(st.integers(0, 25))
    rows = []
    for _ in range(m):
        a, b, c = draw(st.permutations(range(n)).map(lambda p: p[:3]))
        rows.append((a, b, c))
    return n, np.array(rows, dtype=np.int64).reshape(-1, 3)


# ------------------------------------------------------------ objectives


def test_pair_index_matches_triu_order():
    n = 6
    iu, iv = np.triu_indices(n, 1)
    assert pair_index(n, iu, iv).tolist() == list(range(iu.size))
    assert pair_index(n, iv, iu).tolist() == list(range(iu.size))


@given(weight_matrices())
@FAST
def test_graph_objective_is_cc_cost(W):
    n = W.shape[0]
    iu, iv = np.triu_indices(n, 1)
    g = signed_graph_from_edges(n, iu, iv, W[iu, iv])
    obj = PairObjective.from_graph(g)
    rng = np.random.default_rng(n)
    for _ in range(5):
        lab = rng.integers(0, 3, size=n)
        assert obj.cost(lab) == cc_cost(lab, g)


@given(triplet_sets())
@FAST
def test_triplet_objective_is_s_f_T(nt):
    n, T = nt
    obj = PairObjective.from_triplets(T, n)
    rng = np.random.default_rng(len(T))
    for _ in range(5):
        lab = rng.integers(0, 3, size=n).astype(np.int64)
        assert obj.cost(lab) == triplet_cost(T, lab)


def test_distance_objective_is_gionis_disagreement():
    C = np.array([[0, 0, 1, 1, 2], [0, 1, 1, 2, 2], [0, 0, 0, 1, 1]])
    X = (C[:, :, None] != C[:, None, :]).mean(axis=0)
    obj = PairObjective.from_distances(X)
    for lab in ([0, 0, 1, 1, 2], [0, 0, 0, 1, 1], [0, 1, 2, 3, 4]):
        assert obj.cost(lab) == pytest.approx(disagreement(np.array(lab), C))


# ------------------------------------------------------------ exact vs brute force


@pytest.mark.parametrize("solver", SOLVERS)
@given(W=weight_matrices())
@FAST
def test_exact_graph_matches_brute_force(solver, W):
    obj = PairObjective.from_weights(W)
    res = cc_exact(obj, solver=solver, time_limit=20)
    assert res.optimal and res.gap == 0.0
    best = brute_optimum(obj)
    assert res.objective == best
    assert obj.cost(res.labels) == best
    assert res.lower_bound == pytest.approx(best)


@pytest.mark.parametrize("solver", SOLVERS)
@given(nt=triplet_sets())
@FAST
def test_exact_triplets_matches_brute_force(solver, nt):
    n, T = nt
    obj = PairObjective.from_triplets(T, n)
    res = cc_exact(obj, solver=solver, time_limit=20)
    assert res.optimal
    assert res.objective == brute_optimum(obj) == triplet_cost(T, res.labels)


@pytest.mark.parametrize("solver", SOLVERS)
def test_exact_n8_distances_brute_force(solver):
    rng = np.random.default_rng(3)
    C = rng.integers(0, 3, size=(4, 8))
    X = (C[:, :, None] != C[:, None, :]).mean(axis=0)  # multiples of 1/4: exact
    obj = PairObjective.from_distances(X)
    res = cc_exact(obj, solver=solver, time_limit=20)
    assert res.optimal
    assert res.objective == brute_optimum(obj)


@pytest.mark.parametrize("solver", SOLVERS)
def test_all_triangles_agrees_with_lazy(solver):
    rng = np.random.default_rng(7)
    W = rng.choice(DYADIC, size=(7, 7))
    W = np.triu(W, 1) + np.triu(W, 1).T
    obj = PairObjective.from_weights(W)
    a = cc_exact(obj, solver=solver, triangles="all")
    b = cc_exact(obj, solver=solver, triangles="lazy")
    assert a.optimal and b.optimal and a.objective == b.objective == brute_optimum(obj)
    assert a.n_triangles == 3 * 35


def test_bad_triangle_needs_a_cut():
    # + + - triangle: the relaxation without cuts would join 0-1 and 1-2 but split 0-2
    W = np.array([[0, 1, -1], [1, 0, 1], [-1, 1, 0]], dtype=float)
    res = cc_exact(PairObjective.from_weights(W))
    assert res.optimal and res.objective == 1.0


# ------------------------------------------------------------ LP relaxation


@given(weight_matrices())
@FAST
def test_lp_is_a_metric_lower_bound(W):
    obj = PairObjective.from_weights(W)
    lp = cc_lp(obj)
    assert lp.optimal
    assert lp.value <= brute_optimum(obj) + 1e-7
    assert violated_triangles(lp.x, obj.n_items, tol=1e-6).shape[0] == 0
    assert np.all((lp.x >= -1e-9) & (lp.x <= 1 + 1e-9))


def test_lp_bad_triangle_by_hand():
    W = np.array([[0, 1, -1], [1, 0, 1], [-1, 1, 0]], dtype=float)
    lp = cc_lp(PairObjective.from_weights(W))
    # x01 + x12 + (1 - x02) >= 1 since x02 <= x01 + x12: the LP is tight at OPT = 1
    assert lp.value == pytest.approx(1.0)


def test_triplet_cut_holds_on_every_partition_of_three_items():
    # 2 z - x_ab + x_ac + x_bc >= 2 for t = (a, b, c), z = 1 unless the partition is ab|c
    for labels in all_partitions(3):
        a, b, c = labels
        x_ab, x_ac, x_bc = float(a != b), float(a != c), float(b != c)
        z = 0.0 if (a == b and c != a) else 1.0
        assert 2 * z - x_ab + x_ac + x_bc >= 2


def test_one_triplets_polytope_has_integral_vertices_only():
    # variables (x_ab, x_ac, x_bc, z); rows A v >= b: bounds, the three triangles, the four
    # triplet rows of cc.exact. Every vertex (4 tight, independent rows) must be 0/1.
    rows = [([1, 0, 0, 0], 0), ([-1, 0, 0, 0], -1), ([0, 1, 0, 0], 0), ([0, -1, 0, 0], -1),
            ([0, 0, 1, 0], 0), ([0, 0, -1, 0], -1), ([0, 0, 0, 1], 0), ([0, 0, 0, -1], -1),
            ([-1, 1, 1, 0], 0), ([1, -1, 1, 0], 0), ([1, 1, -1, 0], 0),
            ([-1, 0, 0, 1], 0), ([0, 1, 0, 1], 1), ([0, 0, 1, 1], 1), ([-1, 1, 1, 2], 2)]
    A = np.array([r for r, _ in rows], dtype=float)
    b = np.array([v for _, v in rows], dtype=float)
    vertices = set()
    for S in combinations(range(len(rows)), 4):
        M = A[list(S)]
        if abs(np.linalg.det(M)) < 1e-9:
            continue
        v = np.linalg.solve(M, b[list(S)])
        if np.all(A @ v >= b - 1e-9):
            vertices.add(tuple(np.round(v, 9) + 0.0))
    assert vertices == {(0, 0, 0, 1), (0, 1, 1, 0), (0, 1, 1, 1), (1, 0, 1, 1), (1, 1, 0, 1), (1, 1, 1, 1)}
    # the same rows as the model builds them
    A_trip, lb = _triplet_rows(PairObjective.from_triplets(np.array([[0, 1, 2]]), 3))
    np.testing.assert_array_equal(A_trip.toarray(), A[-4:])
    np.testing.assert_array_equal(lb, b[-4:])


def test_triplet_lp_is_tight_on_three_cyclic_triplets():
    # (0,1,2), (0,2,1), (1,2,0): at most one holds, OPT = 2. Without the cut the LP sets
    # every x to 1/2 and every z to 1/2 (bound 1.5); with it z >= 3/4 there, and the LP is 2
    T = np.array([[0, 1, 2], [0, 2, 1], [1, 2, 0]])
    obj = PairObjective.from_triplets(T, 3)
    assert brute_optimum(obj) == 2.0
    assert cc_lp(obj).value == pytest.approx(2.0)


@FAST
@given(triplet_sets())
def test_triplet_lp_is_a_lower_bound(nt):
    n, T = nt
    obj = PairObjective.from_triplets(T, n)
    lp = cc_lp(obj)
    assert lp.optimal
    assert lp.value <= brute_optimum(obj) + 1e-7


# ------------------------------------------------------------ limits and errors


def test_time_limit_reports_bound_and_gap():
    rng = np.random.default_rng(0)
    n = 14
    T = np.array([rng.permutation(n)[:3] for _ in range(300)])
    obj = PairObjective.from_triplets(T, n)
    res = cc_exact(obj, time_limit=0.05)
    assert res.lower_bound <= res.objective + 1e-9
    assert obj.cost(res.labels) == res.objective
    if not res.optimal:
        assert res.gap > 0


def test_all_triangles_count():
    assert all_triangles(5).shape == (30, 3)


@pytest.mark.parametrize(
    "kwargs, match",
    [({"solver": "gurobi"}, "solver"), ({"triangles": "some"}, "triangles"), ({"time_limit": 0}, "time_limit")],
)
def test_bad_arguments(kwargs, match):
    obj = PairObjective.from_weights(np.zeros((3, 3)))
    with pytest.raises(ValueError, match=match):
        cc_exact(obj, **kwargs)


def test_bad_objectives():
    with pytest.raises(ValueError, match="apart"):
        PairObjective(3, np.array([-1.0, 0, 0]), np.zeros(3))
    with pytest.raises(ValueError, match="X"):
        PairObjective.from_distances(np.full((3, 3), 2.0))
    with pytest.raises(ValueError, match="W"):
        PairObjective.from_weights(np.zeros((2, 3)))
