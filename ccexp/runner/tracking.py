"""MLflow logging: a parent run per invocation, a child run per algorithm x setting.

The embedded default store is a SQLite file inside the results folder (no
server); ``tracking=server tracking.uri=http://...`` logs to a running
``mlflow server``.  Child runs carry the mean and standard deviation over
trials of every metric; the parent carries the records table and figures.
Where the sweep left per-step traces (active learning), each child run also
carries the mean learning curves ``curve.ari``, ``curve.ami`` with
``step = number of queries``, so the MLflow UI draws them.
"""

from __future__ import annotations

import inspect
import logging
import os
import sqlite3
import tempfile
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np
import pandas as pd
from filelock import FileLock

from ..registry import ALGORITHMS
from .layout import experiment_dir
from .seeding import stable_hash
from .store import ResultStore

log = logging.getLogger("ccexp")

METRICS = ("ari", "ami", "f_measure", "precision", "recall", "n_clusters", "objective", "objective_fraction", "n_queries", "fit_seconds")


def local_uri(results_dir: str | Path) -> str:
    """The embedded store of a results folder: ``sqlite:///<results>/mlflow.db``."""
    return f"sqlite:///{(Path(results_dir).resolve() / 'mlflow.db').as_posix()}"


def relocate_artifacts(uri: str, results_dir: str | Path) -> int:
    """Point an embedded store's artifact locations at its own folder; returns the rows changed.

    MLflow keeps absolute artifact URIs (``file:///…/results/mlartifacts/…``)
    in the store.  After a results folder was moved or copied, the copy's
    store still named the original's folder, so a run into the copy wrote
    its artifacts into the original (issue 33, item 12).  Every text value of
    the store that starts with another folder's ``…/mlartifacts`` is rewritten
    to start with ``<results_dir>/mlartifacts``: the folder is self-contained.
    """
    db = Path(uri[len("sqlite:///"):])
    if not db.is_file():
        return 0
    root = (Path(results_dir).resolve() / "mlartifacts").as_uri()
    changed = 0
    con = sqlite3.connect(db, timeout=60)
    try:
        old_roots = set()
        for (loc,) in con.execute("SELECT artifact_location FROM experiments"):
            if loc and loc.startswith("file:") and "/mlartifacts/" in loc:
                old = loc[: loc.rindex("/mlartifacts/") + len("/mlartifacts")]
                if old != root:
                    old_roots.add(old)
        if not old_roots:
            return 0
        tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        with con:
            for table in tables:
                cols = [c[1] for c in con.execute(f'PRAGMA table_info("{table}")') if "CHAR" in c[2].upper()
                        or "TEXT" in c[2].upper()]
                for col, old in ((c, o) for c in cols for o in old_roots):
                    cur = con.execute(f'UPDATE "{table}" SET "{col}" = ? || substr("{col}", ?) '
                                      f'WHERE substr("{col}", 1, ?) = ?', (root, len(old) + 1, len(old), old))
                    changed += cur.rowcount
    finally:
        con.close()
    log.info("MLflow: the results folder moved or was copied; %d artifact locations of %s now point into %s",
             changed, db, root)
    return changed


def tracking_uri(mode: str, uri: str | None, results_dir: str | Path) -> str | None:
    """The MLflow tracking URI for a ``tracking`` config, or None when off."""
    if mode in ("off", False, None):
        return None
    if mode == "local":
        return uri or local_uri(results_dir)
    if mode == "server":
        if not uri:
            raise ValueError("tracking=server needs tracking.uri=http://HOST:PORT")
        return uri
    raise ValueError(f"unknown tracking mode {mode!r}; valid modes are: local, off, server")


def _sqlite_lock(uri: str):
    """A lock beside an embedded sqlite store: two first runs creating its tables at once
    crashed MLflow's schema migration (``No such index``)."""
    if not uri.startswith("sqlite:///"):
        return nullcontext()
    db = Path(uri[len("sqlite:///"):])
    db.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(str(db) + ".lock", timeout=600)


