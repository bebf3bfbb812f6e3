"""Our active-clustering curves beside the authors' stored runs (Aronsson & Chehreghani 2024).

The authors' public repository (Linusaronsson/Active-Correlation-Clustering
@ 313d989) stores every run behind their figures; ``authors_stored_curves.csv.gz``
under ``$CCEXP_DATA_DIR/aronsson2024/`` is a plain-CSV export of them (one row
per iteration: ARI, AMI, number of clusters; 8 repeats per dataset x
strategy x gamma x init; sim_init 0.1, tau 3, eps 0.3, beta 1, B = 0.001 |E|;
see ``../shared/datasets/SOURCES.md``).  This module

* puts both on one x-axis, the fraction of |E| queried (their iteration i
  has asked i * ceil(0.001 |E|) edges), a run that stopped early held at its
  last value (as their ``extend_list`` does);
* draws our mean and +-1 sd band beside theirs for the same dataset,
  strategy, gamma and init (``figures/<experiment>_vs_authors_ari.png``);
* tabulates the ARI gap (ours - theirs) at 0.1, 0.3 and 0.5 |E|
  (``tables/ari_gap_vs_authors``);
* evaluates the reference rows whose source starts with "authors' stored
  runs" (quantities ``ari_at_<f>E``).

:func:`side_by_side` is the one entry point; ``aronsson2024.py`` calls it.
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..data.files import DataFileMissing, data_file
from ._aronsson2024_curves import load_traces
from .common import compare_row, markdown_table, ok_records
from .output import Report

#: reference rows from the authors' stored runs carry a source starting with this
SOURCE_PREFIX = "authors' stored runs"
FRACTIONS = (0.1, 0.3, 0.5)
CURVES_FILE = "aronsson2024/authors_stored_curves.csv.gz"
CURVES_SHA256 = "7730edb2698f36f80d35fc8997730a9fe77292157492b328feb1f3858df0bb6a"

#: their strategy names -> our algorithms (COBRAS / nCOBRAS failed in their stored runs: left out)
STRATEGY = {"maxexp": "acc_maxexp", "maxmin": "acc_maxmin", "uncert": "acc_uncertainty", "freq": "acc_frequency",
            "unif": "acc_uniform", "QECC": "qecc"}
#: their dataset names -> our datasets, per initialisation
DATASET = {
    "random_clustering": {d: f"labels_{d}" for d in ("20newsgroups", "cardiotocography", "cifar10", "ecoli",
                                                     "forest_type_mapping", "mnist", "mushrooms", "user_knowledge",
                                                     "yeast")},
    "kmeans": {"cardiotocography": "cardiotocography", "ecoli": "ecoli", "forest_type_mapping": "forest_type_mapping",
               "mushrooms": "mushroom_onehot", "user_knowledge": "user_knowledge", "yeast": "yeast",
               "mnist": "mnist_embedding", "cifar10": "cifar10_embedding", "20newsgroups": "newsgroups20_embedding"},
}
#: the same data under another name: the k-means panels of the ``authors`` variant run on the authors' own arrays
ALIASES = {"kmeans": {"cardiotocography": "authors_cardiotocography", "ecoli": "authors_ecoli",
                      "forest_type_mapping": "authors_forest_type_mapping", "mushroom_onehot": "authors_mushrooms",
                      "user_knowledge": "authors_user_knowledge", "yeast": "authors_yeast"}}
INIT = {"acc_random_init": "random_clustering", "acc_kmeans_init": "kmeans"}
_QUANTITY = re.compile(r"^ari_at_(\d*\.?\d+)E$")


def quantity(fraction: float) -> str:
    """Reference-row quantity of the mean ARI after ``fraction`` |E| queries."""
    return f"ari_at_{fraction:g}E"


def load_authors_curves(path: Path | None = None) -> pd.DataFrame:
    """The authors' stored runs, mapped to our names: one row per (run, iteration).

    Columns ``init, dataset, algorithm, gamma, repeat, n_items, iteration,
    fraction, ari, ami, n_clusters``.  Raises the data folder's usual
    error when the file is missing, ``ValueError`` when it was modified.
    """
    if path is None:
        path = data_file(CURVES_FILE, sha256=CURVES_SHA256, dataset="aronsson2024 stored curves")
    d = pd.read_csv(path)
    d = d[d["strategy"].isin(list(STRATEGY))].copy()
    d["algorithm"] = d["strategy"].map(STRATEGY)
    d["dataset"] = [DATASET.get(i, {}).get(n) for i, n in zip(d["init"], d["dataset"])]
    d = d[d["dataset"].notna()]
    # their k-means runs once more under the names of their own arrays (the authors variant's datasets)
    for init, alias in ALIASES.items():
        a = d[(d["init"] == init) & d["dataset"].isin(list(alias))]
        d = pd.concat([d, a.assign(dataset=a["dataset"].map(alias))], ignore_index=True)
    n_edges = d["n_items"] * (d["n_items"] - 1) // 2
    batch = np.ceil(n_edges * d["batch_size"]).astype(int)
    d["fraction"] = d["iteration"] * batch / n_edges
    return d[["init", "dataset", "algorithm", "gamma", "repeat", "n_items", "iteration", "fraction", "ari", "ami",
              "n_clusters"]].reset_index(drop=True)


def value_at(runs: pd.DataFrame, run_cols: list[str], fraction: float, metric: str = "ari") -> pd.DataFrame:
    """Per run: ``metric`` at the last point with fraction <= ``fraction``.

    A run that converged and stopped earlier holds its last value (as the
    authors' ``extend_list`` does); a run whose budget ended earlier (an
    optional column ``horizon``, its last fraction; inf for a held run) is
    left out at fractions beyond it.
    """
    d = runs[runs["fraction"] <= fraction + 1e-12]
    if "horizon" in d:
        d = d[d["horizon"] >= fraction - 1e-3]  # one batch (0.001 |E|) of slack for the floor of the budget
    if not len(d):
        return pd.DataFrame(columns=run_cols + [metric])
    idx = d.groupby(run_cols, dropna=False)["fraction"].idxmax()
    return d.loc[idx, run_cols + [metric]].reset_index(drop=True)


def _on_grid(run: pd.DataFrame, grid: np.ndarray, metric: str = "ari") -> np.ndarray:
    """One run's ``metric`` at every grid fraction (held after its end, NaN before its start or past its horizon)."""
    r = run.sort_values("fraction")
    fr = r["fraction"].to_numpy(dtype=float)
    val = r[metric].to_numpy(dtype=float)
    i = np.searchsorted(fr, grid + 1e-12, side="right") - 1
    out = np.where(i >= 0, val[np.clip(i, 0, None)], np.nan)
    if "horizon" in r:
        out[grid > float(r["horizon"].iloc[0]) + 1e-3] = np.nan
    return out


