"""``python -m ccexp experiment=NAME [overrides]``: run an experiment (``--help`` lists them).

Hydra composes ``conf/`` (installed as ``ccexp.conf``); the runner expands
the experiment's grid, runs the cases in parallel, stores the records,
writes the report (unless ``report=false``) and logs to MLflow (unless
``tracking=off``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import hydra
from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.hydra_config import HydraConfig
from hydra.core.utils import configure_log
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import DictConfig, OmegaConf, open_dict

from ._installed import paper_time
from ._plugins import refuse_if_shadowed
from .data import DataChecksumError, MissingDataError
from .report import make_report
from .report.reference_check import ReferenceFileError
from .runner.compose import ConfigError, compose_config, list_options, normalize_overrides
from .runner.config import experiment_description, resolve_run, with_algorithm_choice
from .runner.layout import experiment_dir, split_label
from .runner.preflight import (check_algorithm_values, check_dask_address, check_instances, check_results_folder,
                               describe_os_error)
from .runner.spec import SweepSpec
from .runner.sweep import RunnerOptions, SweepResult, run_sweep
from .runner.tracking import log_sweep, sweep_params, tracking_uri
from .runner.tracking_check import check_tracking

log = logging.getLogger("ccexp")


def _help(what: str) -> str:
    """Text for the help page (conf/hydra/help/ccexp.yaml).

    ``experiments`` lists them, one line each, with the cases and wall clock
    of the committed paper-scale run (its ``run.json``, the source of the
    README's run-time table too: :func:`ccexp._installed.paper_time`).
    """
    if what == "experiments":
        names = list_experiments()
        width = max(map(len, names))
        times = {n: paper_time(n) or "not run" for n in names}
        tw = max(map(len, times.values()))
        return "\n".join(f"  {n:<{width}}  {times[n]:>{tw}}  {experiment_description(n, width=80)}" for n in names)
    raise ValueError(f"unknown help section {what!r}")


OmegaConf.register_new_resolver("ccexp_help", _help, replace=True)


def list_experiments() -> list[str]:
    """The names of the experiments in ``conf/experiment/`` (one per figure or table reproduced), sorted."""
    folder = resources.files("ccexp.conf").joinpath("experiment")
    return sorted(p.name[: -len(".yaml")] for p in folder.iterdir() if p.name.endswith(".yaml"))


def run(cfg: DictConfig, overrides: list[str] | None = None) -> dict:
    """Run the experiment described by a composed config; return a summary dict.

    :func:`plan_run`, then :func:`~ccexp.runner.sweep.run_sweep` on its plan, then :func:`finish_run` (the report
    and MLflow): :func:`main` calls the three itself, so that the sweep is one call from the command line.

    Raises
    ------
    ccexp.runner.config.ConfigError
        An override that cannot take effect or a malformed option (the
        command line prints its one-line message and exits 2).
    """
    plan = plan_run(cfg, overrides or [])
    return finish_run(plan, run_sweep(plan.sweep, plan.results, plan.options))


@dataclasses.dataclass(frozen=True)
class RunPlan:
    """What :func:`plan_run` settled before any case runs: the sweep, where its records go, how it runs.

    Attributes
    ----------
    experiment : dict
        The experiment's config, its grids as the sweep runs them.
    sweep : SweepSpec
        The grid as expanded (what runs, and what run.json records), and its results label.
    results : Path
        The results folder (absolute).
    options : RunnerOptions
        ``cfg.runner``, one job for a timing experiment.
    uri : str or None
        The MLflow tracking URI, checked to answer; None with ``tracking=off``.
    report : bool
        Whether :func:`finish_run` writes the report.
    """

    experiment: dict
    sweep: SweepSpec
    results: Path
    options: RunnerOptions
    uri: str | None
    report: bool


def plan_run(cfg: DictConfig, overrides: list[str]) -> RunPlan:
    """Resolve a composed config into the sweep it runs, and refuse now what would fail later (one line each).

    Raises
    ------
    ccexp.runner.config.ConfigError
        An override that cannot take effect, a malformed option, a results folder or tracking store that cannot
        be used, a swept value an estimator refuses.
    """
    spec = resolve_run(cfg, overrides)
    # the grids as the sweep runs them: an algorithm no grid lists joins the grids of the kinds it reads
    experiment, dataset, oracle = spec.placed_experiment(), spec.dataset, spec.oracle
    # paths.data is where every loader (in this process and in the workers it starts) reads real files
    os.environ["CCEXP_DATA_DIR"] = str(Path(cfg.paths.data).expanduser().resolve())
    # absolute: the paths the run prints must exist from where the user stands, also under
    # hydra.job.chdir=true (a relative paths.results is then under hydra.run.dir)
    results = Path(cfg.paths.results).absolute()
    if spec.custom:
        log.info("%s: the overrides change the %s grid; results go to %s/, not to %s/",
                 experiment["name"], spec.scale, spec.label, spec.scale)
    runner = OmegaConf.to_container(cfg.runner, resolve=True)  # conf/runner/*.yaml keys are RunnerOptions'
    if experiment.get("one_case_at_a_time") and runner.get("n_jobs") != 1:
        # a timing experiment measures what the paper measured: one case at a time, never two beside each other
        log.info("%s measures run times: one case at a time (runner.n_jobs=1, not %s)",
                 experiment["name"], runner.get("n_jobs"))
        runner["n_jobs"] = 1
    # what used to fail after the sweep, or abort it half way, is refused now in one line (issue 33)
    check_results_folder(results, experiment_dir(results, experiment["name"], spec.label))
    try:
        uri = tracking_uri(cfg.tracking.mode, cfg.tracking.uri, results)
    except ValueError as err:
        raise ConfigError(str(err)) from None
    check_tracking(uri)  # a server that does not answer, a locked store: stops the run now, not after the sweep
    if cfg.runner.get("backend") == "dask":
        check_dask_address(cfg.runner.get("address"))
    cases = spec.expanded if spec.expanded is not None else spec.cases()
    check_algorithm_values(cases, targets=spec.targets)  # a swept value the estimator refuses: one line, now
    check_instances(cases, targets=spec.targets)
    # what runs and what run.json records: the grid as resolve_run expanded it (issue 30, item 2)
    sweep = SweepSpec.of(experiment, cases, label=spec.label, targets=spec.targets)
    return RunPlan(experiment, sweep, results, RunnerOptions(**runner), uri, bool(cfg.report))


def finish_run(plan: RunPlan, result: SweepResult) -> dict:
    """After the sweep: log its summary, write the report (``report=true``), log to MLflow; return a summary dict."""
    experiment, results, label, uri = plan.experiment, plan.results, plan.sweep.label, plan.uri
    log.info(
        "%s (%s): %d cases (%d run now) in %.1f s -> %s",
        experiment["name"], experiment.get("scale"), result.n_cases, result.n_run, result.seconds,
        result.directory / "records.parquet",
    )
    errors = result.n_errors
    if result.error_summary():
        (log.warning if errors else log.info)("%s", result.error_summary())
    report_dir = None
    if plan.report:
        # as `python -m ccexp.report NAME --scale LABEL` makes it, from the stored records: byte for byte the
        # same report (it used to get this run's records unfiltered, and dropped the grid's size; issue 32)
        report_dir = make_report(experiment["name"], results_dir=results, scale=split_label(label)[0],
                                 label=label)
        log.info("report: %s", report_dir / "comparison.md")
    if uri is not None:
        params = sweep_params(experiment, label, result.n_cases, result.code_version)  # the records' own code
        try:
            log_sweep(uri, experiment["name"], result.records, params, report_dir, results)
        except Exception as exc:  # noqa: BLE001 - any failure of the server or its database: the records stay
            raise TrackingFailed(
                f"ccexp: tracking failed: {type(exc).__name__}: {_first_line(exc)}; the {result.n_cases} records are kept "
                f"in {result.directory / 'records.parquet'}; once the server is back, log them (no case reruns): "
                f"python -m ccexp.track {experiment['name']} --scale {label} --results {results} --uri {uri}"
            ) from exc
    return {"n_cases": result.n_cases, "n_run": result.n_run, "directory": str(result.directory), "errors": errors}


class TrackingFailed(RuntimeError):
    """Logging to MLflow failed after the sweep; its records and report are kept (one line, exit status 1)."""


def _first_line(exc: BaseException, width: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text[:width] + (" …" if len(text) > width else "")


@hydra.main(config_path="pkg://ccexp.conf", config_name="config", version_base="1.3")
def _hydra_main(cfg: DictConfig) -> None:
    with one_line_errors():
        run(cfg, list(HydraConfig.get().overrides.task))


def run_cli(cfg: DictConfig, overrides: list[str]) -> None:
    """:func:`run` under :func:`one_line_errors`: what a user can fix is one line and exit status 2."""
    with one_line_errors():
        run(cfg, overrides)


@contextlib.contextmanager
def one_line_errors() -> Iterator[None]:
    """What a user can fix, raised in its body, printed as one line with exit status 2 instead of a traceback.

    A missing or modified data file (raised in a worker, re-raised here),
    an override that cannot take effect, a malformed reference.csv, and an
    ``OSError`` of the results folder (read-only, a file where a folder
    belongs, a symlink loop, a full disk: what was stored before it stays,
    and a rerun resumes), and Ctrl-C or SIGTERM (exit status 128 + the
    signal, as a shell gives a job that the signal stopped).  A context,
    not a function calling :func:`run`: the run's own calls are not one
    deeper for it (issue 30).
    """
    try:
        yield
    except (MissingDataError, DataChecksumError) as err:
        print(f"error: {err}", file=sys.stderr)
        raise SystemExit(2) from None
    except (ConfigError, ReferenceFileError) as err:
        # what the user typed is wrong: one line and exit 2, as argparse does
        print(f"ccexp: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None
    except TrackingFailed as err:
        print(err, file=sys.stderr)
        raise SystemExit(1) from None
    except KeyboardInterrupt as err:
        # Ctrl-C or SIGTERM: one line (the sweep's says what is stored), and the shell's status for the signal
        print(f"ccexp: {err}" if str(err) else "ccexp: interrupted", file=sys.stderr)
        raise SystemExit(128 + getattr(err, "signum", 2)) from None
    except MemoryError as err:
        print(f"ccexp: error: out of memory ({err or 'MemoryError'}); the records stored before it are kept: "
              f"make the grid smaller and rerun the same command to resume", file=sys.stderr)
        raise SystemExit(2) from None
    except OSError as err:
        print(f"ccexp: error: {describe_os_error(err)} ({type(err).__name__}); the records stored before it are "
              f"kept: fix it and rerun the same command to resume", file=sys.stderr)
        raise SystemExit(2) from None


# Hydra flags that take a value (the value is not an override)
_FLAGS_WITH_VALUE = {"--cfg", "-c", "--package", "-p", "--config-path", "-cp", "--config-name", "-cn",
                     "--config-dir", "-cd", "--info", "-i", "--experimental-rerun"}


def _overrides_of(argv: list[str]) -> list[str]:
    """The config overrides among ``argv`` (Hydra's flags and ``hydra.*`` keys left out)."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg.startswith("-"):
            skip = arg in _FLAGS_WITH_VALUE
        elif not arg.lstrip("+~").startswith(("hydra.", "hydra/", "hydra=")):
            out.append(arg)
    return out


def main() -> None:
    """Console-script entry (``ccexp``).

    The overrides are composed once: a key the config does not have, or a
    value Hydra cannot parse, then ends the command with one line and exit
    status 2 (as argparse does) instead of Hydra's report; and with a single
    algorithm in the experiment its config is chosen, so
    ``algorithm.<param>=v`` sets that algorithm's parameter.  A plain run
    (overrides only: no flag, no ``hydra.*`` key) then runs on that composed
    config (:func:`_as_hydra_job`, issue 30: compose once); with a flag
    (``-m``, ``--cfg``, ``--help``, ...) or a ``hydra.*`` key, Hydra's own
    main takes over.
    """
    refuse_if_shadowed("ccexp")
    # +experiment=NAME (the older spelling) is the plain choice experiment=NAME
    argv = normalize_overrides(sys.argv[1:])
    if not {"--help", "-h", "--hydra-help", "--version", "--shell-completion", "-sc"} & set(argv):
        overrides = _overrides_of(argv)
        plain = overrides == argv
        try:
            # with -m / --multirun, each job's overrides (Hydra's own expansion of a,b and range(...))
            jobs = _multirun_jobs(overrides) if {"-m", "--multirun"} & set(argv) else [overrides]
            added = set()
            for job in jobs:
                chosen = with_algorithm_choice(job)
                extra = chosen[len(job):]
                # in the order Hydra's main composes them (the algorithm's choice first, see below)
                cfg = compose_config([*extra, *job], hydra=plain)
                added.add(tuple(extra))
        except HydraException as err:
            lines = [line.strip().rstrip(".") for line in str(err).splitlines() if line.strip()]
            print(f"ccexp: error: {'; '.join(lines)}", file=sys.stderr)
            sys.exit(2)
        except ConfigError as err:
            print(f"ccexp: error: {err}", file=sys.stderr)
            sys.exit(2)
        if plain:
            task = _as_hydra_job(cfg)
            with one_line_errors():
                # run()'s three steps, so that the sweep is one call from here (issue 30: a parameter reaches
                # the code that uses it in at most 4 calls from main)
                plan = plan_run(task, [*extra, *job])
                finish_run(plan, run_sweep(plan.sweep, plan.results, plan.options))
            return
        if len(added) == 1:  # jobs that all run one algorithm, the same: its config composes algorithm.<param>
            argv = list(added.pop()) + argv  # before Hydra's flags, whose argparse takes overrides first
        if {"-m", "--multirun"} & set(argv):
            argv = _sweep_level_safe(argv)
    sys.argv[1:] = argv
    _hydra_main()


def _as_hydra_job(cfg: DictConfig) -> DictConfig:
    """``cfg`` (composed with its ``hydra`` node) made ready to run as Hydra's main would run it; the task's config.

    What Hydra's ``run_job`` does for a plain run of this config (no
    ``hydra.*`` key: ``hydra.run.dir`` is ``.``, no output subfolder, no
    chdir): the job's logging (``hydra/job_logging: stdout``) and
    :class:`HydraConfig` for ``${hydra:...}``; the task gets the config
    without its ``hydra`` node.
    """
    HydraConfig.instance().set_config(cfg)
    configure_log(cfg.hydra.job_logging, cfg.hydra.verbose)
    task = cfg.copy()
    with open_dict(task):
        del task["hydra"]
    return task


def _multirun_jobs(overrides: list[str]) -> list[list[str]]:
    """The overrides of each job of ``-m`` (``experiment.scale=ci,quick`` gives two), as Hydra's sweeper splits them.

    Each job then writes its own results folder (``<experiment>/<scale label>/``) and its own report.
    """
    parsed = OverridesParser.create().parse_overrides(overrides)
    return [job for batch in BasicSweeper.split_arguments(parsed, None) for job in batch]


def _sweep_level_safe(argv: list[str]) -> list[str]:
    """``argv`` with each plain ``group.key=v`` under a *swept* group as ``++group.key=v``, for Hydra's multirun.

    Hydra composes a multirun's sweep-level config without its sweep overrides
    (the swept choices are composed per job later), so ``-m experiment=a,b
    experiment.scale=ci`` fails there with "Key 'experiment' is not in struct":
    the root defaults hold ``experiment: null``.  Hydra's maintainers' answer is
    ``++`` (hydra issues 283 and 2888).  :func:`main` has composed every job
    with the plain spelling first, so the key exists in each job's config and
    ``++`` (add or override) overrides it there exactly as ``=`` would; it only
    lets the sweep-level config, which no job runs, be composed.

    >>> _sweep_level_safe(["-m", "experiment=a,b", "experiment.scale=ci", "runner.n_jobs=1", "algorithm.x=1"])
    ['-m', 'experiment=a,b', '++experiment.scale=ci', 'runner.n_jobs=1', 'algorithm.x=1']
    """
    overrides = _overrides_of(argv)
    parsed = OverridesParser.create().parse_overrides(overrides)
    # a swept config group (its options are configs, as list_options finds them), not a swept value
    swept = {o.key_or_group for o in parsed if o.is_sweep_override() and list_options(o.key_or_group)}
    rewrite = {text for text, o in zip(overrides, parsed)
               if not o.is_sweep_override() and o.key_or_group.split(".")[0] in swept and "." in o.key_or_group
               and o.key_or_group.split("@")[0] == o.key_or_group and not text.startswith(("+", "~"))}
    return [f"++{a}" if a in rewrite else a for a in argv]


if __name__ == "__main__":
    main()
