"""``python -m ccexp.track NAME [--scale LABEL] [--results DIR] [--uri URI]``: log stored records to MLflow.

A sweep logs to MLflow once its records are stored.  When that fails (the
tracking server or its database was down: the sweep says so in one line
and keeps its records), this command logs the stored records afterwards,
without rerunning a case: the parent run and a child run per algorithm x
setting, with the learning curves of active-learning runs, exactly as the
sweep would have (:func:`ccexp.runner.tracking.log_sweep`).  It is
idempotent: records already logged (the parent run carrying their
``ccexp.sweep_key`` is finished) are not logged again, and a logging that
stopped half way is completed, not duplicated.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from .runner.layout import experiment_dir, latest_label, split_label
from .runner.provenance import read_run_info
from .runner.spec import read_spec
from .runner.store import ResultStore
from .runner.tracking import log_sweep, sweep_params, tracking_uri
from .runner.tracking_check import check_tracking


def main(argv: list[str] | None = None) -> int:
    """Command-line entry; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m ccexp.track", description=__doc__.splitlines()[0])
    parser.add_argument("name", help="the experiment (its folder under --results)")
    parser.add_argument("--scale", default=None, help="the results folder's label: paper | quick | ci | "
                                                      "<scale>+custom-<hash> (default: the last run's)")
    parser.add_argument("--results", default="results", help="results folder (default: results)")
    parser.add_argument("--uri", default=None, help="tracking URI, e.g. http://127.0.0.1:5000 (default: the "
                                                    "embedded store <results>/mlflow.db)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    results = Path(args.results)
    label = args.scale or latest_label(results, args.name)
    out = experiment_dir(results, args.name, label) if label else None
    store = ResultStore(out) if out is not None else None
    if store is None or not store.has_records():
        print(f"ccexp.track: no records of {args.name} under {results}/{args.name}/{label or '<scale>'}/",
              file=sys.stderr)
        return 1
    records = store.load()
    scale, _, custom = split_label(label)
    info = read_run_info(out / "run.json") or {}
    spec = read_spec(info)  # the grid that ran (issue 30, item 2); None for a run.json from before it
    if custom is None and spec is not None:  # the grid's records, as the sweep logs them
        records = records[records["case_id"].isin(set(spec.case_ids))].reset_index(drop=True)
    configured = ((info.get("config") or {}).get("experiment") or {})  # a run.json of schema 1
    experiment = {"name": args.name, "paper": info.get("paper") or configured.get("paper"),
                  "scale": info.get("scale") or scale,
                  "algorithms": list((spec.algorithms if spec is not None else configured.get("algorithms"))
                                     or sorted(records["algorithm"].unique())),
                  "trials": spec.trials if spec is not None else configured.get("trials")}
    versions = sorted(records["code_version"].dropna().astype(str).unique()) if "code_version" in records else []
    code_version = versions[0] if len(versions) == 1 else info.get("code_version")
    uri = tracking_uri("server" if args.uri else "local", args.uri, results)
    check_tracking(uri)
    report_dir = out if (out / "comparison.md").is_file() else None
    pid = log_sweep(uri, args.name, records, sweep_params(experiment, label, len(records), code_version), report_dir,
                    results, resume=True)
    print(f"{args.name}: the {len(records)} records of {out} are logged at {uri} as run {pid}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
