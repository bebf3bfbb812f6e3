"""Peak memory of a sweep: the driver and every worker process, sampled from ``/proc``.

Runs, in a fresh temporary folder (or ``--results DIR``),

```
python -m ccexp +experiment=NAME experiment.scale=SCALE runner.n_jobs=N paths.results=DIR
```

(report and embedded MLflow on, as the plain command; ``--no-report`` and
``--tracking off`` leave them out)

and samples the resident set size (RSS) of that process and of all its
descendants (loky workers, resource tracker) every ``--interval`` seconds.
It reports, per process, the peak RSS seen and what the process was (driver,
worker, other), plus the kernel's own high-water marks: ``ru_maxrss`` of the
tree (``RUSAGE_CHILDREN``: the largest single process, as ``/usr/bin/time -v``
reports it) and, per live process, ``VmHWM`` from ``/proc/PID/status`` (exact peak, read
at the last sample before the process ended; sampling can miss a short
spike between two reads, ``VmHWM`` cannot).

Target: every process <= 1 GB (issue 12).  ``--cmd-python`` runs another
interpreter (e.g. a checkout of main to measure "before"); ``--cwd`` its
folder.  ``--extra`` appends overrides (``--extra experiment.trials=2``).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import markdown_table, write_results  # noqa: E402

TARGET_BYTES = 1 << 30  # 1 GiB in every process


def _children(pid: int) -> list[int]:
    """Direct children of ``pid`` (Linux ``/proc/PID/task/*/children``)."""
    out: list[int] = []
    task_dir = Path(f"/proc/{pid}/task")
    try:
        for task in task_dir.iterdir():
            try:
                out.extend(int(x) for x in (task / "children").read_text().split())
            except OSError:
                pass
    except OSError:
        pass
    return out


def _tree(pid: int) -> list[int]:
    seen, stack = [], [pid]
    while stack:
        p = stack.pop()
        seen.append(p)
        stack.extend(_children(p))
    return seen


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (bytes) of ``pid``; empty when it has ended."""
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) * 1024
    except OSError:
        pass
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _role(pid: int, root: int, cmd: str) -> str:
    if pid == root:
        return "driver"
    if "loky" in cmd and "resource_tracker" not in cmd and "semaphore_tracker" not in cmd:
        return "worker"
    if "distributed" in cmd or "dask" in cmd:
        return "dask worker"
    return "other"


def sample(cmd: list[str], cwd: str | None, env: dict, interval: float, log_path: Path) -> dict:
    """Run ``cmd`` and sample its process tree; return per-process peaks and the wall time."""
    t0 = time.perf_counter()
    with open(log_path, "w") as log_file:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log_file, stderr=subprocess.STDOUT)
        peaks: dict[int, dict] = {}
        while proc.poll() is None:
            for pid in _tree(proc.pid):
                st = _status(pid)
                if not st:
                    continue
                entry = peaks.setdefault(pid, {"pid": pid, "cmd": _cmdline(pid), "rss_peak": 0, "hwm": 0})
                entry["rss_peak"] = max(entry["rss_peak"], st.get("VmRSS", 0))
                entry["hwm"] = max(entry["hwm"], st.get("VmHWM", 0))
            time.sleep(interval)
        rc = proc.wait()
    wall = time.perf_counter() - t0
    # ru_maxrss over the children this script waited for, and theirs: the
    # largest single process of the tree (what /usr/bin/time -v reports), KiB on Linux
    tree_maxrss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    rows = [{**e, "role": _role(pid, proc.pid, e["cmd"])} for pid, e in peaks.items()]
    return {"returncode": rc, "wall_seconds": wall, "processes": rows, "tree_maxrss": tree_maxrss}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--experiment", default="exp1_triplets")
    ap.add_argument("--scale", default="ci", choices=["ci", "quick", "paper"])
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--tracking", default="local", choices=["local", "off"],
                    help="MLflow store (default local, as the plain command)")
    ap.add_argument("--no-report", dest="report", action="store_false",
                    help="skip the report (default: written, as the plain command; it held the 5.6 GB peak)")
    ap.add_argument("--interval", type=float, default=0.25, help="seconds between samples")
    ap.add_argument("--results", help="records folder (default: a fresh temporary folder)")
    ap.add_argument("--cmd-python", default=sys.executable, help="interpreter running ccexp")
    ap.add_argument("--cwd", default=None, help="working folder of the run")
    ap.add_argument("--extra", action="append", default=[], help="more overrides, repeatable")
    ap.add_argument("--label", default=None, help="name of the JSON written to results/bench/")
    ap.add_argument("--out", default=None, help="JSON folder (default results/bench)")
    args = ap.parse_args(argv)

    tmp = None
    results = args.results
    if results is None:
        tmp = tempfile.TemporaryDirectory(prefix="bench-memory-")
        results = tmp.name
    cmd = [args.cmd_python, "-m", "ccexp", f"+experiment={args.experiment}", f"experiment.scale={args.scale}",
           f"tracking={args.tracking}", f"report={str(args.report).lower()}", f"runner.n_jobs={args.n_jobs}",
           "runner.progress=false",
           f"paths.results={results}", *args.extra]
    env = dict(os.environ)
    env.setdefault("CCEXP_DATA_DIR", "/work/shared/datasets")
    log_path = Path(results) / "bench_memory.log"
    Path(results).mkdir(parents=True, exist_ok=True)
    print("running:", " ".join(cmd), flush=True)
    out = sample(cmd, args.cwd, env, args.interval, log_path)
    if out["returncode"] != 0:
        print(log_path.read_text()[-3000:], file=sys.stderr)
        print(f"the run failed (exit {out['returncode']})", file=sys.stderr)
        return 2
    rows = sorted(out["processes"], key=lambda r: (-r["hwm"], r["pid"]))
    table = []
    for r in rows:
        peak = max(r["hwm"], r["rss_peak"])
        table.append({"role": r["role"], "pid": r["pid"], "peak RSS (MB)": round(peak / 1e6, 1),
                      "sampled RSS peak (MB)": round(r["rss_peak"] / 1e6, 1),
                      "target": "<= 1024 MiB", "verdict": "✅ pass" if peak <= TARGET_BYTES else "❌ FAIL"})
    print(f"\n{args.experiment} at scale={args.scale}, n_jobs={args.n_jobs}: {out['wall_seconds']:.1f} s wall, "
          f"load average {os.getloadavg()[0]:.2f}; largest process of the tree by ru_maxrss "
          f"(as /usr/bin/time -v): {out['tree_maxrss'] / 1e6:.1f} MB\n")
    print(markdown_table(table, ["role", "pid", "peak RSS (MB)", "sampled RSS peak (MB)", "target", "verdict"]))
    name = args.label or f"bench_memory_{args.experiment}_{args.scale}"
    path = write_results(name, {"processes": table}, extra={"command": cmd, "wall_seconds": out["wall_seconds"],
                                                                 "tree_maxrss": out["tree_maxrss"]},
                         out_dir=Path(args.out) if args.out else None)
    print(f"\nwritten: {path}")
    if tmp is not None:
        tmp.cleanup()
    return 0 if all(r["verdict"].startswith("✅") for r in table) else 1


if __name__ == "__main__":
    sys.exit(main())
