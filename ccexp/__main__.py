"""``python -m ccexp +experiment=NAME [overrides]``: run an experiment.

Hydra composes ``conf/`` (installed as ``ccexp.conf``); the runner expands
the experiment's grid, runs the cases in parallel, stores the records,
writes the report (unless ``report=false``) and logs to MLflow (unless
``tracking=off``).
"""

from __future__ import annotations

import logging
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
    """Run the experiment described by a composed config; return a summary dict."""
    from .runner.grid import apply_scale
    from .runner.sweep import run_sweep
    from .runner.tracking import check_tracking, log_sweep, tracking_uri

    if "experiment" not in cfg or cfg.experiment is None:
        raise SystemExit(
            "choose an experiment: python -m ccexp +experiment=NAME\n"
            f"available experiments: {', '.join(list_experiments())}"
        )
    experiment = apply_scale(cfg.experiment, overrides)
    dataset = OmegaConf.to_container(cfg.dataset, resolve=True)
    oracle = OmegaConf.to_container(cfg.oracle, resolve=True)
    results = Path(cfg.paths.results)
    uri = tracking_uri(cfg.tracking.mode, cfg.tracking.uri, results)
    check_tracking(uri)  # a server that does not answer stops the run now, not after the sweep
    result = run_sweep(
        experiment,
        dataset,
        oracle,
        results,
        config=OmegaConf.to_container(cfg, resolve=True),  # recorded in run.json
        **OmegaConf.to_container(cfg.runner, resolve=True),  # conf/runner/*.yaml keys are run_sweep's arguments
    )
    log.info(
        "%s (%s): %d cases (%d run now) in %.1f s -> %s",
        experiment["name"], experiment.get("scale"), result.n_cases, result.n_run, result.seconds,
        result.directory / "records.parquet",
    )
    errors = result.n_errors
    if result.error_summary():
        (log.warning if errors else log.info)("%s", result.error_summary())
    report_dir = None
    if cfg.report:
        from .report import make_report

        report_dir = make_report(
            experiment["name"], results_dir=results, scale=experiment.get("scale"), records=result.records,
            filter_to_grid=False,  # already this invocation's cases, overrides included
        )
        log.info("report: %s", report_dir / "comparison.md")
    if uri is not None:
        params = {"experiment": experiment["name"], "paper": experiment.get("paper"), "scale": experiment.get("scale"),
                  "n_cases": result.n_cases, "algorithms": ",".join(experiment["algorithms"]),
                  "trials": experiment.get("trials"), "code_version": result.code_version}  # the records' own
        log_sweep(uri, experiment["name"], result.records, params, report_dir, results)
    return {"n_cases": result.n_cases, "n_run": result.n_run, "directory": str(result.directory), "errors": errors}


@hydra.main(config_path="pkg://ccexp.conf", config_name="config", version_base="1.3")
def _hydra_main(cfg: DictConfig) -> None:
    overrides = list(HydraConfig.get().overrides.task)
    run(cfg, overrides)


def main() -> None:
    """Console-script entry (``ccexp``)."""
    _hydra_main()


if __name__ == "__main__":
    main()
