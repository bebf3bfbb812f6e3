"""The ``--cells`` filter of experiments/ukkonen2017/ablation_local_search.py (issue 34, item 4)."""

import argparse

import pytest
from conftest import load_script


def _driver():
    return load_script("experiments/ukkonen2017/ablation_local_search.py", "ukkonen_ablation_local_search")


def test_a_cell_parses_to_the_key_of_an_instance_setting():
    mod = _driver()
    assert mod._parse_cell("8,0.01,0") == (8, 0.01, 0.0)
    assert mod._parse_cell("16,0.05,0.2") == mod._cell({"dataset.k": 16, "oracle.fraction": 0.05, "oracle.noise": 0.2})
    # a float the sweep computes (0.1 + 0.2 style) still matches the typed cell
    assert mod._cell({"dataset.k": 4, "oracle.fraction": 0.1 + 1e-12, "oracle.noise": 0.0}) == mod._parse_cell("4,0.1,0")


@pytest.mark.parametrize("text", ["8,0.01", "a,0.01,0", "8;0.01;0", ""])
def test_a_malformed_cell_is_refused_naming_the_option(text):
    mod = _driver()
    with pytest.raises(argparse.ArgumentTypeError, match="--cells"):
        mod._parse_cell(text)


def test_the_command_line_refuses_a_malformed_cell(capsys):
    mod = _driver()
    with pytest.raises(SystemExit) as err:
        mod.main(["--study", "generator", "--out", "/tmp/never-written.csv", "--cells", "8,0.01"])
    assert err.value.code == 2
    assert "--cells" in capsys.readouterr().err
