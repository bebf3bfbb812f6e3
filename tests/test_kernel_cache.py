"""numba's compiled kernels are cached per version of the kernels' sources (ccexp/_kernel_cache.py).

The real-process test shows both sides: with numba's own cache an edit of a
called kernel does not reach its (unedited) caller; with the directory keyed
by the sources' fingerprint it does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import ccexp
from ccexp._kernel_cache import PRUNE_AFTER_DAYS, configure_kernel_cache, kernel_fingerprint

CALLEE = "from numba import njit\n\n\n@njit(cache=True)\ndef value():\n    return {}\n"
CALLER = "from numba import njit\n\nfrom .callee import value\n\n\n@njit(cache=True)\ndef outer():\n    return value()\n"
KEYED_INIT = (
    "from pathlib import Path\n\nfrom ccexp._kernel_cache import configure_kernel_cache\n\n"
    "configure_kernel_cache(Path(__file__).resolve().parent)\n"
)


def _package(root: Path, name: str, init: str) -> Path:
    pkg = root / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text(init)
    (pkg / "callee.py").write_text(CALLEE.format(1))
    (pkg / "caller.py").write_text(CALLER)
    return pkg


def _outer(root: Path, name: str, cache: Path, debug: list | None = None) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
           "NUMBA_CACHE_DIR": str(cache), "NUMBA_DEBUG_CACHE": "1" if debug is not None else "0"}
    out = subprocess.run([sys.executable, "-c", f"from {name}.caller import outer; print(outer())"],
                         env=env, capture_output=True, text=True, check=True, timeout=300)
    if debug is not None:  # numba's cache log: "[cache] data saved to" / "[cache] data loaded from"
        debug.extend(line for line in (out.stdout + out.stderr).splitlines() if line.startswith("[cache]"))
    return int(out.stdout.split()[-1])


def _edit_callee(pkg: Path) -> None:
    path = pkg / "callee.py"
    path.write_text(CALLEE.format(2))
    later = time.time() + 5  # a new stamp even on a coarse-grained clock
    os.utime(path, (later, later))


def test_an_edit_of_a_called_kernel_reaches_its_unedited_caller(tmp_path):
    plain = _package(tmp_path, "plainkernels", "")
    keyed = _package(tmp_path, "keyedkernels", KEYED_INIT)
    cache = tmp_path / "cache"
    assert _outer(tmp_path, "plainkernels", cache) == 1
    assert _outer(tmp_path, "keyedkernels", cache) == 1
    _edit_callee(plain)
    _edit_callee(keyed)
    # numba alone: the caller's cached code still holds the old callee
    # (if this starts to fail, numba invalidates callers itself and the keyed directory could go)
    assert _outer(tmp_path, "plainkernels", cache) == 1
    # keyed by the sources' fingerprint: the edit reaches the caller
    assert _outer(tmp_path, "keyedkernels", cache) == 2
    # one directory per version of keyedkernels (beside ccexp's own: the package imports it)
    ours = f"kernels-{kernel_fingerprint(Path(ccexp.__file__).resolve().parent)}"
    assert len({d.name for d in cache.glob("kernels-*")} - {ours}) == 2


def test_two_checkouts_of_the_same_kernels_share_one_compiled_copy(tmp_path):
    """A clone or a worktree elsewhere on disk loads the kernels the first one compiled (PackageCacheLocator)."""
    cache = tmp_path / "cache"
    logs = {}
    for name, init in (("keyedkernels", KEYED_INIT), ("plainkernels", "")):
        for checkout in ("first", "second"):
            (tmp_path / checkout).mkdir(exist_ok=True)
            _package(tmp_path / checkout, name, init)
            logs[name, checkout] = []
            assert _outer(tmp_path / checkout, name, cache, logs[name, checkout]) == 1
    saved = {k: sum("data saved to" in line for line in v) for k, v in logs.items()}
    loaded = {k: sum("data loaded from" in line for line in v) for k, v in logs.items()}
    # the first checkout compiles both kernels (caller and callee) and stores them
    assert saved["keyedkernels", "first"] == 2 and loaded["keyedkernels", "first"] == 0
    # the second, at another place, compiles nothing: the caller comes from the first one's files (with the
    # callee compiled into it, so the callee's own dispatcher is never asked)
    assert saved["keyedkernels", "second"] == 0 and loaded["keyedkernels", "second"] == 1, logs
    # numba's own locator (a package that does not configure the cache) files by absolute folder: it compiles again
    assert saved["plainkernels", "second"] == 2 and loaded["plainkernels", "second"] == 0
    # and the stamp is the module's bytes: an edit in the second checkout is compiled afresh, not loaded
    _edit_callee(tmp_path / "second" / "keyedkernels")
    edited = []
    assert _outer(tmp_path / "second", "keyedkernels", cache, edited) == 2
    assert not any("data loaded from" in line for line in edited)


def test_the_fingerprint_follows_the_modules_that_mention_numba_only(tmp_path):
    pkg = _package(tmp_path, "pkg", "")
    (pkg / "report.py").write_text("TITLE = 'a'\n")
    before = kernel_fingerprint(pkg)
    (pkg / "report.py").write_text("TITLE = 'b'\n")
    assert kernel_fingerprint(pkg) == before
    (pkg / "callee.py").write_text(CALLEE.format(3))
    assert kernel_fingerprint(pkg) != before
    assert len(before) == 16 and int(before, 16) >= 0
    # a kernel module may import no numba, only ccexp's decorator: it counts too
    with_callee = kernel_fingerprint(pkg)
    (pkg / "borrowing.py").write_text("from ccexp._jit import borrowing_njit\n\n\n@borrowing_njit\ndef f(x):\n    return x\n")
    assert kernel_fingerprint(pkg) != with_callee


def test_ccexp_points_numba_and_its_workers_at_its_fingerprints_directory(tmp_path):
    root = Path(ccexp.__file__).resolve().parent
    expected = tmp_path / f"kernels-{kernel_fingerprint(root)}"
    code = "import ccexp, numba, os; print(numba.config.CACHE_DIR); print(os.environ['NUMBA_CACHE_DIR'])"
    for inherited in (tmp_path, expected):  # the user's base, or the directory a parent process chose
        env = {**os.environ, "NUMBA_CACHE_DIR": str(inherited)}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                             timeout=300)
        assert out.stdout.split() == [str(expected), str(expected)]


def test_other_fingerprints_unused_for_long_are_pruned(tmp_path, monkeypatch):
    import numba

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    old, recent = tmp_path / "kernels-old", tmp_path / "kernels-recent"
    other = tmp_path / "not-ours"
    for d in (old, recent, other):
        d.mkdir()
    long_ago = time.time() - (PRUNE_AFTER_DAYS + 1) * 86400
    os.utime(old, (long_ago, long_ago))
    os.utime(other, (long_ago, long_ago))
    pkg = _package(tmp_path, "pkg", "")
    path = configure_kernel_cache(pkg)
    assert path == tmp_path / f"kernels-{kernel_fingerprint(pkg)}" and path.is_dir()
    assert not old.exists() and recent.is_dir() and other.is_dir()
    assert numba.config.CACHE_DIR == str(path)
