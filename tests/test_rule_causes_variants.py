"""Issue 28: the rule reads the paper's own number of runs, every difference has a cause, named variants.

Hand-computed rows of the rule (a one-run paper value, a 10-trial one, the
strict bound at a competitor), the causes' parsing and anchors, ``--check``'s
cause problems on fake reports, and ``experiment.variant`` from the command
line to the results folder.
"""

import json
import math
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from ccexp.report.causes import anchors, evidence_problem, load_ledger, parse_cause, slug, variant_problem
from ccexp.report.common import compare_row, load_reference
from ccexp.report.reproduction import (DIFFERS, INDISTINGUISHABLE, REPRODUCED, WITHIN_TOLERANCE, cause_problems,
                                       collect, write_reproduction)
from ccexp.report.tolerance import judge, se_of_difference
from ccexp.runner.compose import ConfigError, compose_config
from ccexp.runner.config import resolve_run
from ccexp.runner.layout import scale_label, split_label


# ----------------------------------------------------------------------------- the rule, by hand


def test_a_one_run_paper_value_against_ten_trials():
    # our 10 trials: SD 2.0, SE 2/sqrt(10) = 0.6325; the paper's value is one run (paper_n = 1):
    # SE of the difference = 2 * sqrt(1/10 + 1/1) = 2.0976; tolerance = 0.05 + 2 * 2.0976 = 4.2453
    sem = 2.0 / math.sqrt(10)
    assert se_of_difference(sem, 10, paper_n=1) == pytest.approx(2.0976177, abs=1e-6)
    tol, st = judge("approx", 12.0, 15.9, decimals=1, sem=sem, n=10, paper_n=1)
    assert tol == pytest.approx(4.2452355, abs=1e-6) and st == WITHIN_TOLERANCE
    assert judge("approx", 12.0, 16.3, decimals=1, sem=sem, n=10, paper_n=1)[1] == DIFFERS
    # without paper_n the same row is judged against our SE only: 0.05 + 1.2649 = 1.3149
    tol, st = judge("approx", 12.0, 15.9, decimals=1, sem=sem, n=10)
    assert tol == pytest.approx(0.05 + 2 * sem) and st == DIFFERS


def test_a_ten_trial_paper_value_against_ten_trials():
    # SD 0.5 over our 10 trials, the paper averaged 10 too: SE = 0.5 * sqrt(0.2) = 0.2236; tol = 0.05 + 0.4472
    sem = 0.5 / math.sqrt(10)
    tol, st = judge("approx", 3.0, 3.45, decimals=1, sem=sem, n=10, paper_n=10)
    assert tol == pytest.approx(0.4972136, abs=1e-6) and st == WITHIN_TOLERANCE
    assert judge("approx", 3.0, 3.55, decimals=1, sem=sem, n=10, paper_n=10)[1] == DIFFERS


def test_the_paper_sd_replaces_ours_where_known():
    # the authors' stored runs: sd 0.04 over 8 runs; ours SE 0.01: SE = sqrt(0.01^2 + 0.04^2/8) = 0.017321
    assert se_of_difference(0.01, 15, paper_n=8, paper_sd=0.04) == pytest.approx(0.0173205, abs=1e-6)
    a = judge("approx", 0.9, 0.93, decimals=3, sem=0.01, n=15, paper_n=8, paper_sd=0.04)
    b = judge("approx", 0.9, 0.93, decimals=3, sem=0.01, n=15, rule="two_sample: sd=0.04 n=8 (their runs)")
    assert a == b and a[0] == pytest.approx(0.0005 + 2 * 0.0173205, abs=1e-6) and a[1] == WITHIN_TOLERANCE


