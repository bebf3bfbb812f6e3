"""The cross-supervision report on a hand-made records table (ccexp/report/cross.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ccexp.report import REPORTS
from ccexp.report.cross import auc_per_trial, curve_rows, friedman_ranking, report_cross
from ccexp.report.output import write_report


def _require_posthocs():
    """The Nemenyi post hoc and its diagram need scikit-posthocs, the ``stats`` extra: skip, naming it."""
    pytest.importorskip("scikit_posthocs", reason="the Nemenyi post hoc needs scikit-posthocs, the stats extra "
                                                  "(pip install -e '.[stats]')")

# per dataset: (ls_ad_vc at budgets 1 and 4, e2cp at 1 and 4, kmeans); the active reader's trace is shared
ARI = {"A": ((0.0, 1.0), (0.2, 0.4), 0.6), "B": ((0.2, 1.0), (0.1, 0.3), 0.5), "C": ((0.0, 0.8), (0.5, 0.9), 0.3)}
TRACE = [(0, 0.0), (5, 0.1), (10, 0.3), (20, 0.5), (40, 0.95), (45, 1.0)]  # (n_queries, ari) on n = 10 items


def _records():
    rows, traces = [], []
    for ds, (ls, e2, km) in ARI.items():
        for trial in (0, 1):
            for budget, i in ((1.0, 0), (4.0, 1)):
                for alg, kind, val in (("ls_ad_vc", "triplets", ls[i]), ("e2cp", "pairwise", e2[i])):
                    rows.append({"case_id": f"{ds}{trial}{alg}{budget}", "dataset": ds, "algorithm": alg, "trial": trial,
                                 "status": "ok", "ari": val, "oracle.budget": budget, "oracle.eps": 0.0,
                                 "problem.supervision": kind})
            rows.append({"case_id": f"{ds}{trial}km", "dataset": ds, "algorithm": "kmeans", "trial": trial,
                         "status": "ok", "ari": km, "problem.supervision": "none"})
            cid = f"{ds}{trial}acc"
            rows.append({"case_id": cid, "dataset": ds, "algorithm": "acc_maxmin", "trial": trial, "status": "ok",
                         "ari": 1.0, "oracle.eps": 0.0, "problem.supervision": "similarity", "problem.n_edges": 45})
            traces += [{"case_id": cid, "step": s, "n_queries": q, "ari": a} for s, (q, a) in enumerate(TRACE)]
    # a failed case has no ARI and enters nothing; an infeasible one (ARI 0) counts
    rows.append({"case_id": "Aerr", "dataset": "A", "algorithm": "e2cp", "trial": 2, "status": "error", "ari": np.nan,
                 "oracle.budget": 1.0, "oracle.eps": 0.0, "problem.supervision": "pairwise"})
    return pd.DataFrame(rows), pd.DataFrame(traces)


def test_curve_rows_reads_active_runs_at_each_budget():
    records, traces = _records()
    df = curve_rows(records, traces)
    acc = df[(df["algorithm"] == "acc_maxmin") & (df["dataset"] == "A") & (df["trial"] == 0)].sort_values("budget")
    # budget 1 = 10 answers: the clustering after 10 queries; budget 4 = 40 answers
    assert acc["ari"].tolist() == [0.3, 0.95]
    floor = df[(df["algorithm"] == "kmeans") & (df["dataset"] == "B")]
    assert sorted(floor["budget"]) == [1.0, 1.0, 4.0, 4.0] and set(floor["ari"]) == {0.5}
    assert set(df["reader"]) == {"triplets: ls_ad_vc", "pairwise: e2cp", "none: kmeans", "similarity: acc_maxmin"}
    assert len(df[df["trial"] == 2]) == 0  # the error record
    assert len(df) == 3 * 2 * 4 * 2


def test_auc_by_hand():
    records, traces = _records()
    per_trial = auc_per_trial(curve_rows(records, traces))
    got = per_trial[per_trial["dataset"] == "A"].groupby("reader")["auc"].mean()
    # two budgets: the trapezoid's mean height
    assert got["triplets: ls_ad_vc"] == pytest.approx(0.5)
    assert got["pairwise: e2cp"] == pytest.approx(0.3)
    assert got["none: kmeans"] == pytest.approx(0.6)
    assert got["similarity: acc_maxmin"] == pytest.approx(0.625)


def test_friedman_inputs_and_ranks_by_hand():
    records, traces = _records()
    res = friedman_ranking(auc_per_trial(curve_rows(records, traces)))
    m = res["matrix"]
    assert list(m.index) == ["A", "B", "C"] and m.shape == (3, 4)
    assert m.loc["C", "pairwise: e2cp"] == pytest.approx(0.7)
    ranks = res["ranks"]
    assert ranks["similarity: acc_maxmin"] == pytest.approx(4 / 3)
    assert ranks["triplets: ls_ad_vc"] == pytest.approx(8 / 3)
    assert ranks["none: kmeans"] == pytest.approx(3.0) and ranks["pairwise: e2cp"] == pytest.approx(3.0)
    # the statistic is scipy's on the same blocks; by hand: 12 N / (k (k+1)) sum (R_j - (k+1)/2)^2
    chi2 = 12 * 3 / (4 * 5) * sum((r - 2.5) ** 2 for r in ranks)
    assert res["statistic"] == pytest.approx(chi2)
    assert res["pvalue"] == pytest.approx(stats.chi2.sf(chi2, 3))


def test_friedman_posthoc_is_a_readers_by_readers_matrix():
    _require_posthocs()
    records, traces = _records()
    res = friedman_ranking(auc_per_trial(curve_rows(records, traces)))
    assert res["posthoc"].shape == (4, 4) and np.allclose(np.diag(res["posthoc"].to_numpy()), 1.0)


def test_friedman_too_few_blocks_says_why():
    records, traces = _records()
    per_trial = auc_per_trial(curve_rows(records[records["dataset"] == "A"], traces))
    res = friedman_ranking(per_trial)
    assert math.isnan(res["pvalue"]) and "2 datasets" in res["note"] and res["posthoc"] is None


def test_report_writes_its_files(tmp_path):
    _require_posthocs()  # the critical-difference figure; without the extra, see the test below
    assert REPORTS["cross_supervision"] is report_cross
    records, traces = _records()
    write_report(report_cross(records, tmp_path, "ci", traces=traces), tmp_path)
    for f in ("figures/curves.png", "figures/critical_difference.png", "tables/auc.csv", "tables/auc_by_eps.csv",
              "tables/ranks.csv", "report.md", "comparison.csv"):
        assert (tmp_path / f).is_file(), f
    text = (tmp_path / "report.md").read_text()
    assert "Friedman test over 3 datasets and 4 readers" in text
    auc = pd.read_csv(tmp_path / "tables" / "auc.csv")
    assert auc.iloc[0]["reader"] == "similarity: acc_maxmin"


def test_reader_missing_on_a_dataset_is_left_out_of_the_ranking():
    records, traces = _records()
    records = records[~((records["dataset"] == "C") & (records["algorithm"] == "e2cp"))]
    res = friedman_ranking(auc_per_trial(curve_rows(records, traces)))
    assert res["left_out"] == ["pairwise: e2cp"] and res["matrix"].shape == (3, 3)


def test_report_without_the_stats_extra_keeps_the_friedman_test_and_says_what_is_missing(tmp_path, monkeypatch):
    # a run's report must not die at the end for want of an optional extra (it did in the
    # paper run of 2026-11-23, in a venv without scikit-posthocs): the ranks and the
    # Friedman test need only scipy; the post hoc and its diagram are named as missing
    import builtins

    real_import = builtins.__import__

    def no_posthocs(name, *args, **kwargs):
        if name == "scikit_posthocs":
            raise ImportError("No module named 'scikit_posthocs'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_posthocs)
    records, traces = _records()
    res = friedman_ranking(auc_per_trial(curve_rows(records, traces)))
    assert res["posthoc"] is None and "ccexp[stats]" in res["posthoc_note"]
    assert not math.isnan(res["pvalue"])
    write_report(report_cross(records, tmp_path, "ci", traces=traces), tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "Friedman test over 3 datasets and 4 readers" in text and "ccexp[stats]" in text
    assert not (tmp_path / "figures" / "critical_difference.png").exists()


def test_the_critical_difference_diagram_is_the_same_whatever_the_hash_seed(tmp_path):
    # scikit-posthocs joins the readers under a crossbar from a set of their names, whose order follows the
    # process's string-hash seed: the same records gave another PNG in every process (a report must be
    # byte-identical from the same records, issue 32)
    _require_posthocs()
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = ("import sys; from test_cross_report import _records; from ccexp.report.cross import report_cross; "
              "from ccexp.report.output import write_report; r, t = _records(); "
              "write_report(report_cross(r, sys.argv[1], 'ci', traces=t), sys.argv[1])")
    tests_dir = str(Path(__file__).parent)
    pngs = []
    for seed in ("1", "2", "3"):
        out = tmp_path / seed
        env = {**os.environ, "PYTHONHASHSEED": seed,
               "PYTHONPATH": os.pathsep.join([tests_dir, os.environ.get("PYTHONPATH", "")])}
        subprocess.run([sys.executable, "-c", script, str(out)], env=env, check=True, cwd=tmp_path)
        pngs.append((out / "figures" / "critical_difference.png").read_bytes())
    assert pngs[0] == pngs[1] == pngs[2]
