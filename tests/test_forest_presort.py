"""COP-RF's root filter and trees on orders read off one sort of the data per forest (issue 31: speed, same results).

:func:`~ccexp.algorithms.constrained._forest_sample.sample_order` gives each tree sample's rows sorted
along every feature without sorting them: the real rows' order comes from one sort of the data, the
pseudo rows are bucket sorted, the two runs merged; the root filter and the larger nodes of a tree read
their orders off it.  Only the order among equal values can differ from ``np.argsort``'s; these tests
hold that it changes no kept pair, no Equation 8 score and no node of a tree, bit for bit, on samples
full of ties, and that whole COP-RF and Forest+E2CP fits are unchanged.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccexp.algorithms.constrained import COPRF
from ccexp.algorithms.constrained import _forest_kernels as K
from ccexp.algorithms.constrained._forest_sample import draw_tree_sample_marginal
from ccexp.oracles.pairwise import pairwise_constraints


def _sample(seed, n, d, levels, n_pseudo, marginal):
    """A tree sample of data with ``levels`` distinct values per feature (0: continuous), and the data's presort."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if levels:
        X = np.round(X * levels / 4.0)  # few distinct values: many ties among the real points
    if marginal:  # pseudo points copied from the data: ties between real and pseudo points too
        Xs, ws, cls, local = draw_tree_sample_marginal(X, n_pseudo, seed)
    else:
        Xs, ws, cls, local = K.draw_tree_sample(X, X.min(0), X.max(0), n_pseudo, seed)
    return X, (Xs, ws, cls), local, K.presort_features(X)


def _pairs(seed, n, n_classes, n_pairs, local):
    """Random must- and cannot-links (20 % flipped) among ``n`` items, in tree-sample rows; and a generator."""
    rng = np.random.default_rng(seed + 1)
    y = rng.integers(0, n_classes, n)
    ml, cl, _ = pairwise_constraints(y, min(n_pairs, n * (n - 1) // 2), invalid_fraction=0.2, random_state=seed)
    return K.local_pairs(ml, local)[0], K.local_pairs(cl, local)[0], rng


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 50), d=st.integers(1, 5), levels=st.sampled_from([0, 1, 2, 8]),
       n_pseudo=st.integers(0, 60), marginal=st.booleans())
def test_sample_order_sorts_every_feature_of_the_sample(seed, n, d, levels, n_pseudo, marginal):
    X, (Xs, ws, cls), local, presort = _sample(seed, n, d, levels, n_pseudo, marginal)
    order = K.sample_order(Xs, local, presort)
    m = Xs.shape[0]
    assert order.shape == (d, m)
    for f in range(d):
        assert sorted(order[f].tolist()) == list(range(m))  # a permutation of the rows
        v = Xs[order[f], f]
        assert np.all(v[:-1] <= v[1:])
        np.testing.assert_array_equal(v, np.sort(Xs[:, f]))


def test_the_bucket_sort_handles_equal_and_extreme_pseudo_values():
    # every pseudo value equal (no spread: one bucket), and values at both ends of the range
    X = np.array([[0.0], [1.0], [1.0], [2.0]])
    local = np.array([0, 1, 2, 3])
    for pseudo in ([5.0, 5.0, 5.0], [2.0, -1.0, 2.0, -1.0, 0.5], [1.0]):
        Xs = np.concatenate([X, np.array(pseudo)[:, None]])
        order = K.sample_order(Xs, local, K.presort_features(X))
        np.testing.assert_array_equal(Xs[order[0], 0], np.sort(Xs[:, 0]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(4, 40), d=st.integers(1, 5), levels=st.sampled_from([1, 2, 8, 0]),
       n_pairs=st.integers(2, 40), cl_rule=st.sampled_from([0, 1]), mtry=st.integers(1, 5),
       marginal=st.booleans(), fast=st.booleans())
def test_the_filter_on_the_read_off_order_keeps_the_same_pairs_with_the_same_scores(
        seed, n, d, levels, n_pairs, cl_rule, mtry, marginal, fast):
    X, sample, local, presort = _sample(seed, n, d, levels, n, marginal)
    ml_t, cl_t, _ = _pairs(seed, n, 2, n_pairs, local)
    if ml_t.shape[0] + cl_t.shape[0] < 2:
        return
    sort_here = K._filter_root(sample, ml_t, cl_t, mtry, cl_rule, 60, 0.5, seed, fast)
    read_off = K._filter_root(sample, ml_t, cl_t, mtry, cl_rule, 60, 0.5, seed, fast,
                              K.sample_order(sample[0], local, presort))
    for a, b in zip(sort_here, read_off):  # kept pairs, scores (NaN where never drawn), scan fallbacks, evaluations
        np.testing.assert_array_equal(a, b)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 60), d=st.integers(1, 5), levels=st.sampled_from([1, 2, 8, 0]),
       n_pairs=st.integers(0, 30), cl_rule=st.sampled_from([0, 1]), mtry=st.integers(1, 5), marginal=st.booleans())
