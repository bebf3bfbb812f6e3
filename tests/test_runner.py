"""Grid expansion, seeding, the resumable results store and crash recovery."""

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import ccexp
from ccexp.registry import ALGORITHMS
from ccexp.runner.config import experiment_cases
from ccexp.runner.execute import build_problem
from ccexp.runner.config import apply_scale
from ccexp.runner.grid import expand
from ccexp.runner.store import ResultStore
from ccexp.runner.sweep import RunnerOptions, run_sweep, sweep_spec

from _sweeps import DATASET, ORACLE, SMALL


def test_paper_grid_runs_ten_trials_everywhere_and_counts_the_papers_924_cases():
    """Issue 28: a = 1, b = 0 runs 10 trials too (960 runs per algorithm); counted as the paper counts its test
    cases (Section V-A: one at a = 1, b = 0, where its generator is deterministic), they are 924."""
    from ccexp.report._ukkonen2017_cells import paper_case_weights

    experiment, cases = experiment_cases("exp1_triplets", "paper")
    per_alg = pd.Series([c.algorithm for c in cases]).value_counts()
    assert set(per_alg) == {960}
    assert set(per_alg.index) == set(experiment["algorithms"])
    one = [c for c in cases if c.algorithm == "ls_ad_vc"]
    inst = pd.DataFrame([{"instance_id": c.instance.instance_id, "trial": c.instance.trial, **c.instance.setting}
                         for c in one])
    assert inst.groupby(["dataset.k", "oracle.fraction", "oracle.noise"]).size().eq(10).all()
    assert paper_case_weights(inst).sum() == pytest.approx(924)


def test_single_trial_settings_and_counts():
    cases = expand(SMALL, DATASET, ORACLE)
    # 2 k x (noise 0: 1 trial + noise 0.2: 2 trials) x 2 algorithms
    assert len(cases) == 2 * 3 * 2
    assert len({c.case_id for c in cases}) == len(cases)


def test_setting_trials_sets_the_count_of_matching_settings():
    # k = 4 runs 5 trials except at noise 0 (single_trial first); k = 2 keeps the experiment's 2 / 1
    exp = dict(SMALL, setting_trials=[{"dataset.k": 4, "trials": 5}])
    cases = expand(exp, DATASET, ORACLE)
    count = Counter((c.instance.setting["dataset.k"], c.instance.setting["oracle.noise"]) for c in cases)
    assert count == {(2, 0.0): 2, (2, 0.2): 4, (4, 0.0): 2, (4, 0.2): 10}  # x 2 algorithms
    # the trials of a setting are the same instances whatever count reaches them
    base = {c.case_id for c in expand(SMALL, DATASET, ORACLE)}
    assert base <= {c.case_id for c in cases}


@pytest.mark.parametrize("bad", [None, 0, -1, 2.5, True, "3"])
def test_setting_trials_needs_a_positive_count(bad):
    entry = {"dataset.k": 4} if bad is None else {"dataset.k": 4, "trials": bad}
    with pytest.raises(ValueError, match="setting_trials"):
        expand(dict(SMALL, setting_trials=[entry]), DATASET, ORACLE)


def test_case_ids_and_seeds_are_stable_and_instance_seed_ignores_algorithm():
    a = expand(SMALL, DATASET, ORACLE)
    b = expand(SMALL, DATASET, ORACLE)
    assert [c.case_id for c in a] == [c.case_id for c in b]
    by_instance = {}
    for c in a:
        by_instance.setdefault(c.instance.instance_id, []).append(c)
    for group in by_instance.values():
        assert len({c.instance.seed for c in group}) == 1
        assert len({c.algorithm_seed for c in group}) == len(group)  # the algorithm's own seed adds its name
    # the seed depends on what the case is, not on the order of the sweep lists
    rev = dict(SMALL, sweep={"dataset": {"k": [4, 2]}, "oracle": {"fraction": [0.05], "noise": [0.2, 0.0]}})
    assert {c.case_id: c.instance.seed for c in expand(rev, DATASET, ORACLE)} == {c.case_id: c.instance.seed for c in a}


