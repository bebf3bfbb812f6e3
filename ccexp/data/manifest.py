"""Every real data file the loaders read: where it comes from and its sha256, in one table.

The table is derived from the loaders' own specs (``UCI_SPECS``,
``CONSTRAINED_SPECS``, ``ACTIVE_SPECS``, ``categorical.FILES``,
``food100.RAW_FILES``, ``nature``'s archive), so a checksum or URL lives in
exactly one place: the loader that reads the file.  This module adds only
what no loader knows, because no loader reads it:

* zip members: forest type mapping, food100 and nature come inside a zip
  archive; the file is extracted from it (forest's CSVs with CRLF turned
  into LF: the pinned sha256 is of the LF bytes);
* exports (DERIVED in SOURCES.md): cardiotocography and user knowledge are
  read from CSV exports of sheets of the original ``.xls`` workbooks, which
  a loader cannot read without ``xlrd`` (not a dependency).  The two
  workbooks' checksums are here, and :func:`export_ctg_data_sheet` and
  :func:`export_user_knowledge_sheet` rebuild the CSV files byte for byte
  (their sha256 match the loaders'), with ``xlrd`` when it is installed.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from . import aronsson_arrays, categorical, food100, nature, uci, uci_active, uci_constrained


@dataclass(frozen=True)
class ManifestEntry:
    """One file of the data folder.

    Parameters
    ----------
    relpath : str
        ``"<dataset>/<file>"`` under ``$CCEXP_DATA_DIR``, where the loader looks.
    sha256 : str or None
        Checksum of the file; ``None`` when none is published (nature).
    url : str or None
        Canonical download URL of the file, or of the zip archive holding it
        (``member``); ``None`` for a file exported from another one.
    datasets : tuple of str
        Registered datasets whose loader reads the file (for a workbook: the
        datasets read from its exports).
    member : str or None
        Path of the file inside the archive at ``url`` (matched as a suffix
        of the archive's member names, so a top-level folder does not matter).
    archive_sha256 : str or None
        Checksum of the archive, when published.
    crlf_to_lf : bool
        Turn CRLF line endings of the extracted member into LF.
    derived_from : str or None
        ``relpath`` of the entry this file is exported from by ``derive``.
    derive : callable or None
        ``derive(source_path) -> bytes``: the exported file's content.
    how : str
        One line saying how the file is obtained, for reports.
    note : str
        Anything else a user needs to get the file by hand (a mirror).
    source_only : bool
        No loader reads the file itself, only the files exported from it
        (a workbook): fetched when an export has to be made.
    """

    relpath: str
    sha256: str | None
    url: str | None
    datasets: tuple[str, ...] = ()
    member: str | None = None
    archive_sha256: str | None = None
    crlf_to_lf: bool = False
    derived_from: str | None = None
    derive: Callable[[Path], bytes] | None = field(default=None, compare=False, repr=False)
    how: str = ""
    note: str = ""
    source_only: bool = False

    @property
    def folder(self) -> str:
        """The dataset folder, the first component of ``relpath``."""
        return self.relpath.split("/", 1)[0]

    def describe_origin(self) -> str:
        """Where the file comes from, in words."""
        if self.derived_from is not None:
            return f"exported from {self.derived_from} ({self.how})"
        origin = f"member {self.member} of {self.url}" if self.member is not None else str(self.url)
        return f"{origin}; {self.note}" if self.note else origin


# --------------------------------------------------------------------------- exports
def _cell_text(value) -> str:
    # The exports write integral floats as integers and other floats with
    # Python's repr (shortest round-trip), text stripped: that is what
    # reproduces SOURCES.md's checksums.
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value).strip()


def _open_workbook(path: Path):
    try:
        import xlrd
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"exporting a sheet of {path} needs xlrd (pip install xlrd), which ccexp does not depend on; "
            "or copy the exported CSV from a mirror (--base-url)"
        ) from err
    return xlrd.open_workbook(str(path))


def export_ctg_data_sheet(path: Path) -> bytes:
    """CSV export of the 'Data' sheet of UCI's ``CTG.xls`` (cardiotocography).

    Header row 2 and data rows 3-2128 of the columns LB .. Tendency (K..AE,
    the 21 features), CLASS and NSP, comma-separated, LF line ends.
    """
    sheet = _open_workbook(path).sheet_by_name("Data")
    header = [str(h).strip() for h in sheet.row_values(1)]
    cols = list(range(header.index("LB"), header.index("Tendency") + 1)) + [header.index("CLASS"), header.index("NSP")]
    lines = [",".join(header[c] for c in cols)]
    for r in range(2, 2128):
        row = sheet.row_values(r)
        lines.append(",".join(_cell_text(row[c]) for c in cols))
    return ("\n".join(lines) + "\n").encode("utf-8")


def export_user_knowledge_sheet(path: Path, sheet_name: str) -> bytes:
    """CSV export of columns A-F (STG, SCG, STR, LPR, PEG, UNS) of one sheet of the user knowledge workbook.

    The label header ``' UNS'`` loses its leading space; labels are kept as
    spelled in the sheet (``very_low`` in training, ``Very Low`` in test).
    """
    sheet = _open_workbook(path).sheet_by_name(sheet_name)
    lines = [",".join(_cell_text(h) for h in sheet.row_values(0)[:6])]
    for r in range(1, sheet.nrows):
        row = sheet.row_values(r)[:6]
        if all(v == "" for v in row):
            continue
        lines.append(",".join(_cell_text(v) for v in row))
    return ("\n".join(lines) + "\n").encode("utf-8")


_CTG_XLS = "cardiotocography/CTG.xls"
_UKM_XLS = "user_knowledge/Data_User_Modeling_Dataset_Hamdi Tolga KAHRAMAN.xls"

#: The original workbooks (no loader reads them; sha256 of SOURCES.md).
_WORKBOOK_SHA256 = {
    _CTG_XLS: "d6aa62e82625e59f9d5b05bc8fc52af9ea67bdf2a23f1faca8511d5618fcb421",
    _UKM_XLS: "d95eae5fcd491d52e1c678ea241b3fceca60b7547d235fb6b973f222b9bf771e",
}

#: Exported file -> (workbook it is exported from, exporter, description).
_EXPORTS: dict[str, tuple[str, Callable[[Path], bytes], str]] = {
    "cardiotocography/CTG_Data_sheet_export.csv": (
        _CTG_XLS,
        export_ctg_data_sheet,
        "sheet 'Data' to CSV by ccexp.data.manifest.export_ctg_data_sheet, needs xlrd",
    ),
    "user_knowledge/user_knowledge_Training_Data_export.csv": (
        _UKM_XLS,
        partial(export_user_knowledge_sheet, sheet_name="Training_Data"),
        "sheet 'Training_Data' to CSV by ccexp.data.manifest.export_user_knowledge_sheet, needs xlrd",
    ),
    "user_knowledge/user_knowledge_Test_Data_export.csv": (
        _UKM_XLS,
        partial(export_user_knowledge_sheet, sheet_name="Test_Data"),
        "sheet 'Test_Data' to CSV by ccexp.data.manifest.export_user_knowledge_sheet, needs xlrd",
    ),
}

#: Zip archives whose members' line endings are normalised to LF.
_LF_ARCHIVES = ("https://archive.ics.uci.edu/static/public/333/forest+type+mapping.zip",)


# --------------------------------------------------------------------------- the table
class _Builder:
    def __init__(self):
        self.entries: dict[str, ManifestEntry] = {}

    def add(self, entry: ManifestEntry) -> None:
        old = self.entries.get(entry.relpath)
        if old is None:
            self.entries[entry.relpath] = entry
            return
        if (old.sha256, old.url, old.member) != (entry.sha256, entry.url, entry.member):
            raise ValueError(
                f"{entry.relpath}: two loaders disagree on the file "
                f"({old.datasets} say sha256 {old.sha256} from {old.url}, "
                f"{entry.datasets} say {entry.sha256} from {entry.url})"
            )
        datasets = old.datasets + tuple(d for d in entry.datasets if d not in old.datasets)
        self.entries[entry.relpath] = replace(old, datasets=datasets)

    def add_file(self, relpath: str, sha256: str | None, url: str, dataset: str) -> None:
        """A loader's file: downloaded as is, extracted from a zip, or exported from a workbook."""
        if relpath in _EXPORTS:
            source, derive, how = _EXPORTS[relpath]
            # the loader's URL is the workbook's: the one place it is written
            self.add(ManifestEntry(source, _WORKBOOK_SHA256[source], url, (dataset,), source_only=True))
            self.add(ManifestEntry(relpath, sha256, None, (dataset,), derived_from=source, derive=derive, how=how))
        elif urlsplit(url).path.endswith(".zip"):
            member = relpath.split("/", 1)[1]
            self.add(ManifestEntry(relpath, sha256, url, (dataset,), member=member, crlf_to_lf=url in _LF_ARCHIVES))
        else:
            self.add(ManifestEntry(relpath, sha256, url, (dataset,)))


def build_manifest() -> dict[str, ManifestEntry]:
    """Every file the registered loaders read, keyed by ``relpath``.

    Workbooks come before the files exported from them.

    Raises
    ------
    ValueError
        When two loaders name the same file with different checksums or URLs.
    """
    b = _Builder()
    for specs in (uci.UCI_SPECS, uci_constrained.CONSTRAINED_SPECS, uci_active.ACTIVE_SPECS, aronsson_arrays.ARRAY_SPECS):
        for spec in specs.values():
            for f in spec.files:
                b.add_file(f.relpath, f.sha256, f.url, spec.name)
    for name, f in categorical.FILES.items():
        b.add_file(f.relpath, f.sha256, f.url, name)
    for name, sha in food100.RAW_FILES.items():
        b.add(
            ManifestEntry(
                f"food100/raw-json/{name}",
                sha,
                food100.URL,
                ("food100",),
                member=f"raw-json/{name}",
                archive_sha256=food100.ARCHIVE_SHA256,
            )
        )
    b.add(
        ManifestEntry(
            nature.RELPATH,
            None,
            nature.ARCHIVE_URL,
            ("nature",),
            member=nature.MEMBER,
            archive_sha256=nature.ARCHIVE_SHA256,
            note=f"archive mirror {nature.ARCHIVE_MIRROR}",
        )
    )
    return b.entries


def select(manifest: dict[str, ManifestEntry], names) -> dict[str, ManifestEntry]:
    """The entries of the datasets ``names`` (registered names or data folders), with their workbooks.

    Raises
    ------
    ValueError
        Naming an unknown dataset and listing the known ones.
    """
    if names is None:
        return dict(manifest)
    names = list(names)
    known = {d for e in manifest.values() for d in e.datasets} | {e.folder for e in manifest.values()}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown dataset(s) {unknown}; known: {', '.join(sorted(known))}")
    wanted = set(names)
    chosen = {k: e for k, e in manifest.items() if e.folder in wanted or wanted.intersection(e.datasets)}
    for e in list(chosen.values()):
        if e.derived_from is not None and e.derived_from in manifest:
            chosen.setdefault(e.derived_from, manifest[e.derived_from])
    return {k: e for k, e in manifest.items() if k in chosen}  # manifest order: workbooks first


def member_matches(name: str, member: str) -> bool:
    """Whether the archive member ``name`` is ``member``, possibly below a top-level folder."""
    name = posixpath.normpath(name)
    return name == member or name.endswith("/" + member)


__all__ = [
    "ManifestEntry",
    "build_manifest",
    "export_ctg_data_sheet",
    "export_user_knowledge_sheet",
    "member_matches",
    "select",
]