def _param_value(algorithm: str, key: str, value):
    """``value`` with the type of the estimator's default for ``key`` (``algorithm.max_iter``).

    The records hold one ``algorithm.<p>`` column for every algorithm of the
    grid, so an int parameter comes back as a float wherever another
    algorithm left the column empty (``1000.0``).
    """
    if isinstance(value, (float, np.floating)) and float(value).is_integer() and key.startswith("algorithm."):
        param = (_signature(algorithm) or {}).get(key.split(".", 1)[1])
        default = None if param is None else param.default
        if isinstance(default, bool):
            return bool(value)
        if isinstance(default, (int, np.integer)):
            return int(value)
    if _missing(value):
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


def _signature(algorithm: str) -> dict | None:
    try:
        return dict(inspect.signature(ALGORITHMS.get(algorithm)).parameters)
    except (KeyError, TypeError, ValueError):
        return None


def own_columns(records: pd.DataFrame) -> dict[str, list[str]]:
    """Per algorithm, the ``algorithm.*`` columns that are its own parameters.

    Those its estimator's signature names (a parameter left at None is
    still its own), else those it filled; the records hold one column per
    parameter of any algorithm of the grid, empty for the others.
    """
    cols = [c for c in records.columns if c.startswith("algorithm.")]
    out = {}
    for alg, g in records.groupby("algorithm"):
        sig = _signature(alg)
        out[alg] = [c for c in cols if (c.split(".", 1)[1] in sig if sig is not None else g[c].notna().any())]
    return out


def setting_columns(df: pd.DataFrame) -> list[str]:
    """The swept parameter columns (dataset.*, oracle.*, algorithm.*) that vary or identify a setting."""
    return [c for c in df.columns if c.startswith(("dataset.", "oracle.", "algorithm.")) and not c.startswith("algorithm.random_state")]


