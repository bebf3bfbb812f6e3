"""The arrays the authors of Aronsson & Chehreghani (2024) load, as datasets.

Their public repository (Linusaronsson/Active-Correlation-Clustering @
313d989df570437d0b004e1e8a0f354a750fbe62, ``datasets/<name>_data/X.npy`` and
``Y.npy``, Apache-2.0) holds the features after their preprocessing and the
labels as integers for their ten datasets; ``acc/run_experiments.py``
(``get_dataset``) loads exactly these.  They live under
``$CCEXP_DATA_DIR/aronsson2024/<name>_X.npy`` / ``<name>_Y.npy`` (see
``../shared/datasets/SOURCES.md``), sha256-checked on load.

* ``mnist_embedding``, ``cifar10_embedding`` (1000 x 3) and
  ``newsgroups20_embedding`` (1000 x 50): the image and text embeddings the
  k-means panels of Figures 3-4 and 11-12 need (the paper embeds with a CNN,
  ResNet18 and DistilBERT; the stored arrays are lower-dimensional, as the
  authors stored them);
* ``authors_<name>`` for the other seven (``ecoli``, ``yeast``,
  ``cardiotocography``, ``forest_type_mapping``, ``user_knowledge``,
  ``mushrooms``, ``breast_cancer``): their preprocessing of the UCI files
  (1000-row samples where the paper samples), beside our own loaders of the
  original files in :mod:`ccexp.data.uci_active`.

``params["kmeans_k"]`` is the paper's k of the k-means initialisation
(Section 4.1; breast cancer, not in the paper: its 2 classes).
``params["stored_kmeans_n_init"]`` is the number of k-means initialisations
behind the authors' stored runs of the dataset, as measured on them
(experiments/aronsson2024/README.md, ``#authors-kmeans-stored-rows-n-init``):
their ``KMeans(n_clusters=k, random_state=14)`` takes the library's default,
and scikit-learn >= 1.4's ``n_init="auto"`` (one initialisation for
k-means++) gives their iteration-0 ARI to 6 decimals on eight datasets;
mushrooms' matches only the 10 initialisations of scikit-learn 1.0.2, the
version their requirements pin.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .._validation import unknown_name_error
from ..registry import DATASETS
from .dataset import Dataset
from .files import data_file
from .uci import UCIFile

COMMIT = "313d989df570437d0b004e1e8a0f354a750fbe62"
_RAW = f"https://raw.githubusercontent.com/Linusaronsson/Active-Correlation-Clustering/{COMMIT}/datasets/"


@dataclass(frozen=True)
class ArraySpec:
    """One dataset: its ``X.npy`` and ``Y.npy`` (a row of :data:`ARRAY_SPECS`).

    ``files`` is ``(X, Y)``, each a :class:`~ccexp.data.uci.UCIFile` (path
    under the data folder, sha256, download URL), so the data manifest
    lists them like every other loader's files.
    """

    name: str
    files: tuple[UCIFile, UCIFile]
    kmeans_k: int
    description: str
    stored_kmeans_n_init: int = 1


def _spec(name: str, stem: str, folder: str, sha_x: str, sha_y: str, kmeans_k: int, description: str,
          stored_kmeans_n_init: int = 1) -> ArraySpec:
    return ArraySpec(
        name,
        (UCIFile(f"aronsson2024/{stem}_X.npy", sha_x, f"{_RAW}{folder}/X.npy"),
         UCIFile(f"aronsson2024/{stem}_Y.npy", sha_y, f"{_RAW}{folder}/Y.npy")),
        kmeans_k,
        description,
        stored_kmeans_n_init,
    )


ARRAY_SPECS: dict[str, ArraySpec] = {
    s.name: s
    for s in (
        _spec("mnist_embedding", "mnist", "mnist_data",
              "b2bdf4632e11e6fffbf52c6e51035e70d2c2fd87cfe5f5bbc55c0f33a91ab119",
              "ba81412c5167d79749a2f38c182523918147be39bd0afdde05bffcdbdc8430d3", 3,
              "MNIST, the authors' 3-d embedding of 1000 images (10 classes)"),
        _spec("cifar10_embedding", "cifar10", "cifar10_data",
              "367f2c9f9eda5c9781f4aa4075d6187f6212076c990869686901f538ebdc6244",
              "2d2e5cb5f47344ba9aa3134bea1e697e17846f5c1d2b14505ef6a9ae2a193367", 3,
              "CIFAR10, the authors' 3-d embedding of 1000 images (10 classes)"),
        _spec("newsgroups20_embedding", "20newsgroups", "20newsgroups_data",
              "5d33d3c2e294f5d164cacffd12ccc9da3bb75d714bed0164a2f054f3363041da",
              "b6ee30667b494a3e3a7b912a42c6f9d80b54c13ff16686fd6f768fcce006556f", 20,
              "20newsgroups, the authors' 50-d embedding of 1000 posts (20 classes)"),
        _spec("authors_ecoli", "ecoli", "ecoli_data",
              "c714e25ebcad57155d9015015c7c507417d7973e1c46c3e06b39108d2c19818a",
              "d900cbf847fcac32716fff49129e03ef15d7980250f83a785f5282fde3331f79", 10,
              "Ecoli as the authors preprocessed it (336 x 7, 8 classes)"),
        _spec("authors_yeast", "yeast", "yeast_data",
              "5d509ee4fe6d54110daee24516c76688b0c4b622e153493ce8400a8c748af763",
              "2c8a93b4131a87ab6507fb1e5db929a9ebb1ee144f86ea1975e1b40d23f82f77", 10,
              "Yeast as the authors preprocessed it (1000 x 8, 10 classes)"),
        _spec("authors_cardiotocography", "cardiotocography", "cardiotocography_data",
              "2c3fb8e5d9e2d2616de34a5c12fcf0b77363424a99bc1ea85de0f369252d6d1b",
              "bc01e899a8b4dc2a3635ce12eb8aea880e9ec8f86d902955b68fa17f8c4f2e9f", 10,
              "Cardiotocography as the authors preprocessed it (1000 x 21, 10 classes)"),
        _spec("authors_forest_type_mapping", "ForestTypeMapping", "ForestTypeMapping_data",
              "59bdf80f01b6d9f34fe3407dffa10638b3bc692128f093cf910fa1b64aba2d67",
              "24fd0f6c260d62e84fc7071d3576b052d0129a6f09deca2ecddd2f20e179b0a6", 10,
              "Forest type mapping as the authors preprocessed it (523 x 27, 4 classes)"),
        _spec("authors_user_knowledge", "user_knowledge", "user_knowledge_data",
              "3523115bf3a3fb465b7cfe3436da0ef6adb2ecdceb5e7d1286385d7caad6df95",
              "8f22a1b0dc970db89e9b2c07529c9b674c9700caa957e81a6013215bea56dead", 5,
              "User knowledge modelling as the authors preprocessed it (403 x 5, 5 classes)"),
        _spec("authors_mushrooms", "mushrooms", "mushrooms_data",
              "21c448ead09cb6fcf36733302cc829c2a40a42c6f69949e8fceaa1d489600d83",
              "147dfc0b435a6309718b0f17e9187a9daf37431a6414e4a8245b0d244435b62c", 2,
              "Mushrooms as the authors preprocessed it (1000 x 116 one-hot, 2 classes)",
              stored_kmeans_n_init=10),
        _spec("authors_breast_cancer", "breast_cancer", "breast_cancer_data",
              "8aba813e6ae0ab3f3339b4fe7ffc6dfd298cb9e8f5fd740fed40aee85797292d",
              "116993229e4c6be4e47d2030357a8b51bb91704d96a59bb5bfe1c581e5dbd962", 2,
              "Breast cancer as the authors preprocessed it (569 x 30, 2 classes; not in the paper)"),
    )
}


@lru_cache(maxsize=16)
def _read(name: str) -> tuple[np.ndarray, np.ndarray]:
    spec = ARRAY_SPECS[name]
    fx, fy = spec.files
    # allow_pickle=False: plain numeric arrays only
    X = np.load(data_file(fx.relpath, sha256=fx.sha256, url=fx.url, dataset=name), allow_pickle=False)
    y = np.load(data_file(fy.relpath, sha256=fy.sha256, url=fy.url, dataset=name), allow_pickle=False)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"{name}: X {X.shape} and Y {y.shape} do not describe one table")
    return X, y


def load_array_dataset(name: str, random_state=None) -> Dataset:
    """Load the dataset ``name`` of :data:`ARRAY_SPECS` (features float64, labels 0..k-1).

    Parameters
    ----------
    name : str
    random_state : ignored
        Loading is deterministic; items keep the authors' order.
    """
    if name not in ARRAY_SPECS:
        raise unknown_name_error("dataset", name, ARRAY_SPECS)
    X, y = _read(name)
    classes, y = np.unique(y, return_inverse=True)
    spec = ARRAY_SPECS[name]
    params = {"kmeans_k": spec.kmeans_k, "stored_kmeans_n_init": spec.stored_kmeans_n_init,
              "source": f"Linusaronsson/Active-Correlation-Clustering@{COMMIT[:7]}"}
    return Dataset(name=name, y=y.astype(np.int64), X=np.ascontiguousarray(X, dtype=np.float64), params=params)


def _register(spec: ArraySpec) -> None:
    def loader(random_state=None):
        return load_array_dataset(spec.name)

    loader.__name__ = f"load_{spec.name}"
    loader.__qualname__ = loader.__name__
    globals()[loader.__name__] = loader  # a module-level name: conf/dataset/<name>.yaml's _target_ imports it
    loader.__doc__ = f"{spec.description}; Aronsson & Chehreghani (2024), the authors' stored arrays."
    DATASETS.register(spec.name)(loader)


for _s in ARRAY_SPECS.values():
    _register(_s)
