"""Where real data files live, and the errors a user gets when one is missing.

Files are read from ``$CCEXP_DATA_DIR`` (default: ``data/`` under the
current directory) in their original formats, laid out as
``<dataset>/<file>`` (the layout of ``../shared/datasets``).  Datasets are
never committed to the project.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_VERIFIED: dict[Path, str] = {}


class DataFileMissing(FileNotFoundError):
    """A data file is absent; the message says which, where it goes and where to get it."""


def data_dir() -> Path:
    """The data folder: ``$CCEXP_DATA_DIR`` or ``./data``."""
    return Path(os.environ.get("CCEXP_DATA_DIR") or "data").expanduser()


def data_file(relpath: str, sha256: str | None = None, url: str | None = None, dataset: str | None = None) -> Path:
    """Path of ``relpath`` under :func:`data_dir`, checked to exist (and its sha256).

    Parameters
    ----------
    relpath : str
        ``"<dataset>/<file>"``, e.g. ``"iris/iris.data"``.
    sha256 : str, optional
        Expected checksum of the original file; a mismatch raises
        ``ValueError`` (a modified copy would silently change results).
    url : str, optional
        Where the file can be downloaded, for the error message.
    dataset : str, optional
        Dataset name, for the error message.

    Raises
    ------
    DataFileMissing
        Naming the file, the folder it is expected in and the download URL.
    """
    path = data_dir() / relpath
    if not path.is_file():
        where = f" Download it from {url} and save it as {path}." if url else f" Save it as {path}."
        raise DataFileMissing(
            f"{dataset or 'dataset'}: data file {relpath!r} not found under {data_dir().resolve()} "
            f"(set CCEXP_DATA_DIR to the folder that holds <dataset>/<file>).{where}"
        )
    if sha256 is not None and _VERIFIED.get(path) != sha256:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != sha256:
            raise ValueError(
                f"{path}: sha256 {digest} does not match the original file's {sha256}; "
                "the copy was modified or is another version"
            )
        _VERIFIED[path] = sha256
    return path