def test_the_bound_is_strict_at_a_competitor():
    # raw tolerance 0.05 + 2 * 0.2 = 0.45 is capped by a competitor 0.3 away; 2 SE = 0.4 >= 0.3 and ours is
    # beyond half a unit + 2 SE: differs; with SE 0.1 (2 SE = 0.2 < cap): ours exactly at the competitor differs,
    # just inside it is within
    assert judge("approx", 8.0, 8.3, decimals=1, sem=0.1, cap=0.3) == (pytest.approx(0.25), DIFFERS)
    assert judge("approx", 8.0, 8.2, decimals=1, sem=0.15, cap=0.3)[1] == INDISTINGUISHABLE
    assert judge("approx", 8.0, 8.29, decimals=1, sem=0.13, cap=0.3) == (pytest.approx(0.3), WITHIN_TOLERANCE)
    assert judge("approx", 8.0, 8.3, decimals=1, sem=0.13, cap=0.3)[1] == DIFFERS


def test_indistinguishable_uses_the_se_of_the_difference():
    # 2 x our SE (0.2) does not reach the competitor 0.3 away, but with a one-run paper value the SE of the
    # difference (0.1 * sqrt(1 + 10) = 0.332) does
    sem = 0.1
    assert judge("approx", 8.0, 8.2, decimals=1, sem=sem, n=10, cap=0.3)[1] == WITHIN_TOLERANCE
    assert judge("approx", 8.0, 8.2, decimals=1, sem=sem, n=10, paper_n=1, cap=0.3)[1] == INDISTINGUISHABLE


def test_the_order_of_decisions():
    # indistinguishable is decided before reproduced: a value that rounds to the paper's but whose spread
    # reaches a competitor is indistinguishable
    assert judge("approx", 2.0, 2.01, decimals=1, sem=0.2, cap=0.3)[1] == INDISTINGUISHABLE
    assert judge("approx", 2.0, 2.01, decimals=1, sem=0.0, cap=0.3)[1] == REPRODUCED


def test_paper_n_is_validated():
    with pytest.raises(ValueError, match="paper_n"):
        se_of_difference(0.1, 10, paper_n=0)
    with pytest.raises(ValueError, match="n .our number of trials"):
        se_of_difference(0.1, None, paper_n=10)
    # a deterministic run (SE 0) needs no n
    assert se_of_difference(0.0, None, paper_n=1) == 0.0


def test_compare_row_reads_paper_n_from_the_reference(tmp_path, monkeypatch):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "reference.csv").write_text(
        "experiment,quantity,algorithm,dataset,value,decimals,tolerance,kind,source,check,rule,expect,ci,paper_n\n"
        "e,q,a1,d1,12.0,1,,approx,Table 1,,,,,1\n"
        "e,q,a1,d2,12.0,1,,approx,Table 1,,,,,\n")
    monkeypatch.setenv("CCEXP_EXPERIMENTS_DIR", str(tmp_path))
    ref = load_reference("p")
    sem = 2.0 / math.sqrt(10)
    one = compare_row("q", 12.0, 15.9, 0.05, ref_id=ref["ref_id"][0], sem=sem, n_trials=10)
    none = compare_row("q", 12.0, 15.9, 0.05, ref_id=ref["ref_id"][1], sem=sem, n_trials=10)
    assert one["status"] == WITHIN_TOLERANCE and one["tolerance"] == pytest.approx(4.2452355, abs=1e-6)
    assert none["status"] == DIFFERS


# ----------------------------------------------------------------------------- causes


def test_parse_cause():
    assert parse_cause("measured") == ("measured", "")
    assert parse_cause(" setup:authors ") == ("setup", "authors")
    assert parse_cause(float("nan")) == ("", "")
    for bad in ("guessed", "setup", "measured:x", "setup:a/b"):
        with pytest.raises(ValueError, match="cause"):
            parse_cause(bad)


def test_anchors_of_a_readme(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# Title\n\n## Item 5: Mushrooms' D(C)\n\ntext <a id=\"table-x\"></a>\n\n"
                      "```\n## not a heading\n```\n\n## Item 5: Mushrooms' D(C)\n")
    assert anchors(readme) == {"title", "item-5-mushrooms-dc", "item-5-mushrooms-dc-1", "table-x"}
    assert slug("Ls-EQ-VC: tie-break (first / stay)") == "ls-eq-vc-tie-break-first--stay"
    assert evidence_problem("#table-x", readme) is None
    assert "no such heading" in evidence_problem("#nope", readme)
    assert "not an anchor" in evidence_problem("README.md#title", readme)


