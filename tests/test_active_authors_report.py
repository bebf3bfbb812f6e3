"""Our curves beside the authors' stored runs (ccexp.report._aronsson2024_authors)."""

import numpy as np
import pandas as pd
import pytest

from ccexp.report._aronsson2024_authors import (
    SOURCE_PREFIX,
    gap_table,
    load_authors_curves,
    quantity,
    reference_rows,
    split_reference,
    value_at,
)
from ccexp.report.common import NOT_RUN, OUTSIDE, load_reference
from conftest import require_data


def _runs(rows):
    return pd.DataFrame(rows, columns=["dataset", "gamma", "algorithm", "run", "fraction", "ari"])


def test_value_at_holds_a_stopped_run_at_its_last_value():
    runs = _runs([("d", 0.2, "a", 0, 0.0, 0.0), ("d", 0.2, "a", 0, 0.1, 0.5), ("d", 0.2, "a", 0, 0.2, 1.0),
                  ("d", 0.2, "a", 1, 0.0, 0.0), ("d", 0.2, "a", 1, 0.3, 0.9), ("d", 0.2, "a", 1, 0.35, 0.2)])
    v = value_at(runs, ["run"], 0.3).set_index("run")["ari"]
    assert v.to_dict() == {0: 1.0, 1: 0.9}  # run 0 stopped at 0.2: held; run 1: the point at 0.3 itself
    assert value_at(runs, ["run"], 0.15).set_index("run")["ari"].to_dict() == {0: 0.5, 1: 0.0}


def test_gap_table_by_hand():
    ours = _runs([("d", 0.2, "a", r, f, a) for r, pts in enumerate([[(0.0, 0), (0.1, 0.4), (0.3, 0.8)],
                                                                     [(0.0, 0), (0.1, 0.6), (0.3, 1.0)]])
                  for f, a in pts])
    theirs = _runs([("d", 0.2, "a", 0, 0.0, 0.0), ("d", 0.2, "a", 0, 0.1, 0.3), ("d", 0.2, "a", 0, 0.3, 0.95)])
    t = gap_table(ours, theirs, fractions=(0.1, 0.3)).set_index("fraction")
    assert t.loc[0.1, "ours"] == pytest.approx(0.5) and t.loc[0.1, "authors"] == pytest.approx(0.3)
    assert t.loc[0.1, "gap"] == pytest.approx(0.2) and t.loc[0.3, "gap"] == pytest.approx(-0.05)
    assert t.loc[0.3, "n_ours"] == 2 and t.loc[0.3, "n_authors"] == 1


def test_stored_curves_map_to_our_names_and_the_issues_number():
    require_data("aronsson2024/authors_stored_curves.csv.gz")
    d = load_authors_curves()
    assert set(d["algorithm"]) == {"acc_maxexp", "acc_maxmin", "acc_uncertainty", "acc_frequency", "acc_uniform",
                                   "qecc"}
    e = d[(d["init"] == "random_clustering") & (d["dataset"] == "labels_ecoli") & (d["gamma"] == 0.2)
          & (d["algorithm"] == "acc_maxexp")].assign(run=lambda x: x["repeat"])
    # B = ceil(56280 / 1000) = 57: iteration 300 has asked 17,100 = 0.3038 |E|
    at300 = e[e["iteration"] == 300]
    assert np.allclose(at300["fraction"], 300 * 57 / 56280)
    held = value_at(e, ["run"], 300 * 57 / 56280)
    assert len(held) == 8 and round(held["ari"].mean(), 3) == 0.980  # the issue's "0.980 after 0.3 |E|"


def test_reference_rows_from_the_stored_runs_are_split_off_and_evaluated():
    ref = load_reference("aronsson2024", "acc_random_init")
    paper, authors = split_reference(ref)
    # 9 datasets x 2 gammas x 6 algorithms (5 strategies + QECC), judged against the authors variant
    assert len(authors) == 108 and authors["source"].str.startswith(SOURCE_PREFIX).all()
    assert (authors["variant"] == "authors").all() and (authors["paper_n"] == 8).all()
    assert not paper["source"].str.startswith(SOURCE_PREFIX).any()
    assert set(authors["quantity"]) == {quantity(0.3)} == {"ari_at_0.3E"}
    gaps = pd.DataFrame([{"dataset": "labels_ecoli", "gamma": 0.2, "algorithm": "acc_maxexp", "fraction": 0.3,
                          "ours": 0.62, "n_ours": 3}])
    rows = {(r["dataset"], r["gamma"], r["algorithm"]): r for r in reference_rows(authors, gaps)}
    r = rows[("labels_ecoli", 0.2, "acc_maxexp")]
    assert r["ours"] == 0.62 and r["paper"] == pytest.approx(0.977) and r["verdict"] == OUTSIDE
    other = rows[("labels_ecoli", 0.4, "acc_maxexp")]
    assert np.isnan(other["ours"]) and other["verdict"] == NOT_RUN
