"""Datasets of Aronsson & Chehreghani (2024), Section 4.1: label vectors, blobs, UCI feature loaders."""

import numpy as np
import pytest

from ccexp import load_dataset
from ccexp.data.active_labels import PAPER_CLUSTER_SIZES
from conftest import require_data


@pytest.mark.parametrize("name", sorted(PAPER_CLUSTER_SIZES))
def test_label_datasets_have_the_papers_cluster_sizes(name):
    ds = load_dataset(f"labels_{name}", random_state=0)
    sizes = PAPER_CLUSTER_SIZES[name]
    assert ds.X is None and ds.n_items == sum(sizes)
    assert np.bincount(ds.y).tolist() == list(sizes)
    again = load_dataset(f"labels_{name}", random_state=0)
    other = load_dataset(f"labels_{name}", random_state=1)
    assert np.array_equal(ds.y, again.y) and not np.array_equal(ds.y, other.y)


def test_paper_sizes_match_the_stated_totals():
    # N and |E| as Section 4.1 states them
    totals = {"20newsgroups": 1000, "cifar10": 1000, "mnist": 1000, "cardiotocography": 1000, "ecoli": 336,
              "forest_type_mapping": 523, "mushrooms": 1000, "user_knowledge": 403, "yeast": 1000}
    edges = {336: 56280, 523: 136503, 403: 81003, 1000: 499500}
    for name, n in totals.items():
        assert sum(PAPER_CLUSTER_SIZES[name]) == n and n * (n - 1) // 2 == edges[n]


def test_synthetic_blobs():
    ds = load_dataset("synthetic_blobs", random_state=0)
    assert ds.X.shape == (500, 10) and np.bincount(ds.y).tolist() == [50] * 10
    assert ds.params["kmeans_k"] == 10
    assert np.array_equal(ds.X, load_dataset("synthetic_blobs", random_state=0).X)


EXPECTED = {
    # name: (file, shape, class counts sorted descending, k-means k)
    "ecoli": ("ecoli/ecoli.data", (336, 7), [143, 77, 52, 35, 20, 5, 2, 2], 10),
    "forest_type_mapping": ("forest_type_mapping/training.csv", (523, 27), [195, 159, 86, 83], 10),
    "user_knowledge": ("user_knowledge/user_knowledge_Test_Data_export.csv", (403, 5), [129, 122, 102, 50], 5),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_uci_loaders_full_sets(name):
    relpath, shape, counts, k = EXPECTED[name]
    require_data(relpath)
    ds = load_dataset(name)
    assert ds.X.shape == shape and ds.X.dtype == np.float64 and np.all(np.isfinite(ds.X))
    assert sorted(np.bincount(ds.y).tolist(), reverse=True) == counts
    assert ds.params["kmeans_k"] == k


@pytest.mark.parametrize(
    "name, relpath, d, n_classes, k",
    [("yeast", "yeast/yeast.data", 8, 10, 10),
     ("cardiotocography", "cardiotocography/CTG_Data_sheet_export.csv", 21, 10, 10),
     ("mushroom_onehot", "mushroom/agaricus-lepiota.data", None, 2, 2)],
)
def test_uci_loaders_sample_1000_rows(name, relpath, d, n_classes, k):
    require_data(relpath)
    ds = load_dataset(name)
    assert ds.X.shape[0] == 1000 and (d is None or ds.X.shape[1] == d)
    assert np.unique(ds.y).size == n_classes and ds.params["kmeans_k"] == k
    assert np.array_equal(ds.X, load_dataset(name).X)  # one fixed sample per sample_seed
    assert not np.array_equal(ds.X, load_dataset(name, sample_seed=1).X)
    full = load_dataset(name, n=50)
    assert full.X.shape[0] == 50


def test_mushroom_onehot_encoding():
    require_data("mushroom/agaricus-lepiota.data")
    ds = load_dataset("mushroom_onehot", n=8124)
    X = ds.X
    assert set(np.unique(X)) <= {0.0, 1.0}
    # 22 attributes: one 1 per attribute, except the rows with a missing stalk-root ('?')
    ones = X.sum(axis=1)
    assert set(np.unique(ones)) == {21.0, 22.0} and int((ones == 21).sum()) == 2480


def test_ctg_classes_match_sources():
    require_data("cardiotocography/CTG_Data_sheet_export.csv")
    ds = load_dataset("cardiotocography", n=2126)
    counts = dict(zip(ds.params["classes"], np.bincount(ds.y).tolist()))
    assert counts == {"1": 384, "2": 579, "3": 53, "4": 81, "5": 72, "6": 332, "7": 252, "8": 107, "9": 69, "10": 197}