def gap_table(ours: pd.DataFrame, theirs: pd.DataFrame, fractions=FRACTIONS) -> pd.DataFrame:
    """Mean ARI (ours, theirs) and the gap at each fraction, per dataset x gamma x algorithm.

    ``ours`` / ``theirs``: long tables with ``dataset, gamma, algorithm, run, fraction, ari``.
    """
    key = ["dataset", "gamma", "algorithm"]
    rows = []
    for f in fractions:
        a = value_at(ours, key + ["run"], f).groupby(key)["ari"].agg(["mean", "std", "size"])
        b = value_at(theirs, key + ["run"], f).groupby(key)["ari"].agg(["mean", "std", "size"])
        m = a.reset_index().merge(b.reset_index(), on=key, how="outer", suffixes=("_ours", "_authors"))
        m.insert(3, "fraction", f)
        rows.append(m)
    t = pd.concat(rows, ignore_index=True)
    t["gap"] = t["mean_ours"] - t["mean_authors"]
    t = t.rename(columns={"mean_ours": "ours", "mean_authors": "authors", "size_ours": "n_ours",
                          "size_authors": "n_authors", "std_ours": "sd_ours", "std_authors": "sd_authors"})
    return t.sort_values(key + ["fraction"]).reset_index(drop=True)


def our_runs(traces: pd.DataFrame, records: pd.DataFrame) -> pd.DataFrame:
    """Our traces as ``dataset, gamma, algorithm, preset, run, fraction, ari``."""
    n_edges = records.set_index("case_id")["problem.n_edges"] if "problem.n_edges" in records else None
    t = traces.copy()
    if n_edges is None:
        raise ValueError("records carry no problem.n_edges: cannot put our curves on the fraction-of-|E| axis")
    t["fraction"] = t["n_queries"] / t["case_id"].map(n_edges).astype(float)
    t["gamma"] = t["oracle.gamma"].astype(float)
    t["run"] = t["case_id"]
    # a run the convergence rule stopped is held at its last value; one whose budget ended is not extended
    held = records.set_index("case_id")["stop_reason"].eq("callback") if "stop_reason" in records else None
    last = t.groupby("case_id")["fraction"].transform("max")
    t["horizon"] = np.where(t["case_id"].map(held).fillna(False).astype(bool), np.inf, last) if held is not None else last
    # algorithms without a preset (QECC) sit beside every preset the acc_* runs used
    presets = t["algorithm.preset"].dropna().unique().tolist() if "algorithm.preset" in t else []
    presets = presets or ["paper"]
    t["preset"] = t["algorithm.preset"] if "algorithm.preset" in t else np.nan
    missing = t[t["preset"].isna()]
    t = pd.concat([t[t["preset"].notna()]] + [missing.assign(preset=p) for p in presets], ignore_index=True)
    return t[["dataset", "gamma", "algorithm", "preset", "run", "fraction", "ari", "horizon"]]


