"""Rewrite a ``run.json`` of schema 1 (the composed config) into schema 2 (the run spec; issue 30, item 2).

Usage::

    python scripts/respec_run_json.py results/*/paper*/run.json

A ``run.json`` written before issue 30 recorded the whole composed Hydra
config, including group defaults that did not run (agg_categorical's named
``ls_ad_vc``), and not the grid as expanded.  This script expands the grid
from the config that the file stores (the experiment as composed, with its
named variant and scale preset applied, the base dataset and oracle configs,
and each algorithm's parameters where the file records them; the algorithm
configs of today's ``conf/`` where it does not), with today's code, and
writes the spec (:mod:`ccexp.runner.spec`) in place of ``config``.  Every
other key (the run's bookkeeping: runs, wall time, code version, machine,
packages, memory...) is kept as it was, and so is ``config_hash`` (the value
the records carry).

A file is refused, with one line and nothing written, when the expanded
grid's number of cases differs from the stored ``n_cases``, or when records
beside it (``records.parquet``) hold a case the expanded grid does not: the
spec would then not be the grid that ran.  A file of schema 2 is left alone.
Exit status 1 if any file was refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from omegaconf import OmegaConf

from ccexp.runner.config import apply_scale, place_by_declaration
from ccexp.runner.grid import expand
from ccexp.runner.layout import split_label
from ccexp.runner.objects import run_targets
from ccexp.runner.spec import SCHEMA, SweepSpec, dumps_run_info
from ccexp.runner.store import ResultStore
from ccexp.runner.variants import with_variant


class Refused(ValueError):
    """The stored config does not expand to the grid that ran."""


def respec(info: dict, label: str, stored_ids: set[str] | None = None) -> tuple[dict, list[str]]:
    """``info`` (a run.json of schema 1) as schema 2, and notes on what was checked.

    ``label``: the results folder (``paper``, ``paper+authors``);
    ``stored_ids``: the case ids of the records beside it, which the grid must hold.
    """
    config = info.get("config")
    if not isinstance(config, dict) or "experiment" not in config:
        raise Refused("it stores no composed config (config.experiment)")
    composed = {k: v for k, v in config.items() if k in ("experiment", "dataset", "oracle")}
    cfg = with_variant(OmegaConf.create(composed))
    experiment = apply_scale(cfg.experiment, [])
    dataset = {k: v for k, v in config["dataset"].items() if k != "_target_"}
    oracle = {k: v for k, v in config["oracle"].items() if k != "_target_"}
    placed = place_by_declaration(experiment, oracle)
    algorithms = None
    if isinstance(config.get("algorithms"), dict):  # the parameters the run recorded (issue 30, item 1)
        algorithms = {a: {k: v for k, v in p.items() if k != "_target_"} for a, p in config["algorithms"].items()}
    cases = expand(placed, dataset, oracle, algorithms=algorithms)
    if len(cases) != info.get("n_cases"):
        raise Refused(f"its config expands to {len(cases)} cases with today's code, and it stored n_cases="
                      f"{info.get('n_cases')}")
    spec = SweepSpec.of(placed, cases, label=label, targets=run_targets(cfg, cases))
    notes = []
    if stored_ids is not None:
        missing = stored_ids - set(spec.case_ids)
        if missing:
            raise Refused(f"{len(missing)} of its {len(stored_ids)} records are not cases of the expanded grid "
                          f"(e.g. {sorted(missing)[0]})")
        notes.append(f"{len(stored_ids)} records, all in the grid")
    recorded = spec.to_json()
    grid = recorded.pop("grid")
    if info.get("config_hash") and info["config_hash"] != spec.config_hash:
        notes.append(f"config_hash kept as stored ({info['config_hash']}; today's code hashes {spec.config_hash})")
        recorded["config_hash"] = info["config_hash"]
    if split_label(label)[1] != spec.variant:
        raise Refused(f"its folder {label!r} is not of the variant its config names ({spec.variant!r})")
    kept = {k: v for k, v in info.items() if k != "config" and k not in recorded}
    return {**recorded, **kept, "grid": grid}, notes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="run.json files (results/<experiment>/<label>/run.json)")
    parser.add_argument("--dry-run", action="store_true", help="check and report, write nothing")
    args = parser.parse_args(argv)
    failed = 0
    for path in args.paths:
        info = json.loads(path.read_text())
        if info.get("schema") == SCHEMA:
            print(f"{path}: schema {SCHEMA} already, left alone")
            continue
        store = ResultStore(path.parent)
        ids = set(store.load()["case_id"]) if store.has_records() else None
        try:
            new, notes = respec(info, path.parent.name, ids)
        except Refused as err:
            print(f"{path}: refused: {err}", file=sys.stderr)
            failed += 1
            continue
        text = dumps_run_info(new)
        if not args.dry_run:
            path.write_text(text)
        print(f"{path}: {new['n_cases']} cases, {len(new['grid']['instances'])} instances, "
              f"{len(path.read_bytes()) if not args.dry_run else len(text)} bytes"
              + (f"; {'; '.join(notes)}" if notes else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
