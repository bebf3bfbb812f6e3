"""Append a fresh batch of runs to a paper's ``fresh_seeds.csv`` (the cause ``chance``).

Two sources.  ``--runs``: the CSV of ``scripts/acc_fresh_seeds.py`` (Aronsson & Chehreghani's stored-curve rows).
``--records``: the results folder of a fresh run of any experiment,
``python -m ccexp +experiment=NAME +experiment.first_trial=1000 ...`` (its ``records.parquet`` and the
``comparison.csv`` its report wrote); :data:`EXTRACTORS` say how a row's per-run values are read (exp1_triplets'
``n_clusters_mean``: each run's ``n_clusters``; Zhu's ``area_under_ari``: each trial's area over the constraint
counts; agg_categorical's and agg_census' k, EC and ED: each run's value, one item order), and each row's mean
and number of runs are checked against the folder's own ``comparison.csv`` (the report's reading of the same
records) before anything is written.

Each run's value at a budget (``ari_at_0.3E``, ...) goes to every reference row
of the experiment with that quantity, the run's strategy, dataset and gamma,
and the run's variant (the row's ``variant`` column): one ledger line
``ref_id, trial, value, code_version``.  Only a batch numbered from
:data:`ccexp.report.chance.FRESH_OFFSET` is taken (``offset`` column), and a
(ref_id, trial) already in the ledger is refused, so a row's one batch is
never redrawn or mixed.  Example::

    python scripts/fresh_seeds_ledger.py --experiment acc_random_init --variant authors \\
        --runs /tmp/fresh_random.csv --code-version f3faff3
    python scripts/fresh_seeds_ledger.py --experiment exp1_triplets --paper ukkonen2017 --variant "" \\
        --records results/exp1_triplets/paper+custom-1234abcd
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

import numpy as np
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


def _exp1_runs(rec: pd.DataFrame, ref: pd.DataFrame):
    """exp1_triplets' ``n_clusters_mean`` rows: each run's ``n_clusters`` in the row's (algorithm, k, a, b)."""
    from ccexp.report._ukkonen2017_cells import A, B, K, _key

    rec = rec[rec["status"] == "ok"]
    for r in ref[ref["quantity"] == "n_clusters_mean"].to_dict("records"):
        hit = rec[(rec["algorithm"] == r["algorithm"]) & (rec[K].astype(int) == int(r["k"]))
                  & (rec[A].map(_key) == _key(r["a"])) & (rec[B].map(_key) == _key(r["b"]))].sort_values("trial")
        if len(hit):
            yield r["ref_id"], list(zip(hit["trial"].astype(int), hit["n_clusters"].astype(float)))


def _zhu_runs(rec: pd.DataFrame, ref: pd.DataFrame):
    """coprf_*'s ``area_under_ari`` rows: each trial's area under its ARI curve over the counts.

    The report's area is that of the per-count mean ARIs, a linear function of the runs, so it is the mean of the
    trials' areas (an infeasible COP-KMeans run counts as ARI 0, as the report counts it); a trial missing a count is
    refused.  The SE that ``--check`` takes from the areas' SD estimates what the report's per-count formula does
    (sum of w_i^2 var_i / n): equal in expectation, since each count's runs are drawn independently.

    A row ``dataset = average`` (the report's mean of an algorithm's areas over the datasets it ran): each trial's
    mean of its areas over those datasets, again linear, so its mean over the trials is the report's average; a
    trial that a dataset lacks is refused.  Its SD estimates the report's sqrt(sum SE_d^2) / D, the datasets' runs
    being drawn independently.
    """
    from ccexp.report.zhu2013 import area_under_curve, counted_records

    rec = counted_records(rec)
    counts = sorted(rec["oracle.n_constraints"].unique())
    areas = {}  # (algorithm, dataset) -> {trial: area}
    for (algorithm, dataset), hit in rec.groupby(["algorithm", "dataset"]):
        for trial, g in hit.groupby("trial"):
            if sorted(g["oracle.n_constraints"]) != counts:
                raise ValueError(f"{algorithm} on {dataset}: trial {trial} has the counts "
                                 f"{sorted(g['oracle.n_constraints'])}, not {counts}")
            areas.setdefault((algorithm, dataset), {})[int(trial)] = area_under_curve(g["oracle.n_constraints"],
                                                                                      g["ari_counted"])
    for r in ref[ref["quantity"] == "area_under_ari"].to_dict("records"):
        if r["dataset"] != "average":
            runs = sorted(areas.get((r["algorithm"], r["dataset"]), {}).items())
        else:
            per_dataset = [a for (algorithm, _), a in sorted(areas.items()) if algorithm == r["algorithm"]]
            if len(per_dataset) < 2:
                continue  # the report writes no average of one dataset
            trials = sorted(per_dataset[0])
            if any(sorted(a) != trials for a in per_dataset):
                raise ValueError(f"{r['ref_id']}: the datasets of {r['algorithm']} ran different trials")
            runs = [(t, float(np.mean([a[t] for a in per_dataset]))) for t in trials]
        if runs:
            yield r["ref_id"], runs


