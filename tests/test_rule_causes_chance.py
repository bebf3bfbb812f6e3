"""The cause ``chance``: one fresh batch of a row's runs, judged alone, is not *differs*.

The ledger's refusals; ``--check`` and the page on a fake report: no fresh
runs, a batch numbered otherwise, a batch that differs again, one that does
not; and the pooled mean and SE the README's tables report beside it, against
numpy on the concatenated values (a property test).
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccexp.report.chance import FRESH_OFFSET, load_fresh_seeds, pooled
from ccexp.report.common import compare_row, load_reference
from ccexp.report.reference import experiments_dir
from ccexp.report.reproduction import DIFFERS, WITHIN_TOLERANCE, cause_problems, write_reproduction
from ccexp.report.tolerance import judge
from test_rule_causes_variants import _fake, _set, experiments_copy  # noqa: F401 (a fixture)

EXP = "exp2_real_triplets"
TARGET = "exp2_real_triplets/n_triplets/food100"  # paper 190,376, printed to the unit, no paper_n, no competitor


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=30), st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=30))
def test_pooled_equals_the_statistics_of_all_the_values(committed, fresh):
    a, b = np.asarray(committed), np.asarray(fresh)
    both = np.concatenate([a, b])
    m, sem, n = pooled(a.mean(), a.std(ddof=1) / math.sqrt(a.size), a.size, b)
    assert n == both.size
    assert m == pytest.approx(both.mean(), abs=1e-9)
    assert sem == pytest.approx(both.std(ddof=1) / math.sqrt(both.size), rel=1e-7, abs=1e-9)


def test_pooled_refuses_an_empty_side():
    with pytest.raises(ValueError, match="need runs on both sides"):
        pooled(1.0, 0.1, 10, [])


def test_the_ledger_refuses_what_cannot_be_a_run(tmp_path):
    path = tmp_path / "fresh_seeds.csv"
    head = "ref_id,trial,value,code_version\n"
    path.write_text(head + "r,1000,0.5,abc\nr,1001,0.25,abc\ns,1000,1,abc\n")
    assert load_fresh_seeds(path) == {"r": {1000: 0.5, 1001: 0.25}, "s": {1000: 1.0}}
    assert load_fresh_seeds(tmp_path / "absent.csv") == {}
    for body, why in [("r,x,0.5,abc", "trial='x' is not an integer"),
                      ("r,1000,nan,abc", "value='nan' is not a number"),
                      ("r,1000,,abc", "value='' is not a number"),
                      (",1000,0.5,abc", "no ref_id"),
                      ("r,1000,0.5,abc\nr,1000,0.6,abc", "trial=1000 is given twice")]:
        path.write_text(head + body + "\n")
        with pytest.raises(ValueError, match=why) as err:
            load_fresh_seeds(path)
        assert "line 2" in str(err.value) or "line 3" in str(err.value)
    path.write_text("ref_id,trial\nr,1000\n")
    with pytest.raises(ValueError, match="missing columns value, code_version"):
        load_fresh_seeds(path)


def _fake_trials(results, mean, sd, n=10):
    """The fake report of ``_fake``, with TARGET judged as the mean of ``n`` trials of SD ``sd``."""
    _fake(results, "paper", lambda r: r.value)
    path = results / EXP / "paper" / "comparison.csv"
    rows = [compare_row(r.quantity, r.value, mean, r.tolerance, ref_id=r.ref_id, sem=sd / math.sqrt(n), n_trials=n)
            if r.ref_id == TARGET else
            compare_row(r.quantity, r.value, r.value, r.tolerance, ref_id=r.ref_id, sem=0.0, n_trials=1)
            for r in load_reference("ukkonen2017", EXP).itertuples()]
    pd.DataFrame(rows).to_csv(path, index=False)
    return next(r for r in rows if r["ref_id"] == TARGET)


def _write_fresh(base, values, first=FRESH_OFFSET):
    lines = ["ref_id,trial,value,code_version"] + [f"{TARGET},{first + i},{float(v)!r},abc" for i, v in enumerate(values)]
    (base / "ukkonen2017" / "fresh_seeds.csv").write_text("\n".join(lines) + "\n")


def test_a_chance_cause_needs_one_fresh_batch_that_leaves_the_row_inside_the_rule(tmp_path, experiments_copy):
    paper = 190376.0
    # committed: 10 trials, mean paper + 10, SD sqrt(90) (SE 3): tolerance 0.5 + 6 = 6.5, so it differs
    committed = _fake_trials(tmp_path, paper + 10, math.sqrt(90.0))
    assert committed["status"] == DIFFERS and committed["tolerance"] == pytest.approx(6.5)
    readme = experiments_copy / "ukkonen2017" / "README.md"
    readme.write_text(readme.read_text() + "\n## Fresh seeds\n")
    _set(experiments_copy, TARGET, cause="chance", evidence="#fresh-seeds")
    write_reproduction(tmp_path)
    (problem,) = cause_problems(tmp_path, [EXP])
    assert problem == f"{EXP}: {TARGET}: cause 'chance' but the row has no fresh runs in fresh_seeds.csv"

    # a batch around the paper's value: mean paper - 6, SD sqrt(90) (SE 3), judged alone: 6 < 0.5 + 6
    spread = np.array([-1, 1] * 5, dtype=float) * math.sqrt(90.0 * 9 / 10)
    near = paper - 6 + spread
    assert near.std(ddof=1) == pytest.approx(math.sqrt(90.0))
    _write_fresh(experiments_copy, near, first=0)  # the committed repetitions' numbers: not a fresh batch
    (problem,) = cause_problems(tmp_path, [EXP])
    assert "needs one fresh batch of 10 runs numbered 1000-1009" in problem and "has trials 0-9" in problem
    _write_fresh(experiments_copy, near[:9])
    assert "has trials 1000-1008 (9 runs)" in cause_problems(tmp_path, [EXP])[0]

    # a batch that draws the same gap again: the difference replicates
    _write_fresh(experiments_copy, paper + 10 + spread)
    (problem,) = cause_problems(tmp_path, [EXP])
    assert problem.endswith("cause 'chance' but its 10 fresh runs differ too: 1.904e+05 against 1.904e+05 "
                            "(tolerance 6.5)")

    _write_fresh(experiments_copy, near)
    assert judge("approx", paper, paper - 6, decimals=0, sem=3.0, n=10) == (pytest.approx(6.5), WITHIN_TOLERANCE)
    assert cause_problems(tmp_path, [EXP]) == []
    page = write_reproduction(tmp_path).read_text()
    assert "#fresh-seeds) 10 fresh runs: 190370 ± 6 (within tolerance)" in page
    # the row still differs and counts under its cause
    import json
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["ukkonen2017"][EXP]["causes"]["chance"] == 1


def test_the_page_shows_a_fresh_batch_beside_any_cause(tmp_path, experiments_copy):
    """A differing row with another cause and a fresh batch: the page judges the batch beside the cause (here it
    differs again, so the gap is systematic); without a batch the cell is the cause alone."""
    paper = 190376.0
    _fake_trials(tmp_path, paper + 10, math.sqrt(90.0))
    readme = experiments_copy / "ukkonen2017" / "README.md"
    readme.write_text(readme.read_text() + "\n## Tried\n")
    _set(experiments_copy, TARGET, cause="unexplained", evidence="#tried")
    row = "[unexplained](exps/ukkonen2017/README.md#tried)"  # the copy's README, relative to the page
    cell = [line for line in write_reproduction(tmp_path).read_text().splitlines() if row in line]
    assert len(cell) == 1 and cell[0].rstrip().endswith(row + " |")
    spread = np.array([-1, 1] * 5, dtype=float) * math.sqrt(90.0 * 9 / 10)
    _write_fresh(experiments_copy, paper + 12 + spread)
    cell = [line for line in write_reproduction(tmp_path).read_text().splitlines() if row in line]
    assert len(cell) == 1 and cell[0].rstrip().endswith(row + " 10 fresh runs: 190388 ± 6 (differs) |")
    assert cause_problems(tmp_path, [EXP]) == []  # the ledger is evidence only for `chance`


def test_chance_comes_before_an_explaining_cause(tmp_path, experiments_copy):
    """A ``measured`` or ``setup`` row whose fresh batch does not differ is refused: the difference does not
    replicate, so a variant cannot be its cause (``chance`` is).  A batch that differs again leaves the cause alone,
    and ``unexplained`` (which claims no explanation) is never refused for it."""
    paper = 190376.0
    _fake_trials(tmp_path, paper + 10, math.sqrt(90.0))
    readme = experiments_copy / "ukkonen2017" / "README.md"
    readme.write_text(readme.read_text() + "\n## Tried\n")
    spread = np.array([-1, 1] * 5, dtype=float) * math.sqrt(90.0 * 9 / 10)
    _set(experiments_copy, TARGET, cause="setup:authors", evidence="#tried")
    write_reproduction(tmp_path)
    _write_fresh(experiments_copy, paper - 6 + spread)  # judged alone: within tolerance
    problems = [p for p in cause_problems(tmp_path, [EXP]) if "fresh runs" in p]
    assert problems == [f"{EXP}: {TARGET}: cause 'setup' but its 10 fresh runs do not differ (1.904e+05 against "
                        "1.904e+05: within tolerance): the difference does not replicate, so its cause is 'chance'"]
    _set(experiments_copy, TARGET, cause="unexplained")
    write_reproduction(tmp_path)
    assert cause_problems(tmp_path, [EXP]) == []
    _set(experiments_copy, TARGET, cause="chance")
    write_reproduction(tmp_path)
    assert cause_problems(tmp_path, [EXP]) == []
    # the same cause with a batch that draws the gap again: not this refusal
    _set(experiments_copy, TARGET, cause="setup:authors")
    write_reproduction(tmp_path)
    _write_fresh(experiments_copy, paper + 12 + spread)
    assert not [p for p in cause_problems(tmp_path, [EXP]) if "fresh runs" in p]


def test_a_chance_cause_needs_trials(tmp_path, experiments_copy):
    _fake(tmp_path, "paper", lambda r: r.value + (100.0 if r.ref_id == TARGET else 0.0))  # one run, SE 0
    readme = experiments_copy / "ukkonen2017" / "README.md"
    readme.write_text(readme.read_text() + "\n## Fresh seeds\n")
    _set(experiments_copy, TARGET, cause="chance", evidence="#fresh-seeds")
    _write_fresh(experiments_copy, [190376.0])
    write_reproduction(tmp_path)
    (problem,) = cause_problems(tmp_path, [EXP])
    assert problem.endswith("the row is judged over fewer than 2 trials, and has no fresh batch in fresh_claims.csv")


def _spec(*overrides):
    from ccexp.runner.compose import compose_config
    from ccexp.runner.config import resolve_run

    ov = ["experiment=exp1_triplets", "experiment.scale=ci", *overrides]
    return resolve_run(compose_config(ov), ov)


def test_first_trial_numbers_a_fresh_batch_of_the_same_runs():
    """``+experiment.first_trial=1000``: the same settings and algorithms, the trials numbered from 1000, so every
    seed (drawn from the trial's number) is new; a custom grid in its own folder, never the committed one."""
    from ccexp.runner.compose import ConfigError

    base, fresh = _spec(), _spec("+experiment.first_trial=1000")
    assert fresh.custom and fresh.label.startswith("ci+custom-") and base.label == "ci"
    key = lambda c: (c.algorithm, sorted(c.instance.setting.items()), c.instance.trial)  # noqa: E731
    old = sorted(key(c) for c in base.cases())
    new = sorted(key(c) for c in fresh.cases())
    assert len(new) == len(old) > 0
    assert [(a, s, t + FRESH_OFFSET) for a, s, t in old] == new
    seeds = {c.instance.instance_id for c in base.cases()} & {c.instance.instance_id for c in fresh.cases()}
    assert not seeds  # no instance (and so no seed) is shared
    with pytest.raises(ConfigError, match="experiment.first_trial must be >= 0, got -1"):
        _spec("+experiment.first_trial=-1")


def _records(tmp_path, ref_id, values, first=FRESH_OFFSET, version="abc1234", report_mean=None):
    """A fresh run's folder: records of one exp1 cell (n_clusters per trial) and the comparison its report wrote."""
    ref = load_reference("ukkonen2017", "exp1_triplets").set_index("ref_id").loc[ref_id]
    folder = tmp_path / "exp1_triplets" / "paper+custom-00000000"
    folder.mkdir(parents=True, exist_ok=True)
    n = len(values)
    pd.DataFrame({"status": "ok", "trial": range(first, first + n), "code_version": version,
                  "algorithm": ref["algorithm"], "dataset.k": int(ref["k"]), "oracle.fraction": ref["a"],
                  "oracle.noise": ref["b"], "n_clusters": values}).to_parquet(folder / "records.parquet")
    pd.DataFrame({"ref_id": [ref_id], "ours": [np.mean(values) if report_mean is None else report_mean],
                  "n_trials": [n]}).to_csv(folder / "comparison.csv", index=False)
    return folder


def test_the_ledger_reads_a_fresh_runs_records_and_checks_them_against_its_report(tmp_path):
    from conftest import load_script

    script = load_script("scripts/fresh_seeds_ledger.py")
    ref = load_reference("ukkonen2017", "exp1_triplets")
    row = ref[(ref["quantity"] == "n_clusters_mean") & (ref["algorithm"] == "tste_dpmm")].iloc[0]
    values = [3.0, 4.0, 2.0, 5.0, 3.0, 3.0, 4.0, 2.0, 6.0, 3.0]
    rows, version = script.records_rows(_records(tmp_path, row["ref_id"], values), ref)
    assert version == "abc1234"
    assert [(r["ref_id"], r["trial"], float(r["value"])) for r in rows] == [
        (row["ref_id"], FRESH_OFFSET + i, v) for i, v in enumerate(values)]
    with pytest.raises(ValueError, match="has no reader of its runs"):
        script.records_rows(_records(tmp_path, row["ref_id"], values), ref, "recon_random")
    for kwargs, why in [(dict(first=0), "trial 0 is below the fresh batch's 1000"),
                        (dict(version="abc1234+dirty"), "one clean commit is needed"),
                        (dict(report_mean=9.0), "the folder's comparison.csv")]:
        with pytest.raises(ValueError, match=why):
            script.records_rows(_records(tmp_path, row["ref_id"], values, **kwargs), ref)


def test_the_ledger_reads_each_trials_area_under_the_ari_curve(tmp_path):
    """Zhu's area is a linear function of the runs: each trial's area (an infeasible run counts as ARI 0) has the
    report's area as its mean.  By hand: ARI 0.5 at every count gives 4 x 0.5 = 2; ARI 1, 1, infeasible, 1, 1 gives
    trapezoids 1 + 0.5 + 0.5 + 1 = 3."""
    from conftest import load_script

    script = load_script("scripts/fresh_seeds_ledger.py")
    ref = load_reference("zhu2013", "coprf_perfect")
    row = ref[(ref["quantity"] == "area_under_ari") & (ref["algorithm"] == "cop_kmeans")
              & (ref["dataset"] == "iris")].iloc[0]
    counts = [20, 40, 60, 80, 100]
    folder = tmp_path / "coprf_perfect" / "paper+custom-00000000"
    folder.mkdir(parents=True)
    rec = pd.DataFrame({"trial": [1000] * 5 + [1001] * 5, "oracle.n_constraints": counts * 2,
                        "ari": [0.5] * 5 + [1.0, 1.0, np.nan, 1.0, 1.0],
                        "status": ["ok"] * 7 + ["infeasible"] + ["ok"] * 2,
                        "algorithm": "cop_kmeans", "dataset": "iris", "code_version": "abc1234"})
    rec.to_parquet(folder / "records.parquet")
    pd.DataFrame({"ref_id": [row["ref_id"]], "ours": [2.5], "n_trials": [2]}).to_csv(folder / "comparison.csv",
                                                                                   index=False)
    rows, _ = script.records_rows(folder, ref, "coprf_perfect")
    assert [(r["trial"], float(r["value"])) for r in rows] == [(1000, 2.0), (1001, 3.0)]
    rec.iloc[:9].to_parquet(folder / "records.parquet")  # trial 1001 without its count 100
    with pytest.raises(ValueError, match="trial 1001 has the counts"):
        script.records_rows(folder, ref, "coprf_perfect")


def test_the_ledger_reads_each_trials_average_area_over_the_datasets(tmp_path, monkeypatch, capsys):
    """The ``average`` row (the report's mean of an algorithm's areas over its datasets): each trial's mean of its
    areas.  By hand: Iris gives areas 2 and 3 (as above), Glass ARI 1 then 0.25 at every count gives 4 and 1, so the
    trials' averages are 3 and 2, whose mean 2.5 is the mean of the datasets' means (2.5, 2.5).  A dataset that ran
    other trials is refused."""
    from conftest import load_script

    script = load_script("scripts/fresh_seeds_ledger.py")
    ref = load_reference("zhu2013", "coprf_perfect")
    ids = {d: ref[(ref["quantity"] == "area_under_ari") & (ref["algorithm"] == "cop_kmeans")
                  & (ref["dataset"] == d)].iloc[0]["ref_id"] for d in ("iris", "glass", "average")}
    counts = [20, 40, 60, 80, 100]
    folder = tmp_path / "coprf_perfect" / "paper+custom-00000000"
    folder.mkdir(parents=True)
    iris = pd.DataFrame({"trial": [1000] * 5 + [1001] * 5, "oracle.n_constraints": counts * 2,
                         "ari": [0.5] * 5 + [1.0, 1.0, np.nan, 1.0, 1.0],
                         "status": ["ok"] * 7 + ["infeasible"] + ["ok"] * 2, "dataset": "iris"})
    glass = pd.DataFrame({"trial": [1000] * 5 + [1001] * 5, "oracle.n_constraints": counts * 2,
                          "ari": [1.0] * 5 + [0.25] * 5, "status": "ok", "dataset": "glass"})
    rec = pd.concat([iris, glass], ignore_index=True).assign(algorithm="cop_kmeans", code_version="abc1234")
    rec.to_parquet(folder / "records.parquet")
    pd.DataFrame({"ref_id": list(ids.values()), "ours": [2.5, 2.5, 2.5], "n_trials": [2, 2, 2]}).to_csv(
        folder / "comparison.csv", index=False)
    rows, _ = script.records_rows(folder, ref, "coprf_perfect")
    got = {}
    for r in rows:
        got.setdefault(r["ref_id"], []).append((r["trial"], float(r["value"])))
    assert got == {ids["iris"]: [(1000, 2.0), (1001, 3.0)], ids["glass"]: [(1000, 4.0), (1001, 1.0)],
                   ids["average"]: [(1000, 3.0), (1001, 2.0)]}
    # --new-rows-only: a row with a batch keeps it (never redrawn), the others get this one
    import shutil

    exp_dir = tmp_path / "experiments"
    (exp_dir / "zhu2013").mkdir(parents=True)
    shutil.copy(experiments_dir() / "zhu2013" / "reference.csv", exp_dir / "zhu2013" / "reference.csv")
    (exp_dir / "zhu2013" / "fresh_seeds.csv").write_text(
        f"ref_id,trial,value,code_version\n{ids['iris']},1000,2.0,old\n{ids['iris']},1001,9.0,old\n")
    monkeypatch.setenv("CCEXP_EXPERIMENTS_DIR", str(exp_dir))
    script.main(["--experiment", "coprf_perfect", "--paper", "zhu2013", "--variant", "", "--records", str(folder),
                 "--new-rows-only"])
    assert "1 rows have a batch already and keep it: 1 of their 2 runs here equal the ledger's" in capsys.readouterr().out
    assert load_fresh_seeds(exp_dir / "zhu2013" / "fresh_seeds.csv") == {
        ids["iris"]: {1000: 2.0, 1001: 9.0}, ids["glass"]: {1000: 4.0, 1001: 1.0}, ids["average"]: {1000: 3.0, 1001: 2.0}}
    with pytest.raises(SystemExit, match="there already"):  # without the flag: one batch per row
        script.main(["--experiment", "coprf_perfect", "--paper", "zhu2013", "--variant", "", "--records", str(folder)])
    rec[(rec["dataset"] == "iris") | (rec["trial"] == 1000)].to_parquet(folder / "records.parquet")  # Glass: one trial
    pd.DataFrame({"ref_id": list(ids.values()), "ours": [2.5, 4.0, 2.5], "n_trials": [2, 1, 2]}).to_csv(
        folder / "comparison.csv", index=False)  # its own row agrees; the average cannot be formed
    with pytest.raises(ValueError, match="ran different trials"):
        script.records_rows(folder, ref, "coprf_perfect")


def test_the_ledger_reads_each_item_orders_k_ec_and_ed_of_gionis_tables(tmp_path):
    """agg_categorical: one line per run (one item order) for k, EC in per cent and ED; by hand, two orders of
    LOCALSEARCH on Votes with 3 and 2 clusters, errors 0.12 and 0.11 (12 and 11 %), ED 30,000 and 29,968; a failed
    run is no run; ROCK's and LIMBO's rows (keyed by the k asked) are not read."""
    from conftest import load_script

    script = load_script("scripts/fresh_seeds_ledger.py")
    ref = load_reference("gionis2007", "agg_categorical")
    mine = ref[(ref["algorithm"] == "local_search") & (ref["dataset"] == "house_votes")]
    assert sorted(mine["quantity"]) == ["classification_error_pct", "n_clusters", "objective"]
    folder = tmp_path / "agg_categorical" / "paper+custom-00000000"
    folder.mkdir(parents=True)
    rec = pd.DataFrame({"trial": [1000, 1001, 1002], "algorithm": "local_search", "dataset": "house_votes",
                        "n_clusters": [3, 2, 9], "classification_error": [0.12, 0.11, 0.5],
                        "objective": [30000.0, 29968.0, 1.0], "status": ["ok", "ok", "error"],
                        "code_version": "abc1234"})
    rec.to_parquet(folder / "records.parquet")
    want = {"n_clusters": [3.0, 2.0], "classification_error_pct": [12.0, 11.0], "objective": [30000.0, 29968.0]}
    ids = dict(zip(mine["quantity"], mine["ref_id"]))
    pd.DataFrame({"ref_id": [ids[q] for q in want], "ours": [np.mean(v) for v in want.values()],
                  "n_trials": 2}).to_csv(folder / "comparison.csv", index=False)
    rows, _ = script.records_rows(folder, ref, "agg_categorical")
    got = {}
    for r in rows:
        got.setdefault(r["ref_id"], []).append((r["trial"], float(r["value"])))
    assert got == {ids[q]: [(1000, v[0]), (1001, v[1])] for q, v in want.items()}
    # ROCK's rows are keyed by the k asked: the runs at k = 7 are the k = 7 row's only
    rock = ref[(ref["algorithm"] == "rock") & (ref["dataset"] == "mushroom")
               & (ref["quantity"] == "classification_error_pct")]
    ec = dict(zip(rock["k"].astype(int), rock["ref_id"]))
    rec = rec.assign(algorithm="rock", dataset="mushroom", **{"algorithm.n_clusters": [7, 9, 7]}, status="ok")
    rec.to_parquet(folder / "records.parquet")
    pd.DataFrame({"ref_id": [ec[7], ec[9]], "ours": [31.0, 11.0], "n_trials": [2, 1]}).to_csv(
        folder / "comparison.csv", index=False)
    rows, _ = script.records_rows(folder, rock, "agg_categorical")
    assert [(r["ref_id"], r["trial"], float(r["value"])) for r in rows] == [
        (ec[7], 1000, 12.0), (ec[7], 1002, 50.0), (ec[9], 1001, 11.0)]


def test_the_readme_table_of_a_fresh_batch_gives_each_committed_chance_row_its_verdict(committed_results):
    """``scripts/fresh_seeds_table.py`` on the committed reports: every differing row of acc_random_init with fresh
    runs is listed once, and a row is ``chance`` exactly when its fresh batch alone does not differ."""
    from conftest import load_script

    lines = load_script("scripts/fresh_seeds_table.py").table("acc_random_init", str(committed_results), differing=True)
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in lines[2:]]
    assert len(rows) == 7 and len({r[0] for r in rows}) == 7
    for r in rows:
        assert r[3] == DIFFERS
        assert (r[4] == "chance") == (r[7] != f"**{DIFFERS}**"), r


