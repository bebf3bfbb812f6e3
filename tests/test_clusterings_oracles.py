"""The k-means start of the clustering-aggregation oracles (Gionis et al. 2007, Figures 3-5)."""

import numpy as np
import pytest
from sklearn.cluster import KMeans

from ccexp.data.aggregation_synthetic import agg_blobs_noise
from ccexp.oracles.clusterings import clusterings_kmeans, clusterings_linkage


def _data():
    return agg_blobs_noise(k=3, n_per_cluster=20, random_state=0)


def test_default_start_is_kmeans_plus_plus_unchanged():
    # the default draws the same seeds and passes scikit-learn's own default start: records unchanged
    ds = _data()
    a = clusterings_kmeans(ds, k_min=2, k_max=4, random_state=1).clusterings
    b = clusterings_kmeans(ds, k_min=2, k_max=4, random_state=1, init="k-means++").clusterings
    assert np.array_equal(a, b)


def test_random_start_is_scikit_learns_random_observations():
    # init="random" (Matlab's 'sample'): k observations drawn at random, one start, seeded as the default
    ds = _data()
    C = clusterings_kmeans(ds, k_min=2, k_max=3, random_state=5, init="random").clusterings
    rng = np.random.default_rng(5)
    for row, k in zip(C, (2, 3)):
        seed = int(rng.integers(2**31 - 1))
        ref = KMeans(n_clusters=k, n_init=1, init="random", random_state=seed).fit_predict(ds.X)
        assert np.array_equal(row, ref)
    L = clusterings_linkage(ds, k=3, methods=("kmeans",), random_state=5, init="random").clusterings
    seed = int(np.random.default_rng(5).integers(2**31 - 1))
    assert np.array_equal(L[0], KMeans(n_clusters=3, n_init=1, init="random", random_state=seed).fit_predict(ds.X))


@pytest.mark.parametrize("oracle", [clusterings_kmeans, clusterings_linkage])
def test_unknown_start_is_refused_naming_the_argument(oracle):
    with pytest.raises(ValueError, match="init must be one of k-means\\+\\+, random; got 'sample'"):
        oracle(_data(), init="sample")
