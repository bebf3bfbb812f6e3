"""Print the READMEs' table of a fresh batch: every row of an experiment with fresh runs, committed beside fresh.

For each reference row of ``--experiment`` that has runs in its paper's ``fresh_seeds.csv``: the paper's value,
the committed mean and status, the fresh batch's mean, SD, tolerance and status judged alone (what the cause
``chance`` reads, :func:`ccexp.report.chance.fresh_row`), and, for comparison only, the committed and fresh runs
pooled (:func:`ccexp.report.chance.pooled`), which the rule does not use.  ``--differing`` keeps the rows that
differ in the committed report.  Example::

    python scripts/fresh_seeds_table.py --experiment acc_random_init --differing
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from ccexp.report.chance import fresh_row, load_fresh_seeds, pooled
from ccexp.report.comparison import compare_row
from ccexp.report.joined import _readme, collect


def table(experiment: str, results: str = "results", differing: bool = False) -> list[str]:
    """The markdown lines of the table (header first)."""
    e = collect(experiment, Path(results), "paper")
    fresh = load_fresh_seeds(_readme(e.paper).parent / "fresh_seeds.csv")
    lines = ["| row | paper | committed | status | cause | fresh (SD) | fresh tolerance | **fresh alone** | pooled | "
             "pooled status |", "|:--|--:|--:|:--|:--|--:|--:|:--|--:|:--|"]
    for r in e.rows.to_dict("records"):
        runs = fresh.get(r["ref_id"])
        if not runs or (differing and r["status"] != "differs"):
            continue
        judged, why = fresh_row(r, runs)
        if judged is None:
            lines.append(f"| {r['ref_id']} | {r['paper']:g} | {r['ours']:.3f} | {r['status']} | {r['cause']} | ({why}) |"
                         " | | | |")
            continue
        x = np.array(list(runs.values()), dtype=float)
        m, sem, n = pooled(r["ours"], r["ours_sem"], int(r["n_trials"]), x)
        both = compare_row(r["quantity"], r["paper"], m, math.nan, ref_id=r["ref_id"], sem=sem, n_trials=n)
        lines.append(f"| {r['ref_id']} | {r['paper']:g} | {r['ours']:.3f} | {r['status']} | {r['cause']} | "
                     f"{judged['ours']:.3f} ({x.std(ddof=1):.3f}) | {judged['tolerance']:.4f} | **{judged['status']}** | "
                     f"{m:.3f} | {both['status']} |")
    return lines


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experiment", required=True)
    ap.add_argument("--results", default="results")
    ap.add_argument("--differing", action="store_true", help="only the rows that differ in the committed report")
    a = ap.parse_args(argv)
    print("\n".join(table(a.experiment, a.results, a.differing)))


if __name__ == "__main__":
    main()
