"""The report on hand-made records: tables hold the hand-computed numbers.

Synthetic records (no sweep): k in {4, 8}, a in {0.01, 1}, b in {0, 0.2},
three trials, four algorithms, one failed case.  ARI and cluster counts are
chosen so win counts and Table I means can be checked by hand.
"""

from __future__ import annotations

import math
import pathlib

import pandas as pd
import pytest

from ccexp.report import REPORTS, make_report
from ccexp.report.__main__ import main as report_main
from ccexp.report.common import (
    NOT_RUN,
    OUTSIDE,
    WITHIN,
    compare_row,
    load_reference,
    markdown_table,
)

KS, AS, BS, TRIALS = (4, 8), (0.01, 1.0), (0.0, 0.2), (0, 1, 2)
# ls_ad_vc's ARI at a=0.01 per trial; trial 1 sits 1e-13 below ls_eq_vc's 0.65
# (a tie within the report's tolerance would not count as a loss).
AD_VC_SMALL_A = (0.5, 0.65 - 1e-13, 0.7)


def _records() -> pd.DataFrame:
    rows = []
    for k in KS:
        for a in AS:
            for b in BS:
                for t in TRIALS:
                    inst = f"k{k}-a{a}-b{b}-t{t}"
                    cells = {
                        # Ls-AD-VC: perfect with k clusters at a=1; ARI by trial and 2, 3, 4 clusters at a=0.01.
                        "ls_ad_vc": (1.0, k) if a == 1.0 else (AD_VC_SMALL_A[t], 2 + t),
                        "ls_eq_vc": (0.65, 2 + t),
                        "tste_dpmm": (0.7 if b == 0.0 else 0.3, k) if a != 1.0 else (1.0, k),
                        "brand_new": (0.9, k),  # an algorithm the report has never heard of
                    }
                    for alg, (ari, n) in cells.items():
                        rows.append({
                            "experiment": "exp1_triplets", "scale": "ci", "case_id": f"{inst}-{alg}",
                            "instance_id": inst, "algorithm": alg, "trial": t, "dataset.k": k,
                            "oracle.fraction": a, "oracle.noise": b, "ari": ari, "ami": ari, "f_measure": ari,
                            "n_clusters": n, "objective": 0, "fit_seconds": 0.01, "status": "ok",
                            "code_version": "abc123",
                        })
    df = pd.DataFrame(rows)
    # One failed case: Ls-EQ-VC on (k=4, a=1, b=0, trial 0) must leave every statistic.
    bad = (df["algorithm"] == "ls_eq_vc") & (df["instance_id"] == "k4-a1.0-b0.0-t0")
    df.loc[bad, ["status", "ari", "n_clusters"]] = ["error", math.nan, -1]
    return df


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = make_report("exp1_triplets", results_dir=tmp_path_factory.mktemp("results"), scale="ci",
                      records=_records(), filter_to_grid=False)
    return out


def test_report_folder_and_files(report):
    assert report.name == "ci" and report.parent.name == "exp1_triplets"  # results/<experiment>/<scale>/
    for rel in ("report.md", "comparison.md", "figures/figure2.png", "figures/ari_heatmaps.png",
                "tables/table1.md", "tables/table1.csv", "tables/table1_vs_paper.md",
                "tables/win_counts.md", "tables/win_counts.csv"):
        assert (report / rel).is_file(), rel
    for png in ("figure2.png", "ari_heatmaps.png"):
        data = (report / "figures" / png).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_win_counts_by_hand(report):
    wins = pd.read_csv(report / "tables" / "win_counts.csv").set_index("versus")
    # Test cases as the paper counts them: the 3 trials of a=1, b=0 share one case per k (weight 1/3 each).
    # vs Ls-EQ-VC, "outperforms" (a tie is no win): a=1 wins everywhere it is paired (k=4, b=0 lost trial 0:
    # 2/3 of a case; k=8, b=0: 1; b=0.2: 6), 7 2/3; a=0.01 per (k, b): trial 0 loses, trial 1 ties (no win),
    # trial 2 wins: 4. Wins 11 2/3 of 19 2/3 paired.
    assert wins.loc["ls_eq_vc", ["wins", "paired"]].tolist() == pytest.approx([11 + 2 / 3, 19 + 2 / 3])
    assert wins.loc["ls_eq_vc", "percent"] == pytest.approx(100 * 35 / 59)
    assert wins.loc["ls_eq_vc", "rule"] == "strict" and wins.loc["ls_eq_vc", "paper_wins"] == 871
    assert wins.loc["ls_eq_vc", ["strict_wins", "ties", "losses"]].tolist() == [15, 4, 4]  # unweighted instances
    # vs t-STE, "at least as well" (ties count): a=1 ties, 8 cases; a=0.01, b=0 only trial 2 (tie at 0.7) per
    # k (2); b=0.2 all (6): 16 of 20.
    assert wins.loc["tste_dpmm", ["wins", "paired"]].tolist() == pytest.approx([16, 20])
    assert wins.loc["tste_dpmm", "rule"] == "at_least" and wins.loc["tste_dpmm", "paper_wins"] == 751
    # vs the unknown algorithm: only at a=1.
    assert wins.loc["brand_new", ["wins", "paired"]].tolist() == pytest.approx([8, 20])
    assert math.isnan(wins.loc["brand_new", "paper_wins"])


