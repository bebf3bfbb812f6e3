"""The aggregation objective's per-problem parts are computed once per problem (issue 31: agg_* wall time).

Every case of an agg_* instance scores its labels against the same input clusterings, whose encoding
and lower bound do not depend on the labels; ``clusterings_objective`` keeps both per problem.
"""

import gc

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ccexp.objectives import clusterings as obj
from ccexp.objectives import problem_objective
from ccexp.problem import Problem


def _problem(seed, n=30, m=4, missing=0.1, p=None):
    rng = np.random.default_rng(seed)
    C = rng.integers(0, 4, size=(m, n))
    C[rng.random((m, n)) < missing] = -1
    return Problem(n_items=n, clusterings=C, meta={} if p is None else {"missing_p": p})


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 40), m=st.integers(1, 6), p=st.sampled_from([None, 0.3, 0.5]))
def test_each_case_gets_what_a_fresh_computation_gives(seed, n, m, p):
    prob = _problem(seed, n, m, p=p)
    rng = np.random.default_rng(seed + 1)
    coin = 0.5 if p is None else p
    for _ in range(3):  # the first case fills the cache, the later ones read it
        labels = rng.integers(0, 5, n)
        got = problem_objective(labels, prob)
        assert got["objective"] == obj.disagreement(labels, obj.encode(prob.clusterings, coin))
        assert got["lower_bound"] == obj.lower_bound(obj.encode(prob.clusterings, coin))


def test_the_lower_bound_is_computed_once_per_problem(monkeypatch):
    calls = []
    real = obj.lower_bound
    monkeypatch.setattr(obj, "lower_bound", lambda enc, *a, **k: calls.append(1) or real(enc, *a, **k))
    first, second = _problem(0), _problem(1)
    rng = np.random.default_rng(2)
    for _ in range(5):
        problem_objective(rng.integers(0, 3, 30), first)
    assert len(calls) == 1
    problem_objective(rng.integers(0, 3, 30), second)  # another problem: its own bound
    assert len(calls) == 2
    # another coin on the same problem object (meta is a plain dict) is computed afresh
    first.meta["missing_p"] = 0.25
    got = problem_objective(np.zeros(30, dtype=np.int64), first)
    assert len(calls) == 3
    assert got["lower_bound"] == real(obj.encode(first.clusterings, 0.25))


def test_a_problem_that_is_gone_leaves_nothing_behind():
    prob = _problem(3)
    problem_objective(np.zeros(30, dtype=np.int64), prob)
    assert prob in obj._PER_PROBLEM
    n = len(obj._PER_PROBLEM)
    del prob
    gc.collect()
    assert len(obj._PER_PROBLEM) == n - 1
