"""Nature: crowdsourced odd-one-out triplets over 120 scene images (Heikinheimo & Ukkonen, HCOMP 2013).

Ukkonen (2017), Experiment 2, clusters these 3,357 triplets with Ls-AD-VC
(7 clusters).  The file is not available in this workplace; the loader reads
the published format when a user supplies it.  The archive
``nature_and_vogue_triplets.zip`` (originally at anttiukkonen.com, mirrored
on OSF) holds ``nature/nature_triplets.txt``: one triplet per line, three
whitespace-separated image file names, the third the odd one out (cblearn's
``fetch_nature_scene_similarity`` reads it so).  In Ukkonen's notation
(a, b, c), c the outlier, a line ``a b c`` is the triplet (a, b, c).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..registry import DATASETS
from .dataset import Dataset
from .files import data_file

RELPATH = "nature/nature_triplets.txt"
#: The archive holding the file (cblearn's source) and its member.
ARCHIVE_URL = "http://anttiukkonen.com/nature_and_vogue_triplets.zip"
ARCHIVE_MIRROR = "https://osf.io/download/6aa16bbfb7c3003e08af94fa/"
ARCHIVE_SHA256 = "db4718bb742a2492dee87e94daead3070b2afa3a9174aa717be336940e47e3cc"
MEMBER = "nature/nature_triplets.txt"
URL = f"{ARCHIVE_URL} (mirror: {ARCHIVE_MIRROR}, zip sha256 {ARCHIVE_SHA256}; extract its member {MEMBER})"


def parse_odd_one_out(path) -> tuple[list[str], np.ndarray]:
    """Read a whitespace-separated odd-one-out file: ``a b c`` per line, ``c`` the odd one.

    Blank lines and lines starting with ``#`` are skipped.

    Returns
    -------
    names : list of str
        Item names, sorted; item i is ``names[i]``.
    triplets : int64 array (m, 3)
        Rows (a, b, c) with c the outlier, in file order.

    Raises
    ------
    ValueError
        Naming the file and line of a row without exactly three distinct names.
    """
    rows = []
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        parts = text.split()
        if len(parts) != 3 or len(set(parts)) != 3:
            raise ValueError(f"{path}, line {lineno}: expected three distinct item names, got {text!r}")
        rows.append(parts)
    names = sorted({name for row in rows for name in row})
    index = {name: i for i, name in enumerate(names)}
    T = np.array([[index[a], index[b], index[c]] for a, b, c in rows], dtype=np.int64).reshape(-1, 3)
    return names, T


@DATASETS.register("nature")
def nature(random_state=None) -> Dataset:
    """Nature scenes: odd-one-out triplets over 120 images (3,357 in Ukkonen 2017; 3,355 per cblearn).

    Reads ``$CCEXP_DATA_DIR/nature/nature_triplets.txt``; when it is absent
    the error says where to get it.  No checksum of the extracted text file
    is published (only of the zip), so none is verified.

    Returns
    -------
    Dataset
        ``y = None``, ``triplets`` (a, b, c) with c the odd one out,
        ``params["images"]`` the image names by item.
    """
    names, T = parse_odd_one_out(data_file(RELPATH, url=URL, dataset="nature"))
    T.setflags(write=False)
    return Dataset(name="nature", y=None, triplets=T, params={"n": len(names), "images": names})
