"""Wall time of the whole exp1 grid (Ukkonen 2017, Figure 2 / Table I) and where it goes.

    python scripts/bench/bench_exp1_grid.py [--scale paper] [--n-jobs 2] [--keep DIR]

Runs, once, in a fresh temporary results folder::

    python -m ccexp +experiment=exp1_triplets experiment.scale=SCALE tracking=off \\
        report=false runner.n_jobs=N paths.results=TMP

(4,620 cases at ``scale=paper``: 5 algorithms x 924) and reads the records
it wrote to split the time: generation (``oracle_seconds``, counted once per
instance), and per algorithm ``fit_seconds`` with its parts
``seconds.vertex_cover``, ``seconds.local_search`` and
``seconds.correlation_clustering``.  The sum of those is the work inside the
workers; wall time minus that work / n_jobs is start-up, JIT loading,
scheduling, scoring and the results store.  Target at ``scale=paper``: under 5 minutes.

Prints markdown tables and writes ``results/bench/bench_exp1_grid.json``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import fmt_seconds, markdown_table, verdict, write_results  # noqa: E402

EXPERIMENT = "exp1_triplets"
TARGET_SECONDS = {"paper": 300.0}
PARTS = ["seconds.vertex_cover", "seconds.local_search", "seconds.correlation_clustering"]


def run_grid(results: Path, scale: str, n_jobs: int, timeout: float) -> tuple[float, float | None, str]:
    """Run the sweep; return (process wall seconds, the sweep's own seconds from its log, log text)."""
    cmd = [
        sys.executable, "-m", "ccexp", f"+experiment={EXPERIMENT}", f"experiment.scale={scale}",
        "tracking=off", "report=false", f"runner.n_jobs={n_jobs}", "runner.progress=false",
        f"paths.results={results}",
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=results, env=env, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    log = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{log[-5000:]}")
    m = re.search(r"cases \(\d+ run now\) in ([0-9.]+) s", log)
    return wall, float(m.group(1)) if m else None, log


def split(records: pd.DataFrame) -> tuple[list[dict], dict]:
    """Per-algorithm sums of fit time and its parts, and the generation total."""
    instances = records.drop_duplicates("instance_id")
    generation = float(instances["oracle_seconds"].sum())
    rows = []
    for alg, g in records.groupby("algorithm", sort=False):
        row = {"algorithm": alg, "cases": len(g), "fit_s": float(g["fit_seconds"].sum())}
        for p in PARTS:
            row[p.split(".", 1)[1] + "_s"] = float(g[p].sum()) if p in g and g[p].notna().any() else None
        row["other_s"] = row["fit_s"] - sum(row[p.split(".", 1)[1] + "_s"] or 0.0 for p in PARTS)
        row["max_case_s"] = float(g["fit_seconds"].max())
        rows.append(row)
    totals = {
        "n_cases": len(records),
        "n_instances": len(instances),
        "generation_s": generation,
        "fit_s": float(records["fit_seconds"].sum()),
        "errors": int((records["status"] != "ok").sum()),
    }
    return rows, totals


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", default="paper", choices=["paper", "quick", "ci"])
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=1800, help="seconds before the run is abandoned")
    ap.add_argument("--keep", type=Path, default=None, help="write the records here instead of a temporary folder")
    ap.add_argument("--out", type=Path, default=None, help="folder for the JSON (default results/bench/)")
    args = ap.parse_args(argv)

    tmp = None
    if args.keep is not None:
        results = args.keep.resolve()
        if (results / EXPERIMENT).exists():
            raise SystemExit(f"{results / EXPERIMENT} exists: a rerun would skip its finished cases; choose an empty folder")
        results.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.mkdtemp(prefix="bench_exp1_")
        results = Path(tmp)
    try:
        wall, sweep_s, _ = run_grid(results, args.scale, args.n_jobs, args.timeout)
        records = pd.read_parquet(results / EXPERIMENT / "records.parquet")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    per_alg, totals = split(records)
    work = totals["generation_s"] + totals["fit_s"]
    target = TARGET_SECONDS.get(args.scale)
    overview = [
        {"what": "process wall time (python -m ccexp ...)", "seconds": fmt_seconds(wall), "target": "—" if target is None else f"< {fmt_seconds(target)}", "result": verdict(wall, target)},
        {"what": "sweep wall time (runner's own log: warm-up, workers, store)", "seconds": fmt_seconds(sweep_s)},
        {"what": f"generation: sum of oracle_seconds over {totals['n_instances']:,} instances", "seconds": fmt_seconds(totals["generation_s"])},
        {"what": f"fitting: sum of fit_seconds over {totals['n_cases']:,} cases", "seconds": fmt_seconds(totals["fit_s"])},
        {"what": f"work in workers (generation + fitting) / n_jobs={args.n_jobs}", "seconds": fmt_seconds(work / args.n_jobs)},
        {"what": "rest: start-up, imports, JIT cache loads, scheduling, scoring, parquet", "seconds": fmt_seconds(wall - work / args.n_jobs)},
    ]
    print(f"## exp1_triplets, scale={args.scale}, n_jobs={args.n_jobs}: {totals['n_cases']:,} cases, {totals['errors']} errors\n")
    print(markdown_table(overview, ["what", "seconds", "target", "result"]))
    print("\n## Fitting time per algorithm (sums over cases)\n")
    shown = [
        {
            "algorithm": r["algorithm"],
            "cases": r["cases"],
            "fit_seconds": fmt_seconds(r["fit_s"]),
            "vertex_cover": fmt_seconds(r["vertex_cover_s"]),
            "local_search": fmt_seconds(r["local_search_s"]),
            "correlation_clustering": fmt_seconds(r["correlation_clustering_s"]),
            "other": fmt_seconds(r["other_s"]),
            "slowest case": fmt_seconds(r["max_case_s"]),
            "share of fitting": f"{100 * r['fit_s'] / totals['fit_s']:.0f} %",
        }
        for r in per_alg
    ]
    print(markdown_table(shown, list(shown[0])))

    path = write_results(
        "bench_exp1_grid",
        {"overview": [{"wall_s": wall, "sweep_s": sweep_s, "target_s": target, "pass": None if target is None else wall < target, **totals}], "per_algorithm": per_alg},
        extra={"scale": args.scale, "n_jobs": args.n_jobs},
        out_dir=args.out,
    )
    print(f"\nJSON: {path}")
    return 0 if target is None or wall < target else 1


if __name__ == "__main__":
    raise SystemExit(main())
