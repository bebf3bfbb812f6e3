"""UCI datasets of Zhu, Loy and Gong (2013, Table I) not already in :mod:`.uci`.

Glass, Segmentation (the 210-row ``segmentation.data``) and Parkinsons, one
:class:`~.uci.UCISpec` row each, read by :mod:`.uci`'s generic parser
(Iris and Ionosphere are registered there).  Features are left unscaled
here: the constrained-clustering estimators scale them to [-1, 1] themselves
(their ``scale="symmetric"``, the paper's Section III), so every dataset,
including the two of :mod:`.uci`, gets the same treatment.
"""

from __future__ import annotations

import numpy as np

from .._validation import unknown_name_error
from ..registry import DATASETS
from .dataset import Dataset
from .uci import _UCI, UCIFile, UCISpec, read_uci, scale_features

_GLASS = UCIFile(
    "glass/glass.data", "dd67373f4baf2807345df02cbfef2093d342e61ad0d82a4fb79af43ef8ce449d", _UCI + "glass/glass.data"
)
_SEGMENTATION = UCIFile(
    "segmentation/segmentation.data",
    "ed5b5aee8081bbe875357149f73f50d7085e22cc0897f5b52eb7b52fea969a5b",
    _UCI + "image/segmentation.data",
)
_PARKINSONS = UCIFile(
    "parkinsons/parkinsons.data",
    "a36116c2deac07895b79ce97a2f99a1b3720ac4892995ff5c3b9ccb397ed2bc5",
    _UCI + "parkinsons/parkinsons.data",
)

#: The datasets this module registers, one row each.
CONSTRAINED_SPECS: dict[str, UCISpec] = {
    s.name: s
    for s in (
        UCISpec(
            "glass",
            (_GLASS,),
            label_col=-1,
            drop_cols=(0,),  # the row Id (1..214, sorted by class: it would leak the label)
            description="Glass identification (214 x 9, 6 classes; the Id column dropped)",
            expected_shape=(214, 9),
        ),
        UCISpec(
            "segmentation",
            (_SEGMENTATION,),
            label_col=0,
            header_lines=5,  # two comment lines, a blank, the column names, a blank
            description="Image segmentation, segmentation.data (210 x 19, 7 classes of 30)",
            expected_shape=(210, 19),
        ),
        UCISpec(
            "parkinsons",
            (_PARKINSONS,),
            label_col=17,  # 'status' (1 = Parkinson's, 0 = healthy)
            header_lines=1,
            drop_cols=(0,),  # the recording's name
            description="Parkinsons (195 x 22, 2 classes; the name column dropped, label 'status')",
            expected_shape=(195, 22),
        ),
    )
}

#: Glass with its Id column kept as a feature (``keep_id=True``): the Id is
#: the row number and the file is sorted by class, so it nearly gives the
#: label away; kept only to test whether the paper's numbers were made so
#: (experiments/zhu2013/README.md).
_GLASS_WITH_ID = UCISpec(
    "glass",
    (_GLASS,),
    label_col=-1,
    description="Glass identification with the Id column as a 10th feature",
    expected_shape=(214, 10),
)

_CACHE: dict[tuple[str, bool], tuple[np.ndarray, np.ndarray]] = {}


def load_constrained_uci(name: str, scale: str = "none", random_state=None, keep_id: bool = False) -> Dataset:
    """Load ``glass``, ``segmentation`` or ``parkinsons``.

    Parameters
    ----------
    name : str
    scale : {"none", "standard", "minmax"}
        Column scaling of :func:`.uci.scale_features`; the experiments keep
        ``"none"`` and let the estimators scale to [-1, 1].
    random_state : ignored
        Accepted for the uniform loader interface; loading is deterministic.
    keep_id : bool
        Glass only: keep the Id column (1..214, rows sorted by class) as a
        feature instead of dropping it.

    Returns
    -------
    Dataset
        ``X`` float64 (n, d), ``y`` int64 codes in the sorted order of the
        class names, ``params`` with the class names and the scaling.
    """
    if name not in CONSTRAINED_SPECS:
        raise unknown_name_error("dataset", name, CONSTRAINED_SPECS)
    if not isinstance(keep_id, (bool, np.bool_)):
        raise ValueError(f"keep_id must be true or false, got {keep_id!r}")
    if keep_id and name != "glass":
        raise ValueError(f"keep_id applies to glass only (its row Id column); {name!r} has none to keep")
    spec = _GLASS_WITH_ID if keep_id else CONSTRAINED_SPECS[name]
    key = (name, bool(keep_id))
    if key not in _CACHE:
        _CACHE[key] = read_uci(spec)
    X, labels = _CACHE[key]
    if spec.expected_shape is not None and X.shape != spec.expected_shape:
        raise ValueError(f"{name}: parsed shape {X.shape}, expected {spec.expected_shape}")
    class_names, y = np.unique(labels, return_inverse=True)
    X = np.ascontiguousarray(scale_features(X.copy(), scale), dtype=np.float64)
    params = {"scale": scale, "classes": [str(c) for c in class_names]}
    if keep_id:
        params["keep_id"] = True
    return Dataset(name=name, y=y.astype(np.int64), X=X, params=params)


def _register(spec: UCISpec) -> None:
    def loader(random_state=None, scale="none", keep_id=False):
        return load_constrained_uci(spec.name, scale=scale, random_state=random_state, keep_id=keep_id)

    loader.__name__ = f"load_{spec.name}"
    loader.__qualname__ = loader.__name__
    globals()[loader.__name__] = loader  # a module-level name: conf/dataset/<name>.yaml's _target_ imports it
    loader.__doc__ = f"{spec.description}; see :func:`load_constrained_uci`."
    DATASETS.register(spec.name)(loader)


for _spec in CONSTRAINED_SPECS.values():
    _register(_spec)

__all__ = ["CONSTRAINED_SPECS", "load_constrained_uci"]
