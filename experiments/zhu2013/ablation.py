"""Ablations of issue 34 (items 6-8) on the very instances of the paper-scale runs of Zhu, Loy, Gong (2013).

Each study changes one setting at a time from the defaults (the paper's text
where it speaks, ours where it does not) and refits the study's methods on
the instances that ``python -m ccexp experiment=<coprf_perfect|coprf_noisy>``
draws at ``scale=paper`` (same data, constraints and algorithm seeds: the
seed of a case does not depend on its parameters, so every variant is paired
with the committed run).  The table is the area under the mean ARI curve
(Table II / III's quantity, ``ccexp.report.zhu2013``) with its standard error.

Studies (``--study``; every variant of a study is listed in :data:`STUDIES`
with the reason it was tried):

``forest``
    Item 6, the clustering forest of Forest+E2CP and COP-RF: pseudo points
    per node, oblique cuts, random thresholds, the leaf size phi.
``spectral``
    Item 7, the Gaussian k-NN graph shared by SPClust, SL and E2CP: k, the
    bandwidth rule and the spectral embedding's Laplacian.
``e2cp``
    E2CP's propagation (hzhu4): F* rescaled to max |F*| = 1, the weight a;
    (hzhu5) the graph's symmetrisation, the (1 - a)^2 factor, the adjusted
    affinity.
``e2cp_max``
    E2CP from F* / max |F*| (hzhu5): a, k, the symmetrisation, the
    third-party configuration.
``features``
    Fifth round: the UCI features as the files give them (Section III's
    first sentence) against min-max scaled onto [-1, 1] (its last).
``cop_kmeans``
    Item 8, COP-KMeans' failures: visiting order and restarts.

Usage (one core; BLAS on one thread)::

    CCEXP_DATA_DIR=/work/shared/datasets python experiments/zhu2013/ablation.py --study forest \\
        --experiment coprf_perfect --datasets ionosphere iris segmentation --algorithms forest_e2cp \\
        --out /tmp/zhu_forest.csv
    python experiments/zhu2013/ablation.py --summary /tmp/zhu_forest.csv      # the markdown table

Results are appended to ``--out`` fit by fit; a rerun skips the fits already
there, so an interrupted study resumes.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ccexp.metrics import adjusted_rand
from ccexp.registry import ALGORITHMS
from ccexp.report.reference import load_reference
from ccexp.report.tolerance import judge
from ccexp.report.zhu2013 import PAPER, ari_curves, area_table, area_sems, counted_records
from ccexp.runner.config import experiment_cases
from ccexp.runner.execute import build_problem

#: study -> algorithms, variants (name -> (parameters, reason)).  ``"N/10"`` and ``"N-1"`` as
#: ``n_neighbors`` are resolved per dataset (round(N / 10); N - 1, every other point).
STUDIES = {
    "forest": {
        "algorithms": ["forest_e2cp", "cop_rf"],
        "variants": {
            "default": ({}, "per-tree pseudo points, axis-aligned midpoint cuts, phi = 1"),
            "pseudo_node": ({"pseudo": "node"}, "CLTree (the paper's [7]) draws pseudo points per node"),
            "oblique": ({"cuts": "oblique"}, "'a linear data separation as the split function' (Section III); "
                                             "Breiman's Forest-RC (the paper's [2])"),
            "random_threshold": ({"threshold": "random"}, "randomised node optimisation (one threshold per "
                                                          "candidate), as in extremely randomised trees"),
            "leaf_size_5": ({"leaf_size": 5}, "phi is a stopping threshold (Section II-B); the clustering "
                                              "forest's is not stated"),
            "leaf_size_20": ({"leaf_size": 20}, "as leaf_size_5"),
            # second round: per-node pseudo points never make a node pure, so phi stops the growth
            "pseudo_node_leaf_5": ({"pseudo": "node", "leaf_size": 5}, "pseudo_node, stopped at phi = 5"),
            "pseudo_node_leaf_20": ({"pseudo": "node", "leaf_size": 20}, "pseudo_node, stopped at phi = 20"),
            # third round (hzhu4): the synthetic class of Breiman's own unsupervised forest
            "pseudo_marginal": ({"pseudo": "marginal"}, "Breiman's unsupervised forest (the paper's [2]; Shi and "
                                                        "Horvath 2006) draws the synthetic class from the product "
                                                        "of the features' marginals, not uniformly"),
            "pseudo_cltree": ({"pseudo": "cltree"}, "CLTree (the paper's [7]) as Liu et al. count them: uniform in "
                                                    "the node's region, inherited from the parent, topped up to "
                                                    "the node's real points"),
            "pseudo_node_cl_split": ({"pseudo": "node", "cl_rule": "split"},
                                     "pseudo_node with Algorithm 1's cannot-link rule as written (COP-RF only)"),
        },
    },
    "spectral": {
        "algorithms": ["spectral", "spectral_learning", "e2cp"],
        "variants": {
            "default": ({}, "10-NN graph, sigma = mean distance to the 10th neighbour, NJW (ours)"),
            "k_5": ({"n_neighbors": 5}, "k of the graph is not stated for the baselines"),
            "k_20": ({"n_neighbors": 20}, "as k_5"),
            "k_N/10": ({"n_neighbors": "N/10"}, "'We set k ~ N/10 for the k nearest neighbour graph "
                                                "construction' (Section III, said of COP-RF's graph)"),
            "bw_median": ({"bandwidth": "median"}, "median pairwise distance, a common default"),
            "bw_local": ({"bandwidth": "local"}, "local scaling (Zelnik-Manor and Perona 2004)"),
            "bw_fixed": ({"bandwidth": "fixed"}, "exp(-d^2), scikit-learn's SpectralClustering default"),
            "lap_rw": ({"laplacian": "rw"}, "Shi and Malik's normalised cut"),
            "lap_unnormalized": ({"laplacian": "unnormalized"}, "D - W, unnormalised spectral clustering"),
            # third round (hzhu4): NJW's own affinity, the paper's [10] for SPClust, is fully connected
            "k_full": ({"n_neighbors": "N-1"}, "NJW (the paper's [10]) form A_ij = exp(-|x_i - x_j|^2 / 2 s^2) "
                                               "on all pairs, no k-NN graph (s: our rule at k = N - 1)"),
            "k_full_median": ({"n_neighbors": "N-1", "bandwidth": "median"},
                              "NJW's full affinity with s = the median distance"),
            "k_full_local": ({"n_neighbors": "N-1", "bandwidth": "local"},
                             "NJW's full affinity with local scaling (self-tuning spectral clustering)"),
        },
    },
    "e2cp": {
        "algorithms": ["e2cp", "forest_e2cp"],
        "variants": {
            "default": ({}, "F* of the closed form as it is (|F*| <= 0.13 on these data), a = 0.8"),
            "f_max": ({"f_scale": "max"}, "Lu and Ip's adjustment reads f*_ij in [-1, 1] as a constraint's "
                                          "strength; F* / max|F*| gives it that range (as ekrim/robust-clust's "
                                          "E2CP does)"),
            "alpha_0.5": ({"alpha": 0.5}, "a is not stated by Zhu et al."),
            "alpha_0.99": ({"alpha": 0.99}, "as alpha_0.5: propagation close to the graph's smoothest direction"),
            # fourth round (hzhu5): the rest of Lu and Ip's formulation, one setting at a time
            "graph_mean": ({"graph_sym": "mean"}, "W = (W + W^T) / 2 on the directed k-NN graph, as both third-party "
                                                  "E2CPs (ekrim/robust-clust and a copy of it) build Lu and Ip's graph"),
            "no_factor": ({"f_scale": "no_factor"}, "Zhu et al. call E2CP's propagation the manifold diffusion of "
                                                    "their [12] (Zhou et al., Ranking on data manifolds), which "
                                                    "iterates f <- a S f + y without the (1 - a) weight (as "
                                                    "kernlab's ranking does): F <- a L F + Z each way, clipped to "
                                                    "[-1, 1] for Lu and Ip's adjustment"),
            "no_factor_alpha_0.99": ({"f_scale": "no_factor", "alpha": 0.99},
                                     "no_factor with [12]'s a = 0.99 (kernlab's ranking default)"),
            "adjust_lbar": ({"adjust_on": "lbar"}, "the adjustment applied to the normalised L = D^-1/2 W D^-1/2 "
                                                   "the propagation runs on (no source: a sensitivity check)"),
        },
    },
    # fourth round (hzhu5): under F* / max|F*| the weight a and the graph shape how far a constraint spreads
    # (without the rescaling they mostly scale F*), so the one-at-a-time variants start from f_max
    "e2cp_max": {
        "algorithms": ["e2cp"],
        "variants": {
            "f_max": ({"f_scale": "max"}, "the starting point: F* / max|F*| (the third-party E2CPs)"),
            "f_max_alpha_0.6": ({"f_scale": "max", "alpha": 0.6}, "ekrim/robust-clust's E2CP: a = 0.6"),
            "f_max_alpha_0.1": ({"f_scale": "max", "alpha": 0.1}, "the other third-party E2CP: a = 0.1"),
            "f_max_alpha_0.99": ({"f_scale": "max", "alpha": 0.99}, "Zhou et al.'s label propagation ([12] of "
                                                                      "Zhu et al., 'manifold diffusion'): a = 0.99"),
            "f_max_k_15": ({"f_scale": "max", "n_neighbors": 15}, "ekrim/robust-clust's E2CP: k = 15"),
            "f_max_k_N/10": ({"f_scale": "max", "n_neighbors": "N/10"}, "'We set k ≈ N/10 for the k nearest "
                                                                        "neighbour graph' (Section III)"),
            "f_max_graph_mean": ({"f_scale": "max", "graph_sym": "mean"}, "as graph_mean"),
            "third_party": ({"f_scale": "max", "alpha": 0.6, "n_neighbors": 15, "graph_sym": "mean"},
                            "ekrim/robust-clust's E2CP as a whole (k = 15, a = 0.6, mean symmetrisation, "
                            "F* / max|F*|; its kernel width is not ours)"),
        },
    },
    # fifth round: which data the [-1, 1] scaling of Section III is said of.  The clustering forest is left
    # out: its axis-aligned midpoint cuts over the bounding box (and its pseudo points, uniform in it) map
    # one to one under a per-column affine map, so Forest+E2CP and COP-RF do not depend on this setting.
    "features": {
        "algorithms": ["spectral", "cop_kmeans", "spectral_learning", "e2cp"],
        "variants": {
            "default": ({}, "every dataset's columns min-max scaled onto [-1, 1] (ours: 'All raw features are "
                            "scaled to the range of [-1, 1]', Section III, read as said of every dataset)"),
            "scale_none": ({"scale": "none"}, "'For the UCI datasets, we use the original features provided' "
                                              "(Section III, the paragraph's first sentence): the scaling "
                                              "sentence read as said of the ERCe video features only"),
        },
    },
    "cop_kmeans": {
        "algorithms": ["cop_kmeans"],
        "variants": {
            "default": ({}, "Wagstaff et al. as written: data order, one random start, fail on a dead end"),
            "order_random": ({"order": "random"}, "'for each point d_i in D' fixes no order"),
            "restarts_10": ({"n_init": 10}, "restart from new centers after a failure, up to 10 starts"),
            "restarts_100": ({"n_init": 100}, "as restarts_10, up to 100 starts"),
        },
    },
}

KEY = ["experiment", "study", "variant", "algorithm", "dataset", "n_constraints", "trial", "scale"]
COLUMNS = [*KEY, "ari", "status", "fit_seconds", "mean_leaves"]


def instances(experiment: str, datasets, trials: int):
    """The paper-scale instances of ``experiment`` on ``datasets`` (trial < ``trials``), with their cases by algorithm."""
    _, cases = experiment_cases(experiment, "paper")
    out = {}
    for c in cases:
        inst = c.instance
        if inst.dataset["name"] in datasets and inst.trial < trials:
            out.setdefault(inst.instance_id, (inst, {}))[1][c.algorithm] = c
    return list(out.values())


def resolve(params: dict, n: int) -> dict:
    named = {"N/10": max(1, round(n / 10)), "N-1": n - 1}
    return {k: (named[v] if isinstance(v, str) and v in named else v) for k, v in params.items()}


def fit_one(case, params: dict, problem, y) -> dict:
    cls = ALGORITHMS.get(case.algorithm)
    own = cls().get_params()
    est = cls(random_state=case.algorithm_seed, **{**case.params, **{k: v for k, v in params.items() if k in own}})
    t0 = time.perf_counter()
    est.fit_problem(problem)
    row = {"fit_seconds": time.perf_counter() - t0, "status": getattr(est, "status_", "ok"),
           "ari": float(adjusted_rand(y, est.labels_))}
    info = getattr(est, "forest_info_", None)
    if info:
        row["mean_leaves"] = info.get("mean_leaves")
    return row


def run(args) -> None:
    study = STUDIES[args.study]
    algorithms = args.algorithms or study["algorithms"]
    variants = args.variants or list(study["variants"])
    unknown = [v for v in variants if v not in study["variants"]]
    if unknown:
        raise SystemExit(f"unknown variants {unknown} of study {args.study!r}: {', '.join(study['variants'])}")
    done = set()
    if args.out.is_file():
        old = pd.read_csv(args.out)
        old["scale"] = old["scale"].fillna("paper") if "scale" in old else "paper"
        done = set(map(tuple, old[KEY].astype(str).to_numpy()))
    insts = instances(args.experiment, set(args.datasets), args.trials)
    fixed = dict(kv.split("=", 1) for kv in args.set or ())
    fixed = {k: int(v) if v.isdigit() else v for k, v in fixed.items()}
    scale = "paper" if not fixed else " ".join(f"{k}={v}" for k, v in sorted(fixed.items()))
    order = {d: i for i, d in enumerate(args.datasets)}
    insts.sort(key=lambda t: (order[t[0].dataset["name"]], t[0].trial, t[0].oracle["n_constraints"]))
    n_new = 0
    for variant in variants:
        params = {**study["variants"][variant][0], **fixed}
        for inst, by_alg in insts:
            todo = [a for a in algorithms
                    if tuple(map(str, (args.experiment, args.study, variant, a, inst.dataset["name"],
                                       inst.oracle["n_constraints"], inst.trial, scale))) not in done]
            if not todo:
                continue
            dataset, problem = build_problem(inst)
            rows = []
            for a in todo:
                row = {"experiment": args.experiment, "study": args.study, "variant": variant, "algorithm": a,
                       "dataset": inst.dataset["name"], "n_constraints": inst.oracle["n_constraints"],
                       "trial": inst.trial, "scale": scale}
                row.update(fit_one(by_alg[a], resolve(params, dataset.y.shape[0]), problem, dataset.y))
                rows.append(row)
            frame = pd.DataFrame(rows).reindex(columns=COLUMNS)
            frame.to_csv(args.out, mode="a", header=not args.out.is_file(), index=False)
            n_new += len(rows)
            print(f"{variant:22s} {inst.dataset['name']:13s} n={inst.oracle['n_constraints']:3d} t={inst.trial} "
                  + " ".join(f"{r['algorithm']}={r['ari']:.3f}" for r in rows), flush=True)
    print(f"{n_new} new fits in {args.out}")


#: How :func:`summary` marks a cell the project's rule would accept against the paper's number.
MARKS = {"reproduced": " ✓", "within tolerance": " ✓", "indistinguishable": " ≈"}


def status(experiment: str, algorithm: str, dataset: str, area: float, se: float, n: int) -> str:
    """The status the reproduction rule gives ``area`` (± ``se`` over ``n`` trials) against the paper's row."""
    ref = load_reference(PAPER, experiment)
    row = ref[(ref.quantity == "area_under_ari") & (ref.algorithm == algorithm) & (ref.dataset == dataset)]
    if not len(row):
        return ""
    r = row.iloc[0]
    return judge(r.kind, r.value, area, decimals=r.decimals, sem=se, cap=r.cap, n=n, paper_n=r.paper_n)[1]


