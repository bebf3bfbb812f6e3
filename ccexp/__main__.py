"""``python -m ccexp experiment=NAME [overrides]``: run an experiment (``--help`` lists them).

Hydra composes ``conf/`` (installed as ``ccexp.conf``); the runner expands
the experiment's grid, runs the cases in parallel, stores the records,
writes the report (unless ``report=false``) and logs to MLflow (unless
``tracking=off``).
"""

from __future__ import annotations

import logging
import os
import sys
from importlib import resources
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

log = logging.getLogger("ccexp")


def list_experiments() -> list[str]:
    folder = resources.files("ccexp.conf").joinpath("experiment")
    return sorted(p.name[: -len(".yaml")] for p in folder.iterdir() if p.name.endswith(".yaml"))


def run(cfg: DictConfig, overrides: list[str] | None = None) -> dict:
    """Run the experiment described by a composed config; return a summary dict.

    Raises
    ------
    ccexp.runner.config.ConfigError
        An override that cannot take effect or a malformed option (the
        command line prints its one-line message and exits 2).
    """
    from .runner.config import resolve_run
    from .runner.sweep import run_sweep
    from .runner.tracking import log_sweep, tracking_uri

    spec = resolve_run(cfg, overrides or [])
    experiment, dataset, oracle = spec.experiment, spec.dataset, spec.oracle
    # paths.data is where every loader (in this process and in the workers it starts) reads real files
    os.environ["CCEXP_DATA_DIR"] = str(Path(cfg.paths.data).expanduser().resolve())
    results = Path(cfg.paths.results)
    if spec.custom:
        log.info("%s: the overrides change the %s grid; results go to %s/, not to %s/",
                 experiment["name"], spec.scale, spec.label, spec.scale)
    uri = tracking_uri(cfg.tracking.mode, cfg.tracking.uri, results)
    result = run_sweep(
        experiment,
        dataset,
        oracle,
        results,
        algorithms=spec.algorithms,
        scale_label=spec.label,
        **OmegaConf.to_container(cfg.runner, resolve=True),  # conf/runner/*.yaml keys are run_sweep's arguments
    )
    log.info(
        "%s (%s): %d cases (%d run now) in %.1f s -> %s",
        experiment["name"], experiment.get("scale"), result.n_cases, result.n_run, result.seconds,
        result.directory / "records.parquet",
    )
    errors = int((result.records.get("status") == "error").sum()) if len(result.records) else 0
    if errors:
        log.warning("%d cases ended in an error; see the 'error' column of records.parquet", errors)
    report_dir = None
    if cfg.report:
        from .report import make_report

        report_dir = make_report(
            experiment["name"], results_dir=results, scale=experiment.get("scale"), records=result.records,
            label=spec.label, filter_to_grid=False,  # already this invocation's cases, overrides included
        )
        log.info("report: %s", report_dir / "comparison.md")
    if uri is not None:
        from .runner.sweep import code_version

        params = {"experiment": experiment["name"], "paper": experiment.get("paper"), "scale": experiment.get("scale"),
                  "results_label": spec.label, "n_cases": result.n_cases, "algorithms": ",".join(experiment["algorithms"]),
                  "trials": experiment.get("trials"), "code_version": code_version()}
        log_sweep(uri, experiment["name"], result.records, params, report_dir, results)
    return {"n_cases": result.n_cases, "n_run": result.n_run, "directory": str(result.directory), "errors": errors}


@hydra.main(config_path="pkg://ccexp.conf", config_name="config", version_base="1.3")
def _hydra_main(cfg: DictConfig) -> None:
    from .runner.config import ConfigError

    overrides = list(HydraConfig.get().overrides.task)
    try:
        run(cfg, overrides)
    except ConfigError as err:
        # what the user typed is wrong: one line and exit 2, as argparse does
        print(f"ccexp: error: {err}", file=sys.stderr)
        sys.exit(2)


def main() -> None:
    """Console-script entry (``ccexp``)."""
    from .runner.config import normalize_overrides

    # +experiment=NAME (the older spelling) is the plain choice experiment=NAME
    sys.argv[1:] = normalize_overrides(sys.argv[1:])
    _hydra_main()


if __name__ == "__main__":
    main()
