"""Food100 (Wilber et al. 2014): the raw HIT parser and the recorded-triplet dataset."""

import json

import numpy as np
import pytest

import ccexp
from ccexp.data.food100 import N_IMAGES, N_TRIPLETS, N_UNIQUE, RAW_FILES, image_id, parse_hits
from conftest import require_data


def test_parse_hits_by_hand():
    hits = [{"worker_id": 1, "HIT_screens": [
        {"probe": "p", "images": ["a", "b", "c", "d"], "near_answer": ["c", "a"], "is_catchtrial": False},
        {"probe": "q", "images": ["a", "b"], "near_answer": ["a"], "is_catchtrial": True},
    ]}]
    # chosen images in near_answer order, the others in grid order; catch screen skipped
    assert parse_hits(hits) == [("p", "c", "b"), ("p", "c", "d"), ("p", "a", "b"), ("p", "a", "d")]


def test_counts_match_the_dataset_readme():
    for name in RAW_FILES:
        require_data(f"food100/raw-json/{name}")
    ds = ccexp.load_dataset("food100")
    assert ds.y is None
    assert ds.triplets.shape == (N_TRIPLETS, 3) == (250_320, 3)
    assert ds.n_items == N_IMAGES == len(ds.params["images"])
    assert len(np.unique(ds.triplets, axis=0)) == N_UNIQUE == 190_376
    uniq = ccexp.load_dataset("food100", unique=True)
    assert uniq.triplets.shape == (N_UNIQUE, 3)
    # the recorded oracle passes them through unchanged
    prob = ccexp.make_problem("recorded", ds)
    np.testing.assert_array_equal(prob.triplets, ds.triplets)


def test_orientation_of_one_screen_checked_by_hand():
    """grid2force1_rep1, first HIT, second screen (the first is a catch trial).

    The probe 8dcf0166... was shown beside a grid of 1677669... and 4307be60...
    and the worker chose 1677669...: probe and 1677669... are the pair, 4307be60...
    is the outlier c of the triplet (a, b, c).
    """
    path = require_data("food100/raw-json/grid2force1_rep1_food.json")
    screen = json.loads(path.read_text())[0]["HIT_screens"][1]
    assert screen["is_catchtrial"] is False
    assert screen["probe"] == "images/8dcf0166aaee451096029975ea64e122.jpg"
    assert screen["near_answer"] == ["images/167766958abf4eb0b714dac6c16ae063.jpg"]
    assert screen["images"] == ["images/167766958abf4eb0b714dac6c16ae063.jpg",
                                "images/4307be60a4544f3391d3c4922ea8e04d.jpg"]
    ds = ccexp.load_dataset("food100")
    ids = ds.params["images"]
    a, b, c = (ids.index(x) for x in ("8dcf0166aaee451096029975ea64e122", "167766958abf4eb0b714dac6c16ae063",
                                      "4307be60a4544f3391d3c4922ea8e04d"))
    rows = ds.triplets
    assert np.any((rows[:, 0] == a) & (rows[:, 1] == b) & (rows[:, 2] == c))


def test_ls_ad_vc_on_food_finds_few_clusters():
    for name in RAW_FILES:
        require_data(f"food100/raw-json/{name}")
    prob = ccexp.make_problem("recorded", ccexp.load_dataset("food100"))
    est = ccexp.make_algorithm("ls_ad_vc").fit_problem(prob)
    sizes = np.sort(np.bincount(est.labels_))[::-1]
    # the paper: four clusters, one of them a singleton (Section V-B)
    assert len(sizes) == 4 and sizes[-1] == 1, sizes


def test_image_id():
    assert image_id("images/38aab5a720aa4b8780146c541ac84bb6.jpg") == "38aab5a720aa4b8780146c541ac84bb6"


def test_missing_file_says_where_to_get_it(tmp_path, monkeypatch):
    from ccexp.data import food100 as mod
    from ccexp.data.files import DataFileMissing

    monkeypatch.setenv("CCEXP_DATA_DIR", str(tmp_path))
    mod._load_raw.cache_clear()
    with pytest.raises(DataFileMissing, match="food100-dataset.zip"):
        ccexp.load_dataset("food100")
    mod._load_raw.cache_clear()


@pytest.mark.slow
def test_exp2_reproduces_food_clustering_at_ci_scale(tmp_path):
    """Experiment 2 end to end: records keep the clustering, the report compares with Section V-B."""
    import pandas as pd

    from conftest import run_cli
    from ccexp.data.files import data_dir

    for name in RAW_FILES:
        require_data(f"food100/raw-json/{name}")
    run_cli(["+experiment=exp2_real_triplets", "experiment.scale=ci", f"paths.results={tmp_path}", "runner.n_jobs=1",
             "tracking=off"], cwd=tmp_path, env={"CCEXP_DATA_DIR": str(data_dir().resolve())})
    out = tmp_path / "exp2_real_triplets" / "ci"
    rec = pd.read_parquet(out / "records.parquet")
    assert set(rec["status"]) == {"ok"}
    row = rec[rec["algorithm"] == "ls_ad_vc"].iloc[0]
    sizes = [int(v) for v in row["cluster_sizes"].split()]
    assert sum(sizes) == 100 and len(sizes) == row["n_clusters"]
    assert len(row["labels"].split()) == 100
    cmp = pd.read_csv(out / "comparison.csv")
    # every Food row of Section V-B reproduced on the paper's 190,376 unique triplets (4 clusters, one a
    # singleton; the density claim; the run time); the full file's 250,320 run as a second, labelled setting
    # with no reference row of its own (the paper names only the unique count); Nature waits for its
    # (non-public) triplets
    show = cmp[["ref_id", "ours", "status"]]
    food = cmp["ref_id"].str.endswith("/food100")
    timed = cmp["ref_id"].str.contains("_within_")  # a run-time claim: judged, but timing is never a test's assertion
    assert food.sum() == 5 and set(cmp.loc[food & ~timed, "status"]) == {"reproduced"}, show
    assert cmp.loc[food & timed, "status"].isin(["reproduced", "differs"]).all(), show
    assert not cmp["ref_id"].str.endswith("/food100_all").any(), show
    rest = ~food
    assert set(cmp.loc[rest, "status"]) == {"not run"} and cmp.loc[rest, "ref_id"].str.endswith("/nature").all()
    assert (out / "figures" / "cluster_sizes.png").is_file()
    members = pd.read_csv(out / "tables" / "cluster_members.csv")
    ls = members[members["algorithm"] == "Ls-AD-VC"]
    assert ls.groupby("dataset")["size"].sum().to_dict() == {"food100": 100, "food100_all": 100}
    # the paper's four clusters, one a singleton, on the unique triplets
    unique_sizes = ls.loc[ls["dataset"] == "food100", "size"]
    assert len(unique_sizes) == 4 and (unique_sizes == 1).sum() == 1