EXP = "exp2_real_triplets"


def _fake(results, label, ours_of, paper="ukkonen2017", name=EXP):
    out = results / name / label
    out.mkdir(parents=True, exist_ok=True)
    (out / "run.json").write_text(json.dumps({"scale": label.split("+")[0], "code_version": "abc"}))
    rows = [compare_row(r.quantity, r.value, ours_of(r), r.tolerance, ref_id=r.ref_id, sem=0.0, n_trials=1)
            for r in load_reference(paper, name).itertuples()]
    pd.DataFrame(rows).to_csv(out / "comparison.csv", index=False)


@pytest.fixture
def experiments_copy(tmp_path, monkeypatch):
    """A copy of experiments/ whose ukkonen2017 reference.csv and README the test may edit."""
    import shutil

    from ccexp.report.reference import experiments_dir

    base = tmp_path / "exps"
    shutil.copytree(experiments_dir(), base)
    monkeypatch.setenv("CCEXP_EXPERIMENTS_DIR", str(base))
    return base


def _set(base, ref_id, **cols):
    path = base / "ukkonen2017" / "reference.csv"
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    ids = load_reference("ukkonen2017")["ref_id"]
    i = ids.index[ids == ref_id][0]
    for k, v in cols.items():
        if k not in raw:
            raw[k] = ""
        raw.at[i, k] = v
    raw.to_csv(path, index=False)


def test_check_refuses_a_difference_without_a_cause(tmp_path, experiments_copy):
    target = load_reference("ukkonen2017", EXP)
    target = target[target["kind"] != "claim"]["ref_id"].iloc[0]
    _fake(tmp_path, "paper", lambda r: r.value + (100.0 if r.ref_id == target else 0.0))
    problems = cause_problems(tmp_path, [EXP])
    assert len(problems) == 1 and target in problems[0] and "no cause" in problems[0]
    # a cause without its evidence, then with an anchor that does not exist, then with one that does
    _set(experiments_copy, target, cause="measured")
    assert "needs evidence" in cause_problems(tmp_path, [EXP])[0]
    _set(experiments_copy, target, evidence="#no-such-table")
    assert "no such heading" in cause_problems(tmp_path, [EXP])[0]
    readme = experiments_copy / "ukkonen2017" / "README.md"
    readme.write_text(readme.read_text() + "\n## Ablation: the test's setting\n")
    _set(experiments_copy, target, evidence="#ablation-the-tests-setting", cause="paper")
    # comparison.csv does not carry the cause yet: the page writes it there
    assert [p for p in cause_problems(tmp_path, [EXP]) if "rewrites it" in p]
    write_reproduction(tmp_path)
    assert cause_problems(tmp_path, [EXP]) == []
    # unexplained is an honest cause; its anchor is optional
    _set(experiments_copy, target, cause="unexplained", evidence="")
    write_reproduction(tmp_path)
    assert cause_problems(tmp_path, [EXP]) == []
    _set(experiments_copy, target, cause="guessed")
    assert "valid causes" in cause_problems(tmp_path, [EXP])[0]


_LEDGER = ("algorithm,variant,settings_changed,cells,default_agrees,moved,broke,evidence,reason\n"
           ",net_gain,1,40,6,9,4,#ablation-the-tests-setting,the paper's text\n"
           ",trade,1,40,6,4,5,#ablation-the-tests-setting,the paper's text\n"
           ",two_settings,2,40,6,9,0,#ablation-the-tests-setting,the paper's text\n"
           ",only_differing,1,8,0,4,0,#ablation-the-tests-setting,the paper's text\n")