def test_every_algorithm_of_an_instance_sees_the_same_problem():
    inst = expand(SMALL, DATASET, ORACLE)[-1].instance
    _, p1 = build_problem(inst)
    _, p2 = build_problem(inst)
    np.testing.assert_array_equal(p1.triplets, p2.triplets)


def test_scale_preset_then_command_line_overrides():
    from ccexp.runner.config import compose_config

    ov = ["+experiment=exp1_triplets", "experiment.scale=ci", "experiment.trials=3"]
    cfg = compose_config(ov)
    exp = apply_scale(cfg.experiment, ov)
    assert exp["trials"] == 3  # the user's override beats the preset
    assert exp["sweep"]["dataset"]["k"] == [4, 8]  # from the ci preset
    with pytest.raises(ValueError, match="unknown scale 'huge'.*valid scales: ci, paper, quick"):
        apply_scale(compose_config(["+experiment=exp1_triplets", "experiment.scale=huge"]).experiment)


def test_partial_sweep_resumes_without_redoing_or_losing_cases(tmp_path):
    first = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False, max_tasks=2))
    assert first.n_run == 4  # two instances x two algorithms
    store = ResultStore(tmp_path / "small" / "test")
    done_after_first = store.load()
    second = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    assert second.n_run == second.n_cases - 4
    df = second.records
    assert len(df) == second.n_cases == df["case_id"].nunique()
    # cases of the first run were kept, not redone: same rows
    again = df.set_index("case_id").loc[done_after_first["case_id"], "ari"]
    np.testing.assert_array_equal(again.to_numpy(), done_after_first["ari"].to_numpy())
    third = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    assert third.n_run == 0


def test_every_record_names_the_kind_of_supervision_it_read(tmp_path):
    # the oracle "triplets" declares produces="triplets" and sets no meta["supervision"] of its own
    df = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False, max_tasks=1)).records
    assert ORACLE["name"] == "triplets" and len(df) == 2
    assert df["supervision"].tolist() == ["triplets", "triplets"]
    assert "problem.supervision" not in df


@pytest.mark.slow  # n_jobs=2 starts worker processes
def test_reruns_from_scratch_reproduce_every_record(tmp_path):
    a = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path / "a", RunnerOptions(n_jobs=1, progress=False)).records
    b = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path / "b", RunnerOptions(n_jobs=2, progress=False)).records
    cols = ["case_id", "ari", "n_clusters", "objective", "seed", "problem.n_triplets"]
    pd.testing.assert_frame_equal(
        a[cols].sort_values("case_id").reset_index(drop=True), b[cols].sort_values("case_id").reset_index(drop=True)
    )


def test_a_failing_algorithm_is_recorded_not_fatal(tmp_path, monkeypatch):
    class Broken(ccexp.algorithms.triplets.LsADVC):
        def fit_problem(self, problem):
            raise RuntimeError("boom")

    monkeypatch.setitem(ALGORITHMS._items, "ls_eq", Broken)
    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    df = res.records
    assert (df.loc[df.algorithm == "ls_eq", "status"] == "error").all()
    assert df.loc[df.algorithm == "ls_eq", "error"].str.contains("RuntimeError: boom").all()
    assert (df.loc[df.algorithm == "ls_ad_vc", "status"] == "ok").all()


