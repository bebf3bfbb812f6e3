"""The resolved run spec is the record (issue 30, item 2).

``run.json`` holds the spec that ran (:mod:`ccexp.runner.spec`): the experiment,
the grid as expanded and each algorithm with the parameters it ran with, and
nothing that did not run; the report reads it back instead of expanding the
grid from today's config.
"""

import json

import pytest
from _sweeps import DATASET, ORACLE, SMALL
from conftest import require_experiment_data, run_cli

from ccexp.report import REPORTS, make_report
from ccexp.runner.spec import SCHEMA, SweepSpec, dumps_run_info, read_spec
from ccexp.runner.sweep import RunnerOptions, run_sweep, sweep_spec


def test_the_spec_round_trips_through_run_json():
    spec = sweep_spec(SMALL, DATASET, ORACLE, label="test+x")
    text = dumps_run_info(spec.to_json())
    back = SweepSpec.from_json(json.loads(text))
    assert back == spec  # every field: identity, cases (instances, algorithms, parameters), ids
    assert back.case_ids == [c.case_id for c in spec.cases]
    assert back.case_instance_ids() == [c.instance.instance_id for c in spec.cases]
    back.verify()  # every stored id is the hash of what the spec says
    assert [c.instance.seed for c in back.cases] == [c.instance.seed for c in spec.cases]
    # the grid's tables hold each distinct config once: 2 k values -> 2 dataset configs, one row per case
    info = json.loads(text)
    assert info["schema"] == SCHEMA and len(info["grid"]["datasets"]) == 2
    assert len(info["grid"]["cases"]) == len(spec.cases) == 12  # (2 k x 1 trial + 2 k x 2 trials) x 2 algorithms
    assert len(info["grid"]["instances"]) == 6
    lines = {line.strip().rstrip(",") for line in text.splitlines()}
    assert all(json.dumps(row) in lines for row in info["grid"]["cases"])  # a row per line, not a value per line


def test_a_spec_edited_by_hand_fails_verification():
    info = sweep_spec(SMALL, DATASET, ORACLE).to_json()
    info["grid"]["params"]["ls_eq"][0]["max_passes"] = 7
    with pytest.raises(ValueError, match="is not the hash of its spec"):
        SweepSpec.from_json(info).verify()


def test_a_run_json_of_schema_1_holds_no_spec():
    assert read_spec({"scale": "paper", "config": {"experiment": {}}}) is None
    with pytest.raises(ValueError, match="respec_run_json"):
        SweepSpec.from_json({"scale": "paper"})


def test_run_json_holds_only_what_ran(tmp_path):
    """agg_categorical's run.json named ``ls_ad_vc`` (the algorithm group's default), which it never runs."""
    require_experiment_data("agg_categorical", "ci")  # Votes and Mushrooms are real data files
    run_cli(["experiment=agg_categorical", "experiment.scale=ci", "experiment.trials=1", f"paths.results={tmp_path}",
             "tracking=off",
             "runner.n_jobs=1", "runner.progress=false", "report=false"], cwd=tmp_path)
    [path] = tmp_path.glob("agg_categorical/*/run.json")
    text = path.read_text()
    info = json.loads(text)
    assert "ls_ad_vc" not in text and "config" not in info
    names = ["best_clustering", "agglomerative", "furthest", "balls", "local_search", "rock", "limbo"]
    assert info["algorithms"] == names
    assert set(info["grid"]["params"]) == set(info["targets"]["algorithm"]) == set(names)
    assert [d["name"] for d in info["grid"]["datasets"]] == list(info["targets"]["dataset"])
    assert info["n_cases"] == len(info["grid"]["cases"])
    # the bookkeeping other code reads is still there
    assert {"wall_seconds", "runs", "code_version", "git", "machine", "packages", "peak_rss_bytes", "status",
            "runner", "scale", "paper", "config_hash"} <= set(info)
    assert info["runner"]["n_jobs"] == 1


def test_run_json_records_the_parameters_each_algorithm_ran_with(tmp_path):
    run_cli(["experiment=exp1_triplets", "experiment.scale=ci", "experiment.algorithms=[ls_eq_vc]",
             "algorithm.max_passes=3", "experiment.trials=1", f"paths.results={tmp_path}", "tracking=off",
             "runner.n_jobs=1", "runner.progress=false", "report=false"], cwd=tmp_path)
    [path] = tmp_path.glob("exp1_triplets/*/run.json")
    spec = read_spec(json.loads(path.read_text()))
    assert {c.algorithm for c in spec.cases} == {"ls_eq_vc"}
    assert {c.params["max_passes"] for c in spec.cases} == {3}  # the user's override, as the cases got it
    assert "ls_ad_vc" not in path.read_text()


