"""Ablation (issue 34, items 3-4): the local search's open choices, and the generator's, against Table I.

Two studies, each changing ONE setting at a time from exp1_triplets' defaults,
on the paper's own instances (the sweep's seeds: a variant draws the same
subset, noise and label shuffle as the default; only the named rule differs):

``--study algorithm`` (item 3): Ls-EQ-VC and Ls-AD-VC on the Table I cells
(k in 2, 4, 8, 16; a in 1, 0.1, 0.05, 0.01; b in 0, 0.1, 0.2; 10 trials):

* ``tie_break``: line 8's rule, ``first`` (default: the argmin as written,
  the first minimiser), ``stay``, ``last`` (a loop keeping a later id on
  equal cost), ``random`` (:class:`ccexp.algorithms.triplets.TripletLocalSearch`);
* ``vc_order``: the edge order of Approx-VC, ``pairs`` (default),
  ``triplets``, ``random_pairs``, ``random_triplets``;
* ``redundant_order``: the redundancy removal's order, ``input`` (default),
  ``reverse``, ``random``.

``--study generator`` (item 4): Ls-AD-VC, Ls-EQ-VC and Ls-AD over the whole
grid (24 (a, b) settings x 4 k x 10 trials):

* ``ambiguous``: the outlier of a 3-set whose labels name none,
  ``rotate`` (default), ``random``, ``last``, ``drop``;
* ``order``: the triplets' order, ``shuffled`` (default), ``sorted``;
* ``labels``: the labels' assignment to items, ``random`` (default), ``blocks``.

Every row also logs |T'| / |T|, the share of triplets the vertex cover keeps.
Usage::

    python experiments/ukkonen2017/ablation_local_search.py --study algorithm --out /tmp/abl_ls.csv
    python experiments/ukkonen2017/ablation_local_search.py --study generator --out /tmp/abl_gen.csv
    python experiments/ukkonen2017/ablation_local_search.py --study generator --out /tmp/gen_cells.csv \\
        --cells 8,0.01,0 16,0.05,0.1   # only these (k, a, b) cells
    python experiments/ukkonen2017/ablation_local_search.py --summary /tmp/abl_ls.csv [--markdown]
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ablation_baselines import judge_cell, paper_table  # noqa: E402  (the page's rule, shared)

from ccexp.algorithms.triplets import TripletLocalSearch
from ccexp.data import load_dataset
from ccexp.metrics import adjusted_rand
from ccexp.oracles import make_problem
from ccexp.runner.config import experiment_cases
from ccexp.runner.execute import _instance_rngs

STUDIES = {
    "algorithm": {
        "algorithms": ("ls_eq_vc", "ls_ad_vc"),
        "settings": {"tie_break": ("first", "stay", "last", "random"),
                     "vc_order": ("pairs", "triplets", "random_pairs", "random_triplets"),
                     "redundant_order": ("input", "reverse", "random")},
        "fractions": (1.0, 0.1, 0.05, 0.01),
    },
    "generator": {
        "algorithms": ("ls_ad_vc", "ls_eq_vc", "ls_ad"),
        "settings": {"ambiguous": ("rotate", "random", "last", "drop"), "order": ("shuffled", "sorted"),
                     "labels": ("random", "blocks")},
        "fractions": None,  # the whole grid
    },
}
INIT = {"ls_eq_vc": ("equal", True), "ls_ad_vc": ("different", True), "ls_ad": ("different", False),
        "ls_eq": ("equal", False)}
FIELDS = ["study", "setting", "value", "algorithm", "k", "a", "b", "trial", "instance_id", "n_clusters", "ari",
          "kept", "n_triplets", "n_passes", "converged", "seconds"]


def variants(study: str):
    """(setting, value) pairs: the default first, then each other value of each setting alone."""
    settings = STUDIES[study]["settings"]
    yield "default", "default"
    for name, values in settings.items():
        for v in values[1:]:
            yield name, v


def problem_for(case, setting: str, value: str):
    """The instance of ``case`` with one generator rule changed, from the instance's own random streams."""
    inst = case.instance
    ds_rng, oracle_rng = _instance_rngs(inst)
    ds_params = {k: v for k, v in inst.dataset.items() if k != "name"}
    if setting == "labels":
        ds_params["shuffle"] = value == "random"
    dataset = load_dataset(inst.dataset["name"], random_state=ds_rng, **ds_params)
    oracle_params = {k: v for k, v in inst.oracle.items() if k != "name"}
    if setting in ("ambiguous", "order"):
        oracle_params[setting] = value
    return dataset, make_problem(inst.oracle["name"], dataset, random_state=oracle_rng, **oracle_params)


