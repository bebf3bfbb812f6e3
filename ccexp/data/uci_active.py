"""Feature datasets of Aronsson & Chehreghani (2024), Section 4.1, read from their UCI files.

For the k-means initialisation of sigma_0 (Figures 3-4, 11-12) and for the
feature-based baselines.  One table row per dataset, as in
:mod:`ccexp.data.uci` (whose :class:`~ccexp.data.uci.UCIFile` and
:func:`~ccexp.data.uci.scale_features` are reused): ecoli and yeast are
whitespace-aligned text, forest type mapping a CSV pair, cardiotocography
and user knowledge the CSV exports of their Excel sheets (reading the
original ``.xls`` would need ``xlrd``, not a dependency here; the exports
are rebuilt and checked by ``python -m ccexp.data fetch``).  ``mushroom_onehot``
one-hot encodes the 22 categorical attributes of :func:`ccexp.data.categorical.mushroom`.

Where a set is larger than N = 1000 (cardiotocography, yeast, mushrooms)
the loader draws 1000 rows uniformly without replacement with
``sample_seed``, as the paper samples; ``params["kmeans_k"]`` is the
paper's k for k-means.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .._validation import check_positive_int, check_random_state, unknown_name_error
from ..registry import DATASETS
from .dataset import Dataset
from .categorical import mushroom
from .files import data_file
from .uci import UCIFile, scale_features

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"


@dataclass(frozen=True)
class ActiveSpec:
    """How to read one dataset (a row of :data:`ACTIVE_SPECS`).

    Parameters
    ----------
    name : str
        Registry name.
    files : tuple of UCIFile
        Read in order and stacked.
    sep : {"whitespace", "comma"}
    label_col : int
        Column of the class label (negative counts from the end).
    header_lines : int
    drop_cols : tuple of int
        Neither features nor label (sequence names).
    sample : int or None
        Default sample size (the paper's N = 1000).
    kmeans_k : int
        The k of the paper's k-means initialisation.
    """

    name: str
    files: tuple[UCIFile, ...]
    sep: str
    label_col: int
    kmeans_k: int
    header_lines: int = 0
    drop_cols: tuple[int, ...] = ()
    sample: int | None = None
    description: str = ""


ACTIVE_SPECS: dict[str, ActiveSpec] = {
    s.name: s
    for s in (
        ActiveSpec(
            "ecoli",
            (UCIFile("ecoli/ecoli.data", "008bd8fbb1d8b34040c3c8c4e987cac2a7ebf116e008b140cc6441be5261ba1d",
                     _UCI + "ecoli/ecoli.data"),),
            sep="whitespace", label_col=-1, drop_cols=(0,), kmeans_k=10,
            description="Ecoli (336 x 7, 8 classes)",
        ),
        ActiveSpec(
            "yeast",
            (UCIFile("yeast/yeast.data", "7cf61776fc04f527f93bf57a327b863893a1225d82df02d457e8950173218258",
                     _UCI + "yeast/yeast.data"),),
            sep="whitespace", label_col=-1, drop_cols=(0,), kmeans_k=10, sample=1000,
            description="Yeast (1484 x 8, 10 classes; 1000 sampled)",
        ),
        ActiveSpec(
            "cardiotocography",
            (UCIFile("cardiotocography/CTG_Data_sheet_export.csv",
                     "328e7c0bdae051d6a0c23085e254f25d161638192fbcab52715dca74f658c3d8",
                     _UCI + "00193/CTG.xls"),),
            # columns LB..Tendency (21 features), CLASS (label), NSP (dropped)
            sep="comma", label_col=-2, drop_cols=(-1,), header_lines=1, kmeans_k=10, sample=1000,
            description="Cardiotocography (2126 x 21, 10 classes CLASS; 1000 sampled)",
        ),
        ActiveSpec(
            "forest_type_mapping",
            (UCIFile("forest_type_mapping/training.csv",
                     "d63da464655f4ec7c95bb310f560adecc7b716258bc379e4e0ca59f91a5ebf18",
                     "https://archive.ics.uci.edu/static/public/333/forest+type+mapping.zip"),
             UCIFile("forest_type_mapping/testing.csv",
                     "8f1dc6b2e437122f958d0ec96b81c32f5c175b57ad901de8fe4052e2443bd315",
                     "https://archive.ics.uci.edu/static/public/333/forest+type+mapping.zip")),
            sep="comma", label_col=0, header_lines=1, kmeans_k=10,
            description="Forest type mapping, training + testing (523 x 27, 4 classes)",
        ),
        ActiveSpec(
            "user_knowledge",
            (UCIFile("user_knowledge/user_knowledge_Training_Data_export.csv",
                     "168ccfa5e252416acac61e4af484bd6b1e60eaa1caba4f41eb4b537152fb9ad2",
                     _UCI + "00257/Data_User_Modeling_Dataset_Hamdi%20Tolga%20KAHRAMAN.xls"),
             UCIFile("user_knowledge/user_knowledge_Test_Data_export.csv",
                     "afd9271da55915a58f8f53eccb2d65fdf5484d6a7800336b78728662daa5ee09",
                     _UCI + "00257/Data_User_Modeling_Dataset_Hamdi%20Tolga%20KAHRAMAN.xls")),
            sep="comma", label_col=-1, header_lines=1, kmeans_k=5,
            description="User knowledge modelling, training + test sheets (403 x 5, 4 classes)",
        ),
    )
}


def _normalise_label(text: str) -> str:
    # 'very_low' (training sheet) and 'Very Low' (test sheet) are one class;
    # forest labels carry a trailing space
    return text.strip().lower().replace("_", " ")


def read_active(spec: ActiveSpec) -> tuple[np.ndarray, np.ndarray]:
    """Raw features (float64) and normalised label strings of a spec's files, in file order."""
    rows: list[list[str]] = []
    for f in spec.files:
        path = data_file(f.relpath, sha256=f.sha256, url=f.url, dataset=spec.name)
        with open(path, encoding="utf-8", newline="") as fh:
            lines = fh.read().splitlines()[spec.header_lines:]
        for line in lines:
            if not line.strip():
                continue
            rows.append(line.split() if spec.sep == "whitespace" else [x.strip() for x in line.split(",")])
    width = len(rows[0])
    bad = next((i for i, r in enumerate(rows) if len(r) != width), None)
    if bad is not None:
        raise ValueError(f"{spec.name}: row {bad} has {len(rows[bad])} fields, expected {width}")
    table = np.array(rows, dtype=object)
    label_col = spec.label_col % width
    drop = {c % width for c in spec.drop_cols} | {label_col}
    keep = [c for c in range(width) if c not in drop]
    labels = np.array([_normalise_label(t) for t in table[:, label_col]])
    return table[:, keep].astype(np.float64), labels


@lru_cache(maxsize=8)
def _read_cached(spec: ActiveSpec):
    return read_active(spec)


def _finish(name, X, labels, spec_sample, kmeans_k, n, sample_seed, scale) -> Dataset:
    params: dict = {"scale": scale, "kmeans_k": kmeans_k}
    if n is None:
        n = spec_sample
    if n is not None:
        n = check_positive_int(n, "n")
        if n > X.shape[0]:
            raise ValueError(f"n must be at most {X.shape[0]} for {name}, got {n}")
        if n < X.shape[0]:
            rows = np.sort(check_random_state(sample_seed, "sample_seed").choice(X.shape[0], size=n, replace=False))
            X, labels = X[rows], labels[rows]
            params.update(n=n, sample_seed=int(sample_seed))
    class_names, y = np.unique(labels, return_inverse=True)
    params["classes"] = [str(c) for c in class_names]
    X = np.ascontiguousarray(scale_features(X, scale), dtype=np.float64)
    return Dataset(name=name, y=y.astype(np.int64), X=X, params=params)


def load_active(name: str, n: int | None = None, sample_seed: int = 0, scale: str = "none", random_state=None) -> Dataset:
    """Load the dataset ``name`` of :data:`ACTIVE_SPECS`.

    Parameters
    ----------
    n : int, optional
        Rows to sample (default: the paper's 1000 for the larger sets, all
        rows otherwise).
    sample_seed : int
        Seed of the sample: a parameter of the dataset, not of the trial.
    scale : {"none", "standard", "minmax"}
    random_state : ignored
        Loading is deterministic.
    """
    if name not in ACTIVE_SPECS:
        raise unknown_name_error("dataset", name, ACTIVE_SPECS)
    spec = ACTIVE_SPECS[name]
    X, labels = _read_cached(spec)
    return _finish(name, X.copy(), labels.copy(), spec.sample, spec.kmeans_k, n, sample_seed, scale)


def _register(spec: ActiveSpec) -> None:
    def loader(n=None, sample_seed=0, scale="none", random_state=None):
        return load_active(spec.name, n=n, sample_seed=sample_seed, scale=scale)

    loader.__name__ = f"load_{spec.name}"
    loader.__qualname__ = loader.__name__
    globals()[loader.__name__] = loader  # a module-level name: conf/dataset/<name>.yaml's _target_ imports it
    loader.__doc__ = f"{spec.description}; see :func:`load_active` for the parameters."
    DATASETS.register(spec.name)(loader)


for _spec in ACTIVE_SPECS.values():
    _register(_spec)


@DATASETS.register("mushroom_onehot")
def mushroom_onehot(n: int | None = None, sample_seed: int = 0, scale: str = "none", random_state=None) -> Dataset:
    """Mushroom with its 22 categorical attributes one-hot encoded (a missing '?' is all zeros).

    1000 rows sampled by default, k-means k = 2 (Section 4.1).
    """
    ds = mushroom()
    C = ds.categorical
    blocks = [(C[:, j][:, None] == np.arange(C[:, j].max() + 1)[None, :]) for j in range(C.shape[1])]
    X = np.concatenate(blocks, axis=1).astype(np.float64)
    labels = np.array([str(v) for v in ds.y])
    return _finish("mushroom_onehot", X, labels, 1000, 2, n, sample_seed, scale)


__all__ = ["ACTIVE_SPECS", "ActiveSpec", "load_active", "mushroom_onehot", "read_active"]
