"""Issue 31's three kernel targets, measured side by side in one run and reported as ratios.

    python scripts/bench/bench_issue31_targets.py [--repeats 5] [--peers-python /tmp/peers-venv/bin/python]
                                                  [--skip-memory] [--out DIR]

One process runs, one after the other on the same machine state:

1. Ls-AD-VC: one local-search pass over the 669,920 triplets of n = 160, k = 8, a = 1, b = 0.2
   against one sequential read of the same triplets (``bench_triplets.bench_pass_vs_bandwidth``,
   alternated call by call; CPU time).  Ratio pass / read; target <= 10.
2. t-STE: cblearn 0.4's TSTE against ours on the same triplets (a = 0.1 and 1), the same start and,
   as both run scipy's L-BFGS-B on the same cost, the same iterations (``bench_tste.bench_tste``,
   alternated call by call, one BLAS thread each; CPU time).  Ratio cblearn / ours; target >= 100.
   Beside it the ratio a bit-identical fit could reach at most (``bench_tste.bench_floor``: the libm
   calls every evaluation must make and L-BFGS-B's own time; a speed-up may not change a result).
3. AGGLOMERATIVE at its 12,000-item cap: the peak RSS (``VmHWM``) of a fresh interpreter that fits it
   (``bench_agglomerative_memory.run_child``).  Ratio peak / 1 GB; target <= 1.

Prints one table (target, measured ratio, met) and writes ``results/bench/bench_issue31_targets.json``
with every underlying row.  Exits 0 whatever the verdicts: a target missed is a finding, printed as such.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import markdown_table, write_results  # noqa: E402
import bench_agglomerative_memory as bam  # noqa: E402
import bench_triplets as btr  # noqa: E402
import bench_tste as bts  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--peers-python", default=bts.DEFAULT_PEERS_PYTHON)
    ap.add_argument("--skip-memory", action="store_true", help="leave out AGGLOMERATIVE's 12,000-item fit (1 GB)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()

    pass_rows = btr.bench_pass_vs_bandwidth(args.repeats)
    cpu_pass = next(r for r in pass_rows if r["clock"] == "cpu")
    tste_rows = bts.bench_tste(args.repeats, args.peers_python, 8, 0.2, 1, (0.1, 1.0))
    floor_rows = bts.bench_floor(tste_rows, args.repeats, 8, 0.2)
    memory = None if args.skip_memory else bam.run_child(12000, 10, None)

    table = [{"target": "Ls-AD-VC pass / sequential read of the triplets (CPU)", "goal": "<= 10",
              "ratio": f"{cpu_pass['ratio']:.1f}", "met": "yes" if cpu_pass["ratio"] <= 10 else "no",
              "measured": f"pass {cpu_pass['pass_s'] * 1e3:.2f} ms, read {cpu_pass['read_s'] * 1e3:.2f} ms"}]
    for row, floor in zip(tste_rows, floor_rows):
        ratio = row["cpu_speedup"]
        table.append({
            "target": f"t-STE, a = {row['a']} ({row['n_triplets']:,} triplets): cblearn / ours (CPU)", "goal": ">= 100",
            "ratio": "not run (no cblearn)" if ratio is None else f"{ratio:.1f}",
            "met": "—" if ratio is None else ("yes" if ratio >= 100 else "no"),
            "measured": (f"ours {row['cpu_s'] * 1e3:.1f} ms, cblearn "
                         + ("—" if row["cblearn_cpu_s"] is None else f"{row['cblearn_cpu_s']:.2f} s")
                         + f"; bit-identical floor {floor['floor_s'] * 1e3:.1f} ms"
                         + ("" if floor["ratio_at_floor"] is None else f", at most {floor['ratio_at_floor']:.0f}x")),
        })
    if memory is not None:
        ratio = memory["vmhwm_kb"] * 1024 / bam.TARGET_BYTES
        table.append({"target": "AGGLOMERATIVE peak RSS at n = 12,000 / 1 GB", "goal": "<= 1", "ratio": f"{ratio:.3f}",
                      "met": "yes" if ratio <= 1 else "no",
                      "measured": f"VmHWM {memory['vmhwm_kb'] * 1024 / 1e9:.3f} GB (after the imports "
                                  f"{memory['rss_import_kb'] * 1024 / 1e9:.3f} GB), "
                                  f"{memory['seconds']:.1f} s"})
    print(f"## Issue 31's kernel targets, one run ({time.perf_counter() - t0:.0f} s)\n")
    print(markdown_table(table, ["target", "goal", "ratio", "met", "measured"]))
    path = write_results("bench_issue31_targets", {"summary": table, "pass": pass_rows, "tste": tste_rows,
                                                   "tste_floor": floor_rows, "agglomerative": [memory] if memory else []},
                         extra={"repeats": args.repeats}, out_dir=args.out)
    print(f"\nwritten: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
