"""A tiny timing harness for ``scripts/bench/``: medians after warm-up, markdown and JSON out.

Timing lives here and never in the tests.  ``measure`` runs ``fn`` a few
times untimed (JIT compilation, caches, first-touch allocation), then times
``repeats`` calls with :func:`time.perf_counter`.  ``write_results`` prints a
markdown table and writes the rows, with the machine and code version, to
``results/bench/<name>.json`` (``results/`` is gitignored).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results" / "bench"


def measure(fn: Callable[[], object], repeats: int = 7, warmup: int = 1, clock=time.perf_counter) -> dict:
    """Time ``fn()``: ``warmup`` untimed calls, then ``repeats`` timed ones.

    Returns ``{"median", "min", "max", "runs", "values"}``: seconds, the list
    of timed seconds, and what ``fn`` returned on each timed call (so a
    caller can read per-run details such as an estimator's ``timings_``).
    ``clock``: wall time by default; ``time.process_time`` for CPU time.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    for _ in range(warmup):
        fn()
    runs, values = [], []
    for _ in range(repeats):
        t0 = clock()
        value = fn()
        runs.append(clock() - t0)
        values.append(value)
    return {"median": statistics.median(runs), "min": min(runs), "max": max(runs), "runs": runs, "values": values}


def fmt_seconds(s: float | None) -> str:
    if s is None or s != s:  # None or NaN
        return "—"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def verdict(seconds: float | None, target: float | None) -> str:
    if target is None or seconds is None:
        return "—"
    return "✅ pass" if seconds <= target else "❌ FAIL"


def markdown_table(rows: Sequence[dict], columns: Sequence[str]) -> str:
    """Rows (dicts) as a GitHub markdown table over ``columns``; missing cells are blank."""
    def cell(v):
        if isinstance(v, float):
            return f"{v:.4g}"
        return "" if v is None else str(v)

    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def machine() -> dict:
    """Where and on what code the numbers were taken."""
    info = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numba_num_threads": os.environ.get("NUMBA_NUM_THREADS"),
    }
    try:
        import numba
        import numpy

        info["numba"] = numba.__version__
        info["numpy"] = numpy.__version__
    except ImportError:
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=5
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True, timeout=5
        ).stdout.strip()
        info["code_version"] = commit + ("+dirty" if dirty else "") if commit else None
    except (OSError, subprocess.SubprocessError):
        info["code_version"] = None
    return info


def write_results(name: str, tables: dict[str, list[dict]], extra: dict | None = None, out_dir: Path | None = None) -> Path:
    """Write ``{"name", "machine", "taken_at", "tables": {...}, **extra}`` to ``<out_dir>/<name>.json``."""
    out_dir = Path(out_dir) if out_dir is not None else RESULTS
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.json"
    payload = {
        "name": name,
        "machine": machine(),
        "taken_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "tables": tables,
        **(extra or {}),
    }
    path.write_text(json.dumps(payload, indent=2, default=_jsonable))
    return path


def _jsonable(v):
    try:
        import numpy as np

        if isinstance(v, np.generic):
            return v.item()
        if isinstance(v, np.ndarray):
            return v.tolist()
    except ImportError:
        pass
    if isinstance(v, Path):
        return str(v)
    raise TypeError(f"cannot write {type(v).__name__} to JSON")
