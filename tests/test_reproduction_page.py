"""results/REPRODUCTION.md, metrics.json and the CI check (ccexp.report.reproduction)."""

import json
import math

import pandas as pd
import pytest

from ccexp.report import PAPER_OF, REPORTS
from ccexp.report.__main__ import main as report_main
from ccexp.report.common import TOLERANCE_RULE, compare_row, experiments_dir, judge, load_reference
from ccexp.report.reproduction import (
    DIFFERS,
    INDISTINGUISHABLE,
    NOT_RUN,
    PAPERS,
    PINS,
    REPRODUCED,
    WITHIN_TOLERANCE,
    check,
    status,
    write_reproduction,
)
from ccexp.__main__ import list_experiments

REQUIRED = ("experiment", "quantity", "value", "decimals", "tolerance", "kind", "source", "check", "rule", "expect", "ci")


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_reference_csv_is_complete_and_ids_unique(paper):
    ref = load_reference(paper)
    raw = pd.read_csv(f"experiments/{paper}/reference.csv", dtype=str, keep_default_na=False)
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
    # a number's tolerance is never typed per row: the rule computes it from the printed precision
    numbers = raw["kind"] != "claim"
    assert (raw.loc[numbers, "tolerance"] == "").all(), raw.loc[numbers & (raw["tolerance"] != ""), "quantity"].tolist()
    assert (raw.loc[numbers, "decimals"] != "").all()
    # pins only on gated rows, and only the names the check knows
    assert set(ref["expect"]) <= {"", *PINS}
    assert (ref.loc[ref["expect"] != "", "ci"] == "yes").all()
    assert all(r == "" or r.split(":")[0] in ("at_most", "two_sample", "truncated", "whole_runs") and len(r) > 20 for r in ref["rule"])


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_no_timing_row_is_gated_in_ci(paper):
    # timings belong to scripts/bench/: a loaded CI machine must not fail the check
    ref = load_reference(paper)
    timing = ref["quantity"].str.contains(r"seconds|time|within_\d+s", regex=True)
    # zhu2013 reports no timing; cc_gaps has no reference rows at all (no paper reports it)
    assert timing.any() or paper in ("zhu2013", "cc_gaps", "cross")
    assert (ref.loc[timing, "ci"] == "").all(), ref.loc[timing & (ref["ci"] == "yes"), "ref_id"].tolist()


def test_every_experiment_has_a_report_and_a_paper():
    assert set(list_experiments()) == set(REPORTS)
    assert set(PAPER_OF.values()) == set(PAPERS)


@pytest.mark.parametrize(
    "kind, paper, ours, kw, expected",
    [
        ("approx", 3.47, 3.4749, {"decimals": 2}, REPRODUCED),  # equal at the paper's two decimals
        ("approx", 3.47, 3.476, {"decimals": 2}, DIFFERS),  # 0.006 > half a unit, no sampling error
        ("approx", 3.47, 3.476, {"decimals": 2, "sem": 0.001}, WITHIN_TOLERANCE),  # 0.006 <= 0.005 + 0.002
        ("approx", 8.0, 7.8, {"decimals": 1}, DIFFERS),  # Table I prints one decimal: "8" is 8.0, not 7.8
        ("approx", 8.0, 7.96, {"decimals": 1}, REPRODUCED),
        ("approx", 8.0, 7.8, {"decimals": 1, "sem": 0.2, "cap": 0.3}, INDISTINGUISHABLE),  # 2 SE = 0.4 >= 0.3
        ("approx", 8.0, 7.0, {"decimals": 1, "sem": 0.2, "cap": 0.3}, DIFFERS),  # beyond even 0.05 + 0.4
        ("approx", 8.0, 7.8, {"decimals": 1, "sem": 0.05, "cap": 0.15}, DIFFERS),  # 0.2 > cap 0.15 (2 SE = 0.1 < cap)
        ("exact", 34184.0, 34184.15625, {"decimals": 0}, REPRODUCED),
        ("approx", 13537000.0, 13537400.0, {"decimals": -3}, REPRODUCED),  # "13.537 M"
        ("claim", 1.0, 1.0, {}, REPRODUCED),
        ("claim", 1.0, 0.75, {}, DIFFERS),
        ("claim", 1.0, 0.0, {}, DIFFERS),
        ("approx", 2.0, math.nan, {"decimals": 1}, NOT_RUN),
    ],
)
def test_status(kind, paper, ours, kw, expected):
    assert status(kind, paper, ours, **kw) == expected


