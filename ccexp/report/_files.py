"""A report replaces its folder's report files all together or not at all.

A report writes :data:`REPORT_OUTPUTS` (``report.md``, ``comparison.*``,
``figures/``, ``tables/``) into ``results/<experiment>/<label>/``, beside the
records it reads.  Written in place, a report that failed halfway (a full
disk, an exception in a figure) left new tables beside an old ``report.md``
and an old figure cut to 4,096 bytes (issue 33, item 5); and a
``report.md`` written only when missing stayed stale forever (item 1).

:func:`replacing_report` first moves the old files aside into a hidden
folder of the same directory (renames only: no space needed), lets the
report write its files, then deletes the old ones; if the report raises,
whatever it wrote is removed and the old files are renamed back.  A report
killed outright (``kill -9``) leaves the hidden folder behind:
:func:`recover_report` (called by the next report of the folder and by the
reproduction page before it reads one) renames the old files back over the
unfinished new ones.  Either way a reader finds one complete report, old or
new, never a mix.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

#: what a report writes into its folder, relative to it
REPORT_OUTPUTS = ("report.md", "comparison.md", "comparison.csv", "figures", "tables")

_HOST = re.sub(r"[^A-Za-z0-9_]", "_", socket.gethostname())
_STAGE = re.compile(r"^\.report-old\.(?P<host>[A-Za-z0-9_]+)\.(?P<pid>\d+)\.[0-9a-f]+$")


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _restore(out_dir: Path, stage: Path) -> None:
    """Rename the old report files in ``stage`` back into ``out_dir``, over what a new report wrote there.

    Before every old file was set aside (no ``.moved`` marker in ``stage``),
    the files in ``out_dir`` are still old ones and are kept.
    """
    if (stage / ".moved").exists():
        for name in REPORT_OUTPUTS:
            _remove(out_dir / name)
    for name in REPORT_OUTPUTS:
        if (stage / name).exists() or (stage / name).is_symlink():
            os.replace(stage / name, out_dir / name)
    shutil.rmtree(stage, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recover_report(out_dir: str | os.PathLike) -> bool:
    """Put back the old report of a report killed while it wrote (a hidden folder of a dead process).

    Returns whether a report was put back.  A folder of a live process (a
    report being written now) or of another host is left alone.
    """
    out_dir = Path(out_dir)
    if not out_dir.is_dir():
        return False
    restored = False
    for stage in out_dir.glob(".report-old.*"):
        m = _STAGE.match(stage.name)
        if m is None or not stage.is_dir() or m["host"] != _HOST or _alive(int(m["pid"])):
            continue
        _restore(out_dir, stage)
        restored = True
    return restored


@contextlib.contextmanager
def replacing_report(out_dir: str | os.PathLike) -> Iterator[Path]:
    """Let the block write a new report into ``out_dir``; keep the old one if the block raises.

    See the module docstring.  The block's files replace the old report's
    as a whole: an old figure or table the new report does not write is
    gone too, as a report of other records should not show it.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    recover_report(out_dir)
    stage = out_dir / f".report-old.{_HOST}.{os.getpid()}.{uuid.uuid4().hex[:12]}"
    stage.mkdir()
    try:
        for name in REPORT_OUTPUTS:
            if (out_dir / name).exists() or (out_dir / name).is_symlink():
                os.replace(out_dir / name, stage / name)
        (stage / ".moved").touch()
        yield out_dir
    except BaseException:
        _restore(out_dir, stage)
        raise
    shutil.rmtree(stage, ignore_errors=True)
