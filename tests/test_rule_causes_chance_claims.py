"""The cause ``chance`` for a row that is not a mean over trials: a claim judged on a fresh batch's report.

The ledger ``fresh_claims.csv`` and its refusals; ``--check`` and the page on
a fake report (no batch, a batch numbered otherwise, a verdict the rule does
not give, a batch that differs again, one that does not; an explaining cause
refused when the batch does not differ); and ``scripts/fresh_claims_ledger.py``
on a fake fresh run: what it takes from the report, and what makes a run not
one fresh batch of the committed one.
"""

import json
import math

import pandas as pd
import pytest

from ccexp.report.chance import FRESH_CLAIM_COLUMNS, FRESH_OFFSET, load_fresh_claims
from ccexp.report.common import compare_row, load_reference
from ccexp.report.reproduction import DIFFERS, REPRODUCED, cause_problems, write_reproduction
from test_rule_causes_variants import _fake, _set, experiments_copy  # noqa: F401 (a fixture)

EXP = "exp2_real_triplets"
CLAIM = "exp2_real_triplets/claim_food_density_over_100pct/food100"  # paper 1: a claim that holds
MEAN = "exp2_real_triplets/n_triplets/food100"  # a count: a plain number, not a claim


def _entry(ref_id=CLAIM, ours=1.0, status=REPRODUCED, first=FRESH_OFFSET, tolerance=0.0, sem="", n=""):
    return {"ref_id": ref_id, "ours": repr(ours), "ours_sem": sem, "n_trials": n, "tolerance": repr(tolerance),
            "status": status, "first_trial": str(first), "results": "paper+custom-0000", "code_version": "abc"}


def _write_claims(base, *entries):
    pd.DataFrame(list(entries), columns=FRESH_CLAIM_COLUMNS).to_csv(base / "ukkonen2017" / "fresh_claims.csv",
                                                                   index=False)


def test_the_claims_ledger_refuses_what_cannot_be_a_verdict(tmp_path):
    path = tmp_path / "fresh_claims.csv"
    assert load_fresh_claims(path) == {}
    head = ",".join(FRESH_CLAIM_COLUMNS) + "\n"
    path.write_text(head + "r,1.0,,,0.0,reproduced,1000,paper+custom-1,abc\n"
                           "s,0.25,0.05,10,0.6,differs,1000,paper+custom-1,abc\n")
    got = load_fresh_claims(path)
    assert got["s"] == {"ours": 0.25, "ours_sem": 0.05, "n_trials": 10, "tolerance": 0.6, "status": DIFFERS,
                        "first_trial": 1000, "results": "paper+custom-1", "code_version": "abc"}
    assert math.isnan(got["r"]["ours_sem"]) and math.isnan(got["r"]["n_trials"])
    for body, why in [("r,x,,,0,reproduced,1000,p,abc", "ours='x' is not a number"),
                      ("r,1,,,,reproduced,1000,p,abc", "tolerance='' is not a number"),
                      ("r,1,,,0,holds,1000,p,abc", "status='holds' is not one of reproduced"),
                      ("r,1,,,0,reproduced,1e3,p,abc", "first_trial='1e3' is not an integer"),
                      (",1,,,0,reproduced,1000,p,abc", "no ref_id"),
                      ("r,1,,,0,reproduced,1000,p,abc\nr,0,,,0,differs,1000,p,abc", "given twice")]:
        path.write_text(head + body + "\n")
        with pytest.raises(ValueError, match=why) as err:
            load_fresh_claims(path)
        assert "line 2" in str(err.value) or "line 3" in str(err.value)


def _claim_differs(results, base):
    """The fake report with the claim failing (ours 0 against the paper's 1), its cause ``chance``."""
    _fake(results, "paper", lambda r: 0.0 if r.ref_id == CLAIM else r.value)
    readme = base / "ukkonen2017" / "README.md"
    readme.write_text(readme.read_text() + "\n## Fresh claims\n")
    _set(base, CLAIM, cause="chance", evidence="#fresh-claims")
    write_reproduction(results)


