"""results/REPRODUCTION.md, metrics.json and the CI check (ccexp.report.reproduction)."""

import json
import math

import pandas as pd
import pytest

from ccexp.report import PAPER_OF, REPORTS
from ccexp.report.__main__ import main as report_main
from ccexp.report.common import compare_row, load_reference
from ccexp.report.reproduction import DIFFERS, NOT_RUN, PAPERS, REPRODUCED, WITHIN_TOLERANCE, check, status, write_reproduction
from ccexp.__main__ import list_experiments

REQUIRED = ("experiment", "quantity", "value", "tolerance", "kind", "source", "check", "ci")


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_reference_csv_is_complete_and_ids_unique(paper):
    ref = load_reference(paper)
    raw = pd.read_csv(f"experiments/{paper}/reference.csv", nrows=0)
    assert set(REQUIRED) <= set(raw.columns)
    assert ref["ref_id"].is_unique, ref.loc[ref["ref_id"].duplicated(), "ref_id"].tolist()
    assert set(ref["kind"]) <= {"exact", "approx", "claim", "derived"}
    assert set(ref["ci"]) <= {"yes", ""}
    assert (ref["source"] != "").all()
    # a claim row says how it is decided
    claims = ref[ref["kind"] == "claim"]
    assert (claims["check"].str.len() > 10).all(), claims.loc[claims["check"] == "", "ref_id"].tolist()
    # every experiment named is one of the paper's reports
    assert set(ref["experiment"]) <= {n for n, p in PAPER_OF.items() if p == paper}
    assert ref["value"].notna().all() and ref["tolerance"].notna().all()


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_no_timing_row_is_gated_in_ci(paper):
    # timings belong to scripts/bench/: a loaded CI machine must not fail the check
    ref = load_reference(paper)
    timing = ref["quantity"].str.contains(r"seconds|time|within_\d+s", regex=True)
    # zhu2013 reports no timing; cc_gaps has no reference rows at all (no paper reports it)
    assert timing.any() or paper in ("zhu2013", "cc_gaps")
    assert (ref.loc[timing, "ci"] == "").all(), ref.loc[timing & (ref["ci"] == "yes"), "ref_id"].tolist()


def test_every_experiment_has_a_report_and_a_paper():
    assert set(list_experiments()) == set(REPORTS)
    assert set(PAPER_OF.values()) == set(PAPERS)


@pytest.mark.parametrize(
    "kind, paper, ours, verdict, expected",
    [
        ("approx", 3.47, 3.4749, "within tolerance", REPRODUCED),  # equal at the paper's two decimals
        ("approx", 3.47, 3.476, "within tolerance", WITHIN_TOLERANCE),
        ("approx", 54.0, 54.4, "within tolerance", REPRODUCED),
        ("approx", 54.0, 68.0, "outside tolerance", DIFFERS),
        ("exact", 34184.0, 34184.15625, "within tolerance", REPRODUCED),
        ("claim", 1.0, 1.0, "within tolerance", REPRODUCED),
        ("claim", 1.0, 0.75, "within tolerance", WITHIN_TOLERANCE),  # a share with a tolerance
        ("claim", 1.0, 0.0, "outside tolerance", DIFFERS),
        ("approx", 2.0, math.nan, "not run", NOT_RUN),
    ],
)
def test_status(kind, paper, ours, verdict, expected):
    assert status(kind, paper, ours, verdict) == expected


EXP = "exp2_real_triplets"  # seven reference rows (Food and Nature), three flagged for CI


def _fake_report(results, name, scale, shift=None):
    """A comparison.csv with ours = the paper's value, except ``shift = {ref_id: delta}``."""
    out = results / name
    out.mkdir(parents=True)
    (out / "run.json").write_text(json.dumps({"scale": scale, "code_version": "abc123"}))
    rows = []
    for r in load_reference(PAPER_OF[name], name).itertuples():
        ours = r.value + (shift or {}).get(r.ref_id, 0.0)
        rows.append(compare_row(r.quantity, r.value, ours, r.tolerance, algorithm=r.algorithm, note="n", ref_id=r.ref_id))
    pd.DataFrame(rows).to_csv(out / "comparison.csv", index=False)
    (out / "figures").mkdir()
    (out / "figures" / "a.png").write_bytes(b"\x89PNG")


def test_page_lists_every_reference_row_with_status_and_links(tmp_path):
    ref = load_reference("ukkonen2017", EXP)
    off = ref["ref_id"].iloc[1]
    _fake_report(tmp_path, EXP, "paper", shift={off: 5.0})
    page = write_reproduction(tmp_path)
    text = page.read_text()
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["ukkonen2017"][EXP] == {"scale": "paper", "reproduced": len(ref) - 1, "within_tolerance": 0, "differs": 1,
                                           "not_run": 0}
    # the other experiments are listed as not run, with their row counts
    n_exp1 = len(load_reference("ukkonen2017", "exp1_triplets"))
    assert metrics["ukkonen2017"]["exp1_triplets"]["not_run"] == n_exp1
    assert f"{n_exp1} reference rows wait for it" in text
    # the differing row links to the paper's README, the figure is shown
    readme_link = "experiments/ukkonen2017/README.md"
    assert "[differs](" in text and readme_link in text
    assert f"![a]({EXP}/figures/a.png)" in text
    for source in ref["source"]:
        assert source.replace("|", "\\|") in text
    assert "code `abc123`" in text


def test_check_passes_fails_and_skips(tmp_path, capsys):
    ref = load_reference("ukkonen2017", EXP)
    ref = ref[ref["ci"] == "yes"]
    assert len(ref) == 3
    good, bad, paper = tmp_path / "good", tmp_path / "bad", tmp_path / "paper"
    _fake_report(good, EXP, "ci")
    _fake_report(bad, EXP, "ci", shift={ref["ref_id"].iloc[0]: 10.0})
    _fake_report(paper, EXP, "paper", shift={ref["ref_id"].iloc[0]: 10.0})

    assert check(good, [EXP]).ok
    result = check(bad, [EXP])
    assert not result.ok and result.failures["ref_id"].tolist() == [ref["ref_id"].iloc[0]]
    skipped = check(paper, [EXP])  # the flag is about the ci grid
    assert skipped.ok and skipped.skipped == [EXP]
    # every experiment is checked: one that was not run fails its gated rows
    missing = check(good)
    assert not missing.ok and set(missing.failures["experiment"]) == set(REPORTS) - {EXP} - {
        n for n in REPORTS if not (load_reference(PAPER_OF[n], n)["ci"] == "yes").any()}
    assert (missing.failures["verdict"] == NOT_RUN).all()


def test_cli_check_exit_codes(tmp_path, capsys, monkeypatch):
    ref = load_reference("ukkonen2017", EXP)
    ref = ref[ref["ci"] == "yes"]
    good, bad = tmp_path / "good", tmp_path / "bad"
    _fake_report(good, EXP, "ci")
    _fake_report(bad, EXP, "ci", shift={ref["ref_id"].iloc[2]: 10.0})
    # NAME --check: only that experiment (no records needed: the report is already there)
    monkeypatch.setattr("ccexp.report.__main__.make_report", lambda name, **kw: tmp_path)
    assert report_main([EXP, "--results", str(good), "--check"]) == 0
    assert "all 3 ci-gated reference rows within tolerance" in capsys.readouterr().out
    assert report_main([EXP, "--results", str(bad), "--check"]) == 1
    assert ref["ref_id"].iloc[2] in capsys.readouterr().err
