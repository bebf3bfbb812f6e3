"""Download the real data files into the data folder and verify their sha256.

:func:`fetch` brings every file of :func:`ccexp.data.manifest.build_manifest`
(or of some datasets) to ``<data dir>/<dataset>/<file>``, where the loaders
look: a file already there with the right checksum is skipped; a download is
written to a temporary file next to its target and renamed only once its
sha256 matches, so a wrong or truncated download never takes a file's place
(it is deleted and reported).  Zip members are extracted from their archive
(downloaded once per run); exported CSV files are rebuilt from their
workbook with the exporter of :mod:`ccexp.data.manifest`.

A mirror (``base_url``, or ``$CCEXP_DATA_MIRROR``) laid out like the data
folder, ``<base_url>/<dataset>/<file>``, replaces the canonical hosts: every
file, exports and zip members included, is fetched from it directly and
verified by the same checksum.  A local folder or ``file://`` URL works
(that is how the tests run, never touching the network).

:func:`status` only looks: each file is ``ok``, ``present`` (no checksum to
verify), ``missing`` or ``mismatch``.

Only the standard library downloads (:mod:`urllib.request`).
"""

from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import tempfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from urllib.parse import quote, urlsplit

from .files import data_dir as _default_data_dir
from .manifest import ManifestEntry, build_manifest, member_matches, select

MIRROR_ENV = "CCEXP_DATA_MIRROR"

#: States of a file that leave it usable by its loader.
GOOD = frozenset({"ok", "present", "downloaded", "extracted", "exported"})

_CHUNK = 1 << 16

# What an unreachable host, a missing file:// path, a refused or cut
# connection raise: reported as "unreachable", never as a traceback.
_NETWORK_ERRORS = (urllib.error.URLError, OSError, http.client.HTTPException)


class _Unreachable(Exception):
    """A URL could not be read (network down, host or path missing)."""

    def __init__(self, url: str, reason: str):
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason


@dataclass
class FileStatus:
    """What happened to one file.

    ``state`` is one of ``ok`` (there, checksum right), ``present`` (there,
    no checksum known), ``missing``, ``mismatch`` (there, wrong checksum),
    ``downloaded``, ``extracted`` (from its zip), ``exported`` (from its
    workbook), ``rejected`` (a download with the wrong checksum, deleted),
    ``unreachable`` (the URL could not be read), ``failed`` (anything else,
    e.g. no ``xlrd`` to export a sheet) or ``skipped`` (a workbook not needed
    because its exports are present).
    """

    entry: ManifestEntry
    state: str
    detail: str = ""
    url: str | None = None

    @property
    def good(self) -> bool:
        """Whether the file is usable (or, for a source-only entry, need not be present)."""
        return self.state in GOOD or (self.entry.source_only and self.state in ("skipped", "missing"))


@dataclass
class FetchReport:
    """The outcome of :func:`fetch` or :func:`status`, file by file."""

    data_dir: Path
    results: list[FileStatus] = field(default_factory=list)
    checked_only: bool = False

    @property
    def ok(self) -> bool:
        """Every file a loader reads is usable."""
        return all(r.good for r in self.results)

    @property
    def problems(self) -> list[FileStatus]:
        """The files that are not :attr:`FileStatus.good`."""
        return [r for r in self.results if not r.good]

    def counts(self) -> dict[str, int]:
        """Number of files in each state (``{"ok": 3, "missing": 1, ...}``)."""
        out: dict[str, int] = {}
        for r in self.results:
            out[r.state] = out.get(r.state, 0) + 1
        return out

    def summary(self) -> str:
        """Counts per state, then, for the files still unusable, where to get each and where to put it."""
        folder = self.data_dir.resolve()
        counts = ", ".join(f"{n} {state}" for state, n in sorted(self.counts().items()))
        lines = [f"{len(self.results)} files in {folder}: {counts}"]
        problems = self.problems
        if not problems:
            return "\n".join(lines)
        verb = "are not usable" if self.checked_only else "could not be fetched"
        lines.append(f"{len(problems)} file(s) {verb}; get each one and save it as shown:")
        for r in problems:
            lines.append(f"  {folder / r.entry.relpath}")
            lines.append(f"      source: {r.entry.describe_origin()}")
            if r.url and r.url != r.entry.url:
                lines.append(f"      (tried {r.url})")
        lines.append(
            f"The loaders read $CCEXP_DATA_DIR/<dataset>/<file>: point CCEXP_DATA_DIR at {folder} "
            f"(export CCEXP_DATA_DIR={folder}), or at any folder holding these files in that layout."
        )
        if not self.checked_only:
            lines.append(
                f"Offline? Fetch from a mirror laid out the same way with --base-url URL (or ${MIRROR_ENV}), "
                "e.g. a local copy: --base-url /path/to/datasets."
            )
        return "\n".join(lines)


