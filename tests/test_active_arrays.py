"""The authors' stored arrays of Aronsson & Chehreghani (2024) as datasets (ccexp.data.aronsson_arrays)."""

import shutil

import numpy as np
import pytest

from ccexp import load_dataset
from ccexp.data.active_labels import PAPER_CLUSTER_SIZES
from ccexp.data.aronsson_arrays import ARRAY_SPECS
from ccexp.data.manifest import build_manifest
from conftest import require_data

# name: (shape, the paper's Section 4.1 name whose cluster sizes the labels must have, or None)
EXPECTED = {
    "mnist_embedding": ((1000, 3), "mnist"),
    "cifar10_embedding": ((1000, 3), "cifar10"),
    "newsgroups20_embedding": ((1000, 50), "20newsgroups"),
    "authors_ecoli": ((336, 7), "ecoli"),
    "authors_yeast": ((1000, 8), "yeast"),
    "authors_cardiotocography": ((1000, 21), None),  # their sample differs from the paper's listed sizes
    "authors_forest_type_mapping": ((523, 27), "forest_type_mapping"),
    "authors_user_knowledge": ((403, 5), "user_knowledge"),
    "authors_mushrooms": ((1000, 116), "mushrooms"),
    "authors_breast_cancer": ((569, 30), None),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_arrays_load_with_the_papers_sizes(name):
    spec = ARRAY_SPECS[name]
    for f in spec.files:
        require_data(f.relpath)
    ds = load_dataset(name)
    shape, paper = EXPECTED[name]
    assert ds.X.shape == shape and ds.X.dtype == np.float64 and np.all(np.isfinite(ds.X))
    assert ds.y.shape == (shape[0],) and ds.y.min() == 0
    if paper is not None:
        # the same cluster sizes as Section 4.1 lists, in the same order of class ids
        assert np.bincount(ds.y).tolist() == list(PAPER_CLUSTER_SIZES[paper])
    assert ds.params["kmeans_k"] == spec.kmeans_k


def test_the_papers_kmeans_k():
    assert {n: s.kmeans_k for n, s in ARRAY_SPECS.items() if not n.startswith("authors_")} == {
        "mnist_embedding": 3, "cifar10_embedding": 3, "newsgroups20_embedding": 20}


def test_a_modified_copy_is_refused(tmp_path, monkeypatch):
    from ccexp.data import aronsson_arrays

    fx, fy = ARRAY_SPECS["authors_ecoli"].files
    src = require_data(fx.relpath).parent
    (tmp_path / "aronsson2024").mkdir()
    shutil.copy(src / "ecoli_Y.npy", tmp_path / "aronsson2024" / "ecoli_Y.npy")
    X = np.load(src / "ecoli_X.npy")
    X[0, 0] += 1.0
    np.save(tmp_path / "aronsson2024" / "ecoli_X.npy", X)
    monkeypatch.setenv("CCEXP_DATA_DIR", str(tmp_path))
    aronsson_arrays._read.cache_clear()
    try:
        with pytest.raises(ValueError, match="sha256"):
            load_dataset("authors_ecoli")
    finally:
        aronsson_arrays._read.cache_clear()


def test_the_manifest_lists_the_arrays():
    m = build_manifest()
    for name, spec in ARRAY_SPECS.items():
        for f in spec.files:
            assert m[f.relpath].sha256 == f.sha256 and name in m[f.relpath].datasets
            assert f.url.startswith("https://raw.githubusercontent.com/Linusaronsson/Active-Correlation-Clustering/313d989")
