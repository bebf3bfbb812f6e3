"""UCI loaders: shapes and class counts of SOURCES.md, labels, scaling, the error for a missing file."""

import numpy as np
import pytest
from conftest import require_data

from ccexp import load_dataset
from ccexp.data.files import DataFileMissing
from ccexp.data.uci import UCI_SPECS, scale_features

# (name, file, n, d, class counts) from ../shared/datasets/SOURCES.md
EXPECTED = [
    ("iris", "iris/iris.data", 150, 4, [50, 50, 50]),
    ("wine", "wine/wine.data", 178, 13, [59, 71, 48]),
    ("ionosphere", "ionosphere/ionosphere.data", 351, 34, [126, 225]),  # b, g
    ("transfusion", "transfusion/transfusion.data", 748, 4, [570, 178]),
    ("digits389", "pendigits/pendigits.tes", 3165, 16, [1055, 1055, 1055]),
    ("letters_ijlt", "letter/letter-recognition.data", 3059, 16, [755, 747, 761, 796]),
]


@pytest.mark.parametrize("name,relpath,n,d,counts", EXPECTED)
def test_shapes_and_class_counts(name, relpath, n, d, counts):
    require_data(relpath)
    ds = load_dataset(name)
    assert ds.X.shape == (n, d) == UCI_SPECS[name].expected_shape and ds.X.dtype == np.float64
    assert ds.y.dtype == np.int64
    assert np.bincount(ds.y).tolist() == counts
    assert ds.n_classes == len(counts)


def test_rows_parsed_as_in_the_file():
    require_data("iris/iris.data")
    ds = load_dataset("iris")
    assert ds.X[0].tolist() == [5.1, 3.5, 1.4, 0.2] and ds.y[0] == 0
    assert ds.params["classes"] == ["Iris-setosa", "Iris-versicolor", "Iris-virginica"]
    require_data("transfusion/transfusion.data")
    tr = load_dataset("transfusion")  # header skipped, "2 ,50,12500,98 ,1"
    assert tr.X[0].tolist() == [2.0, 50.0, 12500.0, 98.0] and tr.y[0] == 1


def test_sampled_datasets_are_fixed_by_their_seed():
    require_data("letter/letter-recognition.data")
    a = load_dataset("letters3000", random_state=1)
    b = load_dataset("letters3000", random_state=2)
    assert a.X.shape == (3000, 16) and a.n_classes == 26
    np.testing.assert_array_equal(a.X, b.X)  # the trial seed does not move the sample
    c = load_dataset("letters3000", sample_seed=1)
    assert not np.array_equal(a.y, c.y)
    require_data("pendigits/pendigits.tra")
    assert load_dataset("digits3000").n_classes == 10


def test_scaling():
    X = np.array([[1.0, 5.0], [3.0, 5.0], [5.0, 5.0]])
    s = scale_features(X, "standard")
    np.testing.assert_allclose(s.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(s[:, 0].std(), 1)
    assert np.all(s[:, 1] == 0)  # constant column left at 0
    mm = scale_features(X, "minmax")
    assert mm[:, 0].tolist() == [0, 0.5, 1]
    with pytest.raises(ValueError, match="scale"):
        scale_features(X, "unit")
    require_data("wine/wine.data")
    w = load_dataset("wine", scale="minmax")
    assert w.X.min() == 0 and w.X.max() == 1


def test_missing_file_names_file_and_url(tmp_path, monkeypatch):
    monkeypatch.setenv("CCEXP_DATA_DIR", str(tmp_path))
    with pytest.raises(DataFileMissing, match="letter-recognition.data.*archive.ics.uci.edu"):
        load_dataset("letters_ijlt")


def test_every_spec_registered():
    import ccexp

    assert set(UCI_SPECS) <= set(ccexp.list_datasets())
