"""Datasets of Aronsson & Chehreghani (2024), Section 4.1, as the active procedure sees them.

With a random sigma_0 the active procedure never reads features: only the
label vector matters.  ``labels_<name>`` builds that vector from the
cluster sizes the paper lists for each of its nine real datasets (items in
random order), so every panel of Figures 1-2 and 9-10 runs without the
image and text embeddings.  ``synthetic_blobs`` is the synthetic set: 500
ten-dimensional normal points in 10 equal clusters, with features.
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import make_blobs

from .._validation import check_positive_int, check_random_state
from ..registry import DATASETS
from .dataset import Dataset

#: Cluster sizes listed in Section 4.1 (paper's order) and the k of its k-means initialisation.
PAPER_CLUSTER_SIZES: dict[str, tuple[int, ...]] = {
    "20newsgroups": (46, 57, 45, 48, 63, 47, 48, 65, 51, 53, 39, 57, 46, 56, 65, 47, 52, 48, 38, 29),
    "cifar10": (91, 96, 107, 89, 99, 113, 96, 93, 112, 104),
    "mnist": (105, 109, 111, 112, 104, 86, 99, 88, 88, 98),
    "cardiotocography": (180, 275, 27, 35, 31, 148, 114, 62, 28, 100),
    "ecoli": (137, 76, 1, 2, 37, 26, 5, 52),
    "forest_type_mapping": (168, 84, 86, 185),
    "mushrooms": (503, 497),
    "user_knowledge": (111, 129, 116, 28, 19),
    "yeast": (319, 4, 31, 17, 28, 131, 169, 271, 12, 18),
}


def labels_from_sizes(sizes, shuffle: bool = True, random_state=None) -> np.ndarray:
    """Label vector with ``sizes[j]`` items of class ``j``, in random order when ``shuffle``.

    Examples
    --------
    >>> labels_from_sizes((2, 1), shuffle=False).tolist()
    [0, 0, 1]
    """
    sizes = [check_positive_int(s, "sizes") for s in sizes]
    y = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    if shuffle:
        y = check_random_state(random_state).permutation(y)
    return y


def _register_labels(name: str, sizes: tuple[int, ...]) -> None:
    def loader(shuffle: bool = True, random_state=None) -> Dataset:
        y = labels_from_sizes(sizes, shuffle, random_state)
        return Dataset(name=f"labels_{name}", y=y, params={"sizes": list(sizes), "shuffle": bool(shuffle)})

    loader.__name__ = f"labels_{name}"
    loader.__qualname__ = loader.__name__
    globals()[loader.__name__] = loader  # a module-level name: conf/dataset/<name>.yaml's _target_ imports it
    loader.__doc__ = (
        f"Labels only: {sum(sizes)} items in the {len(sizes)} clusters of sizes {sizes} "
        f"(Aronsson & Chehreghani 2024, Section 4.1, {name})."
    )
    DATASETS.register(f"labels_{name}")(loader)


for _name, _sizes in PAPER_CLUSTER_SIZES.items():
    _register_labels(_name, _sizes)


@DATASETS.register("synthetic_blobs")
def synthetic_blobs(n: int = 500, k: int = 10, d: int = 10, cluster_std: float = 1.0, random_state=None) -> Dataset:
    """``n`` normal points in ``d`` dimensions, ``k`` equal clusters (Aronsson & Chehreghani 2024, Section 4.1).

    scikit-learn's ``make_blobs``: centres uniform in [-10, 10]^d, unit
    spread; cluster sizes differ by at most one.  ``params["kmeans_k"] = k``
    for the k-means initialisation of sigma_0.
    """
    n = check_positive_int(n, "n")
    k = check_positive_int(k, "k")
    d = check_positive_int(d, "d")
    if k > n:
        raise ValueError(f"k must be at most n={n}, got k={k}")
    X, y = make_blobs(n_samples=n, centers=k, n_features=d, cluster_std=cluster_std,
                      random_state=np.random.RandomState(check_random_state(random_state).integers(0, 2**31 - 1)))
    return Dataset(name="synthetic_blobs", y=y.astype(np.int64), X=X.astype(np.float64),
                   params={"n": n, "k": k, "d": d, "kmeans_k": k})


__all__ = ["PAPER_CLUSTER_SIZES", "labels_from_sizes", "synthetic_blobs"]
