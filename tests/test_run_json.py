"""run.json keeps the wall time of the runs that made the records (issue 32, item 2).

A rerun that finds every case stored leaves ``run.json`` as it was (it used
to write the 0.4 s it took to find nothing to do); a resume adds its time to
that of the run(s) before it, which ``runs`` lists one by one.
"""

import json
import time

from ccexp.runner.provenance import earlier_runs, total_wall_seconds
from ccexp.runner.sweep import RunnerOptions, run_sweep, sweep_spec

from _sweeps import DATASET, ORACLE, SMALL


def _info(tmp_path):
    return json.loads((tmp_path / "small" / "test" / "run.json").read_text())


def test_a_resume_adds_its_time_and_a_rerun_with_nothing_to_do_leaves_run_json_alone(tmp_path):
    first = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False, max_tasks=2))
    one = _info(tmp_path)
    assert one["status"] == "finished" and one["wall_seconds"] == round(first.seconds, 3) > 0
    assert [r["n_run"] for r in one["runs"]] == [first.n_run]

    second = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))  # the rest of the grid
    assert 0 < second.n_run < second.n_cases
    two = _info(tmp_path)
    assert [r["n_run"] for r in two["runs"]] == [first.n_run, second.n_run]
    assert two["runs"][0] == one["runs"][0]  # the first run as it was written
    assert two["wall_seconds"] == round(one["wall_seconds"] + round(second.seconds, 3), 3)
    assert two["status"] == "finished" and two["n_pending"] == second.n_run

    path = tmp_path / "small" / "test" / "run.json"
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    time.sleep(0.01)
    third = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    assert third.n_run == 0 and len(third.records) == third.n_cases
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime
    assert third.provenance["wall_seconds"] == two["wall_seconds"]


def test_a_resume_after_a_killed_run_adds_to_its_last_progress_write(tmp_path):
    run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False, max_tasks=1))
    path = tmp_path / "small" / "test" / "run.json"
    info = json.loads(path.read_text())
    # what a driver killed after 12.5 s leaves: its last progress write, status running
    info["runs"][0].update(wall_seconds=12.5, status="running", finished_at=None)
    info.update(status="running", wall_seconds=12.5)
    path.write_text(json.dumps(info))
    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    after = _info(tmp_path)
    assert [r["status"] for r in after["runs"]] == ["running", "finished"]
    assert after["wall_seconds"] == round(12.5 + round(res.seconds, 3), 3)


def test_a_run_json_from_before_the_list_stands_for_one_run(tmp_path):
    old = {"status": "finished", "wall_seconds": 402.0, "started_at": "2026-11-23T10:00:00+0000",
           "finished_at": "2026-11-23T10:06:42+0000", "n_pending": 6468, "code_version": "e25f9dcfb8f2"}
    [run] = earlier_runs(old)
    assert run["wall_seconds"] == 402.0 and run["n_run"] == 6468 and run["code_version"] == "e25f9dcfb8f2"
    assert earlier_runs(None) == [] and earlier_runs({"status": "running"}) == []
    assert total_wall_seconds([{"wall_seconds": 0.1}, {"wall_seconds": 0.2}, {"wall_seconds": None}]) == 0.3


def test_records_in_a_folder_without_run_json_get_a_fresh_one(tmp_path):
    run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    path = tmp_path / "small" / "test" / "run.json"
    path.unlink()
    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    assert res.n_run == 0
    info = _info(tmp_path)
    assert info["status"] == "finished" and [r["n_run"] for r in info["runs"]] == [0]


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.parent.name in ("tables", "figures", folder.name) and p.suffix in (".csv", ".md", ".png")}


def test_the_same_records_in_any_order_give_byte_identical_reports(tmp_path):
    """Issue 32: standard errors summed in the order records arrived differed in their 16th digit."""
    from ccexp.report import make_report

    # ten trials per cell, as the paper's: sums of ten floats in another order differ in their last digit
    grid = {**SMALL, "algorithms": ["ls_ad_vc"], "trials": 10, "single_trial": []}
    res = run_sweep(sweep_spec(grid, DATASET, ORACLE), tmp_path / "run", RunnerOptions(n_jobs=1, progress=False))
    records = res.records
    outs = []
    for i, order in enumerate([records, records.iloc[::-1], records.sample(frac=1.0, random_state=3)]):
        make_report("exp1_triplets", results_dir=tmp_path / f"r{i}", records=order.reset_index(drop=True),
                    filter_to_grid=False, label="test")
        outs.append(_files(tmp_path / f"r{i}" / "exp1_triplets" / "test"))
    assert "comparison.csv" in outs[0] and any(k.startswith("tables/") for k in outs[0])
    assert outs[1] == outs[0] and outs[2] == outs[0]