def test_a_chance_claim_needs_a_fresh_batch_whose_report_does_not_differ(tmp_path, experiments_copy):
    _claim_differs(tmp_path, experiments_copy)
    (problem,) = cause_problems(tmp_path, [EXP])
    assert problem == (f"{EXP}: {CLAIM}: cause 'chance' but the row is judged over fewer than 2 trials, and has no "
                       "fresh batch in fresh_claims.csv")
    _write_claims(experiments_copy, _entry(first=0))
    (problem,) = cause_problems(tmp_path, [EXP])
    assert problem.endswith("needs one fresh batch numbered from 1000 in fresh_claims.csv, has one from 0")
    _write_claims(experiments_copy, _entry(ours=0.0, status=REPRODUCED))  # a verdict the rule does not give
    (problem,) = cause_problems(tmp_path, [EXP])
    assert "has the fresh verdict 'reproduced' in fresh_claims.csv, but the rule gives 'differs'" in problem
    _write_claims(experiments_copy, _entry(ours=0.0, status=DIFFERS))  # the claim fails again
    (problem,) = cause_problems(tmp_path, [EXP])
    assert problem.endswith("cause 'chance' but its fresh batch's report differs too: 0 against 1 (tolerance 0)")
    _write_claims(experiments_copy, _entry())  # it holds on the fresh batch: chance
    assert cause_problems(tmp_path, [EXP]) == []
    page = write_reproduction(tmp_path).read_text()
    assert "#fresh-claims) fresh batch's report: 1 (reproduced)" in page
    assert "4 rows that differ have one" not in page and "(1 chance)" in page
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["ukkonen2017"][EXP]["causes"]["chance"] == 1


def test_a_claim_whose_fresh_batch_holds_cannot_keep_an_explaining_cause(tmp_path, experiments_copy):
    _claim_differs(tmp_path, experiments_copy)
    _set(experiments_copy, CLAIM, cause="setup:authors")
    _write_claims(experiments_copy, _entry())
    problems = [p for p in cause_problems(tmp_path, [EXP]) if "fresh batch" in p]
    assert problems == [f"{EXP}: {CLAIM}: cause 'setup' but its fresh batch's report does not differ (1 against 1: "
                        "reproduced): the difference does not replicate, so its cause is 'chance'"]
    _write_claims(experiments_copy, _entry(ours=0.0, status=DIFFERS))
    assert not [p for p in cause_problems(tmp_path, [EXP]) if "fresh batch" in p]


def test_a_count_is_judged_on_its_reports_value_and_tolerance(tmp_path, experiments_copy):
    """A row that is not a claim (here a count): *differs* exactly when the fresh value is off by more than the
    report's tolerance."""
    paper = float(load_reference("ukkonen2017", EXP).set_index("ref_id").loc[MEAN, "value"])
    _fake(tmp_path, "paper", lambda r: r.value + (100.0 if r.ref_id == MEAN else 0.0))
    readme = experiments_copy / "ukkonen2017" / "README.md"
    readme.write_text(readme.read_text() + "\n## Fresh claims\n")
    _set(experiments_copy, MEAN, cause="chance", evidence="#fresh-claims")
    write_reproduction(tmp_path)
    _write_claims(experiments_copy, _entry(MEAN, ours=paper + 3, status="within tolerance", tolerance=2.5))
    assert "the rule gives 'differs'" in cause_problems(tmp_path, [EXP])[0]
    _write_claims(experiments_copy, _entry(MEAN, ours=paper + 2, status="within tolerance", tolerance=2.5))
    assert cause_problems(tmp_path, [EXP]) == []
    _write_claims(experiments_copy, _entry(MEAN, ours=paper + 2, status=DIFFERS, tolerance=2.5))
    assert "the rule gives 'not differs'" in cause_problems(tmp_path, [EXP])[0]


def _run(folder, trials=2, first=0, **extra):
    """A fake run.json and records of two settings x ``trials`` trials, numbered from ``first``."""
    folder.mkdir(parents=True, exist_ok=True)
    instances = [[f"id{s}{t}", 0, s, s, first + t, 1000 * s + t + first] for s in range(2) for t in range(trials)]
    run = {"experiment": EXP, "scale": "paper", "variant": None, "trials": trials, "algorithms": ["ls_ad_vc"],
           "n_cases": 2 * trials, "targets": "{}", "status": "finished", "n_errors": 0, "label": folder.name,
           "git": {"dirty": False}, "code_versions": {"abc1234": 2 * trials},
           "grid": {"datasets": [{"name": "food"}], "oracles": [{"a": 1}, {"a": 2}], "settings": [{}, {}],
                    "params": {}, "instances": instances,
                    "cases": [[f"c{i}", i, "ls_ad_vc", 0] for i in range(len(instances))]}}
    run.update(extra)
    (folder / "run.json").write_text(json.dumps(run))
    pd.DataFrame({"trial": [i[4] for i in instances]}).to_parquet(folder / "records.parquet")
    return folder / "run.json"


