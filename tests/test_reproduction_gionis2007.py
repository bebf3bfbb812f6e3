"""Reproduction at scale=ci: what a small run can check of Gionis et al. (2007).

Values and tolerances come from experiments/gionis2007/reference.csv; the
rows that do not reproduce are discussed in experiments/gionis2007/README.md
and not asserted here.
"""

import pandas as pd
import pytest

from ccexp.report.common import load_reference

from conftest import require_data, run_cli

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    require_data("house_votes/house-votes-84.data")
    require_data("adult/adult.data")
    out = tmp_path_factory.mktemp("gionis_ci")
    for exp in ("agg_categorical", "agg_census", "agg_robustness"):
        run_cli([f"+experiment={exp}", "experiment.scale=ci", f"paths.results={out}", "runner.n_jobs=1", "tracking=off"],
                cwd=out)
    return out


def comparison(results, exp):
    return pd.read_csv(results / exp / "ci" / "comparison.csv", keep_default_na=False, na_values=[""])


def test_table2_class_labels_and_lower_bound_match_to_the_unit(results):
    cmp = comparison(results, "agg_categorical")
    rows = cmp[(cmp.dataset == "house_votes") & cmp.quantity.isin(["lower_bound"]) | (cmp.algorithm == "class_labels")
               & (cmp.dataset == "house_votes") & (cmp.quantity == "objective")]
    assert len(rows) == 2
    assert (rows.verdict == "within tolerance").all(), rows


def test_table2_localsearch_reaches_the_papers_disagreement(results):
    cmp = comparison(results, "agg_categorical")
    row = cmp[(cmp.dataset == "house_votes") & (cmp.algorithm == "local_search") & (cmp.quantity == "objective")]
    assert row.verdict.tolist() == ["within tolerance"]


def test_table2_every_algorithm_between_lower_bound_and_class_labels(results):
    rec = pd.read_parquet(results / "agg_categorical" / "ci" / "records.parquet")
    rec = rec[rec.status == "ok"]
    # the four order-dependent aggregations and LIMBO over 3 orders; ROCK over 10 orders and BESTCLUSTERING,
    # which shares its grid, 10 times (the yaml's setting_trials applies at every scale)
    assert len(rec) == 5 * 3 + 2 * 10
    assert (rec.objective >= rec.lower_bound).all()
    # every aggregation except BALLS (see README) agrees better with the votes than the party labels
    assert (rec[rec.algorithm != "balls"].objective < 34184).all()


def test_census_classification_error_meets_its_pin(results):
    from ccexp.report.reproduction import pin_holds

    cmp = comparison(results, "agg_census")
    ref = load_reference("gionis2007", "agg_census").set_index("ref_id")
    row = cmp[(cmp.quantity == "classification_error_pct") & (cmp.algorithm == "sampling")]
    assert len(row) == 1 and ref.loc[row.ref_id.iloc[0], "ci"] == "yes"
    assert pin_holds(row.status.iloc[0], ref.loc[row.ref_id.iloc[0], "expect"])


def test_figure3_aggregation_beats_most_inputs(results):
    # the paper's claim (better than every input) holds only up to a tie with
    # Ward's at paper scale (README); what a ci run can check: the mistakes
    # of single linkage and k-means cancel out, aggregation beats the median input
    ari = pd.read_csv(results / "agg_robustness" / "ci" / "tables" / "agg_robustness_ari.csv").set_index("clustering")["ari"]
    inputs = ari[ari.index.str.startswith("input:")]
    assert len(inputs) == 5
    assert ari["aggregation: agglomerative"] > inputs.median()
    assert ari["aggregation: agglomerative"] > inputs["input: single"]
    assert (results / "agg_robustness" / "ci" / "figures" / "figure3_robustness.png").is_file()