# --------------------------------------------------------------------------- helpers
def file_sha256(path: Path) -> str:
    """sha256 of a file, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def mirror_url(base_url: str, relpath: str) -> str:
    """``<base_url>/<relpath>``; a plain folder path becomes a ``file://`` URL."""
    if not urlsplit(base_url).scheme or len(urlsplit(base_url).scheme) == 1:  # a path (or a Windows drive)
        base_url = Path(base_url).expanduser().resolve().as_uri()
    return base_url.rstrip("/") + "/" + quote(relpath)


def _check(entry: ManifestEntry, path: Path) -> FileStatus:
    if not path.is_file():
        return FileStatus(entry, "missing")
    if entry.sha256 is None:
        return FileStatus(entry, "present", "no published checksum to verify")
    digest = file_sha256(path)
    if digest != entry.sha256:
        return FileStatus(entry, "mismatch", f"sha256 {digest}, expected {entry.sha256}")
    return FileStatus(entry, "ok")


def _open_url(url: str, timeout: float):
    request = urllib.request.Request(url, headers={"User-Agent": "ccexp-data-fetch (python urllib)"})
    try:
        return urllib.request.urlopen(request, timeout=timeout)
    except _NETWORK_ERRORS as err:
        raise _Unreachable(url, _reason(err)) from None


def _reason(err: BaseException) -> str:
    if isinstance(err, urllib.error.HTTPError):
        return f"HTTP {err.code} {err.reason}"
    if isinstance(err, urllib.error.URLError):
        return str(err.reason)
    return f"{type(err).__name__}: {err}"


def _download(url: str, dest: Path, timeout: float) -> str:
    """Stream ``url`` into ``dest``; return the sha256 of what was written."""
    h = hashlib.sha256()
    with _open_url(url, timeout) as response, open(dest, "wb") as out:
        while True:
            try:
                chunk = response.read(_CHUNK)
            except _NETWORK_ERRORS as err:  # cut mid-transfer; a local disk error is not caught here
                raise _Unreachable(url, _reason(err)) from None
            if not chunk:
                return h.hexdigest()
            h.update(chunk)
            out.write(chunk)


def _install(
    entry: ManifestEntry, target: Path, write: Callable[[Path], str], state: str, url: str | None
) -> FileStatus:
    """Write to a temporary file beside ``target`` with ``write(tmp) -> sha256``; rename it only if verified.

    The rename is atomic, so ``target`` is either absent, its previous
    content or the verified download; folders created for a download that
    fails are removed again.
    """
    target = target.absolute()
    created = [p for p in target.parents if not p.exists()]  # deepest first
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    os.close(fd)
    tmp = Path(name)
    installed = False
    try:
        digest = write(tmp)
        if entry.sha256 is not None and digest != entry.sha256:
            return FileStatus(
                entry, "rejected", f"got sha256 {digest}, expected {entry.sha256}; the download was deleted", url
            )
        os.replace(tmp, target)
        installed = True
    finally:
        if not installed:
            tmp.unlink(missing_ok=True)
            for folder in created:
                try:
                    folder.rmdir()
                except OSError:  # not empty: another file went there meanwhile
                    break
    return FileStatus(entry, state, "" if entry.sha256 else "no published checksum to verify", url)


def _write_bytes(data: bytes) -> Callable[[Path], str]:
    def write(tmp: Path) -> str:
        tmp.write_bytes(data)
        return hashlib.sha256(data).hexdigest()

    return write