def _gionis_runs(rec: pd.DataFrame, ref: pd.DataFrame):
    """agg_categorical's (and agg_census') k, EC and ED rows of the order-dependent algorithms: each run's value.

    The report's row is the mean over the runs of ``n_clusters``, ``100 * classification_error`` and
    ``objective`` (``ccexp.report.gionis2007``); ROCK's and LIMBO's rows are keyed by the k asked, the records'
    ``algorithm.n_clusters``.
    """
    from ccexp.report.gionis2007 import BASELINES

    rec = rec[rec["status"] == "ok"]
    columns = {"n_clusters": ("n_clusters", 1.0), "classification_error_pct": ("classification_error", 100.0),
               "objective": ("objective", 1.0)}
    rows = ref[ref["quantity"].isin(list(columns)) & (ref["algorithm"] != "class_labels")]
    for r in rows.to_dict("records"):
        column, scale = columns[r["quantity"]]
        hit = rec[(rec["algorithm"] == r["algorithm"]) & (rec["dataset"] == r["dataset"])]
        if r["algorithm"] in BASELINES and len(hit) and not pd.isna(r.get("k")):
            # keyed by the k asked (Tables 2, 3); a row without k (agg_census' LIMBO) reads every run, as its report
            hit = hit[hit["algorithm.n_clusters"].astype(float) == float(r["k"])]
        hit = hit.sort_values("trial")
        if len(hit):
            yield r["ref_id"], [(int(t), scale * float(v)) for t, v in zip(hit["trial"], hit[column])]


#: How a fresh run's records give the per-run values of an experiment's rows (``--records``).
EXTRACTORS = {"exp1_triplets": _exp1_runs, "coprf_perfect": _zhu_runs, "coprf_noisy": _zhu_runs,
              "agg_categorical": _gionis_runs, "agg_census": _gionis_runs}


def records_rows(folder: Path, ref: pd.DataFrame, experiment: str = "exp1_triplets") -> tuple[list[dict], str]:
    """The ledger lines of a fresh run's records (:data:`EXTRACTORS`), and its code version.

    Raises
    ------
    ValueError
        An experiment without an extractor, a trial below :data:`FRESH_OFFSET`, runs of more than one (or a
        dirty) commit, or a row whose runs' mean or number differ from the folder's ``comparison.csv``.
    """
    if experiment not in EXTRACTORS:
        raise ValueError(f"--records reads {', '.join(EXTRACTORS)}; {experiment!r} has no reader of its runs")
    rec = pd.read_parquet(folder / "records.parquet")
    if int(rec["trial"].min()) < FRESH_OFFSET:
        raise ValueError(f"{folder}: trial {int(rec['trial'].min())} is below the fresh batch's {FRESH_OFFSET}")
    versions = sorted(set(rec["code_version"].astype(str)))
    if len(versions) != 1 or versions[0].endswith("+dirty"):
        raise ValueError(f"{folder}: the runs come from code {versions}: one clean commit is needed")
    cmp = pd.read_csv(folder / "comparison.csv").set_index("ref_id")
    out = []
    for ref_id, runs in EXTRACTORS[experiment](rec, ref):
        values = np.array([v for _, v in runs], dtype=float)
        got = cmp.loc[ref_id] if ref_id in cmp.index else None
        # the report's mean of the same records (an area: of the per-count means, equal up to rounding)
        if got is None or int(got["n_trials"]) != len(values) or not math.isclose(
                float(got["ours"]), float(values.mean()), rel_tol=1e-9, abs_tol=1e-9):
            raise ValueError(f"{folder}: {ref_id}: the records give {values.mean()!r} over {len(values)} runs, "
                             f"the folder's comparison.csv {None if got is None else (got['ours'], got['n_trials'])}")
        out += [{"ref_id": ref_id, "trial": t, "value": repr(float(v)), "code_version": versions[0]} for t, v in runs]
    return out, versions[0]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experiment", required=True)
    ap.add_argument("--variant", default="authors", help="the runs' variant ('' for the experiment's default)")
    ap.add_argument("--paper", default="aronsson2024")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--runs", nargs="+", help="CSVs written by scripts/acc_fresh_seeds.py")
    src.add_argument("--records", type=Path, help="the results folder of a run with +experiment.first_trial=1000")
    ap.add_argument("--code-version", help="the commit the --runs were made with (--records: read from the records)")
    ap.add_argument("--new-rows-only", action="store_true",
                    help="append only the rows with no batch yet; a row that has one keeps it (one batch per row), "
                         "and the runs of that batch are compared with these")
    a = ap.parse_args(argv)
    ref = load_reference(a.paper, a.experiment)
    if a.records is not None:
        rows, _ = records_rows(a.records, ref[ref["variant"] == a.variant], a.experiment)
    else:
        if not a.code_version:
            ap.error("--runs needs --code-version")
        runs = pd.concat([pd.read_csv(p, dtype={"overrides": str}) for p in a.runs], ignore_index=True)
        runs = runs[runs["status"] == "ok"]
        rows = ledger_rows(runs, ref, a.variant, a.code_version)
    path = Path(experiments_dir()) / a.paper / "fresh_seeds.csv"
    have = load_fresh_seeds(path)
    if a.new_rows_only:
        kept = [r for r in rows if r["ref_id"] in have]
        same = sum(math.isclose(float(r["value"]), have[r["ref_id"]].get(r["trial"], math.nan), rel_tol=1e-12,
                                abs_tol=1e-12) for r in kept)
        print(f"{len({r['ref_id'] for r in kept})} rows have a batch already and keep it: {same} of their "
              f"{len(kept)} runs here equal the ledger's")
        rows = [r for r in rows if r["ref_id"] not in have]
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
