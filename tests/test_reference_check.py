"""reference.csv is validated on load: a bad cell, column, pin or a row given twice is refused in one line
naming the file and the row (issue 33, item 4).

Before: the ``tolerance`` of a table row was never read, so 100, -1, ``abc`` or no column at all gave
``check: ok``; a bad ``decimals`` or pin surfaced (if at all) as a traceback deep in a report.
"""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from ccexp.report.__main__ import main as report_main
from ccexp.report.reference import experiments_dir, load_reference
from ccexp.report.reference_check import ReferenceFileError

PAPER = "ukkonen2017"


@pytest.fixture
def exps(tmp_path, monkeypatch):
    """A copy of the experiments folder that the tests may break; returns (folder, the paper's csv as text cells)."""
    base = tmp_path / "exps"
    shutil.copytree(experiments_dir(), base, ignore=shutil.ignore_patterns("*.md", "*.png"))
    monkeypatch.setenv("CCEXP_EXPERIMENTS_DIR", str(base))
    path = base / PAPER / "reference.csv"
    return path, pd.read_csv(path, dtype=str, keep_default_na=False)


def _first(raw, kind):
    return raw.index[raw["kind"] == kind][0]


def _refused(path, raw) -> str:
    raw.to_csv(path, index=False)
    with pytest.raises(ReferenceFileError) as err:
        load_reference(PAPER)
    msg = str(err.value)
    assert "\n" not in msg and str(path) in msg
    return msg


def test_every_committed_reference_file_is_valid():
    for folder in sorted(p for p in experiments_dir().iterdir() if (p / "reference.csv").is_file()):
        load_reference(folder.name)


@pytest.mark.parametrize("value", ["100", "-1", "abc", "0.05"])
def test_a_table_row_with_a_tolerance_is_refused(exps, value):
    path, raw = exps
    i = _first(raw, "approx")
    raw.at[i, "tolerance"] = value
    msg = _refused(path, raw)
    assert f"line {i + 2} " in msg and f"tolerance {value!r} on a approx row" in msg


def test_a_table_row_needs_no_tolerance_column(exps):
    """The rule computes a number's tolerance; without the column the claims' thresholds are 0."""
    path, raw = exps
    raw.drop(columns="tolerance").to_csv(path, index=False)
    ref = load_reference(PAPER)
    assert len(ref) == len(raw)


@pytest.mark.parametrize(("column", "value", "words"), [
    ("decimals", "x", "decimals 'x' is not an integer"),
    ("decimals", "1.5", "decimals '1.5' is not an integer"),
    ("decimals", "40", "decimals '40' is not an integer in [-12, 12]"),
    ("value", "abc", "value 'abc' is not a finite number"),
    ("value", "inf", "value 'inf' is not a finite number"),
    ("value", "", "value is empty"),
    ("expect", "differ", "expect 'differ' is not a pin"),
    ("ci", "true", "ci 'true' must be yes, no or empty"),
    ("kind", "aprox", "kind 'aprox' is not one of"),
    ("k", "four", "k 'four' is not a number"),
    ("rule", "at_least: x", "unknown rule"),
    ("rule", "two_sample: n=8", "needs 'sd=S n=N'"),
])
def test_a_bad_cell_is_refused_naming_file_and_row(exps, column, value, words):
    path, raw = exps
    i = _first(raw, "approx")
    raw.at[i, column] = value
    msg = _refused(path, raw)
    assert f"line {i + 2} " in msg and words in msg


def test_a_claim_threshold_must_be_a_number_at_least_zero(exps):
    path, raw = exps
    i = _first(raw, "claim")
    raw.at[i, "tolerance"] = "-0.1"
    assert "is not a number >= 0 (the claim's threshold)" in _refused(path, raw)


def test_a_duplicate_row_is_refused_naming_both_lines(exps):
    path, raw = exps
    raw = pd.concat([raw, raw.iloc[[3]]], ignore_index=True)
    msg = _refused(path, raw)
    assert f"lines 5 and {len(raw) + 1}: the same row twice" in msg


def test_an_unknown_or_missing_column_is_refused(exps):
    path, raw = exps
    assert "unknown column 'tolerence'" in _refused(path, raw.assign(tolerence=""))
    assert "missing column kind" in _refused(path, raw.drop(columns="kind"))


def test_the_report_command_refuses_in_one_line_with_exit_2(exps, tmp_path, capsys):
    path, raw = exps
    raw.at[_first(raw, "approx"), "tolerance"] = "abc"
    raw.to_csv(path, index=False)
    assert report_main(["all", "--results", str(tmp_path / "r"), "--check"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and "tolerance 'abc'" in err


def test_the_report_command_refuses_a_scale_that_is_not_a_folder_name(tmp_path, capsys):
    """``--scale ../..`` gave a raw ValueError traceback (issue 33)."""
    for scale in ("../..", "ci+custom-../x", ".hidden"):
        with pytest.raises(SystemExit) as exc:
            report_main(["exp1_triplets", "--results", str(tmp_path), "--scale", scale])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert "--scale: scale must be a plain folder name" in err and "Traceback" not in err
