"""Nature (Heikinheimo & Ukkonen 2013): the odd-one-out file parser and the missing-file message."""

import numpy as np
import pytest

import ccexp
from ccexp.data.files import DataFileMissing
from ccexp.data.nature import parse_odd_one_out


def _write(tmp_path, text):
    folder = tmp_path / "nature"
    folder.mkdir()
    path = folder / "nature_triplets.txt"
    path.write_text(text)
    return path


def test_parser_on_a_small_file(tmp_path):
    path = _write(tmp_path, "coast1.jpg coast2.jpg forest7.jpg\n\nforest7.jpg forest8.jpg coast2.jpg\n")
    names, T = parse_odd_one_out(path)
    assert names == ["coast1.jpg", "coast2.jpg", "forest7.jpg", "forest8.jpg"]
    # third column is the odd one out: (a, b, c) with c the outlier
    np.testing.assert_array_equal(T, [[0, 1, 2], [2, 3, 1]])


def test_dataset_reads_data_dir(tmp_path, monkeypatch):
    _write(tmp_path, "a b c\nb c a\nd a b\n")
    monkeypatch.setenv("CCEXP_DATA_DIR", str(tmp_path))
    ds = ccexp.load_dataset("nature")
    assert ds.y is None and ds.n_items == 4
    assert ds.params["images"] == ["a", "b", "c", "d"]
    prob = ccexp.make_problem("recorded", ds)
    assert prob.triplets.shape == (3, 3)


def test_bad_row_names_file_and_line(tmp_path):
    path = _write(tmp_path, "a b c\na a b\n")
    with pytest.raises(ValueError, match="line 2"):
        parse_odd_one_out(path)


def test_missing_file_says_where_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("CCEXP_DATA_DIR", str(tmp_path))
    with pytest.raises(DataFileMissing, match="nature_and_vogue_triplets.zip"):
        ccexp.load_dataset("nature")