def test_judge_by_hand():
    # tolerance = 0.05 + 2 x 0.1, under the cap 1.0
    assert judge("approx", 8, 7.8, decimals=1, sem=0.1, cap=1.0) == (pytest.approx(0.25), WITHIN_TOLERANCE)
    # the cap wins when narrower than the rule
    assert judge("approx", 2.15, 2.0, decimals=2, sem=0.05, cap=0.12)[0] == pytest.approx(0.105)
    assert judge("approx", 2.15, 2.02, decimals=2, sem=0.07, cap=0.12) == (pytest.approx(0.12), INDISTINGUISHABLE)
    # ... unless ours is beyond even half a unit + 2 SE = 0.145
    assert judge("approx", 2.15, 2.0, decimals=2, sem=0.07, cap=0.12)[1] == DIFFERS
    # a claim that measures a share holds within its stated threshold
    assert judge("claim", 1.0, 0.8, claim_tolerance=0.25)[1] == REPRODUCED
    assert judge("claim", 1.0, 0.7, claim_tolerance=0.25)[1] == DIFFERS
    # a ceiling
    assert judge("approx", 180, 4.4, decimals=0, rule="at_most: a ceiling")[1] == REPRODUCED
    assert judge("approx", 180, 181, decimals=0, rule="at_most: a ceiling")[1] == DIFFERS
    with pytest.raises(ValueError, match="rule"):
        judge("approx", 1, 1, rule="between: 1 and 2")


def test_competitor_caps_by_hand(tmp_path, monkeypatch):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "reference.csv").write_text(
        "experiment,quantity,algorithm,dataset,k,value,decimals,tolerance,kind,source,check,rule,expect,ci\n"
        "e,q,a1,d1,,2.0,1,,approx,Table 1,,,,\n"
        "e,q,a2,d1,,2.3,1,,approx,Table 1 (alpha = 1),,,,\n"  # same table, another method: 0.3 away
        "e,q,a3,d1,,2.0,1,,approx,Table 1,,,,\n"  # a tie: not a competitor
        "e,q,a2,d2,,9.0,1,,approx,Table 1,,,,\n"  # another dataset: another cell group
        "e,c,a1,d1,,1,,0,claim,Table 1,x is larger than y,,,\n"
    )
    monkeypatch.setenv("CCEXP_EXPERIMENTS_DIR", str(tmp_path))
    ref = load_reference("p")
    assert ref["cap"].iloc[0] == pytest.approx(0.3)
    assert ref["cap"].iloc[1] == pytest.approx(0.3)
    assert ref["cap"].iloc[2] == pytest.approx(0.3)
    assert math.isnan(ref["cap"].iloc[3]) and math.isnan(ref["cap"].iloc[4])
    assert ref["tolerance"].tolist()[:2] == [pytest.approx(0.05)] * 2 and ref["tolerance"].iloc[4] == 0


def test_check_texts_are_the_codes():
    """Each claim's check text in reference.csv is the text the code that decides it builds."""
    from ccexp.report import _ukkonen2017_claims, _ukkonen2017_exp2, aronsson2024, liu2011, zhu2013

    for paper, checks in (("zhu2013", zhu2013.CHECKS), ("liu2011", liu2011.CHECKS),
                          ("aronsson2024", {"auc_order": aronsson2024.AUC_ORDER_CHECK}),
                          ("ukkonen2017", {**_ukkonen2017_claims.CHECKS, **_ukkonen2017_exp2.CHECKS})):
        if paper == "ukkonen2017":  # every exp1 claim checker has its text
            assert set(checks) == set(_ukkonen2017_claims.CLAIMS) | set(_ukkonen2017_exp2.CHECKS)
            assert set(checks) == set(load_reference(paper).query("kind == 'claim'")["quantity"])
        ref = load_reference(paper)
        rows = ref[ref["quantity"].isin(checks)]
        assert len(rows)
        for r in rows.itertuples():
            assert r.check == checks[r.quantity], (paper, r.ref_id)