def test_the_claims_ledger_takes_one_fresh_batch_of_the_committed_run(tmp_path):
    from conftest import load_script

    script = load_script("scripts/fresh_claims_ledger.py")
    committed = _run(tmp_path / "paper")
    fresh = tmp_path / "paper+custom-1"
    _run(fresh, first=FRESH_OFFSET)
    assert script.fresh_run_problems(fresh, committed) == []
    for kwargs, why in [(dict(first=0), "not 1000-1001"),
                        (dict(first=FRESH_OFFSET, trials=3), "run.json's trials is 3"),
                        (dict(first=FRESH_OFFSET, status="interrupted"), "a finished run is needed"),
                        (dict(first=FRESH_OFFSET, code_versions={"a": 1, "b": 3}), "one clean commit"),
                        (dict(first=FRESH_OFFSET, algorithms=["ls_eq_vc"]), "run.json's algorithms")]:
        _run(fresh, **kwargs)
        assert any(why in p for p in script.fresh_run_problems(fresh, committed)), (kwargs, why)
    # the same cases but another setting for one instance: not the committed grid
    _run(fresh, first=FRESH_OFFSET)
    run = json.loads((fresh / "run.json").read_text())
    run["grid"]["instances"][0][3] = 1
    (fresh / "run.json").write_text(json.dumps(run))
    assert any("grid" in p for p in script.fresh_run_problems(fresh, committed))

    # its lines: every run row that is not a plain mean, as the report judged it (a claim that holds included)
    _run(fresh, first=FRESH_OFFSET)
    ref = load_reference("ukkonen2017", EXP)
    rows = [compare_row(r.quantity, r.value, r.value, r.tolerance, ref_id=r.ref_id, sem=0.0, n_trials=1)
            for r in ref.itertuples()]
    rows.append(compare_row("n_clusters_mean", 3.0, 4.0, math.nan, ref_id="exp1_triplets/n_clusters_mean/ls_ad_vc/"
                            "k2_a0.01_b0", sem=0.1, n_trials=10))  # a plain mean of another experiment: not here
    pd.DataFrame(rows).to_csv(fresh / "comparison.csv", index=False)
    lines = script.ledger_lines(fresh, ref)
    got = {r["ref_id"]: r for r in lines}
    timing = "exp2_real_triplets/claim_ls_ad_vc_food_within_11s/ls_ad_vc/food100"
    assert got[timing]["status"] == REPRODUCED and got[timing]["first_trial"] == str(FRESH_OFFSET)
    assert got[timing]["results"] == "paper+custom-1" and got[timing]["code_version"] == "abc1234"
    # every row of the fake report is a single run, none a plain mean; the rows without an algorithm are no draw
    assert set(got) == set(ref.loc[ref["algorithm"].fillna("") != "", "ref_id"])
    assert MEAN not in got and CLAIM not in got  # a dataset's size and density are no draw of a procedure


def test_a_claim_about_every_algorithm_is_drawn_a_data_fact_is_not():
    from ccexp.report.chance import DATA_CLAIMS, drawn

    assert drawn({"algorithm": "ls_ad_vc", "kind": "exact", "quantity": "n_clusters_mean"})
    # "for k >= 8 the problem is very hard for all methods": no algorithm, but every algorithm's runs
    assert drawn({"algorithm": float("nan"), "kind": "claim", "quantity": "claim_all_hard_k_ge_8_a0.01"})
    assert not drawn({"algorithm": float("nan"), "kind": "exact", "quantity": "n_features"})  # a dataset's size
    for quantity in DATA_CLAIMS:
        assert not drawn({"algorithm": "", "kind": "claim", "quantity": quantity})
    # every claim of the five papers without an algorithm is either drawn or named as data
    from ccexp.report.reference import experiments_dir

    names = set()
    for path in sorted(experiments_dir().glob("*/reference.csv")):
        ref = pd.read_csv(path)
        names |= set(ref.loc[ref["algorithm"].isna() & (ref["kind"] == "claim"), "quantity"])
    assert DATA_CLAIMS <= names  # no stale name: each is a claim the references hold


def test_the_claims_ledger_takes_exp1s_claims_about_all_algorithms(tmp_path):
    from conftest import load_script

    script = load_script("scripts/fresh_claims_ledger.py")
    fresh = tmp_path / "paper+custom-1"
    _run(fresh, first=FRESH_OFFSET)
    ref = load_reference("ukkonen2017", "exp1_triplets")
    rows = [compare_row(r.quantity, r.value, 0.0 if r.kind == "claim" else r.value, r.tolerance, ref_id=r.ref_id,
                        sem=0.0, n_trials=1) for r in ref.itertuples()]
    pd.DataFrame(rows).to_csv(fresh / "comparison.csv", index=False)
    got = {r["ref_id"]: r for r in script.ledger_lines(fresh, ref)}
    hard = ref.loc[ref["quantity"] == "claim_all_hard_k_ge_8_a0.01", "ref_id"].item()
    assert got[hard]["status"] == DIFFERS and got[hard]["ours"] == "0.0"
    no_algorithm = ref[ref["algorithm"].isna()]
    assert set(no_algorithm.loc[no_algorithm["kind"] == "claim", "ref_id"]) <= set(got)
    assert not set(no_algorithm.loc[no_algorithm["kind"] != "claim", "ref_id"]) & set(got)
