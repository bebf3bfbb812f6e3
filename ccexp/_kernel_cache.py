"""Where numba keeps ccexp's compiled kernels: one directory per version of the kernels' sources.

numba's on-disk cache (``@njit(cache=True)``) checks only the source file
of the function it loads.  A kernel that calls a kernel of another module
is stored with the callee compiled into it, so after an edit of the callee
alone (``_compat_peel.py`` but not ``_agglomerate.py``, which calls it) the
caller's stale copy keeps running the old callee, silently, and a record
would name a code version that did not run.  Measured on this repository:
ReCon kept running the unedited TestCompatibility after an edit of
``_compat_peel.py``, until its cache was removed.

So ccexp gives numba a cache directory keyed by a fingerprint of every
module of the package that mentions numba (the kernels and the functions
they call): an edit of any of them moves every kernel to a fresh, empty
directory and each compiles again from the current sources.  A module
whose kernels use :func:`ccexp._jit.borrowing_njit` (and may not import
numba itself) counts as mentioning numba.  An edit of
any other module (the runner, the reports) keeps the compiled kernels.
Rule for kernel authors: a kernel reads globals only from modules that
mention numba (numba freezes a global's value into the compiled code).

The base directory is ``NUMBA_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/ccexp/numba`` (``~/.cache/ccexp/numba``); a base
that cannot be written falls back to the system's temporary directory.
Directories of other fingerprints unused for :data:`PRUNE_AFTER_DAYS` are
removed.

Inside a fingerprint's directory numba would file each module's kernels
under a hash of the module's absolute folder, so a second checkout of the
same sources (a clone, a git worktree, the clones the slow tests make)
compiled everything again (25-30 s per family of kernels, measured on this
machine).  :class:`PackageCacheLocator` files them under their place in the
package instead (``ccexp/algorithms/constrained/``) and stamps them with the
module's bytes, not its modification time: every checkout whose kernels
have this fingerprint shares one compiled copy.  It is installed through
numba's ``NUMBA_CACHE_LOCATOR_CLASSES`` (numba >= 0.61), ahead of numba's
own locators, which still serve every file outside the package.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

import numba
from numba.core import caching

#: a fingerprint's directory unused this long is removed by the next configure
PRUNE_AFTER_DAYS = 30

_PREFIX = "kernels-"


def kernel_fingerprint(package_root: Path) -> str:
    """SHA-256 (16 hex digits) of the paths and bytes of the package's modules that mention numba or borrowing_njit.

    Parameters
    ----------
    package_root : Path
        The package directory (``ccexp/``).
    """
    digest = hashlib.sha256()
    for path in sorted(Path(package_root).rglob("*.py")):
        data = path.read_bytes()
        if b"numba" not in data and b"borrowing_njit" not in data:
            continue
        digest.update(path.relative_to(package_root).as_posix().encode())
        digest.update(b"\0")
        digest.update(data)
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _base_dir() -> Path:
    value = os.environ.get("NUMBA_CACHE_DIR")
    if value:
        base = Path(value).expanduser()
        # a child process inherits the directory its parent chose: take its parent
        return base.parent if base.name.startswith(_PREFIX) else base
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "ccexp" / "numba"


def _prune(base: Path, keep: Path) -> None:
    """Remove the other fingerprints' directories unused for :data:`PRUNE_AFTER_DAYS`."""
    cutoff = time.time() - PRUNE_AFTER_DAYS * 86400
    for old in base.glob(_PREFIX + "*"):
        try:
            if old != keep and old.is_dir() and old.stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:  # another process removed it first
            pass


#: the packages whose kernels :class:`PackageCacheLocator` files by their place in the package (ccexp's,
#: and any other that calls :func:`configure_kernel_cache` with its own folder)
_ROOTS: list[Path] = []
#: numba's locator of a user-given cache folder (public since numba 0.61, private before)
_UserProvided = getattr(caching, "UserProvidedCacheLocator", None) or caching._UserProvidedCacheLocator
#: the class holding numba's default list of locators (renamed from ``_CacheImpl`` in numba 0.61)
_CacheImpl = getattr(caching, "CacheImpl", None) or caching._CacheImpl


class PackageCacheLocator(_UserProvided):
    """numba's cache locator for ccexp's kernels: filed by their place in the package, stamped by their bytes.

    For a module ``<checkout>/ccexp/algorithms/x.py`` the cache path is
    ``<NUMBA_CACHE_DIR>/ccexp/algorithms`` wherever the checkout is, where
    numba's :class:`UserProvidedCacheLocator` uses a hash of the absolute
    folder; and a cache entry is valid for the module's exact bytes, where
    older numba releases compared its modification time, which a clone
    resets.  Safe because ``NUMBA_CACHE_DIR`` is already one folder per
    fingerprint of every kernel module's bytes (:func:`configure_kernel_cache`).
    A file outside the package gets no locator here (numba's own follow).
    """

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        folder = Path(py_file).resolve().parent
        root = next(r for r in _ROOTS if folder.is_relative_to(r))
        self._cache_path = os.path.join(numba.config.CACHE_DIR, *folder.relative_to(root.parent).parts)

    def get_source_stamp(self):
        return hashlib.sha256(Path(self._py_file).read_bytes()).hexdigest()

    @classmethod
    def from_function(cls, py_func, py_file):
        path = Path(py_file).resolve()
        if not numba.config.CACHE_DIR or not any(path.is_relative_to(r) for r in _ROOTS):
            return None
        return super().from_function(py_func, py_file)


def _install_locator() -> None:
    """Put :class:`PackageCacheLocator` ahead of numba's own locators (where numba lets one choose them)."""
    if not hasattr(numba.config, "CACHE_LOCATOR_CLASSES"):  # numba < 0.61: its defaults, a cache per checkout
        return
    ours = f"{PackageCacheLocator.__module__}.{PackageCacheLocator.__qualname__}"
    chosen = [c.strip() for c in (numba.config.CACHE_LOCATOR_CLASSES or "").split(",") if c.strip()]
    if ours in chosen:
        return
    rest = chosen or [f"{c.__module__}.{c.__qualname__}" for c in _CacheImpl._locator_classes]
    value = ",".join([ours, *rest])
    numba.config.CACHE_LOCATOR_CLASSES = value
    os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = value  # worker processes: the same locators


def configure_kernel_cache(package_root: Path | None = None) -> Path:
    """Point numba's cache at the directory of the current kernels' fingerprint; return it.

    ``package_root``: the package whose kernels are fingerprinted (default: ccexp).

    Must run before the kernel modules are imported: numba reads
    ``numba.config.CACHE_DIR`` when ``@njit(cache=True)`` decorates a
    function.  Also sets ``NUMBA_CACHE_DIR`` in the environment, so that
    worker processes (loky, Dask, subprocesses) use the same directory.
    """
    root = Path(package_root or Path(__file__).parent).resolve()
    if root not in _ROOTS:
        _ROOTS.append(root)
    fingerprint = kernel_fingerprint(root)
    base = _base_dir()
    path = base / f"{_PREFIX}{fingerprint}"
    try:
        path.mkdir(parents=True, exist_ok=True)
        os.utime(path)  # in use: not pruned
    except OSError:
        base = Path(tempfile.gettempdir()) / f"ccexp-numba-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
        path = base / f"{_PREFIX}{fingerprint}"
        path.mkdir(parents=True, exist_ok=True)
    _prune(base, path)
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    numba.config.CACHE_DIR = str(path)
    _install_locator()
    return path