class _Archives:
    """Zip archives downloaded once per run into a temporary folder, verified when a checksum is known."""

    def __init__(self, workdir: Path, timeout: float):
        self.workdir = workdir
        self.timeout = timeout
        self._got: dict[str, Path | Exception] = {}

    def get(self, url: str, sha256: str | None) -> Path:
        if url not in self._got:
            path = self.workdir / f"archive{len(self._got)}.zip"
            try:
                digest = _download(url, path, self.timeout)
                if sha256 is not None and digest != sha256:
                    path.unlink()
                    raise ValueError(f"archive {url}: sha256 {digest}, expected {sha256}; it was deleted")
                self._got[url] = path
            except (_Unreachable, ValueError) as err:
                self._got[url] = err
        got = self._got[url]
        if isinstance(got, Exception):
            raise got
        return got


def _extract(path: Path, member: str, crlf_to_lf: bool) -> bytes:
    with zipfile.ZipFile(path) as zf:
        names = [n for n in zf.namelist() if member_matches(n, member)]
        if len(names) != 1:
            raise ValueError(f"the archive holds {len(names)} members matching {member!r}, expected one")
        data = zf.read(names[0])
    return data.replace(b"\r\n", b"\n") if crlf_to_lf else data


# --------------------------------------------------------------------------- one file
def _fetch_one(entry, folder: Path, *, base_url, archives, sources, timeout) -> FileStatus:
    target = folder / entry.relpath
    if base_url:
        url = mirror_url(base_url, entry.relpath)
        try:
            return _install(entry, target, lambda tmp: _download(url, tmp, timeout), "downloaded", url)
        except _Unreachable as err:
            if entry.derived_from is None:
                return FileStatus(entry, "unreachable", err.reason, url)
            # the mirror lacks the export: make it from the workbook below
    if entry.derived_from is not None:
        source = sources(entry.derived_from)
        if source.state not in GOOD:
            return FileStatus(entry, "failed", f"its workbook {entry.derived_from} is not available ({source.state})")
        try:
            data = entry.derive(folder / entry.derived_from)
        except ImportError as err:  # no xlrd
            return FileStatus(entry, "failed", str(err))
        except Exception as err:  # an exporter's error is this file's failure, not the run's
            return FileStatus(entry, "failed", f"exporting it raised {type(err).__name__}: {err}")
        return _install(entry, target, _write_bytes(data), "exported", None)
    if entry.member is not None:
        try:
            archive = archives.get(entry.url, entry.archive_sha256)
            data = _extract(archive, entry.member, entry.crlf_to_lf)
        except _Unreachable as err:
            return FileStatus(entry, "unreachable", err.reason, entry.url)
        except (ValueError, zipfile.BadZipFile) as err:
            return FileStatus(entry, "failed", str(err), entry.url)
        return _install(entry, target, _write_bytes(data), "extracted", entry.url)
    try:
        return _install(entry, target, lambda tmp: _download(entry.url, tmp, timeout), "downloaded", entry.url)
    except _Unreachable as err:
        return FileStatus(entry, "unreachable", err.reason, entry.url)


# --------------------------------------------------------------------------- API
def _resolve(datasets, data_dir, manifest):
    folder = Path(data_dir).expanduser() if data_dir is not None else _default_data_dir()
    entries = select(build_manifest() if manifest is None else manifest, datasets)
    return folder, entries


def status(datasets=None, data_dir=None, manifest=None) -> FetchReport:
    """Look at the data folder without downloading.

    Parameters
    ----------
    datasets : iterable of str, optional
        Registered dataset names or data folders (default: all files).
    data_dir : path, optional
        Default: ``$CCEXP_DATA_DIR`` or ``./data``.
    manifest : dict of ManifestEntry, optional
        Default: :func:`~ccexp.data.manifest.build_manifest`.

    Returns
    -------
    FetchReport
        One :class:`FileStatus` per file: ``ok``, ``present``, ``missing``
        or ``mismatch``.
    """
    folder, entries = _resolve(datasets, data_dir, manifest)
    report = FetchReport(folder, checked_only=True)
    report.results = [_check(e, folder / e.relpath) for e in entries.values()]
    for r in report.results:
        if r.entry.source_only and r.state == "missing":
            r.detail = "needed only to make the files exported from it"
    return report


