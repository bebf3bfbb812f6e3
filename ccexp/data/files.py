"""Where real data files live, and the errors a user gets when one is missing.

Files are read from ``$CCEXP_DATA_DIR`` (default: ``data/`` under the
current directory) in their original formats, laid out as
``<dataset>/<file>`` (the layout ``python -m ccexp.data fetch`` writes).
Datasets are never committed to the project.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_VERIFIED: dict[Path, str] = {}


class MissingDataError(FileNotFoundError):
    """A data file is absent.

    The message is one line: which file, the folder it was looked for in,
    how to fix it (``CCEXP_DATA_DIR``, ``python -m ccexp.data fetch``) and
    where the file can be downloaded.  The command line prints that line
    and exits with status 2 instead of a traceback.
    """


class DataChecksumError(ValueError):
    """A data file whose sha256 is not the original's (modified, or another version); one line, like a missing file."""


#: The name of :class:`MissingDataError` before issue 12 (kept for existing code).
DataFileMissing = MissingDataError


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
        :class:`DataChecksumError`, a ``ValueError`` (a modified copy would silently change results).
    url : str, optional
        Where the file can be downloaded, for the error message.
    dataset : str, optional
        Dataset name, for the error message.

    Raises
    ------
    MissingDataError
        In one line: the file, the folder it is expected in, ``CCEXP_DATA_DIR``,
        ``python -m ccexp.data fetch`` and the download URL.
    """
    path = data_dir() / relpath
    if not path.is_file():
        name = dataset or relpath.split("/")[0]
        fetch_cmd = "python -m ccexp.data fetch" + (f" --datasets {dataset}" if dataset else "")
        source = f"; or download it from {url} and save it as {path}" if url else ""
        raise MissingDataError(
            f"{name}: data file {relpath!r} not found under {data_dir().resolve()}: "
            f"set CCEXP_DATA_DIR to the folder that holds <dataset>/<file>, "
            f"or run `{fetch_cmd}`{source}"
        )
    if sha256 is not None and _VERIFIED.get(path) != sha256:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != sha256:
            name = dataset or relpath.split("/")[0]
            raise DataChecksumError(
                f"{path}: sha256 {digest} does not match the original file's {sha256}; "
                f"the copy was modified or is another version (python -m ccexp.data fetch --datasets {name} "
                f"puts the original back, keeping this one aside)"
            )
        _VERIFIED[path] = sha256
    return path
