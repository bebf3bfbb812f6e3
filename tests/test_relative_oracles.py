"""Relative-constraint oracles (Liu et al. 2011, Sections 5.1 and 5.2)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccexp import make_problem
from ccexp.algorithms.relative import is_consistent
from ccexp.data import Dataset
from ccexp.oracles.relative import informative_relative_constraints, random_relative_constraints


def _ds(y, d=2):
    y = np.asarray(y)
    return Dataset(name="toy", y=y, X=np.random.default_rng(0).normal(size=(len(y), d)))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=4, max_size=40), st.integers(0, 60), st.integers(0, 2**31))
def test_random_constraints_follow_the_labels(labels, m, seed):
    y = np.array(labels)
    counts = np.bincount(y)
    n = len(y)
    possible = int(np.sum(counts * (counts - 1) // 2 * (n - counts)))
    if possible == 0:
        return
    m = min(m, possible)
    R = random_relative_constraints(y, m, seed)
    assert R.shape == (m, 3)
    if m:
        assert np.all(y[R[:, 0]] == y[R[:, 1]]) and np.all(y[R[:, 0]] != y[R[:, 2]])
        assert np.all(R[:, 0] != R[:, 1])
        keys = {(min(a, b), max(a, b), c) for a, b, c in R.tolist()}
        assert len(keys) == m  # distinct up to the order of a, b
        assert is_consistent(R, n)  # the label hierarchy satisfies them all


def test_random_oracle_counts_seed_and_meta():
    ds = _ds(np.repeat([0, 1, 2], 10))
    p = make_problem("relative_random", ds, fraction=0.5, random_state=3)
    assert p.relative.shape == (15, 3) and p.meta["n_clusters"] == 3
    # the data's size, as the paper's Table 1 states it (instances, dimensions), for the report
    assert (p.meta["n_items"], p.meta["n_features"]) == (30, 2)
    inf = make_problem("relative_informative", _ds(np.repeat([0, 1], 4), d=5), fraction=1.0, random_state=0)
    assert (inf.meta["n_items"], inf.meta["n_features"], inf.meta["n_clusters"]) == (8, 5, 2)
    np.testing.assert_array_equal(p.X, ds.X)
    assert not np.shares_memory(p.X, ds.X)  # the Problem holds its own copy
    q = make_problem("relative_random", ds, fraction=0.5, random_state=3)
    np.testing.assert_array_equal(p.relative, q.relative)
    assert make_problem("relative_random", ds, n_constraints=0).relative.shape == (0, 3)
    with pytest.raises(ValueError, match="exactly one"):
        make_problem("relative_random", ds, n_constraints=3, fraction=0.1)
    with pytest.raises(ValueError, match="only 1 exist"):
        random_relative_constraints(np.array([0, 0, 1]), 5)


def test_generate_constraints_by_hand():
    # clusters {0, 1, 2}, {3, 4}; representatives 0 and 3 (the "first" rule)
    R = informative_relative_constraints(np.array([0, 0, 0, 1, 1]), representative="first")
    assert sorted(map(tuple, R.tolist())) == [(0, 1, 3), (0, 2, 3), (3, 4, 0)]


def test_informative_set_size_consistency_and_subsets():
    y = np.repeat([0, 1, 2, 3], [5, 6, 7, 8])
    ds = _ds(y)
    full = make_problem("relative_informative", ds, fraction=1.0, random_state=0)
    k, n = 4, len(y)
    assert full.relative.shape[0] == (k - 1) * (n - k) == full.meta["n_informative"]
    assert is_consistent(full.relative, n)
    half = make_problem("relative_informative", ds, fraction=0.5, random_state=0)
    assert half.relative.shape[0] == round(0.5 * full.relative.shape[0])
    assert {tuple(r) for r in half.relative.tolist()} <= {tuple(r) for r in full.relative.tolist()}
