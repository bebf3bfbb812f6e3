"""Reports as data and their one writer (ccexp.report.output; issue 30, item 6)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from matplotlib.figure import Figure

from ccexp.report import REPORTS
from ccexp.report.comparison import COMPARISON_COLUMNS, EMPTY_COMPARISON_COLUMNS, compare_row
from ccexp.report.output import Report, no_paper_comparison, write_report
from ccexp.report.tables import with_error_bars


def test_with_error_bars_on_a_table_without_ours_sem():
    # before beedd47 tables.py used math.nan without importing math: this raised NameError
    cmp = pd.DataFrame({"quantity": ["q", "r"], "ours": [0.5, math.nan]})
    out = with_error_bars(cmp)
    assert list(out.columns) == ["quantity", "ours (mean ± 2 SE)"]
    assert out["ours (mean ± 2 SE)"].tolist() == ["0.5", "–"]
    # with a SEM: mean ± 2 SE, the SEM column dropped
    out = with_error_bars(cmp.assign(ours_sem=[0.1, math.nan]))
    assert out["ours (mean ± 2 SE)"].tolist() == ["0.5 ± 0.2", "–"] and "ours_sem" not in out


def test_compare_row_gives_the_comparison_columns_in_order():
    row = compare_row("q", 1.0, 1.2, 0.5, algorithm="a", note="n")
    assert tuple(row) == COMPARISON_COLUMNS
    assert row["difference"] == pytest.approx(0.2) and row["status"] == "reproduced"
    assert set(EMPTY_COMPARISON_COLUMNS) < set(COMPARISON_COLUMNS)


def test_the_writer_renders_every_part_of_a_report(tmp_path):
    out = Report()
    frame = pd.DataFrame({"x": [1, 2], "y": [0.125, 0.5]})
    out.table("t", frame, digits=1)
    frame.loc[0, "y"] = 99.0  # the report keeps what it was given, not later changes
    out.table("u", frame, md="hand-written\n")
    fig = Figure(figsize=(1, 1))
    fig.subplots().plot([0, 1])
    out.figure("f.png", fig, dpi=20)
    out.figure("g.png", lambda path: path.write_bytes(b"drawn"))
    out.files["tables/note.txt"] = "a note"
    out.text = "# index\n"
    out.compare([compare_row("q", 1.0, 1.0, 0.5)], "# cmp\n")
    write_report(out, tmp_path)
    assert (tmp_path / "tables" / "t.csv").read_text() == "x,y\n1,0.125\n2,0.5\n"
    assert (tmp_path / "tables" / "t.md").read_text() == "| x | y |\n|--:|--:|\n| 1 | 0.1 |\n| 2 | 0.5 |\n"
    assert (tmp_path / "tables" / "u.md").read_text() == "hand-written\n"
    assert (tmp_path / "figures" / "f.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "figures" / "g.png").read_bytes() == b"drawn"
    assert (tmp_path / "tables" / "note.txt").read_text() == "a note"
    assert (tmp_path / "report.md").read_text() == "# index\n"
    assert (tmp_path / "comparison.md").read_text() == "# cmp\n"
    assert list(pd.read_csv(tmp_path / "comparison.csv").columns) == list(COMPARISON_COLUMNS)


def test_a_comparison_without_rows(tmp_path):
    out = Report()
    out.compare(*no_paper_comparison("e", "a result of this project"))
    write_report(out, tmp_path)
    assert (tmp_path / "comparison.csv").read_text() == ",".join(EMPTY_COMPARISON_COLUMNS) + "\n"
    assert "No paper reports these numbers (a result of this project); experiments/e/reference.csv has no rows" in (
        tmp_path / "comparison.md").read_text()
    quiet = Report()
    quiet.compare([], "nothing\n", csv_when_empty=False)  # a report that found nothing writes no csv
    write_report(quiet, tmp_path / "q")
    assert not (tmp_path / "q" / "comparison.csv").exists() and (tmp_path / "q" / "comparison.md").is_file()


def test_a_figure_is_a_figure_or_a_drawing():
    out = Report()
    with pytest.raises(ValueError, match="dpi is required"):
        out.figure("f.png", Figure())
    with pytest.raises(ValueError, match="expected a matplotlib Figure or a callable"):
        out.figure("f.png", "figure.png")


def test_every_report_returns_its_report_as_data(tmp_path):
    # no report function writes: each returns a Report the writer renders (an empty record set is enough
    # to see the kind of what comes back for the reports that need no records)
    records = pd.DataFrame({"status": pd.Series(dtype=str), "algorithm": pd.Series(dtype=str)})
    for name in ("cc_gaps", "agg_census"):
        got = REPORTS[name](records, tmp_path / name, "ci")
        assert isinstance(got, Report)
        assert not (tmp_path / name).exists()