def test_the_ledger_refuses_counts_that_cannot_be(tmp_path):
    path = tmp_path / "ablations.csv"
    path.write_text(_LEDGER)
    ledger = load_ledger(path)
    assert variant_problem(ledger[("", "net_gain")]) is None  # 9 moved, 4 broke: more good than harm
    assert variant_problem(ledger[("", "trade")]) == "a trade of cells, not a cause: moved 4, broke 5"
    assert "not one" in variant_problem(ledger[("", "two_settings")])
    assert "cannot show that it breaks none" in variant_problem(ledger[("", "only_differing")])
    assert load_ledger(tmp_path / "absent.csv") == {}
    # one setting the paper holds fixed for several methods: one entry, found under each of them
    path.write_text(_LEDGER.splitlines()[0] + "\nspectral;e2cp,bw_fixed,1,10,2,0,2,#a,r\n")
    shared = load_ledger(path)
    assert shared[("spectral", "bw_fixed")] is shared[("e2cp", "bw_fixed")]
    assert variant_problem(shared[("e2cp", "bw_fixed")]) == "moves no cell its ablations counted (broke 2)"
    assert ("spectral_learning", "bw_fixed") not in shared
    head = _LEDGER.splitlines()[0]
    for body, why in [(",v,1,10,3,8,0,#a,r", "moved=8 exceeds"),     # 10 - 3 = 7 cells where ours differs
                      (",v,1,10,3,0,4,#a,r", "broke=4 exceeds"),     # only 3 where ours agrees
                      (",v,1,10,3,x,0,#a,r", "moved='x' is not a count"),
                      (",v,1,10,11,0,0,#a,r", "default_agrees=11 exceeds cells=10"),
                      (",v,1,10,3,1,0,#a,r\n,v,1,10,3,1,0,#a,r", "given twice"),
                      ("a;b,v,1,10,3,1,0,#a,r\nb,v,1,10,3,1,0,#a,r", "algorithm='b', variant='v' is given twice")]:
        path.write_text(head + "\n" + body + "\n")
        with pytest.raises(ValueError, match=why) as err:
            load_ledger(path)
        assert "line 2" in str(err.value) or "line 3" in str(err.value)
    path.write_text("algorithm,variant,cells\n,v,3\n")
    with pytest.raises(ValueError, match="missing columns settings_changed"):
        load_ledger(path)


def test_a_measured_cause_names_a_variant_that_does_more_good_than_harm(tmp_path, experiments_copy):
    """The rule of ``measured`` (one for every paper): the row's ``moved_by`` names a ledger variant that
    changes one setting, was judged on cells our setup agrees on too, and moved more cells than it broke."""
    target = load_reference("ukkonen2017", EXP)
    target = target[target["kind"] != "claim"]["ref_id"].iloc[0]
    _fake(tmp_path, "paper", lambda r: r.value + (100.0 if r.ref_id == target else 0.0))
    readme = experiments_copy / "ukkonen2017" / "README.md"
    readme.write_text(readme.read_text() + "\n## Ablation: the test's setting\n")
    (experiments_copy / "ukkonen2017" / "ablations.csv").write_text(_LEDGER)
    _set(experiments_copy, target, cause="measured", evidence="#ablation-the-tests-setting")
    write_reproduction(tmp_path)
    assert [p for p in cause_problems(tmp_path, [EXP]) if target in p] == [
        f"{EXP}: {target}: cause 'measured' names no variant in moved_by (a variant of the paper's ablations.csv)"]
    _set(experiments_copy, target, moved_by="trade")
    (problem,) = cause_problems(tmp_path, [EXP])
    assert problem.endswith("cause 'measured' but 'trade' a trade of cells, not a cause: moved 4, broke 5")
    _set(experiments_copy, target, moved_by="no_such_variant;two_settings;only_differing")
    (problem,) = cause_problems(tmp_path, [EXP])
    assert "'no_such_variant' is not in ablations.csv" in problem and "changes 2 settings" in problem
    assert "breaks none" in problem
    # one variant that meets the rule is enough, and the page names it beside the cause
    _set(experiments_copy, target, moved_by="trade;net_gain")
    assert cause_problems(tmp_path, [EXP]) == []
    page = write_reproduction(tmp_path).read_text()
    assert "#ablation-the-tests-setting) `trade`, `net_gain`" in page
    # moved_by belongs to a measured row only
    _set(experiments_copy, target, cause="unexplained")
    with pytest.raises(ValueError, match="moved_by 'trade;net_gain' on a row whose cause is not measured"):
        load_reference("ukkonen2017")