def hashable_settings(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with each list-valued setting cell as text (``[single, complete]`` -> ``"single,complete"``).

    A parameter may be a list (agg_robustness's ``oracle.methods``), read back
    from parquet as an array: as a group key it raised ``TypeError:
    unhashable type`` and nothing was logged (issue 33, item 13).
    """
    out = df
    for col in setting_columns(df):
        if df[col].dtype == object and df[col].map(lambda v: isinstance(v, (list, tuple, np.ndarray))).any():
            out = out.copy() if out is df else out
            out[col] = [",".join(map(str, v)) if isinstance(v, (list, tuple, np.ndarray)) else v for v in df[col]]
    return out


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    """Mean and std over trials per algorithm x setting (list-valued settings as text, :func:`hashable_settings`)."""
    df = hashable_settings(df)
    keys = ["algorithm"] + setting_columns(df)
    metrics = [m for m in METRICS if m in df.columns]
    g = df.groupby(keys, dropna=False)[metrics]
    mean = g.mean().add_suffix("_mean")
    std = g.std(ddof=0).add_suffix("_std")
    count = g.size().rename("n_trials")
    return pd.concat([mean, std, count], axis=1).reset_index()


def run_name(algorithm: str, setting: dict) -> str:
    """``algorithm[key=value,...]``: a child run's name, readable in the MLflow table.

    Keys lose their group prefix (``oracle.noise`` -> ``noise``) unless two
    groups share the short name; missing values (a parameter another
    algorithm of the grid sweeps) are left out.

    Examples
    --------
    >>> run_name("ls_ad_vc", {"dataset.k": 8, "oracle.fraction": 0.1, "oracle.noise": 0.2})
    'ls_ad_vc[k=8,fraction=0.1,noise=0.2]'
    >>> run_name("kmeans", {"dataset.n": 200, "oracle.n": 50, "algorithm.xi": float("nan")})
    'kmeans[dataset.n=200,oracle.n=50]'
    """
    present = {k: v for k, v in setting.items() if not (v is None or (isinstance(v, float) and np.isnan(v)))}
    short = [k.split(".", 1)[-1] for k in present]
    items = []
    for k, v in present.items():
        name = k.split(".", 1)[-1]
        items.append(f"{name if short.count(name) == 1 else k}={_fmt(v)}")
    return f"{algorithm}[{','.join(items)}]"


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v))


def _fmt(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


#: trace columns logged as learning curves
CURVE_METRICS = ("ari", "ami")


def _key(values) -> tuple:
    return tuple(None if (isinstance(v, float) and np.isnan(v)) else v for v in values)


def mean_curves(traces: pd.DataFrame, case_ids) -> pd.DataFrame:
    """Mean over cases of each trace metric against ``n_queries``.

    A curve that stopped early (converged) is held at its last value up to
    the longest curve of the group, as the paper's curves are drawn.
    """
    t = traces[traces["case_id"].isin(set(case_ids))]
    metrics = [m for m in CURVE_METRICS if m in t.columns]
    if not len(t) or not metrics:
        return pd.DataFrame()
    grid = np.sort(t["n_queries"].unique())
    out = {}
    for m in metrics:
        wide = t.pivot_table(index="n_queries", columns="case_id", values=m, aggfunc="last").reindex(grid).ffill()
        out[m] = wide.mean(axis=1)
    return pd.DataFrame(out)


def _curve_metrics(traces, case_ids, ts):
    # mlflow is imported where it is used: seconds of import that tracking=off runs never pay
    from mlflow.entities import Metric

    curves = mean_curves(traces, case_ids)
    return [
        Metric(f"curve.{m}", float(v), ts, int(q))
        for m in curves.columns
        for q, v in curves[m].items()
        if np.isfinite(v)
    ]


@contextmanager
def _quiet_run_urls():
    """Stop MLflow printing two "View run ... at" lines per finished run to a server.

    ``MlflowClient.set_terminated`` on an http store writes the run's URL to
    stdout and fetches the run (one more round trip) to do so: ~1,000 lines
    and ~500 extra requests for the child runs of a paper-scale sweep.  The
    parent run's URL is still printed once.
    """
    key = "MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT"
    old = os.environ.get(key)
    os.environ[key] = "true"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = old


def sweep_params(experiment: dict, label: str, n_cases: int, code_version: str | None) -> dict:
    """The parent run's parameters: the experiment, its paper, scale and results folder, size and code."""
    return {"experiment": experiment["name"], "paper": experiment.get("paper"), "scale": experiment.get("scale"),
            "results_label": label, "n_cases": n_cases, "algorithms": ",".join(experiment.get("algorithms") or []),
            "trials": experiment.get("trials"), "code_version": code_version}


def sweep_key(experiment_name: str, label: str, records: pd.DataFrame) -> str:
    """What identifies a sweep's stored records in MLflow: the tag ``ccexp.sweep_key`` of its parent run.

    A hash of the experiment, the results folder's label and the records'
    case ids and code versions: the stored records, however often they are
    logged.  :func:`log_sweep` with ``resume=True`` finds the parent by it.
    """
    ids = sorted(records["case_id"].astype(str)) if len(records) and "case_id" in records else []
    versions = sorted(records["code_version"].dropna().astype(str).unique()) if "code_version" in records else []
    return stable_hash({"experiment": experiment_name, "label": str(label), "cases": ids, "code_versions": versions})


def _setting_key(row: dict) -> str:
    """A child run's identity within its parent: its algorithm and setting (tag ``ccexp.setting_key``)."""
    return stable_hash({k: (None if _missing(v) else (v.item() if isinstance(v, np.generic) else v))
                        for k, v in row.items() if k == "algorithm" or k.startswith(("dataset.", "oracle.", "algorithm."))})


#: MLflow's HTTP retries when ccexp logs to a server (the user's own settings win): MLflow's defaults
#: (7 retries, backoff factor 2, 120 s timeout) kept a sweep waiting for minutes on a server whose
#: database was down; these give up in seconds, and the stored records can be logged later
#: (``python -m ccexp.track``).
HTTP_RETRIES = {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": "3", "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
                "MLFLOW_HTTP_REQUEST_TIMEOUT": "30"}


def log_sweep(
    uri: str,
    experiment_name: str,
    records: pd.DataFrame,
    params: dict,
    artifacts_dir: Path | None,
    results_dir: str | Path,
    resume: bool = False,
) -> str:
    """Log a finished sweep; returns the parent run id.

    Every call makes a new parent run (one per invocation), tagged with the
    records' :func:`sweep_key`.  With ``resume=True`` (``python -m
    ccexp.track``, after logging failed) a parent with the same key is used
    instead: a finished one is left as it is (nothing is logged twice), an
    unfinished one gets the child runs it lacks (a child left unfinished is
    deleted and logged again) and then its own metrics and artifacts.

    An embedded sqlite store is written under a lock beside it, so two runs
    sharing a results folder take turns (its first use creates the schema).
    """
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    for key, value in HTTP_RETRIES.items():
        os.environ.setdefault(key, value)
    with _sqlite_lock(uri):
        return _log_sweep(uri, experiment_name, records, params, artifacts_dir, results_dir, resume)


def _experiment_id(client, experiment_name: str, uri: str, results_dir) -> str:
    exp = client.get_experiment_by_name(experiment_name)
    if exp is not None:
        return exp.experiment_id
    artifact_location = None
    if uri.startswith("sqlite:"):
        artifact_location = (Path(results_dir).resolve() / "mlartifacts" / experiment_name).as_uri()
    return client.create_experiment(experiment_name, artifact_location=artifact_location)


def _find_parent(client, exp_id: str, key: str):
    """The latest parent run tagged with ``key``: a finished one first, else an unfinished one; or None."""
    runs = client.search_runs([exp_id], filter_string=f"tags.`ccexp.sweep_key` = '{key}'", max_results=100,
                              order_by=["attributes.start_time DESC"])
    finished = [r for r in runs if r.info.status == "FINISHED"]
    return (finished or runs or [None])[0]


def _log_sweep(uri, experiment_name, records, params, artifacts_dir, results_dir, resume=False) -> str:
    # mlflow is imported where it is used: seconds of import that tracking=off runs never pay
    from mlflow.entities import Metric, Param
    from mlflow.tracking import MlflowClient

    artifact_records = records  # logged as they are; grouped with list-valued settings as text
    records = hashable_settings(records) if len(records) else records
    if uri == local_uri(results_dir):
        relocate_artifacts(uri, results_dir)
    client = MlflowClient(tracking_uri=uri)
    exp_id = _experiment_id(client, experiment_name, uri, results_dir)
    label = params.get("results_label") or params.get("scale") or "paper"  # results/<experiment>/<label>/
    key = sweep_key(experiment_name, label, records)
    # tags shared by the parent and its children: filter the MLflow table by paper / scale / code
    common_tags = {f"ccexp.{k}": str(params[k]) for k in ("paper", "scale", "code_version") if params.get(k) is not None}
    common_tags["ccexp.experiment"] = experiment_name
    existing = _find_parent(client, exp_id, key) if resume else None
    if existing is not None and existing.info.status == "FINISHED":
        log.info("MLflow: these records are logged already, as run %s at %s; nothing to do", existing.info.run_id, uri)
        return existing.info.run_id
    if existing is None:
        # a custom grid's parent says so: exp1_triplets[scale=ci+custom-<hash>], not the preset's name (issue 32)
        parent = client.create_run(exp_id, run_name=f"{experiment_name}[scale={label}]",
                                   tags={"ccexp.kind": "sweep", "ccexp.sweep_key": key, **common_tags})
        pid = parent.info.run_id
        client.log_batch(pid, params=[Param(k, str(v)[:500]) for k, v in params.items()])
    else:
        pid = existing.info.run_id
        log.info("MLflow: resuming run %s, whose logging had stopped", pid)
    done = _finished_children(client, exp_id, pid) if existing is not None else {}
    summary = summarise(records) if len(records) else pd.DataFrame()
    ts = int(pd.Timestamp.now().timestamp() * 1000)
    folder = experiment_dir(results_dir, experiment_name, str(label))
    traces = ResultStore(folder).load_traces() if len(records) else pd.DataFrame()
    members: dict = {}
    if len(traces):
        keys = ["algorithm"] + setting_columns(records)
        for values, g in records.groupby(keys, dropna=False):
            members[_key(values if isinstance(values, tuple) else (values,))] = g["case_id"].tolist()
    # a child's name shows what varies between the children; params carry everything
    varying = {c for c in summary.columns if c.startswith(("dataset.", "oracle.", "algorithm."))
               and summary[c].astype(str).nunique() > 1}
    own = own_columns(records) if len(records) else {}
    n_logged = 0
    with _quiet_run_urls():
        for row in summary.to_dict("records"):
            setting = {k: v for k, v in row.items() if k.startswith(("dataset.", "oracle.", "algorithm."))}
            child_key = _setting_key({"algorithm": row["algorithm"], **setting})
            if child_key in done:
                continue
            child = client.create_run(
                exp_id,
                run_name=run_name(row["algorithm"], {k: v for k, v in setting.items() if k in varying}),
                tags={"mlflow.parentRunId": pid, "ccexp.kind": "setting", "ccexp.setting_key": child_key,
                      "algorithm": row["algorithm"], **common_tags},
            )
            metrics = [
                Metric(k, float(v), ts, 0)
                for k, v in row.items()
                if (k.endswith("_mean") or k.endswith("_std") or k == "n_trials") and v is not None and np.isfinite(v)
            ]
            # its own parameters only (other algorithms' columns are empty for it), with their types
            mine = set(own.get(row["algorithm"], ()))
            ps = [Param("algorithm", row["algorithm"])] + [
                Param(k, str(_param_value(row["algorithm"], k, v)))
                for k, v in setting.items()
                if (k in mine if k.startswith("algorithm.") else not _missing(v))
            ]
            client.log_batch(child.info.run_id, metrics=metrics, params=ps)
            if members:
                ids = members.get(_key(row[k] for k in ["algorithm"] + setting_columns(records)), [])
                curve = _curve_metrics(traces, ids, ts)
                for i in range(0, len(curve), 1000):  # MLflow takes at most 1000 metrics per batch
                    client.log_batch(child.info.run_id, metrics=curve[i : i + 1000])
            client.set_terminated(child.info.run_id)
            n_logged += 1
    logged = set(client.get_run(pid).data.metrics) if existing is not None else set()
    overall = []
    if len(records):
        for alg, g in records.groupby("algorithm"):
            for m in ("ari", "n_clusters", "fit_seconds"):
                if m in g:
                    overall.append(Metric(f"{alg}.{m}_mean", float(g[m].mean()), ts, 0))
    overall.append(Metric("n_cases", float(len(records)), ts, 0))
    overall = [m for m in overall if m.key not in logged]  # a resumed parent may hold some already
    if overall:
        client.log_batch(pid, metrics=overall)
    if len(records):
        # this invocation's cases only: the store may also hold other scales'
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "records.parquet"
            artifact_records.to_parquet(path, index=False)
            client.log_artifact(pid, str(path))
    if artifacts_dir is not None and Path(artifacts_dir).exists():
        for sub in ("figures", "tables"):
            d = Path(artifacts_dir) / sub
            if d.exists():
                client.log_artifacts(pid, str(d), artifact_path=sub)
        cmp = Path(artifacts_dir) / "comparison.md"
        if cmp.exists():
            client.log_artifact(pid, str(cmp))
    client.set_terminated(pid)
    log.info("MLflow: logged %d child runs under run %s at %s%s", n_logged, pid, uri,
             f" ({len(done)} were there already)" if done else "")
    return pid


def _finished_children(client, exp_id: str, pid: str) -> dict[str, str]:
    """The finished child runs of ``pid`` by their ``ccexp.setting_key``; unfinished ones are deleted.

    A child left unfinished (logging stopped half way through it) may lack
    metrics or a part of its curves: it is logged again from the start.
    """
    done: dict[str, str] = {}
    token = None
    while True:
        page = client.search_runs([exp_id], filter_string=f"tags.mlflow.parentRunId = '{pid}'", max_results=1000,
                                  page_token=token)
        for run in page:
            key = run.data.tags.get("ccexp.setting_key")
            if run.info.status == "FINISHED" and key and key not in done:
                done[key] = run.info.run_id
            else:
                client.delete_run(run.info.run_id)
        token = page.token
        if not token:
            return done
