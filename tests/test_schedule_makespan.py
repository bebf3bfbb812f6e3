"""scripts/bench/schedule_makespan.py: greedy list scheduling replayed on a sweep's measured task costs (issue 31)."""

from __future__ import annotations

import itertools
import json

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import load_script

sm = load_script("scripts/bench/schedule_makespan.py")


def optimum(costs, workers):
    """The least makespan over every assignment of the tasks to the workers (brute force)."""
    best = float("inf")
    for assign in itertools.product(range(workers), repeat=len(costs)):
        loads = [0.0] * workers
        for c, w in zip(costs, assign):
            loads[w] += c
        best = min(best, max(loads))
    return best


def test_makespan_by_hand():
    # 3, 3 start together; the three 2s follow: 3 + 2 + 2 = 7 on one worker, 3 + 2 on the other
    assert sm.makespan([3, 3, 2, 2, 2], 2) == 7.0
    assert sm.makespan([1, 1, 2], 2) == 3.0  # the long task last waits for a worker
    assert sm.makespan([2, 1, 1], 2) == 2.0  # longest first: both workers end at 2
    assert sm.makespan([], 2) == 0.0
    assert sm.makespan([4, 1], 1) == 5.0
    with pytest.raises(ValueError, match="workers"):
        sm.makespan([1.0], 0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 20), min_size=1, max_size=7), st.integers(1, 3))
def test_makespan_against_brute_force(costs, workers):
    opt = optimum(costs, workers)
    grid = sm.makespan(costs, workers)
    lpt = sm.makespan(sorted(costs, reverse=True), workers)
    assert max(sum(costs) / workers, max(costs)) <= opt <= min(grid, lpt)
    assert grid <= (2 - 1 / workers) * opt + 1e-9  # Graham (1966): any order
    assert lpt <= (4 / 3 - 1 / (3 * workers)) * opt + 1e-9  # Graham (1969): longest first


def _folder(tmp_path, instances, records):
    (tmp_path / "run.json").write_text(json.dumps({
        "experiment": "toy", "wall_seconds": 9.0, "runner": {"n_jobs": 2},
        "grid": {"instances": [[i, 0, 0, 0, t, 1] for t, i in enumerate(instances)]}}))
    pd.DataFrame(records, columns=["instance_id", "fit_seconds", "oracle_seconds"]).to_parquet(
        tmp_path / "records.parquet")
    return tmp_path


def test_task_costs_in_grid_order(tmp_path):
    # records stored in completion order; the costs come back in the grid's, each instance's oracle counted once
    folder = _folder(tmp_path, ["b", "a"], [("a", 1.0, 0.5), ("a", 2.0, 0.5), ("b", 4.0, None)])
    cost, run = sm.task_costs(folder)
    assert list(cost.index) == ["b", "a"]
    assert list(cost) == [4.0, 3.5]
    assert run["experiment"] == "toy"


def test_task_costs_refuses_a_partial_folder(tmp_path):
    folder = _folder(tmp_path, ["a", "b"], [("a", 1.0, 0.0)])
    with pytest.raises(ValueError, match="no records for 1 of the grid's 2 instances"):
        sm.task_costs(folder)


def test_main_prints_one_row_per_folder(tmp_path, capsys):
    folder = _folder(tmp_path, ["a", "b", "c"], [("a", 1.0, 0.0), ("b", 1.0, 0.0), ("c", 2.0, 0.0)])
    assert sm.main([str(folder)]) == 0
    row = capsys.readouterr().out.strip().splitlines()[-1]
    # grid order 1, 1, 2 ends at 3; longest first 2 | 1 + 1 at 2: a third less
    assert row == "| toy | 3 | 4 | 2.0 | 2 | 3 | 2 | 33.3 % | 9, 2 |"
