"""The runner's guards of issue 33: what a resume, a part file or an instance may no longer do silently.

- a resume with another code version is refused, naming both versions and the flag that accepts the mix
  (item 2; before: new rows beside old ones, nothing said, the report named the old version only);
- a part file whose columns are not the runner's (no ``case_id``, wrong dtypes) is set aside like a
  truncated one (item 6; before: 6 rows for 5 cases, one with ``case_id`` NaN).
"""

from __future__ import annotations

import json
import logging

import pandas as pd
import pytest

from ccexp.runner.store import ResultStore, schema_problem
from ccexp.runner.sweep import RunnerOptions, MixedCodeError, run_sweep, sweep_spec

from _sweeps import DATASET, ORACLE, SMALL


def _code(version):
    return {"commit": version[:6], "dirty": version.endswith("+dirty"), "dirty_files": [], "code_version": version}


# --- item 2: a resume with other code -------------------------------------------------------------


def test_a_resume_with_other_code_is_refused_naming_both_versions(tmp_path):
    first = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False, max_tasks=1), code=_code("aaa111"))
    assert first.n_run == 2
    with pytest.raises(MixedCodeError) as err:
        run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False), code=_code("bbb222+dirty"))
    msg = str(err.value)
    assert "\n" not in msg and "2 cases by code aaa111" in msg and "this code is bbb222+dirty" in msg
    assert "runner.allow_mixed_code=true" in msg
    assert len(ResultStore(tmp_path / "small" / "test").load()) == 2  # nothing was added
    # the same code resumes; nothing left to run is no mix either
    run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False, max_tasks=1), code=_code("aaa111"))


def test_an_accepted_mix_is_recorded_in_run_json(tmp_path):
    run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False, max_tasks=1), code=_code("aaa111"))
    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False, allow_mixed_code=True), code=_code("bbb222"))
    info = json.loads((tmp_path / "small" / "test" / "run.json").read_text())
    assert info["code_versions"] == {"aaa111": 2, "bbb222": res.n_cases - 2}
    # a finished grid reruns with any code: nothing is added, nothing mixes
    again = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False), code=_code("ccc333"))
    assert again.n_run == 0


# --- item 6: a malformed part -----------------------------------------------------------------


def test_a_part_without_case_id_is_set_aside_not_merged(tmp_path, caplog):
    store = ResultStore(tmp_path)
    store.append([{"case_id": f"c{i}", "ari": 1.0, "status": "ok"} for i in range(5)])
    store._write_part(store.parts_dir, [{"ari": 0.5, "status": "ok"}])  # no case_id
    with caplog.at_level(logging.WARNING, logger="ccexp"):
        df = store.consolidate()
    assert sorted(df["case_id"]) == [f"c{i}" for i in range(5)] and df["case_id"].notna().all()
    assert len(list(store.parts_dir.glob("*.corrupt"))) == 1
    assert any("no case_id column" in m and "moved aside" in m for m in caplog.messages), caplog.messages


@pytest.mark.parametrize(("rows", "words"), [
    ([{"case_id": 7, "ari": 1.0, "status": "ok"}], "case_id holds int64 values, not text"),
    ([{"case_id": "x", "ari": "high", "status": "ok"}], "ari holds"),
    ([{"case_id": "x", "trial": "one", "status": "ok"}], "trial holds"),
    ([{"case_id": "x", "status": 1}], "status holds int64 values, not text"),
    ([{"case_id": None, "ari": 1.0}, {"case_id": "y", "ari": 1.0}], "1 row(s) without a case_id"),
])
def test_a_part_with_wrong_dtypes_is_set_aside(tmp_path, rows, words):
    problem = schema_problem(pd.DataFrame.from_records(rows))
    assert problem.startswith(words) and problem.endswith(("not text", "not numbers", "case_id"))
    store = ResultStore(tmp_path)
    store.append([{"case_id": "a", "ari": 1.0, "status": "ok"}])
    store._write_part(store.parts_dir, rows)
    assert store.load()["case_id"].tolist() == ["a"]
    assert len(list(store.parts_dir.glob("*.corrupt"))) == 1


def test_records_as_the_runner_writes_them_pass_the_schema(tmp_path):
    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False, max_tasks=2))
    assert schema_problem(res.records) is None
    assert not list((tmp_path / "small" / "test").rglob("*.corrupt"))