def test_a_setup_cause_needs_its_variant_to_reproduce_the_row(tmp_path, experiments_copy):
    ref = load_reference("ukkonen2017", EXP)
    target = ref[ref["kind"] != "claim"]["ref_id"].iloc[0]
    _fake(tmp_path, "paper", lambda r: r.value + (100.0 if r.ref_id == target else 0.0))
    readme = experiments_copy / "ukkonen2017" / "README.md"
    readme.write_text(readme.read_text() + "\n## The authors' setup\n")
    _set(experiments_copy, target, cause="setup:authors", evidence="#the-authors-setup")
    assert "does not have the row" in cause_problems(tmp_path, [EXP])[0]
    _fake(tmp_path, "paper+authors", lambda r: r.value + 50.0)
    assert "gives differs" in cause_problems(tmp_path, [EXP])[0]
    _fake(tmp_path, "paper+authors", lambda r: r.value)
    # the page shows both values and counts the row under setup
    rows = collect(EXP, tmp_path, "paper").rows.set_index("ref_id")
    assert rows.at[target, "status"] == DIFFERS and rows.at[target, "setup_status"] == REPRODUCED
    text = write_reproduction(tmp_path).read_text()
    assert cause_problems(tmp_path, [EXP]) == []
    assert "`authors`:" in text and "(reproduced)" in text
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["ukkonen2017"][EXP]["causes"]["setup"] == 1


def test_a_row_judged_by_a_variant_reads_its_folder(tmp_path, experiments_copy):
    ref = load_reference("ukkonen2017", EXP)
    target = ref[ref["kind"] != "claim"]["ref_id"].iloc[0]
    _set(experiments_copy, target, variant="authors")
    _fake(tmp_path, "paper", lambda r: r.value + (100.0 if r.ref_id == target else 0.0))
    rows = collect(EXP, tmp_path, "paper").rows.set_index("ref_id")
    assert rows.at[target, "status"] == "not run"  # no paper+authors report yet
    _fake(tmp_path, "paper+authors", lambda r: r.value)
    rows = collect(EXP, tmp_path, "paper").rows.set_index("ref_id")
    assert rows.at[target, "status"] == REPRODUCED and rows.at[target, "variant"] == "authors"


def test_comparison_csv_carries_each_differing_rows_cause_and_check_refuses_a_stale_one(tmp_path, experiments_copy):
    ref = load_reference("ukkonen2017", EXP)
    target, other = ref[ref["kind"] != "claim"]["ref_id"].iloc[:2]
    _fake(tmp_path, "paper", lambda r: r.value + (100.0 if r.ref_id == target else 0.0))
    path = tmp_path / EXP / "paper" / "comparison.csv"
    before = pd.read_csv(path, dtype=str, keep_default_na=False)
    readme = experiments_copy / "ukkonen2017" / "README.md"
    readme.write_text(readme.read_text() + "\n## Ablation: the test's setting\n")
    # a cause on a row that does not differ is not written: a cause explains a difference
    _set(experiments_copy, target, cause="paper", evidence="#ablation-the-tests-setting")
    _set(experiments_copy, other, cause="unexplained")
    write_reproduction(tmp_path)
    after = pd.read_csv(path, dtype=str, keep_default_na=False).set_index("ref_id")
    assert after.at[target, "cause"] == "paper" and after.at[target, "evidence"] == "#ablation-the-tests-setting"
    assert after.at[other, "cause"] == "" and (after.drop(index=target)["cause"] == "").all()
    # every other column is copied cell for cell
    pd.testing.assert_frame_equal(after.reset_index()[list(before.columns)], before)
    assert cause_problems(tmp_path, [EXP]) == []
    # the page again, nothing changed: the file stays byte for byte
    text = path.read_bytes()
    write_reproduction(tmp_path)
    assert path.read_bytes() == text
    # a cause edited in reference.csv but not yet written by the page: --check names the row and the fix
    _set(experiments_copy, target, cause="unexplained")
    problems = cause_problems(tmp_path, [EXP])
    assert len(problems) == 1 and target in problems[0] and "'paper'" in problems[0]
    assert "python -m ccexp.report all" in problems[0]
    write_reproduction(tmp_path)
    assert cause_problems(tmp_path, [EXP]) == []
    assert pd.read_csv(path, dtype=str, keep_default_na=False).set_index("ref_id").at[target, "cause"] == "unexplained"


