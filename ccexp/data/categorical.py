"""Categorical UCI tables of Gionis et al. (2007, Section 5.2): Votes, Mushrooms, Census.

Each loader parses the original UCI file (checked against the sha256 of
the original file) into integer codes per attribute, ``-1``
for the missing marker ``'?'``, with the class label codes as ``y``.
Codes number the values in order of first appearance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..registry import DATASETS
from .dataset import Dataset
from .files import data_file
from .uci import UCIFile

UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"

#: The original file of each loader (its sha256 and UCI URL).
FILES = {
    "house_votes": UCIFile(
        "house_votes/house-votes-84.data",
        "c87c14110a5ba91d4a1e313ec7392824458152bf071fa5f5452340488337936e",
        UCI + "voting-records/house-votes-84.data",
    ),
    "mushroom": UCIFile(
        "mushroom/agaricus-lepiota.data",
        "e65d082030501a3ebcbcd7c9f7c71aa9d28fdfff463bf4cf4716a3fe13ac360e",
        UCI + "mushroom/agaricus-lepiota.data",
    ),
    "adult": UCIFile(
        "adult/adult.data",
        "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
        UCI + "adult/adult.data",
    ),
}

#: The 8 categorical attributes of adult.data (0-based columns).
ADULT_CATEGORICAL = (1, 3, 5, 6, 7, 8, 9, 13)


def _codes(table: pd.DataFrame) -> np.ndarray:
    """Integer codes per column in order of first appearance, -1 for '?'."""
    out = np.empty(table.shape, dtype=np.int64)
    for j, col in enumerate(table.columns):
        values = table[col].where(table[col] != "?")
        out[:, j] = pd.factorize(values, use_na_sentinel=True)[0]
    return out


def _path(name: str):
    f = FILES[name]
    return data_file(f.relpath, sha256=f.sha256, url=f.url, dataset=name)


def _labels(col: pd.Series) -> np.ndarray:
    return pd.factorize(col)[0].astype(np.int64)


@DATASETS.register("house_votes")
def house_votes(random_state=None) -> Dataset:
    """Congressional Voting Records (UCI house-votes-84): 435 rows, 16 y/n votes, '?' missing.

    ``y``: 0 = republican, 1 = democrat (order of first appearance).
    """
    path = _path("house_votes")
    df = pd.read_csv(path, header=None, dtype=str)
    return Dataset(name="house_votes", y=_labels(df[0]), categorical=_codes(df.iloc[:, 1:]))


@DATASETS.register("mushroom")
def mushroom(random_state=None) -> Dataset:
    """Mushroom (UCI agaricus-lepiota): 8,124 rows, 22 categorical attributes, '?' in stalk-root.

    ``y``: 0 = poisonous, 1 = edible (order of first appearance).
    """
    path = _path("mushroom")
    df = pd.read_csv(path, header=None, dtype=str)
    return Dataset(name="mushroom", y=_labels(df[0]), categorical=_codes(df.iloc[:, 1:]))


@DATASETS.register("adult")
def adult(random_state=None) -> Dataset:
    """Census (UCI adult.data): 32,561 rows; the 8 categorical attributes, '?' missing.

    The 6 numeric attributes are kept as ``X`` (float); ``y``: 0 = <=50K, 1 = >50K.
    """
    path = _path("adult")
    df = pd.read_csv(path, header=None, dtype=str, sep=",", skipinitialspace=True)
    df = df.dropna(how="all")
    numeric = [c for c in range(14) if c not in ADULT_CATEGORICAL]
    return Dataset(
        name="adult",
        y=_labels(df[14]),
        X=df[numeric].astype(np.float64).to_numpy(),
        categorical=_codes(df[list(ADULT_CATEGORICAL)]),
    )