def test_the_ledger_reads_agg_census_limbo_row_without_a_k_from_every_limbo_run(tmp_path):
    """agg_census' LIMBO row names no k (the paper's one LIMBO run on Adult): every LIMBO run on Adult is its run,
    as its report reads them; by hand, two orders with errors 0.24 and 0.25 (24 and 25 %)."""
    from conftest import load_script

    script = load_script("scripts/fresh_seeds_ledger.py")
    ref = load_reference("gionis2007", "agg_census")
    limbo = ref[(ref["algorithm"] == "limbo") & (ref["quantity"] == "classification_error_pct")]
    assert len(limbo) == 1 and pd.isna(limbo["k"].item())
    folder = tmp_path / "agg_census" / "paper+custom-00000000"
    folder.mkdir(parents=True)
    pd.DataFrame({"trial": [1000, 1001], "algorithm": "limbo", "dataset": "adult", "n_clusters": [2, 2],
                  "classification_error": [0.24, 0.25], "objective": 1.0, "status": "ok",
                  "algorithm.n_clusters": [2, 2], "code_version": "abc1234"}).to_parquet(folder / "records.parquet")
    pd.DataFrame({"ref_id": limbo["ref_id"], "ours": 24.5, "n_trials": 2}).to_csv(folder / "comparison.csv",
                                                                                   index=False)
    rows, version = script.records_rows(folder, limbo, "agg_census")
    assert version == "abc1234"
    assert [(r["trial"], float(r["value"])) for r in rows] == [(1000, 24.0), (1001, 25.0)]