# ----------------------------------------------------------------------------- named variants


def _spec(*overrides):
    ov = ["experiment=acc_random_init", *overrides]
    return resolve_run(compose_config(ov), ov)


def test_a_variant_goes_to_its_own_folder_and_reaches_the_oracle_and_every_algorithm():
    plain, authors = _spec(), _spec("experiment.variant=authors")
    assert plain.label == "paper" and authors.label == "paper+authors"
    assert plain.oracle["preset"] == "paper" and authors.oracle["preset"] == "authors"
    assert {p["preset"] for a, p in authors.algorithms.items() if a != "qecc"} == {"authors"}
    assert plain.fingerprint != authors.fingerprint
    # the scale's preset cannot undo the variant (acc's ci preset restates algorithm_params with the preset)
    ci = _spec("experiment.variant=authors", "experiment.scale=ci")
    assert ci.label == "ci+authors" and ci.algorithms["acc_maxexp"]["preset"] == "authors"
    assert ci.experiment["trials"] == 2


@pytest.mark.parametrize("name", ["acc_random_init", "acc_kmeans_init", "acc_xi_runtime"])
def test_each_active_experiments_authors_variant_sets_every_preset_and_keeps_the_grid(name):
    ov = [f"experiment={name}"]
    plain = resolve_run(compose_config(ov), ov)
    authors = resolve_run(compose_config([*ov, "experiment.variant=authors"]), [*ov, "experiment.variant=authors"])
    assert authors.label == "paper+authors" and authors.oracle["preset"] == "authors"
    assert {p["preset"] for a, p in authors.algorithms.items() if a.startswith("acc_")} == {"authors"}
    assert len(authors.cases()) == len(plain.cases())  # the same runs, under the authors' setup
    # a timing experiment stays one: its variant runs one case at a time as well
    assert authors.experiment.get("one_case_at_a_time") == plain.experiment.get("one_case_at_a_time")


def test_an_override_beside_a_variant_is_a_custom_grid_and_the_user_wins():
    s = _spec("experiment.variant=authors", "experiment.preset=paper")
    assert s.label.startswith("paper+authors+custom-") and s.oracle["preset"] == "paper"
    assert _spec("experiment.variant=authors", "experiment.trials=3").label.startswith("paper+authors+custom-")


def test_an_unknown_variant_is_refused_in_one_line():
    with pytest.raises(ConfigError, match="unknown variant 'foo' for experiment 'acc_random_init'; valid variants: authors"):
        _spec("experiment.variant=foo")
    ov = ["experiment=agg_outliers", "+experiment.variant=authors"]
    with pytest.raises(ConfigError, match="declares no variants"):
        resolve_run(compose_config(ov), ov)


def test_labels_round_trip():
    for args in (("paper",), ("ci", "0123abcd"), ("paper", None, "authors"), ("ci", "0123abcd", "authors")):
        label = scale_label(*args)
        s, h, v = args[0], (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else None)
        assert split_label(label) == (s, v, h)
    for bad in ("pa+per", "../x"):
        with pytest.raises(ValueError):
            scale_label(bad)
    with pytest.raises(ValueError, match="variant"):
        scale_label("paper", variant="a-b")


