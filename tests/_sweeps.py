"""A small triplet sweep shared by the runner tests: 2 k x 2 noise levels x 2 trials, two algorithms."""

SMALL = {
    "name": "small",
    "paper": "ukkonen2017",
    "scale": "test",
    "algorithms": ["ls_ad_vc", "ls_eq"],
    "trials": 2,
    "sweep": {"dataset": {"k": [2, 4]}, "oracle": {"fraction": [0.05], "noise": [0.0, 0.2]}},
    "single_trial": [{"oracle.noise": 0.0}],
}
DATASET = {"name": "synthetic_labels", "n": 40, "k": 4}
ORACLE = {"name": "triplets", "fraction": 1.0, "noise": 0.0, "ambiguous": "rotate", "order": "shuffled"}
