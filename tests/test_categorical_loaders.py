"""Loaders of the categorical UCI tables of Gionis et al. (2007), Section 5.2."""

import numpy as np
import pytest

from conftest import require_data

import ccexp
from ccexp.objectives.clusterings import disagreement, lower_bound


def test_house_votes():
    require_data("house_votes/house-votes-84.data")
    ds = ccexp.load_dataset("house_votes")
    assert ds.categorical.shape == (435, 16)
    assert sorted(np.bincount(ds.y).tolist()) == [168, 267]  # republican, democrat
    assert int((ds.categorical < 0).any(axis=1).sum()) == 203  # rows with a '?' (SOURCES.md)
    assert set(np.unique(ds.categorical).tolist()) == {-1, 0, 1}  # y / n / '?'


def test_mushroom():
    require_data("mushroom/agaricus-lepiota.data")
    ds = ccexp.load_dataset("mushroom")
    assert ds.categorical.shape == (8124, 22)
    assert sorted(np.bincount(ds.y).tolist()) == [3916, 4208]
    missing = ds.categorical < 0
    assert int(missing.sum()) == 2480
    assert int(missing[:, 10].sum()) == 2480  # only stalk-root has '?'


def test_adult_categorical_attributes():
    require_data("adult/adult.data")
    ds = ccexp.load_dataset("adult")
    assert ds.categorical.shape == (32561, 8)
    assert ds.X.shape == (32561, 6)
    assert sorted(np.bincount(ds.y).tolist()) == [7841, 24720]
    assert int((ds.categorical < 0).any(axis=1).sum()) == 2399  # rows with a '?' (SOURCES.md)


def test_table2_class_labels_and_lower_bound_of_votes():
    # Table 2: ED of the class labels 34,184 and lower bound 28,805 — exact
    # functions of the data under the coin rule p = 1/2 over unordered pairs
    require_data("house_votes/house-votes-84.data")
    ds = ccexp.load_dataset("house_votes")
    C = ds.categorical.T
    assert round(disagreement(ds.y, C)) == 34184
    assert round(lower_bound(C)) == 28805


def test_checksum_mismatch_is_reported(tmp_path, monkeypatch):
    src = require_data("house_votes/house-votes-84.data")
    (tmp_path / "house_votes").mkdir()
    (tmp_path / "house_votes" / "house-votes-84.data").write_bytes(src.read_bytes() + b"\n")
    monkeypatch.setenv("CCEXP_DATA_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="sha256"):
        ccexp.load_dataset("house_votes")
