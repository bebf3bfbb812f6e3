"""Peak memory of AGGLOMERATIVE at its size cap (issue 31: <= 1 GB per process).

    python scripts/bench/bench_agglomerative_memory.py [--n 12000] [--m 10] [--repeats 2]
                                                       [--before /path/to/other/checkout]

Each measurement is a fresh interpreter that imports ccexp, builds the
input (``--m`` noisy copies of a 5-cluster labelling of ``--n`` items, 5 %
of the labels missing; not counted separately: it is a few MB), runs
``Agglomerative().fit`` once and prints its ``VmHWM`` (the kernel's exact
peak resident set size of the process) beside its RSS after the imports and
a digest of the labels.  ``--before DIR`` runs the same child with
``PYTHONPATH=DIR`` (e.g. an unpacked ``git archive`` of the commit before
the change), alternating with this checkout, and checks that both give the
same labels.  Target: the peak of this checkout <= 1 GB (10^9 bytes).
Writes ``results/bench/bench_agglomerative_memory.json``; exits 1 if the
target is missed or the labels differ.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import markdown_table, write_results  # noqa: E402

TARGET_BYTES = 10**9
ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import hashlib, json, sys, time
import numpy as np

def status_kb(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])

import ccexp
from ccexp.algorithms.aggregation.agglomerative import Agglomerative
n, m = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(0)
truth = rng.integers(0, 5, n)
C = np.repeat(truth[None, :], m, axis=0)
noise = rng.random((m, n)) < 0.2
C[noise] = rng.integers(0, 5, int(noise.sum()))
C[rng.random((m, n)) < 0.05] = -1
Agglomerative().fit(C[:, :50])  # compile / load the numba cache before the baseline reading
rss_import = status_kb("VmRSS")
t0 = time.perf_counter()
labels = Agglomerative().fit(C).labels_
sec = time.perf_counter() - t0
print(json.dumps({"module": ccexp.__file__, "rss_import_kb": rss_import, "vmhwm_kb": status_kb("VmHWM"),
                  "seconds": sec, "n_clusters": int(labels.max()) + 1,
                  "labels_sha1": hashlib.sha1(np.ascontiguousarray(labels, dtype=np.int64).tobytes()).hexdigest()}))
"""


def run_child(n: int, m: int, pythonpath: str | None) -> dict:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(n), str(m)], capture_output=True, text=True,
                          env=env, cwd="/", timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"child failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=12000)
    ap.add_argument("--m", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--before", default=None, help="another checkout to run alternately (PYTHONPATH)")
    ap.add_argument("--out", default=str(ROOT / "results" / "bench"))
    args = ap.parse_args()

    sides = [("this checkout", str(ROOT))] + ([("before", args.before)] if args.before else [])
    rows = []
    for r in range(args.repeats):
        for name, path in (sides if r % 2 == 0 else sides[::-1]):
            out = run_child(args.n, args.m, path)
            rows.append({"side": name, "repeat": r, "peak_GB": out["vmhwm_kb"] * 1024 / 1e9,
                         "after_imports_GB": out["rss_import_kb"] * 1024 / 1e9, "seconds": round(out["seconds"], 1),
                         "n_clusters": out["n_clusters"], "labels_sha1": out["labels_sha1"][:12],
                         "module": out["module"]})
    for row in rows:
        row["peak_GB"] = round(row["peak_GB"], 3)
        row["after_imports_GB"] = round(row["after_imports_GB"], 3)
    print(f"AGGLOMERATIVE, n = {args.n}, m = {args.m} (fresh process each; VmHWM)\n")
    print(markdown_table(rows, ["side", "repeat", "peak_GB", "after_imports_GB", "seconds", "n_clusters",
                                "labels_sha1"]))
    ours = [r["peak_GB"] for r in rows if r["side"] == "this checkout"]
    ok = max(ours) * 1e9 <= TARGET_BYTES
    same = len({r["labels_sha1"] for r in rows}) == 1
    print(f"\npeak of this checkout {max(ours):.3f} GB, target <= {TARGET_BYTES / 1e9:.0f} GB: "
          f"{'pass' if ok else 'FAIL'}; labels identical across sides and repeats: {same}")
    write_results("bench_agglomerative_memory", {"peak_memory": rows},
                  {"n": args.n, "m": args.m, "pass": ok, "labels_identical": same}, Path(args.out))
    return 0 if ok and same else 1


if __name__ == "__main__":
    sys.exit(main())
