"""A report's files are replaced all together or not at all, and its entry page is always the records' (issue 33).

Before: ``report.md`` was written only when missing, so it kept saying "2 cases" after more records came
(item 1); a report that failed halfway (a full disk) left new tables beside an old ``report.md`` and an old
figure cut short (item 5); records of two code versions were reported under the first one's name (item 2).
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys

import pandas as pd
import pytest

import ccexp.report as report_pkg
from ccexp.report import make_report, recover_report
from ccexp.report.output import Report

FIGURE = b"\x89PNG" + bytes(range(256)) * 64  # 16 KiB


def _records(n, versions=("abc123",)):
    return pd.DataFrame({"case_id": [f"c{i}" for i in range(n)], "status": ["ok"] * n,
                         "code_version": [versions[i % len(versions)] for i in range(n)]})


@pytest.fixture(params=["as data", "writes its files"])
def dummy(monkeypatch, request):
    """A report ``dummy`` with a figure, a table and a comparison; ``fail`` makes it fail halfway through the figure.

    Either a report as data (a :class:`ccexp.report.output.Report` that the writer renders: it fails in the
    writer) or a report function of the older kind that writes its own files.
    """
    state = {"fail": False, "calls": 0}

    def figure(path):
        with open(path, "wb") as fh:
            fh.write(FIGURE[:4096])
            if state["fail"]:
                raise OSError(errno.ENOSPC, "No space left on device")
            fh.write(FIGURE[4096:])

    def as_data(records, out_dir, scale, n_grid_instances=None):
        state["calls"] += 1
        out = Report()
        out.table("t", pd.DataFrame({"n": [len(records)]}), md=f"table of {len(records)} records, call {state['calls']}")
        out.comparison = pd.DataFrame({"ref_id": ["x"], "ours": [len(records)]})
        out.figure("f.png", figure)
        return out

    def writes(records, out_dir, scale, n_grid_instances=None):
        state["calls"] += 1
        (out_dir / "tables").mkdir(exist_ok=True)
        (out_dir / "tables" / "t.md").write_text(f"table of {len(records)} records, call {state['calls']}")
        (out_dir / "comparison.csv").write_text(f"ref_id,ours\nx,{len(records)}\n")
        (out_dir / "figures").mkdir(exist_ok=True)
        figure(out_dir / "figures" / "f.png")

    report = as_data if request.param == "as data" else writes
    monkeypatch.setitem(report_pkg.REPORTS, "dummy", report)
    monkeypatch.setitem(report_pkg.PAPER_OF, "dummy", "nopaper")
    return state


def _make(tmp_path, records):
    return make_report("dummy", results_dir=tmp_path, scale="ci", label="ci", records=records, filter_to_grid=False)


def _snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_entry_page_follows_the_records(tmp_path, dummy):
    out = _make(tmp_path, _records(2))
    assert "2 cases (2 ok)" in (out / "report.md").read_text()
    _make(tmp_path, _records(5))
    assert "5 cases (5 ok)" in (out / "report.md").read_text()


def test_a_report_that_fails_halfway_leaves_the_old_one_whole(tmp_path, dummy):
    out = _make(tmp_path, _records(2))
    before = _snapshot(out)
    assert len(before["figures/f.png"]) == len(FIGURE)
    dummy["fail"] = True
    with pytest.raises(OSError, match="No space left"):
        _make(tmp_path, _records(5))
    assert _snapshot(out) == before  # every file old, the figure whole; nothing half-written, nothing new
    assert not list(out.glob(".report-old.*"))
    dummy["fail"] = False
    _make(tmp_path, _records(5))
    assert "5 cases" in (out / "report.md").read_text() and "call 3" in (out / "tables" / "t.md").read_text()


def test_a_report_killed_while_it_wrote_is_put_back(tmp_path, dummy):
    """A hidden folder of a dead process holds the old report: the next reader renames it back."""
    out = _make(tmp_path, _records(2))
    before = _snapshot(out)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    stage = out / f".report-old.{report_pkg._files._HOST}.{pid}.0123456789ab"
    stage.mkdir()
    for name in ("report.md", "comparison.csv", "figures", "tables"):
        os.replace(out / name, stage / name)
    (stage / ".moved").touch()
    (out / "figures").mkdir()
    (out / "figures" / "f.png").write_bytes(FIGURE[:4096])  # the new report, cut short by the kill
    (out / "tables").mkdir()
    (out / "tables" / "new.md").write_text("half")
    assert recover_report(out)
    assert _snapshot(out) == before and not stage.exists()


def test_records_of_two_code_versions_say_so_on_the_first_line(tmp_path, dummy):
    out = _make(tmp_path, _records(4, versions=("aaa111", "bbb222+dirty")))
    first = (out / "report.md").read_text().splitlines()[0]
    assert first.startswith("> **Mixed code versions**") and "aaa111 (2 cases), bbb222+dirty (2 cases)" in first
    out = _make(tmp_path, _records(4))
    assert "Mixed" not in (out / "report.md").read_text()
