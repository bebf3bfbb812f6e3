"""``ccexp.data.fetch``: download, verify, skip, reject, report offline; never the network.

Every download here reads a ``file://`` URL (a mirror folder made in
``tmp_path``, or a manifest entry whose canonical URL is a local file).
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile

import pytest

from conftest import require_data

from ccexp.data.fetch import fetch, mirror_url, status
from ccexp.data.manifest import ManifestEntry, _Builder, build_manifest, select


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _entry(relpath: str, data: bytes, url: str = "file:///nonexistent/canonical", **kw) -> ManifestEntry:
    return ManifestEntry(relpath, _sha(data), url, (relpath.split("/")[0],), **kw)


def _write(root, relpath, data: bytes):
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


A, B = b"1,2,a\n3,4,b\n", b"x y z\n"


@pytest.fixture(autouse=True)
def _no_mirror_from_the_environment(monkeypatch):
    monkeypatch.delenv("CCEXP_DATA_MIRROR", raising=False)


@pytest.fixture
def synthetic(tmp_path):
    """A mirror holding two synthetic files and the manifest naming them."""
    mirror = tmp_path / "mirror"
    _write(mirror, "alpha/a.data", A)
    _write(mirror, "beta/b.txt", B)
    manifest = {e.relpath: e for e in (_entry("alpha/a.data", A), _entry("beta/b.txt", B))}
    return mirror, manifest, tmp_path / "data"


def test_download_verifies_then_skips_present_files(synthetic):
    mirror, manifest, data = synthetic
    seen = []
    report = fetch(data_dir=data, base_url=mirror.as_uri(), manifest=manifest, progress=seen.append)
    assert report.ok
    assert [(r.entry.relpath, r.state) for r in report.results] == [
        ("alpha/a.data", "downloaded"),
        ("beta/b.txt", "downloaded"),
    ]
    assert [r.entry.relpath for r in seen] == ["alpha/a.data", "beta/b.txt"]
    assert (data / "alpha/a.data").read_bytes() == A and (data / "beta/b.txt").read_bytes() == B
    assert _files(data) == ["alpha/a.data", "beta/b.txt"]  # no temporary file left

    # present with the right checksum: skipped, even with the mirror gone
    shutil.rmtree(mirror)
    again = fetch(data_dir=data, base_url=mirror.as_uri(), manifest=manifest)
    assert again.ok and [r.state for r in again.results] == ["ok", "ok"]


def test_mirror_from_the_environment(synthetic, monkeypatch):
    mirror, manifest, data = synthetic
    monkeypatch.setenv("CCEXP_DATA_MIRROR", str(mirror))
    report = fetch(data_dir=data, manifest=manifest)  # the canonical URLs would be unreachable
    assert report.ok and [r.url for r in report.results] == [mirror_url(str(mirror), e) for e in manifest]


def test_wrong_checksum_download_is_deleted_and_reported(synthetic):
    mirror, manifest, data = synthetic
    _write(mirror, "alpha/a.data", A + b"5,6,c\n")  # another version of the file
    report = fetch(data_dir=data, base_url=mirror.as_uri(), manifest=manifest)
    states = {r.entry.relpath: r for r in report.results}
    bad = states["alpha/a.data"]
    assert bad.state == "rejected" and not report.ok
    assert _sha(A + b"5,6,c\n") in bad.detail and manifest["alpha/a.data"].sha256 in bad.detail
    assert not (data / "alpha").exists()  # neither the file, nor a temporary, nor the folder made for it
    assert states["beta/b.txt"].state == "downloaded"
    assert _files(data) == ["beta/b.txt"]
    assert "1 file(s) could not be fetched" in report.summary()


def test_modified_local_copy_is_replaced_only_by_a_verified_download(synthetic):
    mirror, manifest, data = synthetic
    _write(data, "alpha/a.data", b"edited\n")
    assert status(data_dir=data, manifest=manifest).results[0].state == "mismatch"
    report = fetch(data_dir=data, base_url=mirror.as_uri(), manifest=manifest, datasets=["alpha"])
    assert [r.state for r in report.results] == ["downloaded"]
    assert (data / "alpha/a.data").read_bytes() == A
    # a failed download leaves the user's file alone and says what is wrong with it
    _write(data, "alpha/a.data", b"edited\n")
    report = fetch(data_dir=data, base_url=(mirror / "gone").as_uri(), manifest=manifest, datasets=["alpha"])
    (r,) = report.results
    assert r.state == "unreachable" and "the file there has sha256" in r.detail
    assert (data / "alpha/a.data").read_bytes() == b"edited\n"


def test_a_modified_local_copy_is_kept_aside_and_named(synthetic):
    """Issue 33: fetch replaced a locally modified file without a word; now it keeps it and says where."""
    from ccexp.data.fetch import format_status

    mirror, manifest, data = synthetic
    _write(data, "alpha/a.data", b"edited\n")
    (r,) = fetch(data_dir=data, base_url=mirror.as_uri(), manifest=manifest, datasets=["alpha"]).results
    assert r.state == "downloaded" and (data / "alpha/a.data").read_bytes() == A
    assert (data / "alpha/a.data.modified").read_bytes() == b"edited\n"
    line = format_status(r)
    assert "the file there was not the original (sha256" in line and "kept as a.data.modified" in line
    _write(data, "alpha/a.data", b"edited again\n")  # a second one does not overwrite the first
    fetch(data_dir=data, base_url=mirror.as_uri(), manifest=manifest, datasets=["alpha"])
    assert (data / "alpha/a.data.modified.1").read_bytes() == b"edited again\n"


def test_offline_reports_missing_files_urls_and_data_dir(synthetic):
    _, manifest, data = synthetic
    # no mirror: the canonical URLs (file:// paths that do not exist) are unreachable
    report = fetch(data_dir=data, manifest=manifest)
    assert not report.ok and [r.state for r in report.results] == ["unreachable", "unreachable"]
    text = report.summary()
    for relpath in manifest:
        assert str(data.resolve() / relpath) in text
    assert "source: file:///nonexistent/canonical" in text
    assert f"export CCEXP_DATA_DIR={data.resolve()}" in text
    assert "--base-url" in text
    assert not data.exists()


def test_status_lists_ok_missing_and_mismatch(synthetic):
    _, manifest, data = synthetic
    manifest = dict(manifest, **{"gamma/c.csv": _entry("gamma/c.csv", b"c\n")})
    _write(data, "alpha/a.data", A)
    _write(data, "beta/b.txt", b"not b\n")
    report = status(data_dir=data, manifest=manifest)
    assert {r.entry.relpath: r.state for r in report.results} == {
        "alpha/a.data": "ok",
        "beta/b.txt": "mismatch",
        "gamma/c.csv": "missing",
    }
    assert not report.ok and "2 file(s) are not usable" in report.summary()
    # a missing workbook is not a problem while its exports are there
    book = ManifestEntry("gamma/book.xls", "0" * 64, "file:///x", ("gamma",), source_only=True)
    (r,) = status(data_dir=data, manifest={book.relpath: book}).results
    assert r.state == "missing" and "needed only to make the files exported" in r.detail and r.good
    assert status(data_dir=data, manifest=manifest, datasets=["alpha"]).ok
    # a file with no published checksum is "present", not verified
    unchecked = {"beta/b.txt": ManifestEntry("beta/b.txt", None, "file:///x", ("beta",))}
    assert [r.state for r in status(data_dir=data, manifest=unchecked).results] == ["present"]


def test_zip_member_is_extracted_with_lf_line_ends(tmp_path):
    crlf, lf = b"class,b1\r\nd ,1\r\n", b"class,b1\nd ,1\n"
    archive = tmp_path / "forest.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("ForestTypes/training.csv", crlf)
        zf.writestr("ForestTypes/testing.csv", crlf)
    entry = _entry("forest/training.csv", lf, url=archive.as_uri(), member="training.csv", crlf_to_lf=True)
    data = tmp_path / "data"
    (r,) = fetch(data_dir=data, manifest={entry.relpath: entry}).results
    assert r.state == "extracted" and (data / "forest/training.csv").read_bytes() == lf

    wrong_zip = _entry("forest/training.csv", lf, url=archive.as_uri(), member="training.csv",
                       crlf_to_lf=True, archive_sha256="0" * 64)
    (r,) = fetch(data_dir=tmp_path / "other", manifest={entry.relpath: wrong_zip}).results
    assert r.state == "failed" and "archive" in r.detail and not (tmp_path / "other").exists()


def test_exports_are_made_from_their_workbook_and_the_workbook_only_when_needed(tmp_path):
    book = b"A WORKBOOK\n"
    export = book.lower()
    src = ManifestEntry("w/book.xls", _sha(book), (tmp_path / "book.xls").as_uri(), ("w",), source_only=True)
    out = _entry("w/export.csv", export, url=None, derived_from="w/book.xls", derive=lambda p: p.read_bytes().lower())
    manifest = {src.relpath: src, out.relpath: out}
    (tmp_path / "book.xls").write_bytes(book)
    data = tmp_path / "data"
    report = fetch(data_dir=data, manifest=manifest)
    assert [r.state for r in report.results] == ["downloaded", "exported"]
    assert (data / "w/export.csv").read_bytes() == export

    # the export present, the workbook gone and unreachable: nothing is missing that a loader reads
    (data / "w/book.xls").unlink()
    (tmp_path / "book.xls").unlink()
    report = fetch(data_dir=data, manifest=manifest)
    assert report.ok and [r.state for r in report.results] == ["skipped", "ok"]
    # the export gone too: it cannot be made, and the report says why
    (data / "w/export.csv").unlink()
    report = fetch(data_dir=data, manifest=manifest)
    assert [r.state for r in report.results] == ["unreachable", "failed"]
    assert "workbook w/book.xls is not available" in report.results[1].detail


def test_real_files_from_a_mirror_are_what_the_loaders_read(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    for relpath in ("iris/iris.data", "wine/wine.data"):
        _write(mirror, relpath, require_data(relpath).read_bytes())
    data = tmp_path / "data"
    report = fetch(datasets=["iris", "wine"], data_dir=data, base_url=str(mirror))  # a plain folder works too
    assert report.ok and [r.state for r in report.results] == ["downloaded", "downloaded"]
    monkeypatch.setenv("CCEXP_DATA_DIR", str(data))
    from ccexp.data import load_dataset

    assert load_dataset("iris").X.shape == (150, 4) and load_dataset("wine").X.shape == (178, 13)


@pytest.mark.parametrize(
    "dataset, workbook",
    [
        ("cardiotocography", "cardiotocography/CTG.xls"),
        ("user_knowledge", "user_knowledge/Data_User_Modeling_Dataset_Hamdi Tolga KAHRAMAN.xls"),
    ],
)
def test_xls_exports_reproduce_the_loaders_checksums(tmp_path, dataset, workbook):
    pytest.importorskip("xlrd", reason="exporting an .xls sheet needs xlrd (optional)")
    mirror = tmp_path / "mirror"
    _write(mirror, workbook, require_data(workbook).read_bytes())  # the mirror has the workbook only
    report = fetch(datasets=[dataset], data_dir=tmp_path / "data", base_url=mirror.as_uri())
    assert report.ok, report.summary()
    states = {r.entry.relpath: r.state for r in report.results}
    assert states.pop(workbook) == "downloaded"
    assert states and set(states.values()) == {"exported"}  # each sha256 verified against the loader's spec


def test_unwritable_data_folder_is_a_failure_not_a_traceback(synthetic):
    mirror, manifest, data = synthetic
    data.mkdir()
    (data / "alpha").write_bytes(b"a file where the dataset folder should be")
    report = fetch(data_dir=data, base_url=mirror.as_uri(), manifest=manifest)
    assert [r.state for r in report.results] == ["failed", "downloaded"]
    assert "cannot write" in report.results[0].detail


def test_mirror_url_quotes_paths_and_accepts_folders(tmp_path):
    url = mirror_url("https://m.example/data/", "user_knowledge/a b.xls")
    assert url == "https://m.example/data/user_knowledge/a%20b.xls"
    assert mirror_url(str(tmp_path), "iris/iris.data") == tmp_path.resolve().as_uri() + "/iris/iris.data"


def test_manifest_selection_and_conflicts():
    manifest = build_manifest()
    assert list(select(manifest, ["pendigits"])) == ["pendigits/pendigits.tra", "pendigits/pendigits.tes"]
    assert list(select(manifest, ["digits389"])) == list(select(manifest, ["pendigits"]))
    ctg = select(manifest, ["cardiotocography"])
    assert list(ctg) == ["cardiotocography/CTG.xls", "cardiotocography/CTG_Data_sheet_export.csv"]
    assert ctg["cardiotocography/CTG.xls"].source_only
    with pytest.raises(ValueError, match="unknown dataset.*'irs'.*iris"):
        select(manifest, ["irs"])
    b = _Builder()
    b.add_file("x/f.data", "a" * 64, "https://h/f.data", "one")
    b.add_file("x/f.data", "a" * 64, "https://h/f.data", "two")
    assert b.entries["x/f.data"].datasets == ("one", "two")
    with pytest.raises(ValueError, match="two loaders disagree"):
        b.add_file("x/f.data", "b" * 64, "https://h/f.data", "three")


# The loaders are run in a fresh interpreter (no cached reads) on an empty
# data folder with data_file replaced by a recorder: whatever file any
# registered dataset asks for first is recorded with its checksum.
_TRACE = textwrap.dedent(
    """
    import json, sys
    import ccexp.data
    from ccexp.data import files
    from ccexp.registry import DATASETS

    class Asked(Exception):
        pass

    calls = []
    def recorder(relpath, sha256=None, url=None, dataset=None):
        calls.append({"relpath": relpath, "sha256": sha256, "dataset": dataset})
        raise Asked

    original = files.data_file
    for name, module in list(sys.modules.items()):
        if name.startswith("ccexp") and getattr(module, "data_file", None) is original:
            module.data_file = recorder
    out = {}
    for name in DATASETS.names():
        calls.clear()
        try:
            DATASETS.get(name)(random_state=0)
            out[name] = "generated"
        except Asked:
            out[name] = calls[0]
        except Exception as err:
            out[name] = f"error: {type(err).__name__}: {err}"
    print(json.dumps(out))
    """
)


def test_every_loaders_file_is_in_the_manifest(tmp_path):
    env = dict(os.environ, CCEXP_DATA_DIR=str(tmp_path / "empty"))
    proc = subprocess.run([sys.executable, "-c", _TRACE], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    traced = json.loads(proc.stdout.strip().splitlines()[-1])
    errors = {k: v for k, v in traced.items() if isinstance(v, str) and v.startswith("error")}
    assert not errors, errors
    asked = {k: v for k, v in traced.items() if isinstance(v, dict)}
    # the registries' file loaders are all seen (a trace that sees nothing proves nothing)
    assert {"iris", "digits389", "glass", "ecoli", "cardiotocography", "adult", "food100", "nature"} <= set(asked)
    manifest = build_manifest()
    for name, call in asked.items():
        entry = manifest.get(call["relpath"])
        assert entry is not None, f"dataset {name} reads {call['relpath']}, which the fetch manifest lacks"
        assert entry.sha256 == call["sha256"], f"{call['relpath']}: manifest and loader {name} disagree on the sha256"
        assert call["dataset"] in entry.datasets


def _cli(*args, cwd):
    env = {k: v for k, v in os.environ.items() if k not in ("CCEXP_DATA_MIRROR", "CCEXP_DATA_DIR")}
    return subprocess.run(
        [sys.executable, "-m", "ccexp.data", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


@pytest.mark.slow  # five runs of python -m ccexp.data
def test_cli_fetch_status_offline_and_usage(tmp_path):
    mirror = tmp_path / "mirror"
    _write(mirror, "iris/iris.data", require_data("iris/iris.data").read_bytes())
    data = tmp_path / "data"

    proc = _cli("fetch", "--datasets", "iris", "--data-dir", str(data), "--base-url", mirror.as_uri(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "downloaded  iris/iris.data" in proc.stdout and "1 downloaded" in proc.stdout
    proc = _cli("fetch", "--check", "--datasets", "iris", "wine", "--data-dir", str(data), cwd=tmp_path)
    assert proc.returncode == 1
    assert "ok          iris/iris.data" in proc.stdout and "missing     wine/wine.data" in proc.stdout
    assert "https://archive.ics.uci.edu/ml/machine-learning-databases/wine/wine.data" in proc.stderr
    proc = _cli("status", "--datasets", "iris", cwd=tmp_path)  # default data folder ./data under cwd
    assert proc.returncode == 0 and "ok          iris/iris.data" in proc.stdout

    offline = tmp_path / "offline"
    gone = (tmp_path / "no-such-mirror").as_uri()
    proc = _cli("fetch", "--datasets", "wine", "--data-dir", str(offline), "--base-url", gone, cwd=tmp_path)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "unreachable wine/wine.data" in proc.stdout and f"{gone}/wine/wine.data" in proc.stdout
    assert str(offline.resolve() / "wine/wine.data") in proc.stderr
    assert f"export CCEXP_DATA_DIR={offline.resolve()}" in proc.stderr
    assert not offline.exists()

    proc = _cli("fetch", "--datasets", "no_such_set", cwd=tmp_path)
    assert proc.returncode == 2 and "unknown dataset" in proc.stderr and "Traceback" not in proc.stderr
