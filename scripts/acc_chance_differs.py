"""How many of the authors' stored-curve rows would *differ* by chance alone, under ccexp's tolerance rule.

The rows ``ari_at_0.3E`` with ``variant=authors`` compare our mean ARI after
0.3 |E| queries (15 runs) with the authors' stored mean (8 runs) by the
rule's two-sample reading (``ccexp.report.tolerance.judge``: half a unit of
the third decimal + 2 x sqrt(SE_ours^2 + sd_theirs^2 / 8), capped by the
nearest other strategy's stored value).  This script

1. recomputes each row's verdict from the per-run values (our committed
   ``records.parquet`` / ``traces.parquet`` of ``results/<experiment>/paper+authors``
   and the authors' stored curves), to check it is the report's;
2. measures the rule's false-alarm rate with a permutation null: per cell
   the 15 + 8 per-run values are pooled and split at random into 15 "ours"
   and 8 "theirs" (as if both came from one procedure), the split judged by
   the same rule with the cap recomputed from the same competitors' values;
   the number of rows that differ, over ``--resamples`` splits of all cells
   at once, is the distribution chance alone gives;
3. with ``--fresh CSV`` (``scripts/acc_fresh_seeds.py``'s output), judges
   fresh-seed reruns of cells the same way (the committed run's verdict
   beside the fresh one's).

Used for experiments/aronsson2024/README.md, "Fresh seeds on the seven
differing stored-curve cells".  Example::

    python scripts/acc_chance_differs.py --results /path/to/results/acc_random_init/paper+authors \\
        --fresh /tmp/fresh.csv --resamples 2000
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ccexp.report._aronsson2024_authors import INIT, load_authors_curves, our_runs, value_at
from ccexp.report._aronsson2024_curves import load_traces
from ccexp.report.reference import load_reference
from ccexp.report.tables import ok_records
from ccexp.report.tolerance import DIFFERS, judge

KEY = ["dataset", "gamma", "algorithm"]


def per_run_values(results: Path, experiment: str, fraction: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(ours, theirs): one row per run, ``dataset, gamma, algorithm, run, ari`` after ``fraction`` |E|."""
    records = pd.read_parquet(results / "records.parquet")
    ok, _ = ok_records(records)
    ours = our_runs(load_traces(results, ok), ok)
    ours = value_at(ours, KEY + ["run"], fraction)
    theirs = load_authors_curves()
    theirs = theirs[theirs["init"] == INIT[experiment]].assign(run=lambda d: d["repeat"])
    theirs = value_at(theirs, KEY + ["run"], fraction)
    return ours, theirs