@pytest.mark.slow
def test_killed_sweep_completes_on_rerun(tmp_path):
    """Kill a real sweep (SIGKILL) halfway, start it again: every case once, none lost."""
    args = [
        sys.executable, "-m", "ccexp", "+experiment=exp1_triplets", "experiment.scale=ci",
        "tracking=off", "report=false", "runner.n_jobs=1", f"paths.results={tmp_path}",
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    parts = tmp_path / "exp1_triplets" / "ci" / "parts"
    deadline = time.time() + 240
    try:
        while time.time() < deadline:
            if parts.exists() and len(list(parts.glob("part-*.parquet"))) >= 3:
                break
            if proc.poll() is not None:
                pytest.fail("the sweep finished before it could be killed")
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    store = ResultStore(tmp_path / "exp1_triplets" / "ci")
    n_before = len(store.load())
    _, cases = experiment_cases("exp1_triplets", "ci")
    assert 0 < n_before < len(cases)
    from conftest import run_cli

    run_cli(["+experiment=exp1_triplets", "experiment.scale=ci", "tracking=off", "report=false",
             "runner.n_jobs=1", f"paths.results={tmp_path}"], cwd=tmp_path)
    df = pd.read_parquet(tmp_path / "exp1_triplets" / "ci" / "records.parquet")
    assert sorted(df["case_id"]) == sorted(c.case_id for c in cases)
    assert not list(parts.glob("part-*.parquet"))


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "how"), [(signal.SIGINT, ""), (signal.SIGTERM, " (SIGTERM)")])
def test_ctrl_c_or_sigterm_stops_a_sweep_in_one_line_and_a_rerun_completes_it(tmp_path, sig, how):
    """SIGINT to a real ``python -m ccexp`` with two workers, as Ctrl-C in a terminal sends it, or SIGTERM, as
    ``kill`` or a batch scheduler sends it: the command stops (exit 128 + the signal, one line naming the cases
    stored), run.json says ``interrupted``, and the same command resumes.

    The child gets SIGINT's default disposition first: a job started in the background of a non-interactive shell
    (as CI may start pytest) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler.
    """
    args = [sys.executable, "-m", "ccexp", "+experiment=exp1_triplets", "experiment.scale=ci", "tracking=off",
            "report=false", "runner.n_jobs=2", "runner.progress=false", f"paths.results={tmp_path}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    out = tmp_path / "exp1_triplets" / "ci"
    deadline = time.time() + 240
    while len(list((out / "parts").glob("part-*.parquet"))) < 2:
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            pytest.fail(f"the sweep ended (or never stored two tasks) before it could be interrupted: {proc.returncode}")
        time.sleep(0.02)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    lines = err.strip().splitlines()
    assert lines[-1].startswith(f"ccexp: exp1_triplets: interrupted{how}; "), err
    assert "rerun the same command to resume" in lines[-1] and "Traceback" not in err, err
    n_stored = int(lines[-1].split("; ")[1].split(" of ")[0])
    info = json.loads((out / "run.json").read_text())
    assert info["status"] == "interrupted" and info["runs"][-1]["status"] == "interrupted"
    assert info["runs"][-1]["n_run"] == n_stored
    _, cases = experiment_cases("exp1_triplets", "ci")
    assert 0 < len(ResultStore(out).load()) < len(cases)  # kept: at least what was stored when the signal came

    from conftest import run_cli

    run_cli(args[3:], cwd=tmp_path)
    df = pd.read_parquet(out / "records.parquet")
    assert sorted(df["case_id"]) == sorted(c.case_id for c in cases)  # every case once
    assert json.loads((out / "run.json").read_text())["status"] == "finished"


def test_sweeping_names_starts_from_each_names_own_config(tmp_path):
    exp = dict(SMALL, sweep={"oracle": {"name": ["triplets", "recorded"]}}, trials=1, single_trial=[])
    cases = expand(exp, DATASET, {"name": "triplets", "fraction": 0.5, "noise": 0.1})
    oracles = {c.instance.oracle["name"]: c.instance.oracle for c in cases}
    assert oracles["recorded"] == {"name": "recorded"}  # no triplet parameters leaked in
    assert oracles["triplets"]["fraction"] == 1.0  # conf/oracle/triplets.yaml, not the base config
    with pytest.raises(ValueError, match="unknown dataset 'nope'; valid datasets are: .*synthetic_labels"):
        expand(dict(SMALL, sweep={"dataset": {"name": ["nope"]}}), DATASET, ORACLE)


def test_sweeping_an_algorithm_parameter_keeps_the_instance():
    exp = dict(SMALL, algorithms=["ls_ad_vc"], sweep={"dataset": {"k": [2]}, "algorithm": {"tie_break": ["first", "stay"]}},
               trials=1, single_trial=[])
    cases = expand(exp, DATASET, ORACLE)
    assert [c.params["tie_break"] for c in cases] == ["first", "stay"]
    assert cases[0].instance.instance_id == cases[1].instance.instance_id  # same supervision for both
    assert cases[0].case_id != cases[1].case_id
    with pytest.raises(ValueError, match="must start with 'dataset.', 'oracle.' or 'algorithm.'"):
        expand(dict(SMALL, sweep={"runner": {"n_jobs": [1]}}), DATASET, ORACLE)


def test_a_grid_may_restrict_itself_to_some_algorithms():
    exp = dict(SMALL, trials=2, single_trial=[], sweep=[
        {"algorithms": ["ls_eq"], "oracle": {"noise": [0.0]}},
        {"oracle": {"noise": [0.0, 0.2]}},
        {"algorithms": ["ls_ad_vc"], "oracle": {"noise": [0.4]}},
    ])
    cases = expand(exp, DATASET, ORACLE)
    by_noise = {}
    for c in cases:
        by_noise.setdefault(c.instance.oracle["noise"], []).append(c.algorithm)
    # noise 0 appears in two grids: its ls_eq cases are not repeated
    assert {k: sorted(v) for k, v in by_noise.items()} == {
        0.0: ["ls_ad_vc"] * 2 + ["ls_eq"] * 2, 0.2: ["ls_ad_vc"] * 2 + ["ls_eq"] * 2, 0.4: ["ls_ad_vc"] * 2}
    assert all("algorithms" not in c.instance.setting for c in cases)
    with pytest.raises(ValueError, match=r"sweep grid algorithms \['nope'\] are not in the experiment's algorithms"):
        expand(dict(exp, sweep=[{"algorithms": ["nope"], "oracle": {"noise": [0.0]}}]), DATASET, ORACLE)


def test_experiment_record_keeps_labels_and_the_truths_objective(tmp_path):
    from ccexp.objectives import problem_objective

    grid = dict(SMALL, name="recorded", record=["labels", "truth_objective"])
    df = run_sweep(sweep_spec(grid, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False, max_tasks=1)).records
    inst = expand(grid, DATASET, ORACLE)[0].instance
    dataset, problem = build_problem(inst)
    assert set(df["instance_id"]) == {inst.instance_id}
    truth = problem_objective(dataset.y, problem)
    for _, r in df.iterrows():
        labels = np.array(r["labels"].split(), dtype=np.int64)
        assert labels.shape == (dataset.y.shape[0],)
        # the recorded clustering is the one the metrics scored
        assert ccexp.metrics.adjusted_rand(dataset.y, labels) == r["ari"]
        assert r["truth.objective"] == truth["objective"]


def test_experiment_record_inputs_of_an_aggregation_problem():
    from ccexp.runner.execute import run_instance

    _, cases = experiment_cases("agg_robustness", "ci")
    inst = cases[0].instance
    group = [c for c in cases if c.instance.instance_id == inst.instance_id]
    [rec, *_] = run_instance(group, {"record": ["inputs"]})
    dataset, problem = build_problem(inst)
    methods = problem.meta["methods"].split(",")
    assert len(methods) == problem.clusterings.shape[0] == 5
    for name, row in zip(methods, problem.clusterings):
        assert rec[f"input.{name}.ari"] == ccexp.metrics.adjusted_rand(dataset.y, row)
        assert rec[f"input.{name}.labels"] == " ".join(map(str, row.tolist()))
    assert "labels" not in rec  # not asked for, and the data has ground truth


@pytest.mark.parametrize("value", ["[labels,bogus]", "labels"])
def test_an_unknown_record_option_is_refused(value):
    from omegaconf import OmegaConf

    from ccexp.runner.config import ConfigError, check_options, compose_config

    cfg = compose_config(["+experiment=exp1_triplets", f"+experiment.record={value}"])
    experiment = OmegaConf.to_container(cfg.experiment, resolve=True)
    with pytest.raises(ConfigError, match="experiment.record must be a list of labels, truth_objective, inputs"):
        check_options(cfg, experiment)
