"""Loaders of Glass, Segmentation and Parkinsons (Zhu et al. 2013, Table I) from the original UCI files."""

import numpy as np
import pytest

from conftest import require_data

import ccexp
from ccexp.data.uci_constrained import CONSTRAINED_SPECS

# shape, class names, class sizes (../shared/datasets/SOURCES.md) and the first row's first features
EXPECTED = {
    "glass": ((214, 9), ["1", "2", "3", "5", "6", "7"], [70, 76, 17, 13, 9, 29], [1.52101, 13.64, 4.49]),
    "segmentation": ((210, 19), ["BRICKFACE", "CEMENT", "FOLIAGE", "GRASS", "PATH", "SKY", "WINDOW"], [30] * 7,
                     [140.0, 125.0, 9.0]),
    "parkinsons": ((195, 22), ["0", "1"], [48, 147], [119.992, 157.302, 74.997]),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_loader_reads_the_original_file(name):
    require_data(CONSTRAINED_SPECS[name].files[0].relpath)
    shape, classes, sizes, first = EXPECTED[name]
    ds = ccexp.load_dataset(name)
    assert ds.X.shape == shape and ds.X.dtype == np.float64
    assert ds.params["classes"] == classes
    assert np.bincount(ds.y).tolist() == sizes
    np.testing.assert_allclose(ds.X[0, :3], first)


def test_parkinsons_label_is_status_and_name_is_dropped():
    require_data("parkinsons/parkinsons.data")
    ds = ccexp.load_dataset("parkinsons")
    # the first recordings (phon_R01_S01_*) are of a patient (status 1); the last feature is PPE
    assert ds.y[:6].tolist() == [1] * 6
    assert ds.X[0, -1] == pytest.approx(0.284654)


def test_glass_drops_the_row_id():
    require_data("glass/glass.data")
    ds = ccexp.load_dataset("glass")
    assert not np.array_equal(ds.X[:, 0], np.arange(1, 215))  # refractive index, not the Id


def test_minmax_option_and_estimator_side_scaling():
    require_data("glass/glass.data")
    ds = ccexp.load_dataset("glass", scale="minmax")
    np.testing.assert_allclose(ds.X.min(0), 0)
    from ccexp.algorithms.constrained import scale_symmetric

    np.testing.assert_allclose(scale_symmetric(ccexp.load_dataset("glass").X).max(0), 1)


def test_glass_keep_id_adds_the_row_id_as_first_feature():
    require_data("glass/glass.data")
    plain = ccexp.load_dataset("glass")
    with_id = ccexp.load_dataset("glass", keep_id=True)
    assert with_id.X.shape == (214, 10)
    assert with_id.X[:, 0].tolist() == list(range(1, 215))
    assert np.array_equal(with_id.X[:, 1:], plain.X)
    assert np.array_equal(with_id.y, plain.y)
    assert with_id.params["keep_id"] is True and "keep_id" not in plain.params


def test_keep_id_is_refused_where_there_is_no_id():
    require_data("parkinsons/parkinsons.data")
    with pytest.raises(ValueError, match="keep_id applies to glass only"):
        ccexp.load_dataset("parkinsons", keep_id=True)
    with pytest.raises(ValueError, match="keep_id must be"):
        ccexp.load_dataset("glass", keep_id="yes")
