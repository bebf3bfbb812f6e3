"""experiments/ukkonen2017/README.md says what the committed comparisons say (issue 28, item 6)."""

from pathlib import Path

import pytest

from ccexp.report import _ukkonen2017_readme as R

ROOT = Path(__file__).resolve().parents[1]


def test_results_block_is_written_from_the_committed_comparisons(committed_results):
    text = R.readme_path().read_text(encoding="utf-8")
    assert R.current_block(text) == R.results_block(committed_results), (
        "experiments/ukkonen2017/README.md's results table disagrees with results/*/paper/comparison.csv and "
        "reference.csv's causes: rewrite it with python -m ccexp.report._ukkonen2017_readme --write")


def test_results_block_counts_every_row_once(committed_results):
    t = R.comparison_table(committed_results)
    block = R.results_block(committed_results)
    total = block.splitlines()[-1].split("|")[2:7]
    assert sum(int(v) for v in total) == len(t)
    # the differing rows are split by cause, all of them
    diff = int(total[3])
    assert sum(int(v) for v in block.splitlines()[-1].split("|")[7:-1]) == diff


def test_readme_does_not_restate_stale_verdicts():
    text = R.readme_path().read_text(encoding="utf-8")
    for stale in ("wait for issue 3", "all 7 claims", "handed to the algorithms", "within ±1", "cells within ±1"):
        assert stale not in text, stale


def test_missing_markers_are_refused():
    with pytest.raises(ValueError, match="results block"):
        R.current_block("# a README without the markers\n")


def test_the_one_cluster_reading_judges_nothing_outside_the_studies_marked_as_earlier():
    """Issue 28 item 6: the README judged Table I by +-1 cluster. Any section that still shows that reading
    (a study made before issue 28) says so, and no sentence says such a study reproduces Table I."""
    import re

    text = R.readme_path().read_text(encoding="utf-8")
    assert "reproduces Table I" not in text
    sections = re.split(r"\n(?=#{1,6} )", text)
    marked = [s for s in sections if re.search(r"±\s?1|\+-\s?1", s)]
    assert marked, "the studies with the +-1 reading were expected here; update this test if they are gone"
    for s in marked:
        assert "before issue 28" in " ".join(s.split()), s.splitlines()[0]
