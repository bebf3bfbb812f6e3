"""Do the stored-curve rows' three decimals decide a verdict?  (Aronsson & Chehreghani 2024.)

    CCEXP_DATA_DIR=/path/to/datasets python scripts/acc_stored_rows_exact.py [--results results] [--out FILE.csv]

The reference rows from the authors' stored runs (``ari_at_0.3E``, source
"authors' stored runs") carry the mean of the 8 stored repeats rounded to
three decimals and their SD to three decimals in the ``two_sample`` rule, and
the tolerance rule adds half a unit of the third decimal as for a printed
number.  The stored runs give both to full precision.  This script judges
every such row again, by the same rule (:func:`ccexp.report.tolerance.judge`),
with the exact mean and SD at six decimals, the competitors' exact values as
the cap (same experiment, dataset and gamma), against the committed
comparisons of the ``paper`` and ``paper+authors`` runs; it prints how the
statuses move and the rows that differ either way.  Nothing is written into
the reference.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from ccexp.report._aronsson2024_authors import INIT, SOURCE_PREFIX, load_authors_curves, value_at
from ccexp.report.reference import load_reference
from ccexp.report.tolerance import DIFFERS, judge


def exact_values(fraction: float = 0.3) -> dict[tuple, tuple[float, float, int]]:
    """(experiment, dataset, gamma, algorithm) -> (mean, SD, runs) of the stored repeats after ``fraction`` |E|."""
    curves = load_authors_curves()
    out = {}
    for experiment, init in INIT.items():
        g = curves[curves["init"] == init].assign(run=lambda x: x["repeat"])
        v = value_at(g, ["dataset", "gamma", "algorithm", "run"], fraction)
        for (ds, gamma, alg), s in v.groupby(["dataset", "gamma", "algorithm"])["ari"]:
            out[(experiment, ds, round(float(gamma), 6), alg)] = (float(s.mean()), float(s.std()), int(len(s)))
    return out


def _key(exact: dict, experiment: str, dataset: str, gamma: float, algorithm: str) -> tuple | None:
    for ds in (dataset, dataset.removeprefix("authors_").removeprefix("labels_")):
        key = (experiment, ds, round(float(gamma), 6), algorithm)
        if key in exact:
            return key
    return None


def judge_exact(results: Path) -> pd.DataFrame:
    exact = exact_values()
    ref = load_reference("aronsson2024")
    ref = ref[ref["source"].astype(str).str.startswith(SOURCE_PREFIX)]
    rows = []
    for experiment in INIT:
        for folder in ("paper", "paper+authors"):
            path = results / experiment / folder / "comparison.csv"
            if not path.is_file():
                continue
            cmp = pd.read_csv(path).set_index("ref_id")
            for r in ref[ref["experiment"] == experiment].itertuples():
                if r.ref_id not in cmp.index or pd.isna(cmp.loc[r.ref_id, "ours"]):
                    continue
                c = cmp.loc[r.ref_id]
                key = _key(exact, experiment, str(r.dataset), r.gamma, r.algorithm)
                if key is None:
                    raise ValueError(f"{r.ref_id}: no stored runs for {experiment}, {r.dataset}, {r.gamma}")
                mean, sd, n = exact[key]
                others = [v[0] for k, v in exact.items() if k[:3] == key[:3] and k[3] != key[3]]
                dists = [abs(o - mean) for o in others if abs(o - mean) > 1e-12]
                tol, status = judge("approx", mean, float(c["ours"]), decimals=6, sem=float(c["ours_sem"]),
                                    cap=min(dists) if dists else None, rule=f"two_sample: sd={sd:.9f} n={n}",
                                    n=int(c["n_trials"]))
                rows.append({"experiment": experiment, "run": folder, "ref_id": r.ref_id, "value": r.value,
                             "exact": mean, "sd": sd, "ours": float(c["ours"]), "status": c["status"],
                             "tolerance": float(c["tolerance"]), "status_exact": status, "tolerance_exact": tol})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", type=Path, default=Path("results"))
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    out = judge_exact(args.results)
    with pd.option_context("display.width", 250, "display.max_rows", 400):
        print(out.groupby(["experiment", "run", "status", "status_exact"]).size().to_string(), "\n")
        either = out[(out["status"] == DIFFERS) | (out["status_exact"] == DIFFERS)]
        print(either.round(4).to_string(index=False))
    if args.out:
        out.to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
