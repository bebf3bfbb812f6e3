"""UCI datasets read from their original files, described by one table.

Each dataset is a :class:`UCISpec` row of :data:`UCI_SPECS`: the files (with
the sha256 of the original file and its UCI download URL),
where the label sits, the header lines to skip and, for subsets, which
classes to keep or how many rows to sample.  One generic parser reads every
CSV-like UCI file; adding a dataset (glass, segmentation, parkinsons, ...) is
one more row::

    UCISpec("glass", files=(UCIFile("glass/glass.data", "<sha256>", "<url>"),),
            label_col=-1, drop_cols=(0,))   # column 0 is the row Id

The loaders are registered as ``iris``, ``wine``, ``ionosphere``,
``transfusion``, ``digits389``, ``letters_ijlt``, ``letters3000`` and
``digits3000`` (Liu, Zhang and Wang 2011, Table 1 and Section 5.3).  Every
loader takes ``scale`` (``"none"``, ``"standard"`` or ``"minmax"``) for the
experiments that want comparable feature ranges; features are float64 and
labels int64 codes ``0 .. k-1`` in the sorted order of the class names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
import numpy as np

from .._validation import check_positive_int, check_random_state, unknown_name_error
from ..registry import DATASETS
from .dataset import Dataset
from .files import data_file

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"

SCALINGS = ("none", "standard", "minmax")


@dataclass(frozen=True)
class UCIFile:
    """One original file: path under ``$CCEXP_DATA_DIR``, checksum, download URL."""

    relpath: str
    sha256: str
    url: str


@dataclass(frozen=True)
class UCISpec:
    """How to read one UCI dataset (one row of :data:`UCI_SPECS`).

    Parameters
    ----------
    name : str
        Registry name.
    files : tuple of UCIFile
        Read in order and stacked (e.g. pendigits ``.tra`` then ``.tes``).
    label_col : int
        Column of the class label (negative counts from the end).
    header_lines : int
        Lines skipped at the top of every file (a CSV header).
    comment : str or None
        Lines starting with this prefix are skipped.
    drop_cols : tuple of int
        Columns that are neither features nor the label (row ids, names).
    classes : tuple of str or None
        Keep only rows of these classes (the raw label text).
    sample : int or None
        Keep a random sample of this many rows, drawn with ``sample_seed``.
    description : str
        One line for the registry's docstring.
    """

    name: str
    files: tuple[UCIFile, ...]
    label_col: int
    header_lines: int = 0
    comment: str | None = None
    drop_cols: tuple[int, ...] = ()
    classes: tuple[str, ...] | None = None
    sample: int | None = None
    description: str = ""
    expected_shape: tuple[int, int] | None = field(default=None, compare=False)


_IRIS = UCIFile(
    "iris/iris.data", "6f608b71a7317216319b4d27b4d9bc84e6abd734eda7872b71a458569e2656c0", _UCI + "iris/iris.data"
)
_WINE = UCIFile(
    "wine/wine.data", "6be6b1203f3d51df0b553a70e57b8a723cd405683958204f96d23d7cd6aea659", _UCI + "wine/wine.data"
)
_IONOSPHERE = UCIFile(
    "ionosphere/ionosphere.data",
    "46d52186b84e20be52918adb93e8fb9926b34795ff7504c24350ae0616a04bbd",
    _UCI + "ionosphere/ionosphere.data",
)
_TRANSFUSION = UCIFile(
    "transfusion/transfusion.data",
    "96c8e1091b9c037bcaf25a19b24b49d07771cd88689ffd273e056e9e8845ffe7",
    _UCI + "blood-transfusion/transfusion.data",
)
_PENDIGITS = (
    UCIFile(
        "pendigits/pendigits.tra",
        "e2b9eb9f0d0467e2b64a4816a3420edf2b8043447576f4b84337aba44a9f97d3",
        _UCI + "pendigits/pendigits.tra",
    ),
    UCIFile(
        "pendigits/pendigits.tes",
        "8bd03229c5c5291fefe43e45465dd948d2645bf23328b9d993e0b777666b2015",
        _UCI + "pendigits/pendigits.tes",
    ),
)
_LETTER = UCIFile(
    "letter/letter-recognition.data",
    "2b89f3602cf768d3c8355267d2f13f2417809e101fc2b5ceee10db19a60de6e2",
    _UCI + "letter-recognition/letter-recognition.data",
)

#: The UCI datasets this module registers, one row each.
UCI_SPECS: dict[str, UCISpec] = {
    s.name: s
    for s in (
        UCISpec("iris", (_IRIS,), label_col=-1, description="Iris (150 x 4, 3 classes)", expected_shape=(150, 4)),
        UCISpec("wine", (_WINE,), label_col=0, description="Wine (178 x 13, 3 classes)", expected_shape=(178, 13)),
        UCISpec(
            "ionosphere",
            (_IONOSPHERE,),
            label_col=-1,
            description="Ionosphere (351 x 34, 2 classes)",
            expected_shape=(351, 34),
        ),
        UCISpec(
            "transfusion",
            (_TRANSFUSION,),
            label_col=-1,
            header_lines=1,
            description="Blood transfusion (748 x 4, 2 classes)",
            expected_shape=(748, 4),
        ),
        UCISpec(
            "digits389",
            _PENDIGITS,
            label_col=-1,
            classes=("3", "8", "9"),
            description="Pen digits 3, 8, 9 from .tra and .tes (3165 x 16, 3 classes)",
            expected_shape=(3165, 16),
        ),
        UCISpec(
            "letters_ijlt",
            (_LETTER,),
            label_col=0,
            classes=("I", "J", "L", "T"),
            description="Letters I, J, L, T (3059 x 16, 4 classes)",
            expected_shape=(3059, 16),
        ),
        UCISpec(
            "letters3000",
            (_LETTER,),
            label_col=0,
            sample=3000,
            description="3000 letters sampled from all 26 classes (Liu et al. 2011, Section 5.3)",
            expected_shape=(3000, 16),
        ),
        UCISpec(
            "digits3000",
            _PENDIGITS,
            label_col=-1,
            sample=3000,
            description="3000 pen digits sampled from all 10 classes (Liu et al. 2011, Section 5.3)",
            expected_shape=(3000, 16),
        ),
    )
}


def _read_rows(path, spec: UCISpec) -> list[list[str]]:
    """Comma-separated fields of the data lines, whitespace around fields stripped.

    Handles the quirks of the original files: a trailing empty line (iris),
    CRLF endings and spaces before commas (transfusion), right-aligned
    fields (pendigits).
    """
    with open(path, encoding="utf-8", newline="") as fh:
        lines = fh.read().splitlines()
    rows = []
    for line in lines[spec.header_lines :]:
        if not line.strip() or (spec.comment and line.startswith(spec.comment)):
            continue
        rows.append([f.strip() for f in line.split(",")])
    return rows


def read_uci(spec: UCISpec) -> tuple[np.ndarray, np.ndarray]:
    """Parse a spec's files into raw features and raw label strings, in file order.

    Every call checks that the files exist (and their sha256, once per
    path); the parse itself is cached per spec and paths.

    Returns
    -------
    X : float64 array (n, d)
    labels : str array (n,)
        The raw label text of each row.
    """
    paths = tuple(
        str(data_file(f.relpath, sha256=f.sha256, url=f.url, dataset=spec.name)) for f in spec.files
    )
    X, labels = _parse(spec, paths)
    return X.copy(), labels.copy()


@lru_cache(maxsize=8)
def _parse(spec: UCISpec, paths: tuple[str, ...]):
    # Parsing letter-recognition takes ~0.1 s; a sweep loads it for every instance.
    rows: list[list[str]] = []
    for path in paths:
        rows.extend(_read_rows(path, spec))
    width = len(rows[0])
    bad = next((i for i, r in enumerate(rows) if len(r) != width), None)
    if bad is not None:
        raise ValueError(f"{spec.name}: row {bad} of {paths} has {len(rows[bad])} fields, expected {width}")
    table = np.array(rows, dtype=object)
    label_col = spec.label_col % width
    drop = {c % width for c in spec.drop_cols} | {label_col}
    keep = [c for c in range(width) if c not in drop]
    return table[:, keep].astype(np.float64), table[:, label_col].astype(str)


def scale_features(X: np.ndarray, scale: str) -> np.ndarray:
    """Scale columns: ``"none"``, ``"standard"`` (zero mean, unit variance) or ``"minmax"`` ([0, 1]).

    Constant columns (ionosphere's second) are left at 0 instead of dividing by zero.
    """
    if scale not in SCALINGS:
        raise unknown_name_error("scale", scale, SCALINGS)
    if scale == "none":
        return X
    if scale == "standard":
        centre, spread = X.mean(axis=0), X.std(axis=0)
    else:
        centre, spread = X.min(axis=0), X.max(axis=0) - X.min(axis=0)
    spread = np.where(spread > 0, spread, 1.0)
    return (X - centre) / spread


def load_uci(name: str, scale: str = "none", n: int | None = None, sample_seed: int = 0, random_state=None) -> Dataset:
    """Load the UCI dataset ``name`` of :data:`UCI_SPECS`.

    Parameters
    ----------
    name : str
    scale : {"none", "standard", "minmax"}
        Column scaling, applied after the class filter and the sample.
    n : int, optional
        Sample size for the sampled datasets (default: the spec's, 3000).
    sample_seed : int
        Seed of the sample (sampled datasets only).  It is a parameter of the
        dataset, not of the trial: ``letters3000`` is one fixed sample, as in
        the paper, unless the config sweeps ``sample_seed``.
    random_state : ignored
        Accepted for the uniform loader interface; loading is deterministic.

    Returns
    -------
    Dataset
        ``X`` float64 (n, d), ``y`` int64 codes in the sorted order of the
        class names, ``params`` with the class names and the scaling.
    """
    if name not in UCI_SPECS:
        raise unknown_name_error("UCI dataset", name, UCI_SPECS)
    spec = UCI_SPECS[name]
    X, labels = read_uci(spec)
    if spec.classes is not None:
        mask = np.isin(labels, spec.classes)
        X, labels = X[mask], labels[mask]
    params = {"scale": scale}
    if spec.sample is not None:
        n = check_positive_int(spec.sample if n is None else n, "n")
        if n > X.shape[0]:
            raise ValueError(f"n must be at most {X.shape[0]} for {name}, got {n}")
        rows = np.sort(check_random_state(sample_seed, "sample_seed").choice(X.shape[0], size=n, replace=False))
        X, labels = X[rows], labels[rows]
        params.update(n=n, sample_seed=int(sample_seed))
    elif n is not None:
        raise ValueError(f"n applies to the sampled datasets only, not to {name}")
    class_names, y = np.unique(labels, return_inverse=True)
    X = np.ascontiguousarray(scale_features(X, scale), dtype=np.float64)
    params["classes"] = [str(c) for c in class_names]
    return Dataset(name=name, y=y.astype(np.int64), X=X, params=params)


def _register(spec: UCISpec) -> None:
    if spec.sample is not None:
        def loader(random_state=None, scale="none", n=spec.sample, sample_seed=0):  # the default lives here, once
            return load_uci(spec.name, scale=scale, n=n, sample_seed=sample_seed, random_state=random_state)
    else:  # named parameters only, so that a wrong keyword is refused with the valid ones listed
        def loader(random_state=None, scale="none"):
            return load_uci(spec.name, scale=scale, random_state=random_state)

    loader.__name__ = f"load_{spec.name}"
    loader.__qualname__ = loader.__name__
    globals()[loader.__name__] = loader  # a module-level name: conf/dataset/<name>.yaml's _target_ imports it
    loader.__doc__ = f"{spec.description}; see :func:`load_uci` for the parameters."
    DATASETS.register(spec.name)(loader)


for _spec in UCI_SPECS.values():
    _register(_spec)

__all__ = ["UCIFile", "UCISpec", "UCI_SPECS", "load_uci", "read_uci", "scale_features"]
