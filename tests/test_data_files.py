"""Locating real data files: CCEXP_DATA_DIR, checksums, actionable errors."""

import hashlib

import pytest

from ccexp.data.files import DataFileMissing, data_dir, data_file


def test_missing_file_names_file_folder_and_url(tmp_path, monkeypatch):
    monkeypatch.setenv("CCEXP_DATA_DIR", str(tmp_path))
    with pytest.raises(DataFileMissing) as err:
        data_file("iris/iris.data", url="https://archive.ics.uci.edu/iris.data", dataset="iris")
    msg = str(err.value)
    assert "iris: data file 'iris/iris.data' not found under" in msg
    assert str(tmp_path.resolve()) in msg and "CCEXP_DATA_DIR" in msg
    assert "`python -m ccexp.data fetch --datasets iris`" in msg
    assert "download it from https://archive.ics.uci.edu/iris.data" in msg
    assert "\n" not in msg  # one line: the command line prints it as is
    assert isinstance(err.value, FileNotFoundError)


def test_checksum_is_verified(tmp_path, monkeypatch):
    monkeypatch.setenv("CCEXP_DATA_DIR", str(tmp_path))
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "f.data").write_bytes(b"1,2,3\n")
    good = hashlib.sha256(b"1,2,3\n").hexdigest()
    assert data_file("x/f.data", sha256=good) == tmp_path / "x" / "f.data"
    with pytest.raises(ValueError, match="does not match the original file's"):
        data_file("x/f.data", sha256="0" * 64)


def test_default_data_dir_is_data(monkeypatch):
    monkeypatch.delenv("CCEXP_DATA_DIR", raising=False)
    assert str(data_dir()) == "data"
