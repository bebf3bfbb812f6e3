"""Append the runs of ``scripts/acc_fresh_seeds.py`` to a paper's ``fresh_seeds.csv`` (the cause ``chance``).

Each run's value at a budget (``ari_at_0.3E``, ...) goes to every reference row
of the experiment with that quantity, the run's strategy, dataset and gamma,
and the run's variant (the row's ``variant`` column): one ledger line
``ref_id, trial, value, code_version``.  Only a batch numbered from
:data:`ccexp.report.chance.FRESH_OFFSET` is taken (``offset`` column), and a
(ref_id, trial) already in the ledger is refused, so a row's one batch is
never redrawn or mixed.  Example::

    python scripts/fresh_seeds_ledger.py --experiment acc_random_init --variant authors \\
        --runs /tmp/fresh_random.csv --code-version f3faff3
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

import pandas as pd

from ccexp.report.chance import FRESH_COLUMNS, FRESH_OFFSET, load_fresh_seeds
from ccexp.report.reference import experiments_dir, load_reference


def ledger_rows(runs: pd.DataFrame, ref: pd.DataFrame, variant: str, code_version: str) -> list[dict]:
    """The ledger lines of ``runs`` (acc_fresh_seeds.py's CSV) for the rows of ``ref`` they measure."""
    out = []
    budgets = [c for c in runs.columns if c.startswith("ari_at_")]
    ref = ref[(ref["variant"] == variant) & ref["quantity"].isin(budgets)]
    for run in runs.to_dict("records"):
        if int(run["offset"]) != FRESH_OFFSET:
            raise ValueError(f"runs: trial {run['trial']} comes from offset {run['offset']}, not the fresh batch's "
                             f"{FRESH_OFFSET}")
        if str(run.get("overrides") or "").strip() not in ("", "nan"):
            raise ValueError(f"runs: trial {run['trial']} ran with overrides {run['overrides']!r}: not the setup the "
                             "rows judge")
        hit = ref[(ref["algorithm"] == run["algorithm"]) & (ref["dataset"] == run["dataset"])
                  & (ref["gamma"].astype(float).sub(float(run["gamma"])).abs() < 1e-9)]
        for r in hit.to_dict("records"):
            value = float(run[r["quantity"]])
            if math.isfinite(value):
                out.append({"ref_id": r["ref_id"], "trial": int(run["trial"]), "value": repr(value),
                            "code_version": code_version})
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experiment", required=True)
    ap.add_argument("--variant", default="authors", help="the runs' variant ('' for the experiment's default)")
    ap.add_argument("--paper", default="aronsson2024")
    ap.add_argument("--runs", required=True, nargs="+", help="CSVs written by scripts/acc_fresh_seeds.py")
    ap.add_argument("--code-version", required=True, help="the commit the runs were made with")
    a = ap.parse_args(argv)
    runs = pd.concat([pd.read_csv(p, dtype={"overrides": str}) for p in a.runs], ignore_index=True)
    runs = runs[runs["status"] == "ok"]
    rows = ledger_rows(runs, load_reference(a.paper, a.experiment), a.variant, a.code_version)
    path = Path(experiments_dir()) / a.paper / "fresh_seeds.csv"
    have = load_fresh_seeds(path)
    clash = [r for r in rows if r["trial"] in have.get(r["ref_id"], {})]
    if clash:
        raise SystemExit(f"{path}: {clash[0]['ref_id']} trial {clash[0]['trial']} is there already "
                         f"({len(clash)} runs in all): one batch per row")
    new = not path.is_file()
    with path.open("a", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=FRESH_COLUMNS)
        if new:
            w.writeheader()
        w.writerows(sorted(rows, key=lambda r: (r["ref_id"], r["trial"])))
    print(f"{path}: {len(rows)} runs of {len({r['ref_id'] for r in rows})} rows appended")


if __name__ == "__main__":
    main()