def test_the_report_reads_the_grid_from_run_json_not_from_the_config(tmp_path, monkeypatch):
    """A folder whose run.json grid is not what today's config expands to: the report follows run.json."""
    import ccexp.runner.config as config

    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    path = res.directory / "run.json"
    info = json.loads(path.read_text())
    # the run.json says the grid was its second half, in reverse order ("small" is in no config at all)
    kept = info["grid"]["cases"][6:][::-1]
    info["grid"]["cases"] = kept
    path.write_text(dumps_run_info(info))
    seen = {}

    def spy(records, out_dir, scale, n_grid_instances=None):
        seen.update(ids=list(records["case_id"]), n_grid_instances=n_grid_instances)

    monkeypatch.setitem(REPORTS, "small", spy)
    monkeypatch.setattr(config, "experiment_cases", lambda *a, **k: pytest.fail("the report expanded the config"))
    make_report("small", results_dir=tmp_path, scale="test")
    assert seen["ids"] == [row[0] for row in kept]  # the run.json's cases, in its order; the rest left out
    assert seen["n_grid_instances"] == len({row[1] for row in kept})


def _old_run_json(overrides, n_cases=None):
    """A run.json of schema 1, as the runner wrote it before issue 30: the composed config, n_cases, no grid."""
    from omegaconf import OmegaConf

    from ccexp.runner.config import compose_config, resolve_run

    cfg = compose_config(overrides)
    spec = resolve_run(cfg, overrides)
    config = OmegaConf.to_container(cfg, resolve=True)
    config.pop("hydra", None)
    from ccexp.runner.seeding import stable_hash

    return {"experiment": spec.experiment["name"], "scale": spec.scale, "config_hash": stable_hash(spec.placed_experiment()),
            "n_cases": len(spec.expanded) if n_cases is None else n_cases, "wall_seconds": 12.5,
            "runs": [{"wall_seconds": 12.5}], "status": "finished", "config": config}, spec


def _respec_script():
    from conftest import load_script

    return load_script("scripts/respec_run_json.py")


def test_respec_rewrites_a_run_json_of_schema_1_into_the_spec_it_ran():
    respec = _respec_script()
    old, resolved = _old_run_json(["experiment=agg_categorical", "experiment.scale=ci"])
    assert "ls_ad_vc" in json.dumps(old)  # the algorithm group's default, recorded though it never ran
    new, _ = respec.respec(old, "ci")
    spec = read_spec(json.loads(dumps_run_info(new)))
    assert spec.case_ids == [c.case_id for c in resolved.expanded]  # the grid python -m ccexp runs
    assert "ls_ad_vc" not in json.dumps(new) and "config" not in new
    # the bookkeeping stays as it was, config_hash too (the records carry it)
    assert new["wall_seconds"] == 12.5 and new["runs"] == old["runs"] and new["config_hash"] == old["config_hash"]
    # a stored count the config does not expand to is refused, with one line
    with pytest.raises(respec.Refused, match="another number of cases .*: 35, .*: 35.* stored n_cases=34"):
        respec.respec(dict(old, n_cases=34), "ci")
    with pytest.raises(respec.Refused, match="not all cases of the expanded grid"):
        respec.respec(old, "ci", stored_ids={"not-a-case-id"})


def test_respec_of_a_variant_takes_the_grid_that_ran_not_the_stored_configs():
    """The stored config was resolved before the variant was merged: acc_random_init's ``authors`` variant sets
    ``experiment.preset``, which ``oracle.preset`` interpolates, so the stored oracle says ``paper``. Expanded
    alone it is another grid of the same size; the script takes today's, whose config_hash is the stored one."""
    respec = _respec_script()
    old, resolved = _old_run_json(["experiment=acc_random_init", "experiment.scale=ci", "experiment.variant=authors"])
    _, stored_cases, _ = respec._from_stored_config(old["config"])
    ran = [c.case_id for c in resolved.expanded]
    assert len(stored_cases) == len(ran) and [c.case_id for c in stored_cases] != ran  # the trap
    new, notes = respec.respec(old, "ci+authors")
    assert new["grid"]["cases"] and [row[0] for row in new["grid"]["cases"]] == ran
    assert {o["preset"] for o in new["grid"]["oracles"]} == {"authors"}
    with pytest.raises(respec.Refused, match="no expansion can be trusted"):
        respec.respec(dict(old, config_hash="0123456789abcdef"), "ci+authors")