def test_a_tree_grown_on_the_read_off_order_is_the_same_tree(seed, n, d, levels, n_pairs, cl_rule, mtry, marginal):
    X, sample, local, presort = _sample(seed, n, d, levels, n, marginal)
    ml_t, cl_t, rng = _pairs(seed, n, 3, n_pairs, local)
    pairs = (ml_t, cl_t, rng.random(ml_t.shape[0]) < 0.7, rng.random(cl_t.shape[0]) < 0.7)
    sort_here = K.grow_tree(sample, pairs, mtry, cl_rule, seed)
    read_off = K.grow_tree(sample, pairs, mtry, cl_rule, seed, K.sample_order(sample[0], local, presort))
    for a, b in zip(sort_here, read_off):  # feature, threshold, left, right, leaf of every sample row
        np.testing.assert_array_equal(a, b)


def _as_it_was():
    """The forest's kernels as they were: every tree sample sorted by the filter and the tree themselves."""
    return SimpleNamespace(**{**vars(K),
                              "filter_root_constraints": lambda *args: K.filter_root_constraints(*args[:-1]),
                              "grow_tree": lambda *args: K.grow_tree(*args[:-1])})  # each drops the order


def _three_blobs_with_ties():
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], 30)
    X = rng.normal(size=(90, 6)) + 3.0 * y[:, None] * (np.arange(6) < 2)
    X[:, 2:4] = np.round(X[:, 2:4])  # tied values
    ml, cl, _ = pairwise_constraints(y, 60, invalid_fraction=0.15, random_state=3)
    return X, ml, cl


@pytest.mark.parametrize("cl_rule", ["leaf", "split"])
def test_a_coprf_fit_is_unchanged_by_the_read_off_order(monkeypatch, cl_rule):
    from ccexp.algorithms.constrained import forest

    X, ml, cl = _three_blobs_with_ties()
    fits = []
    for kernels in (_as_it_was(), K):
        monkeypatch.setattr(forest, "K", kernels)
        fits.append(COPRF(n_clusters=3, n_trees=30, n_filter=100, cl_rule=cl_rule, random_state=7)
                    .fit(X, must_link=ml, cannot_link=cl))
    np.testing.assert_array_equal(fits[0].affinity_, fits[1].affinity_)
    np.testing.assert_array_equal(fits[0].labels_, fits[1].labels_)


def test_a_forest_e2cp_fit_is_unchanged_by_the_read_off_order(monkeypatch):
    from ccexp.algorithms.constrained import forest
    from ccexp.algorithms.constrained.e2cp import ForestE2CP

    X, ml, cl = _three_blobs_with_ties()
    fits = []
    for kernels in (_as_it_was(), K):
        monkeypatch.setattr(forest, "K", kernels)
        fits.append(ForestE2CP(n_clusters=3, n_trees=30, random_state=7).fit(X, must_link=ml, cannot_link=cl))
    np.testing.assert_array_equal(fits[0].labels_, fits[1].labels_)
