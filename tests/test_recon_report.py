"""The liu2011 report's handling of constraint-free baselines run at 0 constraints only."""

import pandas as pd

from ccexp.report.liu2011 import curve_stats


def _records():
    rows = []
    for trial, (f0, f1) in enumerate([(0.5, 0.7), (0.6, 0.9)]):
        for frac, n, f in ((0.0, 0, f0), (0.5, 10, f1), (1.0, 20, f1)):
            rows.append({"dataset": "d", "algorithm": "recon", "oracle.fraction": frac, "problem.n_constraints": n,
                         "f_measure": f, "trial": trial})
        rows.append({"dataset": "d", "algorithm": "kmeans", "oracle.fraction": 0.0, "problem.n_constraints": 0,
                     "f_measure": 0.4 + 0.1 * trial, "trial": trial})
    return pd.DataFrame(rows)


def test_a_baseline_run_at_zero_constraints_is_drawn_flat_at_every_setting():
    stats = curve_stats(_records())
    km = stats[stats.algorithm == "kmeans"].sort_values("setting")
    assert km["setting"].tolist() == [0.0, 0.5, 1.0]
    assert km["n_constraints"].tolist() == [0, 10, 20]  # the constrained schemes' counts
    assert km["mean"].tolist() == [0.45, 0.45, 0.45]
    assert (km["count"] == 2).all()  # one run per trial, not copies counted as trials
    rc = stats[stats.algorithm == "recon"].sort_values("setting")
    assert rc["mean"].round(6).tolist() == [0.55, 0.8, 0.8]


def test_a_constrained_scheme_at_one_setting_is_not_copied():
    df = _records().replace({"kmeans": "kmeans_svm"})  # uses the constraints: no flat copy
    stats = curve_stats(df)
    assert len(stats[stats.algorithm == "kmeans_svm"]) == 1