def test_rule_is_stated_on_the_page_and_in_every_readme(tmp_path):
    page = write_reproduction(tmp_path).read_text()
    assert "## Tolerance rule" in page and TOLERANCE_RULE in page
    for paper in PAPERS:
        if not len(load_reference(paper)):  # cc_gaps: no published number to compare with
            continue
        readme = (experiments_dir() / paper / "README.md").read_text()
        assert "## Tolerance rule" in readme and TOLERANCE_RULE in readme, paper


EXP = "exp2_real_triplets"  # ten reference rows (Food unique, Food all, Nature), six flagged for CI


def _fake_report(results, name, scale, shift=None, run_json=True):
    """A comparison.csv with ours = the paper's value, except ``shift = {ref_id: delta}``.

    A row pinned ``differs`` gets ours far from the paper's (so the fake run meets its pins).
    """
    out = results / name / scale
    out.mkdir(parents=True)
    if run_json:
        (out / "run.json").write_text(json.dumps({"scale": scale, "code_version": "abc123"}))
    # the records the comparison stands for (the gate refuses a comparison without them, issue 33)
    pd.DataFrame({"case_id": ["c0"], "status": ["ok"]}).to_parquet(out / "records.parquet")
    rows = []
    for r in load_reference(PAPER_OF[name], name).itertuples():
        far = 10.0 * (1 + abs(r.value)) if r.expect == "differs" else 0.0
        ours = r.value + far + (shift or {}).get(r.ref_id, 0.0)
        rows.append(compare_row(r.quantity, r.value, ours, r.tolerance, algorithm=r.algorithm, note="n", ref_id=r.ref_id,
                                sem=0.0, n_trials=1))
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
    assert metrics["ukkonen2017"][EXP] == {"scale": "paper", "reproduced": len(ref) - 1, "within_tolerance": 0,
                                           "indistinguishable": 0, "differs": 1, "not_run": 0,
                                           "causes": {"measured": 0, "setup": 0, "chance": 0, "paper": 0, "unexplained": 0,
                                                      "no_cause": 1}}
    # the other experiments are listed as not run, with their row counts
    n_exp1 = len(load_reference("ukkonen2017", "exp1_triplets"))
    assert metrics["ukkonen2017"]["exp1_triplets"]["not_run"] == n_exp1
    assert f"{n_exp1} reference rows wait for it" in text
    # the differing row links to the paper's README, the figure is shown, ours carries ± 2 SE
    readme_link = "experiments/ukkonen2017/README.md"
    assert "[differs](" in text and readme_link in text
    assert f"![a]({EXP}/paper/figures/a.png)" in text
    # the summary as a figure, beside the page and shown under the summary table
    assert (tmp_path / "overview.png").read_bytes()[:4] == b"\x89PNG"
    assert text.index("![overview](overview.png)") < text.index("## Ukkonen")
    assert "ours (mean ± 2 SE)" in text
    for source in ref["source"]:
        assert source.replace("|", "\\|") in text
    assert "code `abc123`" in text


def test_check_fails_both_ways(tmp_path):
    ref = load_reference("ukkonen2017", EXP)
    gated = ref[ref["ci"] == "yes"]
    assert len(gated) == 4  # Food's triplets, density, clusters and singletons
    first = gated["ref_id"].iloc[0]
    good = tmp_path / "good"
    _fake_report(good, EXP, "ci")
    result = check(good, [EXP])
    assert result.ok and result.decided == 4 and result.counts[REPRODUCED] == 4
    # a passing row that breaks fails
    _fake_report(tmp_path / "bad", EXP, "ci", shift={first: 10.0})
    bad = check(tmp_path / "bad", [EXP])
    assert not bad.ok and bad.failures["ref_id"].tolist() == [first]
    # records at another scale, or without run.json, fail instead of being skipped
    _fake_report(tmp_path / "paper", EXP, "paper")
    other = check(tmp_path / "paper", [EXP])
    assert not other.ok and "records only at scale='paper'" in other.problems[0]
    _fake_report(tmp_path / "norun", EXP, "ci", run_json=False)
    assert not check(tmp_path / "norun", [EXP]).ok
    # nothing decided fails
    assert not check(tmp_path / "empty", [EXP]).ok
    # every gated experiment is checked: one without a report fails
    missing = check(good)
    assert not missing.ok and len(missing.problems) == len(
        {n for n in REPORTS if (load_reference(PAPER_OF[n], n)["ci"] == "yes").any()} - {EXP})


