"""Append the verdicts of a fresh batch's report to a paper's ``fresh_claims.csv`` (the cause ``chance``).

A claim, a count or a percentage has no per-run values to draw again
(``fresh_seeds.csv`` holds those of the means over trials).  Such a row is
judged on the report of one fresh batch of the *whole* experiment: the paper
grid, the committed number of trials, numbered from
:data:`ccexp.report.chance.FRESH_OFFSET`, nothing else changed::

    python -m ccexp +experiment=NAME +experiment.first_trial=1000 tracking=off
    python -m ccexp.report NAME --results results --scale paper+custom-XXXX   # if the run wrote no report
    python scripts/fresh_claims_ledger.py --experiment NAME --paper PAPER --results results/NAME/paper+custom-XXXX

Before anything is written the folder's ``run.json`` must show the committed
paper run's grid, algorithms, trials and number of cases (``--committed``,
default ``results/NAME/paper/run.json``), one clean commit, no errors, and
records numbered ``1000 ...``; then every row of the folder's
``comparison.csv`` that was run, reads runs (names an algorithm, or is a claim
about all of them; a dataset's size or the class labels' cost is no draw:
:func:`ccexp.report.chance.drawn`) and is not a plain mean over trials
becomes one ledger line, as the report judged it, whether it differs or not
(the rows that agree, judged again, measure the rule's false alarms).  A row
already in the ledger is refused (one batch per row) unless
``--new-rows-only``, which keeps it and adds the others.

``--table`` prints instead the READMEs' table of the experiment's rows that
have a verdict in the ledger: committed beside fresh, and how many rows keep
or change their verdict::

    python scripts/fresh_claims_ledger.py --experiment NAME --paper PAPER --table
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import pandas as pd

from ccexp.report.chance import (FRESH_CLAIM_COLUMNS, FRESH_OFFSET, drawn, fresh_row, load_fresh_claims,
                                 not_a_plain_mean)
from ccexp.report.joined import _readme, collect
from ccexp.report.reference import experiments_dir, load_reference
from ccexp.report.tolerance import NOT_RUN

#: What the fresh run must share with the committed paper run (``run.json``); its ``grid`` too, but for the trials'
#: numbers (:func:`_cases`).
SAME = ("experiment", "scale", "variant", "trials", "algorithms", "n_cases", "targets")


def _cases(grid: dict, offset: int) -> dict:
    """A run.json ``grid`` without what a trial's number decides: its instances' ids and seeds, its cases' ids.

    An instance is ``[id, dataset, oracle, setting, trial, seed]``, a case ``[id, instance, algorithm, params]``
    (indices into the grid's tables); the trials are renumbered from ``offset``.
    """
    return {**{k: v for k, v in grid.items() if k not in ("instances", "cases")},
            "instances": [(d, o, s, t - offset) for _, d, o, s, t, _ in grid.get("instances", [])],
            "cases": [tuple(c[1:]) for c in grid.get("cases", [])]}


def fresh_run_problems(folder: Path, committed: Path) -> list[str]:
    """Why the run in ``folder`` is not one fresh batch of the committed run ``committed`` (``run.json``)."""
    run = json.loads((folder / "run.json").read_text())
    base = json.loads(committed.read_text())
    problems = [f"run.json's {k} is {run.get(k)!r}, the committed run's {base.get(k)!r}"
                for k in SAME if run.get(k) != base.get(k)]
    if _cases(run.get("grid") or {}, FRESH_OFFSET) != _cases(base.get("grid") or {}, 0):
        problems.append("run.json's grid (datasets, oracles, settings, parameters, instances, cases) is not the "
                        f"committed run's with its trials numbered from {FRESH_OFFSET}")
    if run.get("status") != "finished" or run.get("n_errors", 0):
        problems.append(f"the run is {run.get('status')!r} with {run.get('n_errors')} errors: a finished run is needed")
    git = run.get("git") or {}
    if git.get("dirty") or len(run.get("code_versions") or {}) != 1:
        problems.append(f"the runs come from code {sorted(run.get('code_versions') or {})} (dirty: {git.get('dirty')}): "
                        "one clean commit is needed")
    trials = sorted(pd.read_parquet(folder / "records.parquet", columns=["trial"])["trial"].astype(int).unique())
    want = list(range(FRESH_OFFSET, FRESH_OFFSET + int(base.get("trials") or 0)))
    if trials != want:
        problems.append(f"the records hold trials {trials[:3]}...{trials[-3:]}, not {FRESH_OFFSET}-{want[-1] if want else '?'}")
    return problems


def ledger_lines(folder: Path, ref: pd.DataFrame) -> list[dict]:
    """One line per row of ``folder``'s ``comparison.csv`` that ``ref`` holds, is run, reads runs
    (:func:`~ccexp.report.chance.drawn`) and is not a plain mean."""
    run = json.loads((folder / "run.json").read_text())
    cmp = pd.read_csv(folder / "comparison.csv")
    cmp = cmp[cmp["ref_id"].isin(set(ref["ref_id"]))]
    refs = {r["ref_id"]: r for r in ref.to_dict("records")}
    out = []
    for r in cmp.to_dict("records"):
        if r["status"] == NOT_RUN or not not_a_plain_mean(r) or not drawn(refs[r["ref_id"]]):
            continue  # not run, a plain mean (fresh_seeds.csv), or no procedure (a dataset's size): nothing drawn
        n = r.get("n_trials")
        out.append({"ref_id": r["ref_id"], "ours": repr(float(r["ours"])),
                    "ours_sem": "" if pd.isna(r.get("ours_sem")) else repr(float(r["ours_sem"])),
                    "n_trials": "" if pd.isna(n) else str(int(n)), "tolerance": repr(float(r["tolerance"])),
                    "status": r["status"], "first_trial": str(FRESH_OFFSET), "results": run["label"],
                    "code_version": next(iter(run["code_versions"]))})
    return out


def table(experiment: str, results: str = "results") -> list[str]:
    """The markdown lines of the README table (header first), then one line of counts."""
    e = collect(experiment, Path(results), "paper")
    claims = load_fresh_claims(_readme(e.paper).parent / "fresh_claims.csv")
    lines = ["| row | paper | committed | status | cause | fresh | **fresh status** |", "|:--|--:|--:|:--|:--|--:|:--|"]
    counts: dict[tuple[bool, bool], int] = {}
    for r in e.rows.to_dict("records"):
        if r["ref_id"] not in claims:
            continue
        judged, why = fresh_row(r, None, claims[r["ref_id"]])
        fresh = f"{judged['ours']:.4g} | **{judged['status']}**" if judged else f"({why}) |"
        lines.append(f"| {r['ref_id']} | {r['paper']:g} | {r['ours']:.4g} | {r['status']} | {r['cause'] or ''} | {fresh} |")
        if judged:
            key = (r["status"] == "differs", judged["status"] == "differs")
            counts[key] = counts.get(key, 0) + 1
    names = {(False, False): "agree in both", (False, True): "agree, fresh differs", (True, False): "differ, fresh "
             "agrees", (True, True): "differ in both"}
    lines += ["", "Counts: " + ", ".join(f"{names[k]} {counts.get(k, 0)}" for k in names) + "."]
    return lines


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experiment", required=True)
    ap.add_argument("--paper", required=True)
    ap.add_argument("--results", type=Path, help="the fresh run's results folder (required but with --table)")
    ap.add_argument("--committed", type=Path, help="the committed paper run's run.json "
                    "(default results/EXPERIMENT/paper/run.json)")
    ap.add_argument("--variant", default="", help="the rows' variant ('' for the experiment's default)")
    ap.add_argument("--new-rows-only", action="store_true", help="keep the rows that have a batch, add the others")
    ap.add_argument("--table", action="store_true", help="print the README table of the ledger's rows and stop")
    a = ap.parse_args(argv)
    if a.table:
        print("\n".join(table(a.experiment)))
        return
    if a.results is None:
        ap.error("--results is required (the fresh run's folder)")
    committed = a.committed or Path("results") / a.experiment / "paper" / "run.json"
    problems = fresh_run_problems(a.results, committed)
    if problems:
        raise SystemExit(f"{a.results}: not one fresh batch of {committed}: " + "; ".join(problems))
    ref = load_reference(a.paper, a.experiment)
    lines = ledger_lines(a.results, ref[ref["variant"].fillna("") == a.variant])
    path = Path(experiments_dir()) / a.paper / "fresh_claims.csv"
    have = load_fresh_claims(path)
    again = [r["ref_id"] for r in lines if r["ref_id"] in have]
    if again and not a.new_rows_only:
        raise SystemExit(f"{path}: {len(again)} rows already have a fresh batch (one per row), e.g. {again[0]}; "
                         "--new-rows-only adds only the others")
    lines = [r for r in lines if r["ref_id"] not in have]
    new_file = not path.is_file()
    with path.open("a", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=FRESH_CLAIM_COLUMNS, lineterminator="\n")
        if new_file:
            w.writeheader()
        w.writerows(lines)
    n_diff = sum(r["status"] == "differs" for r in lines)
    print(f"{path}: {len(lines)} rows added ({n_diff} differ on the fresh batch), {len(again)} kept")
    load_fresh_claims(path)  # what was written reads back under the ledger's rules


if __name__ == "__main__":
    main()
