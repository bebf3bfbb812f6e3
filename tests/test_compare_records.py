"""scripts/compare_records.py: the before/after check of a behaviour-preserving change."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import load_script

compare_records = load_script("scripts/compare_records.py")


def _write(root: Path, frame: pd.DataFrame, experiment="exp", scale="ci") -> Path:
    folder = root / experiment / scale
    folder.mkdir(parents=True)
    frame.to_parquet(folder / "records.parquet")
    return root


@pytest.fixture
def records():
    return pd.DataFrame({
        "case_id": ["a", "b", "c"],
        "ari": [0.5, np.nan, 1.0],
        "note": ["x", None, "z"],
        "fit_seconds": [1.0, 2.0, 3.0],
        "seconds.select": [0.1, 0.2, 0.3],
        "code_version": ["v1", "v1", "v1"],
    })


def test_same_records_in_another_order_with_other_timings_match(tmp_path, records, capsys):
    after = records.iloc[[2, 0, 1]].copy()
    after["fit_seconds"] = [9.0, 8.0, 7.0]
    after["code_version"] = "v2"
    before_root = _write(tmp_path / "before", records)
    after_root = _write(tmp_path / "after", after)
    assert compare_records.main([str(before_root), str(after_root)]) == 0
    assert "exp: identical" in capsys.readouterr().out


@pytest.mark.parametrize("change", ["ari", "note", "row", "column"])
def test_any_changed_cell_row_or_column_fails(tmp_path, records, change, capsys):
    after = records.copy()
    if change == "ari":
        after.loc[2, "ari"] = np.nextafter(1.0, 0.0)  # one ulp is a difference
    elif change == "note":
        after.loc[1, "note"] = "y"
    elif change == "row":
        after = after.iloc[:2]
    else:
        after["extra"] = 1
    before_root = _write(tmp_path / "before", records)
    after_root = _write(tmp_path / "after", after)
    assert compare_records.main([str(before_root), str(after_root)]) == 1
    out = capsys.readouterr().out
    assert "0 of 1 experiments identical" in out
    if change in ("ari", "note"):
        assert f"{change}: 1 of 3 cells differ" in out
