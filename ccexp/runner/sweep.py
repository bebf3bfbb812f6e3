"""Run an experiment: expand the grid, skip finished cases, run the rest in parallel."""

from __future__ import annotations

import json
import logging
import subprocess
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from .execute import run_instance, warm_up
from .grid import Case, expand
from .seeding import stable_hash
from .store import ResultStore

log = logging.getLogger("ccexp")


def code_version() -> str:
    """The git commit of the code (``+dirty`` if modified), or the package version."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5
        ).stdout.strip()
        if commit:
            dirty = subprocess.run(
                ["git", "status", "--porcelain", "--untracked-files=no"], cwd=here, capture_output=True, text=True, timeout=5
            ).stdout.strip()
            return commit + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    from .. import __version__

    return __version__


@dataclass
class SweepResult:
    records: pd.DataFrame  # the records of this grid's cases
    directory: Path
    n_cases: int
    n_run: int
    seconds: float


def run_sweep(
    experiment: dict,
    dataset: dict,
    oracle: dict,
    results_dir: str | Path,
    n_jobs: int = -1,
    backend: str = "loky",
    progress: bool = True,
    max_tasks: int | None = None,
) -> SweepResult:
    """Run every case of ``experiment`` not already in ``results_dir/<name>``.

    Parameters
    ----------
    experiment : dict
        A scaled experiment config (see :func:`ccexp.runner.grid.apply_scale`).
    dataset, oracle : dict
        Base configs the sweep overrides.
    results_dir : path
        Parent folder; records go to ``results_dir/<name>/records.parquet``.
    n_jobs, backend : joblib settings.
    max_tasks : int, optional
        Stop after this many instances (for tests of resumption).
    """
    t_start = time.perf_counter()
    name = experiment["name"]
    out_dir = Path(results_dir) / name
    store = ResultStore(out_dir)
    cases = expand(experiment, dataset, oracle)
    case_ids = [c.case_id for c in cases]
    if len(set(case_ids)) != len(case_ids):
        raise ValueError(f"experiment {name!r} expands to duplicate cases; check its sweep")
    done = store.done_ids()
    pending: dict[str, list[Case]] = defaultdict(list)
    for c in cases:
        if c.case_id not in done:
            pending[c.instance.instance_id].append(c)
    tasks = list(pending.values())
    if max_tasks is not None:
        tasks = tasks[:max_tasks]
    context = {
        "paper": experiment.get("paper"),
        "scale": experiment.get("scale"),
        "code_version": code_version(),
        "config_hash": stable_hash(experiment),
        # active learning: the runner's convergence rule and the per-step metrics
        "early_stop": experiment.get("early_stop"),
        "trace_metrics": experiment.get("trace_metrics"),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "run.json").write_text(
        json.dumps({"experiment": name, "scale": experiment.get("scale"), **context, "n_cases": len(cases)}, indent=2)
    )
    n_pending = sum(len(t) for t in tasks)
    log.info("%s: %d cases, %d done, %d to run", name, len(cases), len(cases) - n_pending if max_tasks is None else len(done & set(case_ids)), n_pending)
    if tasks:
        # Compile the kernels in this process first: numba caches them on
        # disk, so workers load instead of compiling side by side.
        warm_up(experiment["algorithms"])
        bar = tqdm(total=n_pending, desc=name, unit="case", disable=not progress, smoothing=0.05)
        parallel = Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered", batch_size=1)
        try:
            for records in parallel(delayed(run_instance)(t, context) for t in tasks):
                store.append(records)
                bar.update(len(records))
                errors = [r for r in records if r.get("status") == "error"]
                for r in errors:
                    log.warning("case %s (%s) failed: %s", r["case_id"], r["algorithm"], r["error"].splitlines()[0])
        finally:
            bar.close()
    df = store.consolidate()
    if len(df):
        df = df[df["case_id"].isin(set(case_ids))].reset_index(drop=True)
    return SweepResult(df, out_dir, len(cases), n_pending, time.perf_counter() - t_start)