def fetch(
    datasets=None,
    data_dir=None,
    base_url: str | None = None,
    manifest=None,
    timeout: float = 60.0,
    progress: Callable[[FileStatus], None] | None = None,
) -> FetchReport:
    """Download the missing data files into the data folder and verify each sha256.

    Parameters
    ----------
    datasets : iterable of str, optional
        Registered dataset names (``iris``, ``digits389``) or data folders
        (``pendigits``); default: every file of the manifest.
    data_dir : path, optional
        Where to save ``<dataset>/<file>``; default ``$CCEXP_DATA_DIR`` or ``./data``.
    base_url : str, optional
        A mirror laid out like the data folder (URL or local folder) replacing
        the canonical hosts; default ``$CCEXP_DATA_MIRROR``.
    manifest : dict of ManifestEntry, optional
        Default: :func:`~ccexp.data.manifest.build_manifest`.
    timeout : float
        Seconds to wait for a connection or a read.
    progress : callable, optional
        Called with each file's :class:`FileStatus` as soon as it is settled.

    Returns
    -------
    FetchReport
        ``report.ok`` is False when a file a loader reads is still missing
        or wrong; ``report.summary()`` says which, from where, and where
        ``CCEXP_DATA_DIR`` should point.  Network failures are reported,
        never raised.
    """
    folder, entries = _resolve(datasets, data_dir, manifest)
    base_url = base_url if base_url is not None else (os.environ.get(MIRROR_ENV) or None)
    report = FetchReport(folder)
    settled: dict[str, FileStatus] = {}
    workdir = Path(tempfile.mkdtemp(prefix="ccexp-fetch-"))
    archives = _Archives(workdir, timeout)

    def settle(entry: ManifestEntry) -> FileStatus:
        if entry.relpath in settled:
            return settled[entry.relpath]
        target = folder / entry.relpath
        result = _check(entry, target)
        if result.state in ("missing", "mismatch"):
            previous = result.detail
            # a file there that is not the original (modified by hand, another version) is set aside, not
            # overwritten without a word (issue 33); it comes back if no original can be had
            kept = _set_aside(target) if result.state == "mismatch" else None
            try:
                result = _fetch_one(
                    entry, folder, base_url=base_url, archives=archives, sources=source, timeout=timeout
                )
            except OSError as err:  # the data folder, not the network: not writable, disk full
                result = FileStatus(entry, "failed", f"cannot write {target}: {err}")
            if kept is not None and result.state not in GOOD:
                os.replace(kept, target)
            elif kept is not None:
                result.detail = (f"{result.detail}; " if result.detail else "") + (
                    f"the file there was not the original ({previous}): kept as {kept.name}")
            if previous and result.state not in GOOD:
                result.detail = f"{result.detail}; the file there has {previous}".lstrip("; ")
        settled[entry.relpath] = result
        return result

    def source(relpath: str) -> FileStatus:
        if relpath not in entries:
            return FileStatus(ManifestEntry(relpath, None, None), "missing")
        return settle(entries[relpath])

    try:
        for entry in entries.values():
            if (
                entry.source_only
                and not (folder / entry.relpath).is_file()
                and _exports_present(entry, entries, folder)
            ):  # a workbook is only needed to make its exports
                result = settled[entry.relpath] = FileStatus(entry, "skipped", "its exports are present")
            else:
                result = settle(entry)
            report.results.append(result)
            if progress is not None:
                progress(result)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return report


def _set_aside(path: Path) -> Path:
    """Rename ``path`` to ``<name>.modified`` (``.modified.1``, ... if taken); return the new path."""
    aside = path.with_name(path.name + ".modified")
    n = 1
    while aside.exists():
        aside = path.with_name(f"{path.name}.modified.{n}")
        n += 1
    os.replace(path, aside)
    return aside


def _exports_present(workbook: ManifestEntry, entries, folder: Path) -> bool:
    exports = [e for e in entries.values() if e.derived_from == workbook.relpath]
    return all(_check(e, folder / e.relpath).state in GOOD for e in exports)


def format_status(r: FileStatus) -> str:
    """One line per file: state, relpath, and details."""
    line = f"  {r.state:<11} {r.entry.relpath}"
    if r.detail:
        line += f"  ({r.detail})"
    if r.state in ("unreachable", "rejected") and r.url:
        line += f"  <- {r.url}"
    return line


__all__ = ["FetchReport", "FileStatus", "MIRROR_ENV", "fetch", "file_sha256", "format_status", "mirror_url", "status"]