def summary(path: Path) -> str:
    """Area under the mean ARI curve (± SE) per experiment, algorithm, dataset and variant, as markdown."""
    rec = pd.read_csv(path).rename(columns={"n_constraints": "oracle.n_constraints"})
    rec["scale"] = rec["scale"].fillna("paper") if "scale" in rec else "paper"
    out = []
    for (exp, study, alg, scale), g in rec.groupby(["experiment", "study", "algorithm", "scale"], sort=False):
        rows = []
        for variant, gv in g.groupby("variant", sort=False):
            cur = ari_curves(counted_records(gv))
            table = area_table(cur).set_index("dataset")
            sems = area_sems(cur)
            trials = gv.groupby("dataset").trial.nunique()
            row = {"variant": variant}
            for ds in table.index:
                if ds == "average":
                    continue
                se = sems.get((ds, alg), (np.nan,))[0]
                n = int(trials.get(ds, 0))
                mark = MARKS.get(status(exp, alg, ds, float(table.loc[ds, alg]), se, n), "") if n >= 2 else ""
                row[ds] = f"{table.loc[ds, alg]:.2f} ± {se:.2f} ({n}){mark}"
                if study == "cop_kmeans":
                    row[ds] += f", {int((gv[gv.dataset == ds].status == 'infeasible').sum())} failed"
            rows.append(row)
        out.append(f"**{exp}, {alg}, {scale}** (area under the mean ARI curve ± SE (trials); ✓ reproduced or "
                   "within tolerance of the paper's number under the project's rule, ≈ indistinguishable):\n")
        out.append(pd.DataFrame(rows).to_markdown(index=False))
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--study", choices=sorted(STUDIES))
    ap.add_argument("--experiment", default="coprf_perfect", choices=["coprf_perfect", "coprf_noisy"])
    ap.add_argument("--datasets", nargs="+", default=["ionosphere", "iris", "segmentation", "parkinsons", "glass"])
    ap.add_argument("--algorithms", nargs="+")
    ap.add_argument("--variants", nargs="+")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--set", nargs="+", metavar="PARAM=VALUE",
                    help="fix a parameter of every method that has it (a screening scale: n_trees=200 n_filter=100)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--summary", type=Path, help="print the table of a results file and stop")
    args = ap.parse_args()
    if args.summary:
        print(summary(args.summary))
        return
    if args.study is None or args.out is None:
        ap.error("--study and --out are required (or --summary FILE)")
    with threadpool_limits(1):
        run(args)


if __name__ == "__main__":
    main()
