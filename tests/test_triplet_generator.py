"""The synthetic triplet oracle (Ukkonen 2017, Section V-A): counts, truth, determinism."""

from math import comb

import numpy as np
import pytest

import ccexp
from ccexp.oracles import generate_triplets


def _informative_count(y):
    """3-sets with exactly two items in one cluster: sum_c C(s_c, 2) (n - s_c)."""
    n = len(y)
    sizes = np.bincount(y)
    return int(sum(comb(int(s), 2) * (n - int(s)) for s in sizes))


def _is_truthful(T, y):
    return (y[T[:, 0]] == y[T[:, 1]]) & (y[T[:, 0]] != y[T[:, 2]])


@pytest.mark.parametrize("k", [2, 3, 5])
def test_all_3sets_at_a1(k):
    y = ccexp.load_dataset("synthetic_labels", n=17, k=k, random_state=0).y
    T, info = generate_triplets(y, 1.0, 0.0, random_state=0)
    assert T.shape == (comb(17, 3), 3)
    assert info["n_triplets"] == comb(17, 3) and info["n_noisy"] == 0
    # every 3-set exactly once
    keys = np.sort(T, axis=1)
    assert len(np.unique(keys, axis=0)) == comb(17, 3)
    # the 2+1 sets name the right outlier; the others are the ambiguous ones
    assert _is_truthful(T, y).sum() == _informative_count(y)


def test_drop_keeps_only_informative_and_all_truthful():
    y = ccexp.load_dataset("synthetic_labels", n=20, k=4, random_state=0).y
    T, info = generate_triplets(y, 1.0, 0.0, ambiguous="drop", random_state=0)
    assert len(T) == _informative_count(y)
    assert info["n_ambiguous_dropped"] == comb(20, 3) - _informative_count(y)
    assert _is_truthful(T, y).all()


def test_fraction_and_noise_counts():
    y = ccexp.load_dataset("synthetic_labels", n=30, k=3, random_state=0).y
    T, info = generate_triplets(y, 0.1, 0.2, ambiguous="drop", random_state=3)
    n_kept = round(0.1 * comb(30, 3))
    assert info["n_triplets"] + info["n_ambiguous_dropped"] == n_kept
    assert info["n_noisy"] == round(0.2 * info["n_triplets"])
    # a noisy triplet swapped its outlier with a pair member: exactly those are untruthful
    assert (~_is_truthful(T, y)).sum() == info["n_noisy"]
    assert len(np.unique(np.sort(T, axis=1), axis=0)) == len(T)


def test_rotate_rule_is_fixed():
    y = np.array([0, 0, 0, 1, 2])
    T, _ = generate_triplets(y, 1.0, 0.0, ambiguous="rotate", order="sorted")
    rows = {tuple(sorted(t)): t[2] for t in T.tolist()}
    # (0,1,2) all in cluster 0: position (0+1+2) % 3 = 0 -> item 0 is the outlier
    assert rows[(0, 1, 2)] == 0
    # (0,3,4) all different: (0+3+4) % 3 = 1 -> item 3
    assert rows[(0, 3, 4)] == 3
    # (0,1,3): two in cluster 0 -> 3 is the outlier whatever the rule
    assert rows[(0, 1, 3)] == 3


def test_last_rule():
    y = np.array([0, 1, 2])
    T, _ = generate_triplets(y, 1.0, 0.0, ambiguous="last")
    assert T.tolist() == [[0, 1, 2]]


def test_a1_b0_content_is_deterministic_order_is_seeded():
    y = ccexp.load_dataset("synthetic_labels", n=16, k=4, random_state=0).y
    T1, _ = generate_triplets(y, 1.0, 0.0, random_state=1)
    T2, _ = generate_triplets(y, 1.0, 0.0, random_state=2)
    as_set = lambda T: {tuple(r) for r in T.tolist()}  # noqa: E731
    assert as_set(T1) == as_set(T2)
    S1, _ = generate_triplets(y, 1.0, 0.0, order="sorted", random_state=1)
    S2, _ = generate_triplets(y, 1.0, 0.0, order="sorted", random_state=2)
    np.testing.assert_array_equal(S1, S2)


def test_same_seed_same_output_different_seed_different_sample():
    y = ccexp.load_dataset("synthetic_labels", n=25, k=5, random_state=0).y
    a, _ = generate_triplets(y, 0.05, 0.1, random_state=7)
    b, _ = generate_triplets(y, 0.05, 0.1, random_state=7)
    c, _ = generate_triplets(y, 0.05, 0.1, random_state=8)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_make_problem_matches_generator():
    ds = ccexp.load_dataset("synthetic_labels", n=12, k=3, random_state=0)
    prob = ccexp.make_problem("triplets", ds, fraction=0.5, noise=0.1, random_state=0)
    T, _ = generate_triplets(ds.y, 0.5, 0.1, random_state=0)
    np.testing.assert_array_equal(prob.triplets, T)
    assert prob.n_items == 12
    assert not hasattr(prob, "y")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"fraction": 0.0}, "fraction must be in \\(0, 1\\], got 0.0"),
        ({"fraction": 1.5}, "fraction must be in \\(0, 1\\], got 1.5"),
        ({"noise": -0.1}, "noise must be in \\[0, 1\\], got -0.1"),
        ({"noise": 2}, "noise must be in \\[0, 1\\], got 2"),
        ({"ambiguous": "middle"}, "unknown ambiguous rule 'middle'; valid .*drop, last, random, rotate"),
        ({"order": "reverse"}, "unknown order 'reverse'; valid orders are: shuffled, sorted"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, match):
    ds = ccexp.load_dataset("synthetic_labels", n=10, k=2, random_state=0)
    with pytest.raises(ValueError, match=match):
        ccexp.make_problem("triplets", ds, random_state=0, **kwargs)
