"""What ``python -m ccexp`` checks after resolving a run and before its first case (issue 33).

Each check turns what used to be a traceback after minutes (or a sweep
aborted half way) into one line (:class:`~ccexp.runner.compose.ConfigError`,
exit status 2) before anything runs:

- :func:`check_results_folder`: the results folder can be written (not
  read-only, not a file, not a symlink loop, not a full disk);
- :func:`check_instances`: each dataset of the grid, loaded once, has what
  its oracles need (:func:`ccexp.capabilities.dataset_fit_error`), and no
  case's supervision would outgrow the machine's memory (an oracle's
  declared ``memory_bytes``);
- :func:`check_algorithm_values`: every algorithm of the grid, with each
  parameter value it is swept over, passes its class's
  ``_parameter_constraints`` (a swept ``tau: .inf``, Hydra's text for the
  string '.inf', started the sweep and died in the store 38 s later);
- :func:`check_dask_address`: ``runner.address`` answers (a dead address
  cost 35 s and a raw ``OSError``).

The tracking store is checked by :func:`ccexp.runner.tracking_check.check_tracking`.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from ..algorithms.base import validate_params
from ..capabilities import dataset_fit_error
from ..registry import ORACLES
from .compose import ConfigError
from .execute import _target, build_dataset
from .objects import build
from .guards import available_memory, fmt_bytes
from .seeding import canonical_json

_WHY = {
    errno.EACCES: "permission denied (a read-only folder?)",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "the file system is read-only",
    errno.ENOTDIR: "a file stands where a folder belongs",
    errno.EEXIST: "a file stands where a folder belongs",
    errno.ELOOP: "a symbolic link loop",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is exceeded",
}


def describe_os_error(err: OSError) -> str:
    """An ``OSError`` in words, with the path it concerns: ``no space left on the device (/r/x/part.parquet)``."""
    why = _WHY.get(err.errno, err.strerror or str(err))
    where = err.filename or ""
    return f"{why} ({where})" if where else why


def check_results_folder(results: Path, out_dir: Path) -> None:
    """Refuse, in one line, a results folder the run cannot write into (before any case runs)."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".write-check-", dir=out_dir)
        try:
            os.write(fd, b"ccexp")
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as err:
        raise ConfigError(f"paths.results={results}: cannot write {out_dir}: {describe_os_error(err)}; "
                          f"choose a folder you can write (paths.results=DIR)") from None


def check_instances(cases, available: int | None = None, targets: dict | None = None) -> None:
    """Load each distinct dataset of ``cases`` once and refuse an oracle it cannot feed, or a case too large.

    The dataset is drawn as the first of its instances draws it (its seed),
    so a synthetic dataset has its configured size; a real one is read from
    its file (a missing file stops here, as in a worker).  The memory
    estimate is the oracle's ``memory_bytes(n_items, **params)`` where it
    declares one (the triplets oracle: all C(n, 3) triplets at
    ``fraction=1``), against the memory available now.  ``targets``: the
    run's ``_target_`` of each name (:attr:`ccexp.runner.config.RunSpec.targets`).
    """
    available = available_memory() if available is None else available
    # each distinct dataset with the distinct oracles it meets, in grid order; one dataset in memory at a time
    plan: dict[str, dict[str, object]] = {}
    for case in cases:
        inst = case.instance
        plan.setdefault(canonical_json(inst.dataset), {}).setdefault(canonical_json(inst.oracle), case)
    for firsts in plan.values():
        first = next(iter(firsts.values()))
        dataset = build_dataset(first.instance, targets)
        for case in firsts.values():
            _check_case(case, dataset, available)
        del dataset


def _check_case(case, dataset, available: int) -> None:
    oracle = case.instance.oracle["name"]
    why = dataset_fit_error(dataset, oracle)
    if why:
        raise ConfigError(f"{case.experiment}: {why}; choose a dataset that has it, or another oracle")
    estimate = getattr(ORACLES.get(oracle), "memory_bytes", None)
    if estimate is None:
        return
    params = {k: v for k, v in case.instance.oracle.items() if k != "name"}
    need = estimate(dataset.n_items, **params)
    if need > available:
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        raise ConfigError(f"{case.experiment}: a case of dataset {dataset.name!r} ({dataset.n_items:,} items) with "
                          f"oracle {oracle!r} ({shown}) needs about {fmt_bytes(need)} of memory, more than the "
                          f"{fmt_bytes(available)} this machine has available; make it smaller")


def check_dask_address(address: str | None, timeout: float = 5.0) -> None:
    """Refuse, in one line and within ``timeout`` seconds, a ``runner.address`` where no scheduler listens."""
    if not address:
        return
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme not in ("tcp", "tls") or not parts.hostname or parts.port is None:
        raise ConfigError(f"runner.address={address}: write tcp://HOST:PORT (the scheduler's address, e.g. "
                          f"tcp://127.0.0.1:8786), or null to start a local cluster")
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=timeout):
            return
    except OSError as err:
        reason = err.strerror or str(err) or type(err).__name__
    raise ConfigError(f"runner.address={address}: no Dask scheduler answers there ({reason}); start one "
                      f"(dask scheduler --port {parts.port}), fix the address, or drop runner.address to start a "
                      f"local cluster")


def check_algorithm_values(cases, targets: dict | None = None) -> None:
    """Refuse, in one line, an algorithm parameter value that the estimator's own ``fit`` would refuse.

    Each distinct (algorithm, parameters) of ``cases`` is built as a worker
    builds it and checked as its ``fit`` checks it first
    (:func:`ccexp.algorithms.base.validate_params`: scikit-learn's
    ``_parameter_constraints``), so a bad value in a sweep stops the run
    before its first case instead of failing every case that holds it.
    """
    seen = set()
    for case in cases:
        key = (case.algorithm, canonical_json(case.params))
        if key in seen:
            continue
        seen.add(key)
        try:
            validate_params(build(_target(targets, "algorithm", case.algorithm), case.params, random_state=0))
        except (ValueError, TypeError) as err:
            why = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise ConfigError(f"{case.experiment}: algorithm {case.algorithm!r}: {why}") from None
