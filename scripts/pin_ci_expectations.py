"""Gate every reference row a ``scale=ci`` run decides, pinning the ones that do not pass.

``python scripts/pin_ci_expectations.py --results DIR [--write]`` reads the reports
of a ``scale=ci`` run in DIR (``python -m ccexp.report all --results DIR`` first) and,
for every paper's ``experiments/<paper>/reference.csv``:

- ``ci=yes`` on every row the run decides (status other than not run), except
  timings (a check text saying "never gated in CI"): a machine's speed is not the code's;
- ``ci`` cleared on a row the run cannot decide (its setting is not in the ci grid);
- ``expect`` = the row's status when it is ``differs`` or ``indistinguishable``
  (an empty pin accepts reproduced or within tolerance), so a change that fixes
  or breaks the row fails ``--check`` until the pin is updated.

Without ``--write`` it prints what it would change.  Pins are a decision: commit
them with the reason (which run, which code version).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from ccexp.report import PAPER_OF, REPORTS
from ccexp.report.common import DIFFERS, INDISTINGUISHABLE, NOT_RUN, experiments_dir, load_reference
from ccexp.report.reproduction import collect

PIN_OF = {DIFFERS: "differs", INDISTINGUISHABLE: "indistinguishable"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", required=True, help="folder of a scale=ci run, reported")
    p.add_argument("--write", action="store_true", help="write the reference.csv files (default: only print)")
    args = p.parse_args(argv)
    status = {}
    for name in sorted(REPORTS):
        e = collect(name, Path(args.results))
        if e.scale != "ci":
            raise SystemExit(f"{name}: records at scale={e.scale!r}, not ci: run it at scale=ci first")
        status.update(dict(zip(e.rows["ref_id"], e.rows["status"])))
    for paper in sorted(set(PAPER_OF.values())):
        path = experiments_dir() / paper / "reference.csv"
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)
        ids = load_reference(paper)["ref_id"].tolist()
        changes = 0
        for i, rid in enumerate(ids):
            st = status.get(rid, NOT_RUN)
            timing = "never gated in ci" in raw.at[i, "check"].lower()
            ci = "yes" if st != NOT_RUN and not timing else ""
            expect = PIN_OF.get(st, "") if ci else ""
            if (raw.at[i, "ci"], raw.at[i, "expect"]) != (ci, expect):
                changes += 1
                print(f"{paper}: {rid}: ci {raw.at[i, 'ci'] or '-'} -> {ci or '-'}, expect {raw.at[i, 'expect'] or '-'} -> {expect or '-'} ({st})")
                raw.at[i, "ci"], raw.at[i, "expect"] = ci, expect
        if args.write and changes:
            raw.to_csv(path, index=False)
        print(f"{paper}: {changes} rows changed" + ("" if args.write else " (not written)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