def test_git_tracks_a_variants_paper_report_but_not_its_records_nor_custom_grids():
    def ignored(path):
        return subprocess.run(["git", "check-ignore", "-q", path], capture_output=True).returncode == 0

    assert not ignored("results/acc_random_init/paper+authors/comparison.csv")
    assert not ignored("results/acc_random_init/paper+authors/figures/a.png")
    assert ignored("results/acc_random_init/paper+authors/records.parquet")
    assert ignored("results/acc_random_init/paper+authors+custom-0123abcd/comparison.csv")
    assert ignored("results/acc_random_init/paper+custom-0123abcd/comparison.csv")
    assert ignored("results/acc_random_init/ci+authors/comparison.csv")


def test_with_error_bars_without_a_sem_column():
    # issue 30 item 6: tables.py used math.nan without importing math (NameError on a table without ours_sem)
    from ccexp.report.tables import with_error_bars

    out = with_error_bars(pd.DataFrame({"ours": [1.25, 2.0]}))
    assert out["ours (mean ± 2 SE)"].tolist() == ["1.25", "2"]


def test_a_variant_may_give_a_scale_its_own_grid():
    # acc_kmeans_init's authors variant runs on the authors' arrays; its ci grid is one of them, not the
    # ci preset's ecoli (the variant's presets.ci is merged after the scale's preset)
    ov = ["experiment=acc_kmeans_init", "experiment.variant=authors", "experiment.scale=ci"]
    spec = resolve_run(compose_config(ov), ov)
    assert spec.label == "ci+authors"
    assert spec.experiment["sweep"]["dataset"]["name"] == ["authors_ecoli"]
    assert spec.experiment["trials"] == 1 and spec.algorithms["acc_maxexp"]["preset"] == "authors"
    paper = resolve_run(compose_config(ov[:2]), ov[:2])
    assert len(paper.experiment["sweep"]["dataset"]["name"]) == 9 and "variants" not in paper.experiment
    # the user's own dataset list wins over the variant's
    ov2 = [*ov, "experiment.sweep.dataset.name=[authors_yeast]"]
    spec2 = resolve_run(compose_config(ov2), ov2)
    assert spec2.experiment["sweep"]["dataset"]["name"] == ["authors_yeast"] and "+custom-" in spec2.label


def test_a_random_procedure_judged_on_too_few_trials_is_listed(tmp_path):
    from ccexp.report.reproduction import MIN_TRIALS, randomness_problems

    ref = load_reference("ukkonen2017", EXP)
    row = ref[(ref["kind"] != "claim") & (ref["algorithm"] == "ls_ad_vc")].iloc[0]
    out = tmp_path / EXP / "paper"
    out.mkdir(parents=True)
    (out / "run.json").write_text(json.dumps({"scale": "paper"}))

    def write(n):
        pd.DataFrame([compare_row(row.quantity, row.value, row.value, row.tolerance, ref_id=row.ref_id,
                                  sem=0.0, n_trials=n)]).to_csv(out / "comparison.csv", index=False)

    write(5)
    problems = randomness_problems(tmp_path, [EXP])
    assert len(problems) == 1 and row.ref_id in problems[0] and "5 trial(s) of ls_ad_vc" in problems[0]
    write(MIN_TRIALS)
    assert randomness_problems(tmp_path, [EXP]) == []


def test_a_claim_about_a_random_procedure_needs_a_run_of_enough_trials(tmp_path):
    """A claim row has no trial count of its own: its run's run.json ``trials`` decides (issue 28)."""
    from ccexp.report.reproduction import MIN_TRIALS, randomness_problems

    name = "agg_scalability"
    ref = load_reference("gionis2007", name)
    claim = ref[(ref["kind"] == "claim") & (ref["algorithm"] == "sampling")].iloc[0]
    out = tmp_path / name / "paper"
    out.mkdir(parents=True)
    pd.DataFrame([compare_row(claim.quantity, claim.value, claim.value, claim.tolerance, ref_id=claim.ref_id)]
                 ).to_csv(out / "comparison.csv", index=False)

    def run(trials):
        (out / "run.json").write_text(json.dumps({"scale": "paper", "trials": trials}))

    run(1)  # agg_scalability's committed run until 2026-11-27
    problems = randomness_problems(tmp_path, [name])
    assert len(problems) == 1 and claim.ref_id in problems[0] and "a run of 1 trial(s) of sampling" in problems[0]
    run(MIN_TRIALS)
    assert randomness_problems(tmp_path, [name]) == []
    # a claim not run is not judged, so nothing rests on too few trials
    run(1)
    pd.DataFrame([compare_row(claim.quantity, claim.value, None, claim.tolerance, ref_id=claim.ref_id)]
                 ).to_csv(out / "comparison.csv", index=False)
    assert randomness_problems(tmp_path, [name]) == []