def test_table1_by_hand(report):
    t1 = pd.read_csv(report / "tables" / "table1.csv")
    cell = lambda alg, b, col: t1.loc[(t1["algorithm"] == alg) & (t1["b"] == b), col].item()  # noqa: E731
    assert cell("ls_ad_vc", 0.0, "a=0.01 k=4") == pytest.approx(3.0)  # (2 + 3 + 4) / 3
    assert cell("ls_ad_vc", 0.2, "a=1 k=8") == pytest.approx(8.0)
    assert cell("ls_eq_vc", 0.0, "a=1 k=4") == pytest.approx(3.5)  # trial 0 failed: (3 + 4) / 2
    assert cell("ls_eq_vc", 0.2, "a=1 k=4") == pytest.approx(3.0)
    assert math.isnan(cell("ls_ad_vc", 0.0, "a=0.1 k=4"))  # not in this grid
    # Paper order first, unknown algorithm last.
    assert t1.loc[t1["b"] == 0.0, "algorithm"].tolist() == ["ls_ad_vc", "ls_eq_vc", "tste_dpmm", "brand_new"]
    md = (report / "tables" / "table1.md").read_text()
    assert "–" in md and "Ls-AD-VC" in md and "brand_new" in md
    vs = (report / "tables" / "table1_vs_paper.md").read_text()
    assert "3 (3.7)" in vs  # ours (paper) at Ls-AD-VC, b=0, a=0.01, k=4


def test_comparison_verdicts(report):
    text = (report / "comparison.md").read_text()
    assert "- scale: ci" in text and "abc123" in text
    assert "1 non-ok cases" in text and "error: 1" in text
    for verdict in (WITHIN, OUTSIDE, NOT_RUN):
        assert verdict in text
    cmp = pd.read_csv(report / "comparison.csv", keep_default_na=False, na_values=[""])
    assert set(cmp["verdict"]) <= {WITHIN, OUTSIDE, NOT_RUN, "indistinguishable"}
    assert {"ours_sem", "n_trials", "status"} <= set(cmp.columns)
    assert len(cmp) == len(load_reference("ukkonen2017", "exp1_triplets"))

    def row(quantity, **coords):
        mask = cmp["quantity"] == quantity
        for col, value in coords.items():
            mask &= cmp[col] == value
        assert mask.sum() == 1, (quantity, coords)
        return cmp[mask].iloc[0]

    # Table I: ls_ad_vc at a=0.01, k=4, b=0: clusters 2, 3, 4 over the trials, mean 3 vs the paper's 3.7;
    # SE = 1/sqrt(3), so 2 SE = 1.15 reaches CrowdClust's 3.4 (0.3 away): indistinguishable, by hand.
    r = row("n_clusters_mean", algorithm="ls_ad_vc", k=4, a=0.01, b=0.0)
    assert r["ours"] == pytest.approx(3.0) and r["ours_sem"] == pytest.approx(1 / math.sqrt(3)) and r["n_trials"] == 3
    assert r["status"] == "indistinguishable" and r["tolerance"] == pytest.approx(0.3)
    assert row("n_clusters_mean", algorithm="ls_ad_vc", k=2, a=1.0, b=0.0)["verdict"] == NOT_RUN
    assert row("n_clusters_mean", algorithm="crowdclust_dpmm", k=4, a=1.0, b=0.0)["verdict"] == NOT_RUN
    # Win counts as percentages of test cases: t-STE 16/20 = 80% vs 751/924 = 81.3%: within.
    r = row("win_count (%)", versus="tste_dpmm")
    assert r["ours"] == pytest.approx(80.0) and r["verdict"] == WITHIN
    # 11 2/3 of 19 2/3 = 59.3% vs 871/924 = 94.3%: 35 points, more than 2 binomial SE over 19 2/3 cases (22.2
    # points): outside; a sign test of the 23 pairs goes with it in the note
    r = row("win_count (%)", versus="ls_eq_vc")
    p, n = 35 / 59, 19 + 2 / 3
    assert r["verdict"] == OUTSIDE and r["ours_sem"] == pytest.approx(100 * math.sqrt(p * (1 - p) / n))
    assert "sign test" in r["note"] and "a tie is no win" in r["note"] and r["n_trials"] == int(n)  # recorded whole
    assert row("win_count (%)", versus="crowdclust_dpmm")["verdict"] == NOT_RUN
    # Claims: exact k at a=1 holds; the CrowdClust claim cannot be checked. At a=0.01, b=0
    # t-STE's 0.7 is ahead of Ls-EQ-VC's 0.65 (SE 0) and of Ls-AD-VC's 0.617, but Ls-AD-VC's
    # trials (0.5, 0.65, 0.7) give 2 SE = 0.120 > its 0.083 lead: no "clear winner". The unknown
    # algorithm's 0.9 is not one of the paper's methods and does not decide the verdict.
    assert row("claim_ls_ad_vc_exact_k_at_a1")["verdict"] == WITHIN
    assert row("claim_crowdclust_ari_near1_k4_a_ge_0.05_b0.2")["verdict"] == NOT_RUN
    tste = row("claim_tste_best_a0.01_b0")
    assert tste["verdict"] == OUTSIDE and "Ls-AD-VC 0.617 (needs a lead > 2 SE = 0.12)" in tste["note"], tste["note"]
    assert "Ls-EQ-VC" not in tste["note"].split("; not at ")[1]
    # Ls-AD-VC at a=1 has ARI 1 everywhere -> "good at large a" holds.
    assert row("claim_ls_ad_vc_good_large_a_any_b")["verdict"] == WITHIN
    assert "threshold" in row("claim_ls_ad_vc_good_large_a_any_b")["note"]


