"""Before a sweep: can the tracking store take its runs? (issue 33; a busy server, stop 60)

:func:`check_tracking` is called by ``python -m ccexp`` and ``python -m
ccexp.track`` before any case runs, so that a missing server, an unknown
URI scheme or a locked sqlite file is met in one line, not after the sweep.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from .compose import ConfigError

log = logging.getLogger("ccexp")


class TrackingUnavailable(SystemExit):
    """``tracking=server`` and no MLflow server answers at the URI (one line, exit status 1)."""


def check_tracking(uri: str | None, timeout: float = 5.0, patience: float = 60.0) -> None:
    """Fail fast, before any case runs, when the tracking store at ``uri`` cannot take the sweep's runs.

    An http(s) MLflow server: one GET of its ``/health`` endpoint
    (``mlflow server`` answers ``OK``), with a ``timeout`` of a few seconds:
    a missing server used to cost the whole sweep, then about four minutes
    of retries.  A refused connection (nothing listens) fails at once; a
    server that took the connection but has not answered within ``timeout``
    is busy, not missing, and is asked again until ``patience`` seconds
    have passed (two sweeps starting together beside a loaded machine's
    other work once met a 5 s timeout on a running server, CI of stop 59).  The embedded sqlite store: it must be writable and not
    locked by another process (:func:`check_sqlite_store`); both used to be
    found only after the sweep (issue 33).  A URI whose scheme MLflow has no
    store for is refused (it was found after the sweep too).

    Raises
    ------
    TrackingUnavailable
        A server that does not answer: a ``SystemExit`` whose message names the URI, what failed, and what to do.
    ccexp.runner.compose.ConfigError
        An unknown scheme, a read-only or locked sqlite store (one line, exit status 2).
    """
    if uri is None:
        return
    scheme = urlsplit(uri).scheme.split("+", 1)[0].lower()
    if scheme not in TRACKING_SCHEMES:
        raise ConfigError(f"tracking.uri={uri}: MLflow stores no runs at a {scheme!r} URI; write "
                          f"http://HOST:PORT (a server), sqlite:///PATH/mlflow.db, postgresql://..., or use tracking=local")
    if scheme == "sqlite":
        check_sqlite_store(uri, timeout=timeout)
        return
    if scheme not in ("http", "https"):
        return
    url = uri.rstrip("/") + "/health"
    deadline = time.monotonic() + patience
    while True:
        reason, busy = _ask_health(url, timeout)
        if reason is None:
            return
        if not busy or time.monotonic() + timeout > deadline:
            break
        log.warning("tracking: the MLflow server at %s has not answered in %g s (%s); asking again, "
                    "for at most %g s in all", uri, timeout, reason, patience)
        time.sleep(min(1.0, timeout))
    raise TrackingUnavailable(
        f"tracking=server: no MLflow server answers at {uri} ({reason}); start one "
        f"(mlflow server --host 127.0.0.1 --port 5000), set tracking.uri=http://HOST:PORT, "
        f"or run with tracking=local or tracking=off"
    )


def _ask_health(url: str, timeout: float) -> tuple[str | None, bool]:
    """One GET of a server's ``/health``: (None, False) when it answers 200, else (why not, whether it is busy).

    Busy means that it may answer if asked again: the request timed out
    after the connection was made, or the server said 503 (unavailable).
    """
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 - the user's own tracking URI
            if resp.status == 200:
                return None, False
            return f"HTTP {resp.status}", False
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code} from {url}", exc.code == 503
    except (urllib.error.URLError, OSError) as exc:
        why = getattr(exc, "reason", exc)
        return str(why), isinstance(why, TimeoutError) or isinstance(exc, TimeoutError)


#: URI schemes MLflow keeps runs at (a database dialect may add a driver: postgresql+psycopg2)
TRACKING_SCHEMES = ("", "file", "sqlite", "postgresql", "mysql", "mssql", "http", "https", "databricks",
                    "databricks-uc", "uc")


def check_sqlite_store(uri: str, timeout: float = 5.0) -> None:
    """Refuse, in one line, an embedded sqlite store the sweep could not log to: read-only, or locked.

    The store is opened and a write transaction begun and rolled back
    (``BEGIN IMMEDIATE``), waiting at most ``timeout`` seconds for another
    writer, so what MLflow would meet after the sweep is met before it.
    """
    db = Path(uri[len("sqlite:///"):]) if uri.startswith("sqlite:///") else None
    if db is None or not str(db) or str(db) == ":memory:":
        return
    what = f"tracking: the MLflow store {db}"
    fix = "free it, or run with tracking=off (or tracking.uri=sqlite:///OTHER/mlflow.db)"
    if not db.exists():
        folder = db.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if not os.access(folder, os.W_OK | os.X_OK):
            raise ConfigError(f"{what} cannot be created: {folder} is not writable; {fix}")
        return
    if not os.access(db, os.R_OK | os.W_OK) or not os.access(db.parent, os.W_OK | os.X_OK):
        raise ConfigError(f"{what} is read-only (it or its folder); {fix}")
    try:
        con = sqlite3.connect(f"file:{db}?mode=rw", uri=True, timeout=timeout)
        try:
            con.execute("BEGIN IMMEDIATE")
            con.rollback()
        finally:
            con.close()
    except sqlite3.Error as err:
        reason = str(err) or type(err).__name__
        state = "is locked by another process" if "locked" in reason else f"cannot be written ({reason})"
        raise ConfigError(f"{what} {state}; {fix}") from None
