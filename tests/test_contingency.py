"""The numba contingency table and ARI / AMI from it, against scikit-learn and by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_mutual_info_score, adjusted_rand_score

from ccexp.cc import contingency as C
from ccexp.cc.contingency import (
    adjusted_mutual_info_fast,
    adjusted_rand_fast,
    ari_ami,
    contingency_table,
    expected_mutual_information,
)


def _dense(rows, cols, counts, n_rows, n_cols):
    t = np.zeros((n_rows, n_cols), dtype=np.int64)
    t[rows, cols] = counts
    return t


def test_table_by_hand():
    # classes 7, 3, 7, 3, 9 and clusters 0, 0, 1, 1, 1: classes sorted 3 < 7 < 9
    y = np.array([7, 3, 7, 3, 9])
    p = np.array([0, 0, 1, 1, 1])
    rows, cols, counts, a, b = contingency_table(y, p)
    assert _dense(rows, cols, counts, 3, 2).tolist() == [[1, 1], [1, 1], [0, 1]]
    assert a.tolist() == [2, 2, 1] and b.tolist() == [2, 3]


def test_ari_by_hand():
    assert adjusted_rand_fast([0, 0, 1, 1], [0, 0, 0, 0]) == 0.0
    assert adjusted_rand_fast([0, 0, 1, 1], [5, 5, 2, 2]) == 1.0
    # truth {01}{23}{45}, prediction {01}{2345}: of the 15 pairs tp 3, fp 4, fn 0, tn 8;
    # ARI = 2 (tp tn - fn fp) / ((tp + fn)(fn + tn) + (tp + fp)(fp + tn)) = 48 / 108
    assert adjusted_rand_fast([0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 1]) == pytest.approx(48 / 108, abs=1e-15)


def test_emi_by_hand():
    # two labelings of n = 2 items into 2 singletons each: the table is a permutation,
    # n_ij in {1} only: EMI = sum_ij 1/2 log(2*1/(1*1)) * P(n_ij = 1) with P = 1/2 -> 4 * 1/2 * log 2 * 1/2 = log 2
    assert expected_mutual_information(np.array([1, 1]), np.array([1, 1]), 2) == pytest.approx(np.log(2), abs=1e-15)


def _sorted_table(y, p):
    """The table by the sorting path only (the one of before the counting paths)."""
    ri, n_rows = C._compress_sorted(y)
    ci, n_cols = C._compress_sorted(p)
    keys = np.unique(ri * n_cols + ci, return_counts=True)
    return keys[0] // n_cols, keys[0] % n_cols, keys[1], np.bincount(ri, minlength=n_rows), np.bincount(ci, minlength=n_cols)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 300), st.integers(1, 40), st.sampled_from([1, 2, 3, 4, 5, 1000, 10**9]), st.integers(-3, 0),
       st.integers(0, 2**31 - 1))
def test_counting_paths_equal_the_sorting_path(n, k, spread, low, seed):
    # ids in [0, 4n) are numbered by a presence table and the cells counted in a dense R x C table
    # when that is small; other ids (negative, or spread far beyond 4n) take the sorting path
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    p = rng.integers(low, max(1, spread * n // 4 + 1), size=n)
    for a, b in ((y, p), (p, y), (y, y)):
        got = contingency_table(a, b)
        want = _sorted_table(a, b)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        ids, count = C._compress(a)
        ids_sorted, count_sorted = C._compress_sorted(a)
        assert count == count_sorted and np.array_equal(ids, ids_sorted)


def test_dense_and_sparse_cells_by_hand():
    # 3 classes x 2 clusters (dense) and 3 x 3000 ids (beyond 4n: sorted): the same cells
    y = np.array([2, 0, 2, 0, 1])
    for p in (np.array([1, 1, 0, 0, 0]), np.array([2999, 2999, 0, 0, 0])):
        rows, cols, counts, a, b = contingency_table(y, p)
        assert rows.tolist() == [0, 0, 1, 2, 2] and cols.tolist() == [0, 1, 0, 0, 1]
        assert counts.tolist() == [1, 1, 1, 1, 1] and a.tolist() == [2, 1, 2] and b.tolist() == [3, 2]


def test_cached_emi_tables_give_the_emi_of_a_fresh_call():
    rng = np.random.default_rng(0)
    for n in (2, 7, 100, 1000):
        y = rng.integers(0, 5, size=n)
        p = rng.integers(0, 9, size=n)
        _, _, _, a, b = contingency_table(y, p)
        # tables computed per call (the public function) and the cached ones of ari_ami: the same floats
        assert C._emi(a, b, n, C._emi_tables_cached(n)) == expected_mutual_information(a, b, n)
        assert ari_ami(y, p)[1] == C._scores(y, p, True, True, C.emi_tables(n))[1]


def _labels(max_n=40, max_k=8):
    return st.integers(1, max_n).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, max_k - 1), min_size=n, max_size=n),
            st.lists(st.integers(-3, max_k), min_size=n, max_size=n),
        )
    )


@settings(max_examples=400, deadline=None)
@given(_labels())
def test_equals_sklearn_on_random_labelings(pair):
    y, p = (np.array(v) for v in pair)
    ari, ami = ari_ami(y, p)
    assert abs(ari - adjusted_rand_score(y, p)) <= 1e-10
    assert abs(ami - adjusted_mutual_info_score(y, p)) <= 1e-10


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 600), st.integers(1, 30), st.integers(1, 1000), st.integers(0, 2**31 - 1))
def test_equals_sklearn_at_run_sizes(n, k_true, k_pred, seed):
    # sizes of the active runs (N up to 1000 in the paper; fewer here to keep it fast)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k_true, size=n)
    p = rng.integers(0, min(k_pred, n), size=n)
    if seed % 3 == 0:  # mostly correct prediction, as late in a run
        p = np.where(rng.random(n) < 0.9, y, p)
    ari, ami = ari_ami(y, p)
    assert abs(ari - adjusted_rand_score(y, p)) <= 1e-10
    assert abs(ami - adjusted_mutual_info_score(y, p)) <= 1e-10


@pytest.mark.parametrize(
    "y, p",
    [
        ([0], [0]),  # one item
        ([0, 0, 0], [1, 1, 1]),  # one class, one cluster
        ([0, 0, 0], [0, 1, 2]),  # one class, singletons
        ([0, 1, 2], [0, 0, 0]),  # singletons, one cluster
        ([0, 1, 2], [2, 1, 0]),  # singletons both
        ([0, 0, 1, 1], [1, 1, 0, 0]),  # identical up to ids
        ([0, 0, 1, 1], [0, 1, 0, 1]),  # independent
        ([-5, 10**12, -5, 3], [0, 0, 1, 1]),  # negative and huge ids
    ],
)
def test_degenerate_cases_equal_sklearn(y, p):
    assert adjusted_rand_fast(y, p) == pytest.approx(adjusted_rand_score(y, p), abs=1e-12)
    assert adjusted_mutual_info_fast(y, p) == pytest.approx(adjusted_mutual_info_score(y, p), abs=1e-12)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="y_pred"):
        ari_ami([0, 1], [0, 1, 2])
    with pytest.raises(ValueError, match="y_true"):
        ari_ami([0.5, 1.0], [0, 1])
    with pytest.raises(ValueError, match="y_pred"):
        ari_ami([0, 1], [[0, 1]])


def test_runner_trace_reuses_the_convergence_ari():
    from ccexp.runner.execute import convergence_stop, history_trace

    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, size=60)
    history = [{"n_queries": 10 * i, "labels": np.where(rng.random(60) < i / 5, y, rng.integers(0, 6, size=60))}
               for i in range(6)]
    cb = convergence_stop(y, {"threshold": 0.99, "patience": 2})
    for h in history:
        cb(h["n_queries"], h["labels"])
    assert len(cb.ari) == len(history)
    rows = history_trace(history, y, ("ari", "ami"), ari=cb.ari)
    for h, row in zip(history, rows):
        assert row["ari"] == adjusted_rand_score(y, h["labels"])  # exact: integer pair counts, one division
        assert abs(row["ami"] - adjusted_mutual_info_score(y, h["labels"])) <= 1e-10
    # values that do not cover every step are not used
    rows2 = history_trace(history, y, ("ari",), ari=cb.ari[:-1])
    assert [r["ari"] for r in rows2] == [r["ari"] for r in rows]
    assert "ami" not in rows2[0]
    with pytest.raises(ValueError, match="trace_metrics"):
        history_trace(history, y, ("nmi",))


def test_runner_trace_of_repeated_clusterings_is_that_of_each_step():
    # steps that repeat the previous clustering reuse its scores: the same values as scoring every step
    from ccexp.runner.execute import history_trace

    rng = np.random.default_rng(4)
    y = rng.integers(0, 4, size=80)
    a, b = rng.integers(0, 5, size=80), rng.integers(0, 3, size=80)
    history = [{"n_queries": i, "labels": lab.copy()} for i, lab in enumerate([a, a, b, b, b, a, y])]
    rows = history_trace(history, y, ("ari", "ami"))
    for h, row in zip(history, rows):
        assert (row["ari"], row["ami"]) == ari_ami(y, h["labels"])
    assert rows[0]["ari"] == rows[1]["ari"] == rows[5]["ari"] != rows[2]["ari"] and rows[6]["ami"] == 1.0