def test_report_index_links(report):
    text = (report / "report.md").read_text()
    for link in ("figures/figure2.png", "figures/ari_heatmaps.png", "tables/table1.md", "tables/win_counts.md",
                 "comparison.md"):
        assert f"]({link})" in text
    assert "does not name the a" in text  # the right column's a values are ours


def test_unknown_experiment_lists_valid_names(tmp_path):
    with pytest.raises(ValueError, match="exp1_triplets"):
        make_report("no_such_experiment", results_dir=tmp_path, records=_records())
    assert "exp1_triplets" in REPORTS


def test_cli_all_without_records(tmp_path, capsys):
    assert report_main(["all", "--results", str(tmp_path)]) == 1
    assert "no records" in capsys.readouterr().err


def _summary(page: str) -> list[str]:
    lines = page.split("## Summary", 1)[1].splitlines()
    return [ln for ln in lines if ln.startswith("| ")][:25]


def test_cli_all_on_a_fresh_clone_makes_the_page_from_the_committed_reports(tmp_path, capsys):
    """The records are gitignored: a clone has the reports only, and ``all`` makes the page from them."""
    import shutil

    committed = pathlib.Path(__file__).resolve().parents[1] / "results"
    for path in committed.glob("*/*/comparison.csv"):
        for name in ("comparison.csv", "run.json"):
            if (path.parent / name).is_file():
                (tmp_path / path.parent.relative_to(committed)).mkdir(parents=True, exist_ok=True)
                shutil.copy(path.parent / name, tmp_path / path.parent.relative_to(committed) / name)
    assert not list(tmp_path.glob("*/*/records.parquet"))
    assert report_main(["all", "--results", str(tmp_path)]) == 0
    assert "from the reports there" in capsys.readouterr().err
    # the counts per status and per cause are the committed page's, made from the same reports and ledgers
    assert _summary((tmp_path / "REPRODUCTION.md").read_text()) == _summary((committed / "REPRODUCTION.md").read_text())


def test_markdown_table_and_compare_row():
    md = markdown_table(pd.DataFrame({"name": ["x|y", "z"], "value": [1.0, math.nan]}))
    assert md.splitlines() == ["| name | value |", "|:--|--:|", "| x\\|y | 1 |", "| z | – |"]
    assert compare_row("q", 2.0, 2.9, 1.0)["verdict"] == WITHIN
    assert compare_row("q", 2.0, 3.0, 1.0)["verdict"] == WITHIN  # the boundary counts as agreement
    assert compare_row("q", 2.0, 3.2, 1.0)["verdict"] == OUTSIDE
    r = compare_row("q", 2.0, None, 1.0)
    assert r["verdict"] == NOT_RUN and math.isnan(r["difference"])


def test_missing_reference_names_path(tmp_path, monkeypatch):
    monkeypatch.setenv("CCEXP_EXPERIMENTS_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="reference.csv"):
        load_reference("ukkonen2017")


def test_two_sample_rule_adds_the_reference_runs_sampling_error():
    """A reference that is itself a mean of n runs (the authors' stored curves) widens by its own SE, not more."""
    from ccexp.report.common import judge

    # ours 0.95 +- 0 against theirs 0.98 with sd 0.04 over 8 runs: 2 * 0.04/sqrt(8) = 0.0283 + 0.0005 < 0.03
    tol, status = judge("approx", 0.98, 0.95, decimals=3, sem=0.0, rule="two_sample: sd=0.04 n=8 (their runs)")
    assert tol == pytest.approx(0.0005 + 2 * 0.04 / 8**0.5)
    assert status == "differs"
    tol, status = judge("approx", 0.98, 0.955, decimals=3, sem=0.0, rule="two_sample: sd=0.04 n=8 (their runs)")
    assert status == "within tolerance"
    # the cap to a competitor still applies
    tol, _ = judge("approx", 0.98, 0.96, decimals=3, sem=0.0, cap=0.01, rule="two_sample: sd=0.04 n=8 (x)")
    assert tol == pytest.approx(0.01)
    with pytest.raises(ValueError, match="sd=S n=N"):
        judge("approx", 0.98, 0.96, decimals=3, rule="two_sample: their runs")
