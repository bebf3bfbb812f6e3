"""Several processes writing one results folder at once lose nothing and duplicate nothing.

Real processes (``subprocess``), not threads: the races are between
``os.replace`` / ``unlink`` / ``glob`` of different writers.  Issue 12 found
that two sweeps started together into one folder crashed with
``FileNotFoundError`` on a ``.tmp`` or part file, or lost computed cases.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from ccexp.runner.grid import expand
from ccexp.runner.store import ResultStore

from _sweeps import DATASET, ORACLE, SMALL

HERE = Path(__file__).resolve().parent

# A writer: ``rounds`` times, append ``per_round`` records as parts, then consolidate.
_WRITER = textwrap.dedent(
    """
    import sys
    from ccexp.runner.store import ResultStore

    folder, prefix, rounds, per_round = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    store = ResultStore(folder)
    for r in range(rounds):
        for j in range(per_round):
            store.append([{"case_id": f"{prefix}-{r}-{j}", "value": float(j), "status": "ok"}])
        store.load()
        store.consolidate()
    """
)


def _start(args: list[str], **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def _finish(procs: list[subprocess.Popen], timeout: float = 300) -> list[tuple[int, str]]:
    out = []
    for p in procs:
        _, err = p.communicate(timeout=timeout)
        out.append((p.returncode, err))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("same_ids", [False, True], ids=["different-cases", "same-cases"])
def test_concurrent_writers_and_consolidations_lose_and_duplicate_nothing(tmp_path, same_ids):
    """3 processes x 4 rounds of (append 4 parts, load, consolidate) into one folder, twice.

    On the code before issue 12 this failed: a writer crashed with
    ``FileNotFoundError`` (a part removed by another's consolidation between
    glob and read, or the shared ``.records.parquet.tmp`` renamed away), and
    a consolidation that had read the parts before another's wrote its
    stale ``records.parquet`` over theirs, losing their cases.
    """
    rounds, per_round, n_procs = 4, 4, 3
    for rep in range(2):
        folder = tmp_path / f"rep{rep}"
        prefixes = ["w"] * n_procs if same_ids else [f"w{i}" for i in range(n_procs)]
        procs = [_start(["-c", _WRITER, str(folder), p, str(rounds), str(per_round)]) for p in prefixes]
        results = _finish(procs)
        failed = [err.strip().splitlines()[-1] for rc, err in results if rc != 0]
        assert not failed, f"repetition {rep}: {len(failed)} writers crashed: {failed}"
        expected = {f"{p}-{r}-{j}" for p in set(prefixes) for r in range(rounds) for j in range(per_round)}
        stored = pd.read_parquet(folder / "records.parquet")
        assert not list((folder / "parts").glob("part-*.parquet")), "parts left after every writer consolidated"
        assert stored["case_id"].is_unique, f"repetition {rep}: duplicated case ids in records.parquet"
        missing = expected - set(stored["case_id"])
        assert not missing, f"repetition {rep}: {len(missing)} of {len(expected)} cases lost, e.g. {sorted(missing)[:3]}"
        assert set(stored["case_id"]) == expected
        assert not list(folder.rglob("*.tmp")), "temporary files left behind"


# --- whole sweeps in real processes -----------------------------------------------------------------

_SWEEP = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[3])
    from _sweeps import DATASET, ORACLE, SMALL
    from ccexp.runner.sweep import RunnerOptions, run_sweep, sweep_spec

    experiment = dict(SMALL, **json.loads(sys.argv[2]))
    res = run_sweep(sweep_spec(experiment, DATASET, ORACLE), sys.argv[1], RunnerOptions(n_jobs=1, progress=False))
    print(json.dumps({"n_run": res.n_run, "n_cases": res.n_cases}))
    """
)

# two grids sharing the k=4 cases: their union is what the folder must hold
GRID_A = {"sweep": {"dataset": {"k": [2, 4]}, "oracle": {"fraction": [0.05], "noise": [0.0, 0.2]}}}
GRID_B = {"sweep": {"dataset": {"k": [4, 6]}, "oracle": {"fraction": [0.05], "noise": [0.0, 0.2]}}}


def _ids(grid: dict) -> set[str]:
    return {c.case_id for c in expand(dict(SMALL, **grid), DATASET, ORACLE)}


@pytest.mark.slow
@pytest.mark.parametrize("grids", [(GRID_A, GRID_A), (GRID_A, GRID_B)], ids=["same-grid", "different-grids"])
def test_two_sweeps_into_one_folder_store_every_case_once(tmp_path, grids):
    """Two ``run_sweep`` processes started together, twice: both exit 0, the folder holds the union once."""
    expected = set().union(*(_ids(g) for g in grids))
    for rep in range(2):
        folder = tmp_path / f"rep{rep}"
        procs = [_start(["-c", _SWEEP, str(folder), json.dumps(g), str(HERE)]) for g in grids]
        results = _finish(procs)
        for rc, err in results:
            assert rc == 0, f"repetition {rep}: a sweep crashed:\n{err[-2000:]}"
        stored = pd.read_parquet(folder / "small" / "test" / "records.parquet")
        assert stored["case_id"].is_unique
        assert set(stored["case_id"]) == expected
        assert (stored["status"] == "ok").all()