def run(args) -> None:
    spec = STUDIES[args.study]
    _, cases = experiment_cases("exp1_triplets", "paper")
    cases = [c for c in cases if c.algorithm == "ls_ad_vc" and c.instance.trial < args.trials
             and (spec["fractions"] is None
                  or any(abs(c.instance.setting["oracle.fraction"] - a) < 1e-9 for a in spec["fractions"]))
             and (not args.cells or _cell(c.instance.setting) in args.cells)]
    out = Path(args.out)
    done = set()
    if out.is_file():
        prev = pd.read_csv(out)
        done = set(zip(prev["setting"], prev["value"], prev["algorithm"], prev["instance_id"]))
    new = not out.is_file()
    with out.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for case in cases:
            inst = case.instance
            for setting, value in variants(args.study):
                todo = [a for a in spec["algorithms"] if (setting, value, a, inst.instance_id) not in done]
                if not todo:
                    continue
                dataset, prob = problem_for(case, setting, value)
                for alg in todo:
                    init, vc = INIT[alg]
                    params = {"init": init, "vertex_cover": vc}
                    if args.study == "algorithm" and setting != "default":
                        params[setting] = value
                    # the algorithm's own seed, as the sweep gives it (used by the random options only)
                    seed = [c for c in _CASES_BY_INSTANCE[inst.instance_id] if c.algorithm == alg][0].algorithm_seed
                    t0 = time.perf_counter()
                    est = TripletLocalSearch(random_state=seed, **params).fit_problem(prob)
                    m = int(prob.triplets.shape[0])
                    s = inst.setting
                    w.writerow({"study": args.study, "setting": setting, "value": value, "algorithm": alg,
                                "k": s["dataset.k"], "a": s["oracle.fraction"], "b": s["oracle.noise"],
                                "trial": inst.trial, "instance_id": inst.instance_id,
                                "n_clusters": int(est.labels_.max()) + 1, "ari": adjusted_rand(dataset.y, est.labels_),
                                "kept": 1.0 - est.n_removed_ / m if m else 1.0, "n_triplets": m,
                                "n_passes": est.n_passes_, "converged": bool(est.converged_),
                                "seconds": round(time.perf_counter() - t0, 4)})
            fh.flush()
            print(f"{args.study}: k={inst.setting['dataset.k']} a={inst.setting['oracle.fraction']} "
                  f"b={inst.setting['oracle.noise']} trial {inst.trial}", flush=True)


def _cell(setting) -> tuple:
    """(k, a, b) of an instance's setting, rounded as ``--cells`` parses them."""
    return (int(setting["dataset.k"]), round(float(setting["oracle.fraction"]), 6), round(float(setting["oracle.noise"]), 6))


def _parse_cell(text: str) -> tuple:
    try:
        k, a, b = text.split(",")
        return (int(k), round(float(a), 6), round(float(b), 6))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--cells: {text!r} is not k,a,b (e.g. 8,0.01,0)") from None


_CASES_BY_INSTANCE: dict = {}


def _index_cases() -> None:
    _, cases = experiment_cases("exp1_triplets", "paper")
    for c in cases:
        _CASES_BY_INSTANCE.setdefault(c.instance.instance_id, []).append(c)


# --------------------------------------------------------------------------- summary


def _weights(df: pd.DataFrame) -> pd.Series:
    """The paper's test-case weights (a = 1, b = 0: the 10 trials share one case), per row."""
    det = np.isclose(df["a"], 1.0) & np.isclose(df["b"], 0.0)
    return pd.Series(np.where(det, 0.1, 1.0), index=df.index)


