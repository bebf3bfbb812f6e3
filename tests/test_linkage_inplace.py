"""AGGLOMERATIVE's in-place average linkage equals scipy's linkage bit for bit (issue 31)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.cluster.hierarchy import linkage

from ccexp.algorithms.aggregation import Agglomerative
from ccexp.algorithms.aggregation._linkage import average_linkage_inplace
from ccexp.cc.labels import relabel_contiguous
from ccexp.cc.union_find import connected_components
from ccexp.objectives.clusterings import condensed_weights, encode


@settings(max_examples=200, deadline=None)
@given(n=st.integers(2, 30), denominator=st.sampled_from([1, 2, 8, 0]), seed=st.integers(0, 2**32 - 1))
def test_linkage_matrix_equals_scipy(n, denominator, seed):
    """Continuous distances (denominator 0) and coarse ones with many ties, as the weights k / (2m) have."""
    rng = np.random.default_rng(seed)
    size = n * (n - 1) // 2
    d = rng.random(size) if denominator == 0 else rng.integers(0, 2 * denominator + 1, size) / (2 * denominator)
    expected = linkage(d, method="average")
    work = d.copy()
    got = average_linkage_inplace(work)
    assert np.array_equal(got, expected)


def test_linkage_of_all_equal_distances_equals_scipy():
    d = np.full(45, 0.5)
    assert np.array_equal(average_linkage_inplace(d.copy()), linkage(d, method="average"))


def _agglomerative_with_scipy(C, p, inclusive):
    """AGGLOMERATIVE as it was before issue 31: scipy's linkage on a copy, the same merge test."""
    enc = encode(C, p)
    n = enc.n_items
    Z = linkage(condensed_weights(enc, 10**6), method="average")
    a, b = Z[:, 0].astype(np.int64), Z[:, 1].astype(np.int64)
    rep = np.concatenate([np.arange(n, dtype=np.int64), np.empty(n - 1, dtype=np.int64)])
    for t in range(n - 1):
        rep[n + t] = rep[a[t]]
    keep = Z[:, 2] <= 0.5 + 1e-12 if inclusive else Z[:, 2] < 0.5 - 1e-12
    return relabel_contiguous(connected_components(n, rep[a[keep]], rep[b[keep]]))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 70), m=st.integers(1, 6), k=st.integers(1, 5), missing=st.sampled_from([0.0, 0.2]),
       p=st.sampled_from([0.5, 0.3]), inclusive=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_agglomerative_labels_equal_the_scipy_path(n, m, k, missing, p, inclusive, seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    C = np.repeat(truth[None, :], m, axis=0)
    noisy = rng.random((m, n)) < 0.3
    C[noisy] = rng.integers(0, k, int(noisy.sum()))
    C[rng.random((m, n)) < missing] = -1
    got = Agglomerative(p=p, inclusive=inclusive).fit(C).labels_
    assert np.array_equal(got, _agglomerative_with_scipy(C, p, inclusive))


@pytest.mark.parametrize("d", [
    np.zeros(3, dtype=np.float32),     # not float64
    np.zeros((3, 1)),                  # not 1-D
    np.zeros(4),                       # not n(n-1)/2 entries
    np.zeros(0),                       # n < 2
    np.zeros(6)[::2],                  # not contiguous
])
def test_bad_condensed_vector_is_refused(d):
    with pytest.raises(ValueError, match="d must"):
        average_linkage_inplace(d)