def test_the_check_command_fails_on_a_difference_without_a_cause(tmp_path, experiments_copy, capsys, monkeypatch):
    """Issue 28: ``--check`` fails (exit 1) when a paper-scale row differs with no cause, naming the row."""
    from types import SimpleNamespace

    import ccexp.report.__main__ as cli
    from ccexp.report.__main__ import _check

    # the ci gate (ci-scale runs, tested in test_reproduction_page) passes: only the causes decide here
    monkeypatch.setattr(cli, "check", lambda results, names: SimpleNamespace(ok=True))
    monkeypatch.setattr(cli, "check_summary", lambda result: "check: ok")
    target = load_reference("ukkonen2017", EXP)
    target = target[target["kind"] != "claim"]["ref_id"].iloc[0]
    _fake(tmp_path, "paper", lambda r: r.value + (100.0 if r.ref_id == target else 0.0))
    comparison = tmp_path / EXP / "paper" / "comparison.csv"  # ten trials: no randomness problem in the way
    pd.read_csv(comparison).assign(n_trials=10).to_csv(comparison, index=False)
    assert _check(tmp_path, [EXP]) == 1
    assert f"check: FAIL {EXP}: {target} differs and has no cause" in capsys.readouterr().err
    _set(experiments_copy, target, cause="unexplained")
    write_reproduction(tmp_path)  # as `python -m ccexp.report all --check` does: the page, then the check
    assert _check(tmp_path, [EXP]) == 0


def test_every_committed_difference_has_its_cause_and_every_random_row_its_trials(committed_results):
    """The committed paper-scale reports pass the gate: each differing row has a cause with its evidence,
    and no row of a non-deterministic algorithm is judged on fewer than MIN_TRIALS trials, except in an
    experiment whose rerun is declared pending (printed by --check with its reason)."""
    from ccexp.report import REPORTS
    from ccexp.report.__main__ import RERUN_PENDING
    from ccexp.report.reproduction import randomness_problems

    results = committed_results  # as committed: the README's main job rewrites exp1's report (issue 32)
    names = sorted(REPORTS)
    assert cause_problems(results, names) == []
    assert randomness_problems(results, [n for n in names if n not in RERUN_PENDING]) == []
    # a pending entry names a real problem: once its rerun is committed the entry must go
    for name in RERUN_PENDING:
        assert randomness_problems(results, [name]), f"{name}'s rerun is committed: remove it from RERUN_PENDING"


def test_the_page_links_every_committed_variant_of_the_scale_but_no_custom_grid(tmp_path, experiments_copy):
    """A committed variant that no row names yet (acc_xi_runtime's ``authors_budget``) is still linked from its
    experiment's section; a custom grid (``+custom-<hash>``) is not a variant, and another scale's variant is not
    this scale's."""
    labels = ("paper", "paper+authors_budget", "paper+custom-0123abcd", "paper+authors+custom-89abcdef",
              "ci+other")
    for label in labels:
        _fake(tmp_path, label, lambda r: r.value)
        (tmp_path / EXP / label / "comparison.md").write_text("# comparison\n")
    text = write_reproduction(tmp_path).read_text()
    section = text[text.index(f"### {EXP}"):]
    section = section[:section.index("\n### ", 1)] if "\n### " in section[1:] else section
    assert f"[variant `authors_budget`]({EXP}/paper+authors_budget/comparison.md)" in section
    assert "custom-" not in section and "variant `authors`" not in section and "variant `other`" not in section
