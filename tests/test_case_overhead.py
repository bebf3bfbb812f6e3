"""scripts/bench/case_overhead.py: CPU counters around run_instance's build and score (issue 31)."""

from __future__ import annotations

import json

import ccexp.runner.execute as X
from conftest import load_script

co = load_script("scripts/bench/case_overhead.py")

_TIMING = ("_worker",)  # and every timing: *_seconds, seconds.*


def _comparable(records):
    return [{k: v for k, v in r.items() if k not in _TIMING and not k.endswith("_seconds")
             and not k.startswith("seconds.")} for r in records]


def test_counters_change_no_record_and_are_removed():
    groups, context = co.tasks_of("exp1_triplets", trial=0, n_tasks=1)
    task = groups[1]
    build, score = X.build, X.score
    plain = X.run_instance(task, context)
    with co.counted() as cpu:
        counted = X.run_instance(task, context)
        # one estimator build and one score per case, the dataset and the oracle once for the task
        assert set(cpu) == {"build: dataset", "build: oracle (draws the supervision)", "build: estimator",
                            "score (metrics and objective)"}
        assert all(v >= 0.0 for v in cpu.values())
    assert X.build is build and X.score is score  # restored: nothing leaks into the next test
    assert _comparable(counted) == _comparable(plain)


def test_main_writes_parts_that_add_up(tmp_path, capsys):
    co.main(["--tasks", "1", "--out-dir", str(tmp_path)])
    out = json.loads((tmp_path / "case_overhead.json").read_text())
    parts = {r["part"]: r for r in out["tables"]["parts"]}
    assert out["cases"] == 7  # one exp1 task: its seven algorithms on one instance
    assert parts["fits (fit_problem)"]["cpu_s"] > 0
    # shares are of the tasks' CPU: they add to 100 % up to their rounding to 0.1
    assert abs(sum(r["share_pct"] for r in parts.values()) - 100.0) <= 0.05 * len(parts) + 1e-9
    assert "| fits (fit_problem) |" in capsys.readouterr().out
