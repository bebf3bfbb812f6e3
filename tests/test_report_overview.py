"""results/overview.png: the page at a glance (ccexp.report.overview), checked against hand-made rows."""

import numpy as np
import pandas as pd
import pytest

from ccexp.report.overview import SEGMENTS, distances, overview_figure, segment_counts, write_overview
from ccexp.report.tolerance import DIFFERS, INDISTINGUISHABLE, NOT_RUN, REPRODUCED, WITHIN_TOLERANCE

CAUSES0 = {"measured": 0, "setup": 0, "chance": 0, "paper": 0, "unexplained": 0, "no cause": 0}


def _rows():
    """Seven rows: two numbers inside, two outside, a claim, a ceiling, a row not run, one with tolerance 0."""
    return pd.DataFrame([
        # kind, paper, ours, tolerance, status, rule
        ("approx", 2.0, 2.0, 0.05, REPRODUCED, ""),
        ("approx", 10.0, 10.3, 0.5, WITHIN_TOLERANCE, ""),
        ("approx", 1.0, 4.0, 0.5, DIFFERS, ""),
        ("approx", 100.0, 40.0, 2.0, DIFFERS, "whole_runs: ..."),
        ("claim", 1.0, 0.0, 0.0, DIFFERS, ""),
        ("approx", 180.0, 1.3, 0.5, REPRODUCED, "at_most: a ceiling the paper states"),
        ("approx", 3.0, np.nan, 0.05, NOT_RUN, ""),
        ("exact", 5.0, 5.0, 0.0, REPRODUCED, ""),
    ], columns=["kind", "paper", "ours", "tolerance", "status", "rule"])


def test_distances_are_in_tolerances_and_leave_out_claims_ceilings_and_rows_not_run():
    d = distances(_rows())
    # by hand: (2-2)/0.05, (10.3-10)/0.5, (4-1)/0.5, (40-100)/2
    assert d["x"].tolist() == pytest.approx([0.0, 0.6, 6.0, -30.0])
    assert d["status"].tolist() == [REPRODUCED, WITHIN_TOLERANCE, DIFFERS, DIFFERS]
    assert distances(_rows().iloc[:0]).empty
    # rows without reference.csv's rule column: only the ceiling comes back (its x by hand: (1.3-180)/0.5)
    assert distances(_rows().drop(columns="rule"))["x"].tolist() == pytest.approx([0.0, 0.6, 6.0, -30.0, -357.4])


def test_segments_are_the_summary_counts_and_the_causes_must_add_up():
    counts = {REPRODUCED: 3, WITHIN_TOLERANCE: 1, INDISTINGUISHABLE: 0, DIFFERS: 3, NOT_RUN: 1}
    causes = {**CAUSES0, "measured": 1, "unexplained": 2}
    widths = dict(zip([s for s, _ in SEGMENTS], segment_counts(counts, causes)))
    assert widths == {REPRODUCED: 3, WITHIN_TOLERANCE: 1, INDISTINGUISHABLE: 0, "differs: measured": 1,
                      "differs: setup": 0, "differs: chance": 0, "differs: paper": 0, "differs: unexplained": 2,
                      "differs: no cause": 0, NOT_RUN: 1}
    assert sum(widths.values()) == sum(counts.values())
    with pytest.raises(ValueError, match="causes"):
        segment_counts(counts, {**CAUSES0, "measured": 1})


def test_the_figure_draws_one_bar_per_experiment_as_wide_as_its_rows_and_one_dot_per_distance(tmp_path):
    rows = _rows()
    counts = {REPRODUCED: 3, WITHIN_TOLERANCE: 1, INDISTINGUISHABLE: 0, DIFFERS: 3, NOT_RUN: 1}
    causes = {**CAUSES0, "measured": 1, "unexplained": 2}
    small = rows.iloc[:1]
    experiments = [("first", rows, counts, causes),
                   ("second", small, {REPRODUCED: 1, WITHIN_TOLERANCE: 0, INDISTINGUISHABLE: 0, DIFFERS: 0, NOT_RUN: 0},
                    CAUSES0)]
    fig = overview_figure(experiments)
    bars, dots = fig.axes[:2]
    widths: dict[float, float] = {}
    for patch in bars.patches:
        y = round(patch.get_y() + patch.get_height() / 2)
        widths[y] = widths.get(y, 0) + patch.get_width()
    assert widths == {1: 8, 0: 1}  # the first experiment on top
    assert {round(t.get_position()[1]): t.get_text() for t in bars.get_yticklabels()} == {1: "first", 0: "second"}
    n_dots = sum(len(c.get_offsets()) for c in dots.collections if hasattr(c, "get_offsets"))
    assert n_dots == len(distances(rows)) + len(distances(small)) == 5
    assert "9 reference rows; 3 differ, 2 of them unexplained" in fig.texts[0].get_text()
    path = write_overview(experiments, tmp_path / "sub" / "overview.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="experiments"):
        overview_figure([])