def _plot(ours: pd.DataFrame, theirs: pd.DataFrame, title: str) -> Figure:
    panels = sorted(set(zip(ours["dataset"], ours["gamma"])))
    ncol = min(3, len(panels))
    nrow = int(math.ceil(len(panels) / ncol))
    fig = Figure(figsize=(4.4 * ncol, 3.1 * nrow), constrained_layout=True)
    axes = fig.subplots(nrow, ncol, squeeze=False)
    grid = np.linspace(0.0, 0.5, 101)
    for ax, (ds, gamma) in zip(axes.flat, panels):
        for i, alg in enumerate(sorted(set(ours.loc[ours["dataset"] == ds, "algorithm"]))):
            color = f"C{i}"
            for src, data, style in (("ours", ours, "-"), ("authors", theirs, "--")):
                g = data[(data["dataset"] == ds) & np.isclose(data["gamma"], gamma) & (data["algorithm"] == alg)]
                if not len(g):
                    continue
                vals = np.array([_on_grid(r, grid) for _, r in g.groupby("run")])
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # grid points past every run's budget
                    mean, sd = np.nanmean(vals, axis=0), np.nanstd(vals, axis=0)
                ax.plot(grid, mean, style, color=color, lw=1.2, label=f"{alg.removeprefix('acc_')} ({src})")
                ax.fill_between(grid, mean - sd, mean + sd, color=color, alpha=0.12 if src == "ours" else 0.06, lw=0)
        ax.set_title(f"{ds}, gamma={gamma:g}", fontsize=9)
        ax.set_xlabel("queries / |E|")
        ax.set_ylabel("ARI")
        ax.grid(True, lw=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=6, ncol=2)
    fig.suptitle(title, fontsize=10)
    return fig


