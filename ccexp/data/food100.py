"""Food100: crowdsourced triplets over 100 food images (Wilber, Kwak & Belongie, HCOMP 2014).

Ukkonen (2017), Experiment 2, clusters these triplets with Ls-AD-VC.  The
loader parses the raw HIT files of the food100 dataset (``raw-json/``, one
file per experiment run; format in the dataset's README.md; ``python -m
ccexp.data fetch --datasets food100`` extracts them): on each non-catch grid screen a worker saw
a ``probe`` image and a grid of ``images`` and chose the ``near_answer``
images as the most similar, so every (probe, near, far) with ``near`` chosen
and ``far`` not chosen is a triplet "probe is closer to near than to far".
In Ukkonen's notation (a, b, c), c the outlier, it reads (probe, near, far).
"""

from __future__ import annotations

import json
from functools import lru_cache

import numpy as np

from ..registry import DATASETS
from .dataset import Dataset
from .files import data_dir, data_file

URL = "http://vision.cornell.edu/se3/wp-content/uploads/2014/09/food100-dataset.zip"
#: sha256 of that zip (the one cblearn's fetcher checks).
ARCHIVE_SHA256 = "18f5e210174dfdbf6a7b4ed7538cf8ba53fd65e0cbe193519231b8ab4ea8fc62"

#: sha256 of the 37 raw HIT files (food100-dataset.zip, ``raw-json/``), as
#: extracted to ``$CCEXP_DATA_DIR/food100/raw-json``.
RAW_FILES = {
    "grid12force1_rep1_food.json": "af4e659ac1b6d25d6caf4c7caee4ff6911f9c82a9dfd7212750b0085c0f7455c",
    "grid12force1_rep2_food.json": "5978c4dae76df21b126707e49d0cfc097c9e659d47c68d9f9fdc75fff5ea30fe",
    "grid12force1_rep3_food.json": "4f2d4b3b352352f34c445e5f9978f30c5f6b2b4e1f7fd26ba69c2bf6dd3e9ce0",
    "grid12force2_rep1_food.json": "fcb06f0516b426f15692a8d66131113f36d7d7bd569cb90cf0a240bbe1556311",
    "grid12force2_rep2_food.json": "d038765a132f64467015aeef5f6555b9f4f44678ad3047b8ce1139808b676a2a",
    "grid12force2_rep3_food.json": "b41c4d9a42f8874465009afa9955e1b379668173e07abbeb1ec3d93927da0adc",
    "grid12force4_rep1_food.json": "02f5db5ed19669f3d24c21ae3fffc8a1c4fe53c6b3ff2dc30d63e2acec8ac8b4",
    "grid12force4_rep2_food.json": "3ac13d34b3e6b55c591ce4521f93033495fa5c905e77840d667b0f950a083926",
    "grid12force4_rep3_food.json": "7b30117faa9f885f3533b0534b4a17c7a1e2d1c1a40bc305b2320e94e7e210a1",
    "grid16force1_rep1_food.json": "0fcb34361857b11658746b5275c17252d475035c18c703188b28ae1d84a68401",
    "grid16force1_rep2_food.json": "803670cc2645d0fe706975cdfaa5db68e0c1d36fb5f997927645c777f764a343",
    "grid16force1_rep3_food.json": "f1b5c90451ca71ebbda02b657cbc425bc0b06acb0c06bb6a86ef8412a2dff887",
    "grid16force2_rep1_food.json": "5ed485fdea4aa743b7fe1b25e4fde0ce0fa65e7a86addb99a793db3ef2858388",
    "grid16force2_rep2_food.json": "2455c6bf620f179a07ed83c1910889180be72cf2cdae5e9619a6bb4a935b3b7b",
    "grid16force2_rep3_food.json": "e78228141948fc51480c498ad6a609169cb767de2f16216aa73d02d6520798a0",
    "grid16force4_rep1_food.json": "c0b66edd4f76b4a84313b679fd2b2e3cabd119469f82c4e629c58710486d8105",
    "grid16force4_rep2_food.json": "98ee69a7e18850560dc02fa80e856001a2367504d3283cb25e91635c9452f644",
    "grid16force4_rep3_food.json": "a2089ce83f42dc875d5ae714ef28576e05526a6c8bf488f1568a6cfaf4e8391e",
    "grid2force1_rep1_food.json": "2af010f08ac68530773135c51bae35aea188c6c9dc507994c66ab11a3287541d",
    "grid2force1_rep2_food.json": "1376f7ead194f2fd0160c954b9a11375c79f6e166a663e6c2dc0a62cb4fc0110",
    "grid2force1_rep3_food.json": "8f0c3700c7df5b9602066b29b0aceccd5584c6b20a8cdba883b2a031cd0f0ad4",
    "grid4force1_rep1_food.json": "0923e5efe63d1938287cb544e103317e24b58f153bb0d9f0d3ac989d582800bf",
    "grid4force1_rep2_food.json": "51e068603e2d654999f57c94dde352cad656f4080810551374920a4602abd2d8",
    "grid4force1_rep3_food.json": "5dfe6d8a8b30e8f2dbe4df018c15155a625c9017ed3950ce031d4a287162b6e0",
    "grid4force2_rep1_food.json": "e1ca0eef435809820e8dc1f2dbf84d2254cf5ee89dfbe0e2e2305b169668d218",
    "grid4force2_rep2_food.json": "e609e1668f7e1ca73d878ea7580f8daa32d92f33200b773f6c88dbf4773bb2d8",
    "grid4force2_rep3_food.json": "e3333d1cd64a040d0df71dd8718b1d83f8fc86c920a8bd04d59cfa0f8ca8bdc3",
    "grid8force1_rep1_food.json": "b2418d5ee46af788a8e2623e4d82da07e0afb9e4469f7768aabf44d73169e5b8",
    "grid8force1_rep2_food.json": "f5e3c38351bf088f6b5effc35845217e2637fd49659b02bd358dfe39b2b9e515",
    "grid8force1_rep3_food.json": "1ff3cd339054a4a43176c06c4c6a72a6caf300ae7e73d072217ded42c0fa0b9f",
    "grid8force2_rep1_food.json": "cfb9a7ccbccf544d5e3e65c96ead1bc1ccac7d62ced305d934d2e09b7a667be6",
    "grid8force2_rep2_food.json": "d96da9b830b50fe9dad6ef734ae5f5b80cf770d11648c76714a5a89058a33df9",
    "grid8force2_rep3_food.json": "be19b47b2b76a0066a392efb629154b92435e73d9817ee6ff95ccfe20397d1a8",
    "grid8force4_rep1_food.json": "5911710b4f385289e46b99194e38524f1b19f55c7c5108041f176de049edd5e5",
    "grid8force4_rep2_food.json": "813b380f84b3062e3c2b64284ac310c39c57679e34c13abf5766980df16662cf",
    "grid8force4_rep3_food.json": "957d4595b6bf44c7f0997354c8c15f0e31de0da2b5f23137685e3f482d0a5081",
    "grid8force4_rep4_food.json": "50258e69e1f30a8dedc21bef8be760bbd120a8c67fc0684cda816a471fa3e5c9",
}