def test_a_pinned_row_that_changes_fails(tmp_path, monkeypatch):
    """A row pinned ``differs`` fails the check when it is fixed, until the pin is updated."""
    import shutil

    base = tmp_path / "exps"
    shutil.copytree(experiments_dir(), base)
    path = base / "ukkonen2017" / "reference.csv"
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    i = raw.index[(raw["experiment"] == EXP) & (raw["ci"] == "yes")][0]
    raw.at[i, "expect"] = "differs"
    raw.to_csv(path, index=False)
    monkeypatch.setenv("CCEXP_EXPERIMENTS_DIR", str(base))
    ref = load_reference("ukkonen2017", EXP)
    pinned = ref.loc[ref["expect"] == "differs", "ref_id"].iloc[0]
    _fake_report(tmp_path / "still", EXP, "ci")  # meets the pin (ours far away)
    assert check(tmp_path / "still", [EXP]).ok
    _fake_report(tmp_path / "fixed", EXP, "ci", shift={pinned: -10.0 * (1 + abs(float(raw.at[i, "value"])))})
    fixed = check(tmp_path / "fixed", [EXP])
    assert not fixed.ok and fixed.failures["ref_id"].tolist() == [pinned]


def test_cli_check_exit_codes(tmp_path, capsys, monkeypatch):
    ref = load_reference("ukkonen2017", EXP)
    ref = ref[ref["ci"] == "yes"]
    good, bad = tmp_path / "good", tmp_path / "bad"
    _fake_report(good, EXP, "ci")
    _fake_report(bad, EXP, "ci", shift={ref["ref_id"].iloc[2]: 10.0})
    # NAME --check: only that experiment (no records needed: the report is already there)
    monkeypatch.setattr("ccexp.report.__main__.make_report", lambda name, **kw: tmp_path)
    assert report_main([EXP, "--results", str(good), "--check"]) == 0
    out = capsys.readouterr().out
    assert "4 ci-gated reference rows: 4 reproduced, 0 within tolerance, 0 indistinguishable, 0 differs, 0 not run" in out
    assert "check: ok" in out
    assert report_main([EXP, "--results", str(bad), "--check"]) == 1
    err = capsys.readouterr().err
    assert ref["ref_id"].iloc[2] in err and "FAILED" in err
    assert report_main([EXP, "--results", str(tmp_path / "nothing"), "--check"]) == 1


def test_check_refuses_a_comparison_whose_records_are_gone_or_newer(tmp_path):
    """Issue 33, item 3: with records.parquet deleted, --check counted the gated rows as decided from the
    old comparison.csv; records written after the comparison were not judged either."""
    import os

    gone = tmp_path / "gone"
    _fake_report(gone, EXP, "ci")
    assert check(gone, [EXP]).ok
    (gone / EXP / "ci" / "records.parquet").unlink()
    result = check(gone, [EXP])
    assert not result.ok and result.decided == 0
    assert "is left from records that are gone" in result.problems[0] and EXP in result.problems[0]
    newer = tmp_path / "newer"
    _fake_report(newer, EXP, "ci")
    out = newer / EXP / "ci"
    stamp = (out / "comparison.csv").stat().st_mtime_ns
    os.utime(out / "records.parquet", ns=(stamp + 10**9, stamp + 10**9))  # records changed after the report
    result = check(newer, [EXP])
    assert not result.ok and "is older than the records beside it" in result.problems[0]
    # a part file not yet consolidated counts as records too
    os.utime(out / "records.parquet", ns=(stamp, stamp))
    (out / "parts").mkdir()
    part = out / "parts" / "part-1.parquet"
    pd.DataFrame({"case_id": ["c1"], "status": ["ok"]}).to_parquet(part)
    os.utime(part, ns=(stamp + 10**9, stamp + 10**9))
    assert not check(newer, [EXP]).ok
