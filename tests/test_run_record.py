"""run.json records what ran (issue 30, item 2): every algorithm of the run with its parameters, and not the
``algorithm`` group's default beside them."""

import json

from conftest import run_cli


def test_run_json_names_the_algorithms_that_ran_with_their_parameters(tmp_path):
    run_cli(["experiment=exp1_triplets", "experiment.scale=ci", "experiment.algorithms=[ls_eq_vc]",
             "algorithm.max_passes=3", "experiment.trials=1", f"paths.results={tmp_path}", "tracking=off",
             "runner.n_jobs=1", "runner.progress=false", "report=false"], cwd=tmp_path)
    [run_json] = tmp_path.glob("exp1_triplets/*/run.json")
    config = json.loads(run_json.read_text())["config"]
    assert "algorithm" not in config  # the group's default (ls_ad_vc) did not run
    assert list(config["algorithms"]) == ["ls_eq_vc"]
    assert config["algorithms"]["ls_eq_vc"]["max_passes"] == 3  # the user's override, as the cases got it