def split_reference(ref: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(paper's rows, rows from the authors' stored runs)."""
    mask = ref["source"].astype(str).str.startswith(SOURCE_PREFIX)
    return ref[~mask], ref[mask]


def reference_rows(ref_authors: pd.DataFrame, gaps: pd.DataFrame, preset: str = "paper") -> list[dict]:
    """Comparison rows for the reference rows of the authors' stored runs."""
    rows = []
    for r in ref_authors.itertuples():
        m = _QUANTITY.match(str(r.quantity))
        ours, note, sem, n = np.nan, "not run", None, None
        if m is not None and len(gaps):
            g = gaps[(gaps["dataset"] == r.dataset) & np.isclose(gaps["gamma"], r.gamma)
                     & (gaps["algorithm"] == r.algorithm) & np.isclose(gaps["fraction"], float(m.group(1)))]
            if len(g) and not pd.isna(g["ours"].iloc[0]):
                ours = float(g["ours"].iloc[0])
                n = int(g["n_ours"].iloc[0])
                sd = g["sd_ours"].iloc[0] if "sd_ours" in g else np.nan
                sem = 0.0 if n <= 1 or pd.isna(sd) else float(sd) / np.sqrt(n)
                note = f"mean ARI of our {int(g['n_ours'].iloc[0])} runs after {m.group(1)} |E| queries (preset={preset})"
        rows.append(compare_row(r.quantity, r.value, ours, r.tolerance, algorithm=r.algorithm, versus=r.versus,
                                ref_id=r.ref_id, note=note, sem=sem, n_trials=n)
                    | {"dataset": r.dataset, "gamma": r.gamma})
    return rows


def side_by_side(experiment: str, records: pd.DataFrame, ref_authors: pd.DataFrame, out_dir: Path,
                 scale: str, out: Report) -> tuple[list[dict], str]:
    """Figure, gap table and reference rows against the authors' stored runs.

    The figure and the table go into ``out``; the traces are read from ``out_dir``.
    Returns (comparison rows, a markdown section for ``comparison.md``);
    without the stored curves (no data folder) the rows say "not run" and
    the section says why.
    """
    ok, _ = ok_records(records)
    traces = load_traces(Path(out_dir), ok)
    init = INIT.get(experiment)
    if init is None or not len(traces):
        return reference_rows(ref_authors, pd.DataFrame()), ""
    try:
        theirs = load_authors_curves()
    except DataFileMissing as exc:
        return reference_rows(ref_authors, pd.DataFrame()), f"\n## Beside the authors' stored runs\n\nNot drawn: {exc}\n"
    theirs = theirs[theirs["init"] == init].assign(run=lambda d: d["repeat"])
    ours = our_runs(traces, ok)
    pairs = set(zip(ours["dataset"], ours["gamma"].round(6)))
    keep = np.array([(d, round(g, 6)) in pairs for d, g in zip(theirs["dataset"], theirs["gamma"])], dtype=bool)
    theirs = theirs[keep & theirs["algorithm"].isin(set(ours["algorithm"])).to_numpy()]
    sections = []
    rows = []
    for preset, o in ours.groupby("preset", dropna=False):
        gaps = gap_table(o, theirs)
        suffix = "" if preset == "paper" else f"_{preset}"
        out.table(f"ari_gap_vs_authors{suffix}", gaps, digits=3)
        out.figure(f"{experiment}_vs_authors_ari{suffix}.png",
                   _plot(o, theirs, f"{experiment}: ours (preset={preset}, solid) vs the authors' stored runs (dashed), {scale}"),
                   dpi=100)
        show = gaps.pivot_table(index=["dataset", "gamma", "algorithm"], columns="fraction",
                                values="gap").reset_index()
        show.columns = [c if not isinstance(c, float) else f"gap at {c:g} |E|" for c in show.columns]
        sections.append(f"### preset={preset}\n\nFigure `figures/{experiment}_vs_authors_ari{suffix}.png`. ARI gap (ours - authors' stored runs; mean over runs), "
                        f"`tables/ari_gap_vs_authors{suffix}.csv` has both means and their sd:\n\n"
                        f"{markdown_table(show, digits=3)}\n")
        if preset == "paper" or len(rows) == 0:
            rows = reference_rows(ref_authors, gaps, preset)
    text = ("\n## Beside the authors' stored runs\n\nTheir repository's stored runs (8 repeats; tau 3, their noise "
            "model, see experiments/aronsson2024/README.md) against ours on the fraction of |E| queried (ours solid, "
            "theirs dashed, +-1 sd bands); the reference rows use the paper preset's runs when there are any.\n\n"
            + "\n".join(sections))
    return rows, text


def authors_reference_rows(fractions=(0.3,), algorithms=("acc_maxexp", "acc_maxmin")) -> pd.DataFrame:
    """Reference rows from the stored runs: mean ARI after ``fractions`` |E|, per dataset, gamma and init.

    Used once to append rows to ``experiments/aronsson2024/reference.csv``
    (their numbers are facts about their code, not the paper's text).
    """
    d = load_authors_curves()
    out = []
    for init, experiment in ((v, k) for k, v in INIT.items()):
        g = d[(d["init"] == init) & d["algorithm"].isin(algorithms)].assign(run=lambda x: x["repeat"])
        for f in fractions:
            v = value_at(g, ["dataset", "gamma", "algorithm", "run"], f)
            for (ds, gamma, alg), s in v.groupby(["dataset", "gamma", "algorithm"])["ari"]:
                out.append({
                    "experiment": experiment, "quantity": quantity(f), "algorithm": alg, "versus": "",
                    "dataset": ds, "gamma": gamma, "value": round(float(s.mean()), 3), "decimals": 3, "tolerance": "",
                    "kind": "approx",
                    "rule": (f"two_sample: sd={s.std():.3f} n={len(s)} (their mean is itself a sample of "
                             f"{len(s)} runs, so its SE adds to ours)"),
                    "expect": "",
                    "source": (f"{SOURCE_PREFIX} (Linusaronsson/Active-Correlation-Clustering @ 313d989, "
                               f"experiment_results/acc_experiment; init {init}): mean ARI of their {len(s)} repeats "
                               f"after {f:g} |E| queries (sd {s.std():.3f})"),
                    "check": "",
                    "ci": "",
                })
    return pd.DataFrame(out)