def summarise(path: str, markdown: bool) -> None:
    df = pd.read_csv(path)
    ref = paper_table(None)
    cells = df.groupby(["setting", "value", "algorithm", "k", "a", "b"]).agg(
        mean=("n_clusters", "mean"), sd=("n_clusters", "std"), n=("n_clusters", "size"), ari=("ari", "mean"),
        kept=("kept", "mean"), passes=("n_passes", "max"), unconverged=("converged", lambda s: int((~s).sum())),
    ).reset_index()
    cells["sd"] = cells["sd"].fillna(0.0)
    status = []
    for r in cells.itertuples():
        p = ref[(ref["algorithm"] == r.algorithm) & (ref["k"] == r.k) & np.isclose(ref["a"], r.a)
                & np.isclose(ref["b"], r.b)]
        if not len(p):
            status.append(("", np.nan))
            continue
        grp = ref[(ref["k"] == r.k) & np.isclose(ref["a"], r.a) & np.isclose(ref["b"], r.b)
                  & (ref["algorithm"] != r.algorithm)]
        paper_n = 1 if (r.a == 1.0 and r.b == 0.0) else 10
        status.append((judge_cell(float(p["value"].iloc[0]), grp["value"].astype(float).tolist(), r.mean, r.sd,
                                  int(r.n), paper_n), float(p["value"].iloc[0])))
    cells["status"] = [s for s, _ in status]
    cells["paper"] = [p for _, p in status]
    t1 = cells[cells["status"] != ""]
    base = t1[t1["setting"] == "default"].set_index(["algorithm", "k", "a", "b"])
    ok_states = ("reproduced", "within", "indistinguishable")
    rows = []
    for (setting, value), g in t1.groupby(["setting", "value"], sort=False):
        g = g.set_index(["algorithm", "k", "a", "b"])
        row = {"setting": setting, "value": value}
        for alg in sorted(set(g.index.get_level_values(0))):
            ga, ba = g.loc[alg], base.loc[alg]
            ok = ga["status"].isin(ok_states)
            differing = set(ba.index[ba["status"] == "differs"])
            moved = sum(1 for c in differing if c in ok.index and ok[c])
            broke = sum(1 for c in ba.index if c not in differing and c in ok.index and not ok[c])
            row[f"{alg} agree/48"] = int(ok.sum())
            row[f"{alg} moved"] = f"{moved}/{len(differing)}"
            row[f"{alg} broke"] = broke
            row[f"{alg} exactly 2.0"] = int(np.isclose(ga["mean"], 2.0).sum())
        rows.append(row)
    summary = pd.DataFrame(rows)
    # win counts over all the instances run (the paper's test-case weights)
    wins = []
    wide = df.pivot_table(index=["setting", "value", "instance_id", "a", "b"], columns="algorithm", values="ari")
    for (setting, value), g in wide.groupby(level=[0, 1], sort=False):
        g = g.reset_index()
        w = _weights(g)
        row = {"setting": setting, "value": value, "test cases": round(float(w.sum()), 1)}
        if {"ls_ad_vc", "ls_eq_vc"} <= set(g.columns):
            row["AD-VC > EQ-VC (paper 871)"] = round(float(w[g["ls_ad_vc"] > g["ls_eq_vc"] + 1e-12].sum()), 1)
        if {"ls_ad_vc", "ls_ad"} <= set(g.columns):
            row["AD-VC >= AD (paper 813)"] = round(float(w[g["ls_ad_vc"] >= g["ls_ad"] - 1e-12].sum()), 1)
        wins.append(row)
    wins = pd.DataFrame(wins)
    kept = (cells[cells["setting"] == "default"].pivot_table(index=["k", "a"], columns=["algorithm", "b"],
                                                            values="kept").round(3))
    per_cell = t1.pivot_table(index=["algorithm", "k", "a", "b", "paper"], columns=["setting", "value"],
                              values="mean").round(1)
    show = (lambda d: d.to_markdown()) if markdown else (lambda d: d.to_string())
    with pd.option_context("display.width", 250, "display.max_columns", 60, "display.max_rows", 500):
        print(show(summary.set_index(["setting", "value"])), "\n")
        print(show(wins.set_index(["setting", "value"])), "\n")
        print("|T'|/|T| (default setting, mean over trials):\n" + show(kept), "\n")
        print(show(per_cell))
    cells.to_csv(Path(path).with_suffix(".cells.csv"), index=False)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--study", choices=sorted(STUDIES))
    p.add_argument("--out")
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--cells", type=_parse_cell, nargs="+", help="only these Table I cells, each k,a,b (e.g. 8,0.01,0)")
    p.add_argument("--summary")
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args(argv)
    if args.summary:
        summarise(args.summary, args.markdown)
        return 0
    if not args.study or not args.out:
        p.error("--study and --out are required to run")
    _index_cases()
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
