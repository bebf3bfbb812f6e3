"""Tests of ccexp.metrics: scikit-learn and plain pair loops as the oracles."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_mutual_info_score, adjusted_rand_score

import ccexp.metrics
from ccexp.metrics import (
    adjusted_mutual_info,
    adjusted_rand,
    clustering_metrics,
    n_clusters,
    pairwise_precision_recall_f,
    score,
)

FAST = settings(max_examples=80, deadline=None)


@st.composite
def label_pairs(draw, max_n=30):
    n = draw(st.integers(1, max_n))  # empty input is refused (test_empty_input_is_refused)
    k_true = draw(st.integers(1, max(n, 1)))
    k_pred = draw(st.integers(1, max(n, 1)))
    y_true = draw(st.lists(st.integers(0, k_true - 1), min_size=n, max_size=n))
    y_pred = draw(st.lists(st.integers(0, k_pred - 1), min_size=n, max_size=n))
    return np.array(y_true, dtype=np.int64), np.array(y_pred, dtype=np.int64)


def pair_loop_reference(y_true, y_pred):
    """Liu, Zhang and Wang (2011, Section 5) over all O(n^2) pairs, with the documented 0/0 rules."""
    correct = predicted = true = 0
    for i, j in itertools.combinations(range(len(y_true)), 2):
        same_true = y_true[i] == y_true[j]
        same_pred = y_pred[i] == y_pred[j]
        predicted += same_pred
        true += same_true
        correct += same_true and same_pred
    p = correct / predicted if predicted else 1.0
    r = correct / true if true else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


# ------------------------------------------------------------- ARI and AMI


@FAST
@given(label_pairs())
def test_ari_ami_equal_scikit_learn(data):
    y_true, y_pred = data
    assert adjusted_rand(y_true, y_pred) == adjusted_rand_score(y_true, y_pred)
    assert adjusted_mutual_info(y_true, y_pred) == adjusted_mutual_info_score(y_true, y_pred)


def test_ari_ami_identical_partitions():
    assert adjusted_rand([0, 0, 1, 2], [9, 9, -1, 4]) == 1.0
    assert adjusted_mutual_info([0, 0, 1, 2], [9, 9, -1, 4]) == pytest.approx(1.0)


# --------------------------------------------------- pairwise P / R / F


def test_pairwise_hand_checked():
    # classes {0,1,2} {3,4} {5}; clusters {0,1} {2,3,4,5}
    # true pairs:      C(3,2) + C(2,2)          = 3 + 1 = 4
    # predicted pairs: C(2,2) + C(4,2)          = 1 + 6 = 7
    # correct pairs:   (0,1), (3,4)             = 2
    # P = 2/7, R = 2/4 = 1/2, F = 2 * (2/7)(1/2) / (2/7 + 1/2) = (2/7) / (11/14) = 4/11
    p, r, f = pairwise_precision_recall_f([0, 0, 0, 1, 1, 2], [0, 0, 1, 1, 1, 1])
    assert p == pytest.approx(2 / 7)
    assert r == pytest.approx(1 / 2)
    assert f == pytest.approx(4 / 11)


@pytest.mark.parametrize(
    "y_true, y_pred, expected",
    [
        # no predicted pairs (all singletons) but true pairs: P = 1 by convention, R = 0, F = 0
        ([0, 0, 1], [0, 1, 2], (1.0, 0.0, 0.0)),
        # no true pairs, predicted pairs: P = 0, R = 1 by convention, F = 0
        ([0, 1, 2], [0, 0, 0], (0.0, 1.0, 0.0)),
        # no pairs on either side: all conventions give 1
        ([0, 1, 2], [2, 1, 0], (1.0, 1.0, 1.0)),
        # fewer than two items: no pairs at all
        ([5], [3], (1.0, 1.0, 1.0)),
        # predicted pairs and true pairs, none in common: P = R = 0 -> F = 0
        ([0, 0, 1, 1], [0, 1, 0, 1], (0.0, 0.0, 0.0)),
    ],
)
def test_pairwise_zero_over_zero_cases(y_true, y_pred, expected):
    got = pairwise_precision_recall_f(np.array(y_true, dtype=np.int64), np.array(y_pred, dtype=np.int64))
    assert got == expected
    assert got == pair_loop_reference(y_true, y_pred)


@FAST
@given(label_pairs())
def test_pairwise_matches_pair_loop(data):
    y_true, y_pred = data
    p, r, f = pairwise_precision_recall_f(y_true, y_pred)
    ep, er, ef = pair_loop_reference(y_true, y_pred)
    assert p == pytest.approx(ep, rel=1e-12)
    assert r == pytest.approx(er, rel=1e-12)
    assert f == pytest.approx(ef, rel=1e-12)


@FAST
@given(label_pairs(), st.randoms(use_true_random=False))
def test_metrics_invariant_under_relabelling(data, rnd):
    y_true, y_pred = data

    def relabel(y):
        ids = np.unique(y)
        new = np.array(rnd.sample(range(-100, 100), len(ids)), dtype=np.int64)
        return new[np.searchsorted(ids, y)]

    yt, yp = relabel(y_true), relabel(y_pred)
    assert pairwise_precision_recall_f(yt, yp) == pairwise_precision_recall_f(y_true, y_pred)
    assert adjusted_rand(yt, yp) == pytest.approx(adjusted_rand(y_true, y_pred), abs=1e-12)
    assert adjusted_mutual_info(yt, yp) == pytest.approx(adjusted_mutual_info(y_true, y_pred), abs=1e-12)
    assert n_clusters(yp) == n_clusters(y_pred)
    # swapping the roles of truth and prediction swaps precision and recall
    p, r, f = pairwise_precision_recall_f(y_true, y_pred)
    assert pairwise_precision_recall_f(y_pred, y_true) == (r, p, f)


def test_pairwise_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="y_pred has 2 entries, expected 3"):
        pairwise_precision_recall_f([0, 0, 1], [0, 1])
    # float labels are encoded, never cast: 0.5 and 0.7 are two classes (int() would merge them)
    assert adjusted_rand([0.5, 0.7], [0, 1]) == 1.0
    assert pairwise_precision_recall_f([0.5, 0.7, 0.7], [0, 0, 1]) == (0.0, 0.0, 0.0)


def test_empty_input_is_refused():
    with pytest.raises(ValueError, match="y_true is empty"):
        pairwise_precision_recall_f([], [])
    with pytest.raises(ValueError, match="labels is empty"):
        n_clusters([])


# ----------------------------------------------- n_clusters, dicts, score


def test_n_clusters():
    assert n_clusters([3, 3, 7, -1]) == 3
    assert n_clusters(np.zeros(5, dtype=np.int64)) == 1


def test_clustering_metrics_keys_and_values():
    y = [0, 0, 0, 1, 1, 2]
    labels = [0, 0, 1, 1, 1, 1]
    m = clustering_metrics(labels, y)
    assert list(m) == ["ari", "ami", "precision", "recall", "f_measure", "classification_error", "n_clusters"]
    assert m["ari"] == adjusted_rand_score(y, labels)
    assert m["ami"] == adjusted_mutual_info_score(y, labels)
    assert (m["precision"], m["recall"]) == pytest.approx((2 / 7, 1 / 2))  # see the hand-checked test
    assert m["f_measure"] == pytest.approx(4 / 11)
    assert m["n_clusters"] == 2 and isinstance(m["n_clusters"], int)
    # EC: cluster {0, 1} is all class 0 (2 right), cluster {2..5} has majority
    # class 1 with 2 of 4 -> 4 of 6 credited, EC = 1/3
    assert m["classification_error"] == pytest.approx(1 / 3)


def test_clustering_metrics_without_ground_truth():
    m = clustering_metrics([0, 1, 1], None)
    assert m["n_clusters"] == 2
    for key in ("ari", "ami", "precision", "recall", "f_measure", "classification_error"):
        assert math.isnan(m[key])


def test_score_adds_the_problem_objective(monkeypatch):
    # a stand-in for ccexp.objectives.problem_objective checks the wiring only
    calls = []

    def problem_objective(labels, problem):
        calls.append((labels.tolist(), problem))
        return {"objective": 1.5}

    monkeypatch.setattr(ccexp.metrics, "problem_objective", problem_objective)

    plain = score([0, 0, 1], [0, 0, 1])
    assert plain == clustering_metrics([0, 0, 1], [0, 0, 1])
    assert "objective" not in plain and calls == []

    sentinel = object()
    with_problem = score([0, 0, 1], [0, 0, 1], problem=sentinel)
    assert with_problem == {**plain, "objective": 1.5}
    assert calls == [([0, 0, 1], sentinel)]