#: Counts the dataset's README states for its all-triplets.csv.
N_TRIPLETS = 250_320
N_UNIQUE = 190_376
N_IMAGES = 100


def parse_hits(hits) -> list[tuple[str, str, str]]:
    """The (probe, near, far) image triplets of one raw HIT file's content.

    Parameters
    ----------
    hits : list of dict
        The decoded JSON of one file: HITs with ``HIT_screens``.

    Returns
    -------
    list of (str, str, str)
        In file order: HITs, their screens, the chosen images in
        ``near_answer`` order, the others in grid order.  Catch-trial
        screens are skipped (as the dataset's own ``generate_all_triplets.py``
        does).
    """
    out = []
    for hit in hits:
        for screen in hit["HIT_screens"]:
            if screen.get("is_catchtrial"):
                continue
            probe = screen["probe"]
            near = screen["near_answer"]
            chosen = set(near)
            far = [im for im in screen["images"] if im not in chosen]
            out.extend((probe, n, f) for n in near for f in far)
    return out


@lru_cache(maxsize=2)
def _load_raw(data_root: str) -> tuple[tuple[str, ...], np.ndarray]:
    # data_root only keys the cache (the files live under $CCEXP_DATA_DIR).
    rows = []
    for name in sorted(RAW_FILES):
        path = data_file(f"food100/raw-json/{name}", sha256=RAW_FILES[name], url=URL, dataset="food100")
        with open(path, encoding="utf-8") as fh:
            rows.extend(parse_hits(json.load(fh)))
    images = tuple(sorted({im for row in rows for im in row}))
    index = {im: i for i, im in enumerate(images)}
    T = np.array([[index[a], index[b], index[c]] for a, b, c in rows], dtype=np.int64).reshape(-1, 3)
    T.setflags(write=False)
    return images, T


def image_id(path: str) -> str:
    """``images/<uuid>.jpg`` -> ``<uuid>``: how images are named in tables."""
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0]


@DATASETS.register("food100")
def food100(unique: bool = False, random_state=None) -> Dataset:
    """Food100's crowdsourced triplets: 250,320 over 100 images (190,376 unique).

    Parameters
    ----------
    unique : bool
        Drop repeated triplets, keeping each one's first occurrence.  The
        paper ran on all triplets, duplicates included (default).
    random_state : ignored
        Recorded data; accepted for a uniform interface.

    Returns
    -------
    Dataset
        ``y = None`` (no ground truth), ``triplets`` (m, 3) rows (probe,
        near, far) = (a, b, c) with c the outlier, items numbered in sorted
        order of their image file names; ``params["images"]`` holds the
        image ids (file names without folder and extension) by item.
    """
    images, T = _load_raw(str(data_dir().resolve()))
    if unique:
        _, first = np.unique(T, axis=0, return_index=True)
        T = T[np.sort(first)]
    return Dataset(
        name="food100",
        y=None,
        triplets=T,
        params={"unique": bool(unique), "n": len(images), "images": [image_id(p) for p in images]},
    )