def verdict(ours: np.ndarray, theirs: np.ndarray, competitors: np.ndarray, decimals: int) -> tuple[str, float]:
    """The rule's status of ours against theirs (the cap from the competitors' values), and the tolerance."""
    # the reference row holds their mean at the printed decimals and their SD at 3 (authors_reference_rows)
    paper = round(float(np.mean(theirs)), decimals)
    d = np.abs(competitors - paper)
    d = d[d > 1e-12]
    cap = float(d.min()) if d.size else math.nan
    n = len(ours)
    sem = float(np.std(ours, ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    tol, status = judge("approx", paper, float(np.mean(ours)), decimals=decimals, sem=sem, cap=cap, n=n,
                        paper_n=len(theirs), paper_sd=round(float(np.std(theirs, ddof=1)), 3))
    return status, tol


def cells(experiment: str, quantity: str) -> pd.DataFrame:
    """The reference rows judged against the authors' variant, with their competitors' stored values."""
    ref = load_reference("aronsson2024", experiment)
    ref = ref[(ref["quantity"] == quantity) & (ref["variant"].astype(str) == "authors")].copy()
    ref["gamma"] = ref["gamma"].astype(float)
    comp = []
    for r in ref.itertuples():
        g = ref[(ref["dataset"] == r.dataset) & np.isclose(ref["gamma"], r.gamma) & (ref["algorithm"] != r.algorithm)]
        comp.append(g["value"].astype(float).to_numpy())
    ref["competitors"] = comp
    return ref


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experiment", default="acc_random_init")
    ap.add_argument("--results", type=Path, required=True, help="folder with records.parquet and traces.parquet")
    ap.add_argument("--fraction", type=float, default=0.3)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fresh", type=Path, action="append", default=[],
                    help="acc_fresh_seeds.py output (repeatable; files given together are one table)")
    a = ap.parse_args(argv)
    quantity = f"ari_at_{a.fraction:g}E"
    ref = cells(a.experiment, quantity)
    ours, theirs = per_run_values(a.results, a.experiment, a.fraction)
    rng = np.random.default_rng(a.seed)
    rows, null_counts = [], np.zeros(a.resamples, dtype=int)
    for r in ref.itertuples():
        sel = lambda d: d[(d["dataset"] == r.dataset) & np.isclose(d["gamma"], r.gamma) & (d["algorithm"] == r.algorithm)]
        o, t = sel(ours)["ari"].to_numpy(float), sel(theirs)["ari"].to_numpy(float)
        status, tol = verdict(o, t, r.competitors, int(r.decimals))
        pooled = np.concatenate([o, t])
        hits = 0
        for b in range(a.resamples):
            p = rng.permutation(pooled)
            s, _ = verdict(p[:len(o)], p[len(o):], r.competitors, int(r.decimals))
            if s == DIFFERS:
                hits += 1
                null_counts[b] += 1
        rows.append({"algorithm": r.algorithm, "dataset": r.dataset, "gamma": r.gamma, "theirs": t.mean(),
                     "n_theirs": len(t), "ours": o.mean(), "n_ours": len(o), "tolerance": tol, "status": status,
                     "p_differs_by_chance": hits / a.resamples})
    tab = pd.DataFrame(rows)
    print(f"{len(tab)} rows; status counts of the committed run:", tab["status"].value_counts().to_dict())
    print(tab[tab["status"] == DIFFERS].round(4).to_string(index=False))
    q = np.percentile(null_counts, [2.5, 50, 97.5])
    print(f"\nchance alone (permutation null, {a.resamples} splits of all {len(tab)} cells): rows that differ "
          f"mean {null_counts.mean():.2f}, median {q[1]:.0f}, 95% interval [{q[0]:.0f}, {q[2]:.0f}]; "
          f"P(>= {int((tab['status'] == DIFFERS).sum())}) = "
          f"{(null_counts >= (tab['status'] == DIFFERS).sum()).mean():.3f}; per-row chance of 'differs': mean "
          f"{tab['p_differs_by_chance'].mean():.3f}, range {tab['p_differs_by_chance'].min():.3f}-"
          f"{tab['p_differs_by_chance'].max():.3f}")
    if a.fresh:
        # a cell split between processes may hold a repetition twice (the same seeds: the same run)
        fresh = pd.concat([pd.read_csv(p) for p in a.fresh]).drop_duplicates(["algorithm", "dataset", "gamma", "trial"])
        col = f"ari_at_{a.fraction:g}E"
        out = []
        for (alg, ds, g, off), f in fresh.groupby(["algorithm", "dataset", "gamma", "offset"]):
            r = ref[(ref["algorithm"] == alg) & (ref["dataset"] == ds) & np.isclose(ref["gamma"], g)].iloc[0]
            t = theirs[(theirs["dataset"] == ds) & np.isclose(theirs["gamma"], g) & (theirs["algorithm"] == alg)]
            t = t["ari"].to_numpy(float)
            o = f[col].dropna().to_numpy(float)
            s, tol = verdict(o, t, r.competitors, int(r.decimals))
            # both of our samples (committed + fresh) against their 8: Welch's t and a permutation test
            com = ours[(ours["dataset"] == ds) & np.isclose(ours["gamma"], g) & (ours["algorithm"] == alg)]
            both = np.concatenate([com["ari"].to_numpy(float), o])
            welch = stats.ttest_ind(both, t, equal_var=False).pvalue
            perm = stats.permutation_test((both, t), lambda x, y: np.mean(x) - np.mean(y), n_resamples=20000,
                                          random_state=a.seed).pvalue
            old = tab[(tab["algorithm"] == alg) & (tab["dataset"] == ds) & np.isclose(tab["gamma"], g)].iloc[0]
            out.append({"algorithm": alg, "dataset": ds, "gamma": g, "offset": off, "theirs": t.mean(),
                        "committed": old["ours"], "committed_status": old["status"], "fresh": o.mean(),
                        "fresh_sd": o.std(ddof=1), "n_fresh": len(o), "tolerance": tol, "fresh_status": s,
                        "n_both": len(both), "both": both.mean(), "p_welch_both": welch, "p_perm_both": perm})
        print(f"\nfresh seeds ({', '.join(map(str, a.fresh))}):")
        print(pd.DataFrame(out).round(4).to_string(index=False))
        print(f"(p values of all our runs against their {len(t)}; {len(tab)} rows judged: Bonferroni 0.05 / {len(tab)} = "
              f"{0.05 / len(tab):.5f})")


if __name__ == "__main__":
    main()
