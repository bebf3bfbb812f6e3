"""Rewrite a ``run.json`` of schema 1 (the composed config) into schema 2 (the run spec; issue 30, item 2).

Usage::

    python scripts/respec_run_json.py results/*/paper*/run.json

A ``run.json`` written before issue 30 recorded the whole composed Hydra
config, including group defaults that did not run (agg_categorical's named
``ls_ad_vc``), and not the grid as expanded.  This script expands the grid
from the config that the file stores (the experiment as composed, with its
named variant and scale preset applied, the base dataset and oracle configs,
and each algorithm's parameters where the file records them; the algorithm
configs of today's ``conf/`` where it does not) and from today's config of the
same experiment, scale and variant, with today's code, checks which is the
grid that ran (:func:`respec`), and writes the spec (:mod:`ccexp.runner.spec`)
in place of ``config``.  Every
other key (the run's bookkeeping: runs, wall time, code version, machine,
packages, memory...) is kept as it was, and so is ``config_hash`` (the value
the records carry).

A file is refused, with one line and nothing written, when the expanded
grid's number of cases differs from the stored ``n_cases``, when records
beside it (``records.parquet``) hold a case the expanded grid does not, or,
without records, when neither today's ``config_hash`` nor an agreement of the
two expansions says which grid ran: the spec would then not be the grid that
ran.  A file of schema 2 is left alone.
Exit status 1 if any file was refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from omegaconf import OmegaConf

from ccexp.runner.config import (apply_scale, compose_config, place_by_declaration, resolve_run,
                                 with_algorithm_choice)
from ccexp.runner.grid import expand
from ccexp.runner.layout import split_label
from ccexp.runner.objects import run_targets
from ccexp.runner.seeding import stable_hash
from ccexp.runner.spec import SCHEMA, SweepSpec, dumps_run_info
from ccexp.runner.store import ResultStore
from ccexp.runner.variants import with_variant


class Refused(ValueError):
    """The stored config does not expand to the grid that ran."""


def _from_stored_config(config: dict) -> tuple[dict, list, dict]:
    """The placed experiment, its cases and targets, expanded from the composed config a run.json stores."""
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
    return placed, cases, run_targets(cfg, cases)


def _from_todays_config(name: str, scale: str, variant: str | None) -> tuple[dict, list, dict]:
    """The placed experiment, its cases and targets, as ``python -m ccexp`` resolves them today."""
    ov = with_algorithm_choice([f"experiment={name}", f"experiment.scale={scale}",
                                *([f"experiment.variant={variant}"] if variant else [])])
    run = resolve_run(compose_config(ov), ov)
    return run.placed_experiment(), run.expanded, run.targets


def respec(info: dict, label: str, stored_ids: set[str] | None = None) -> tuple[dict, list[str]]:
    """``info`` (a run.json of schema 1) as schema 2, and notes on what was checked.

    ``label``: the results folder (``paper``, ``paper+authors``);
    ``stored_ids``: the case ids of the records beside it, which the grid must hold.

    Two expansions are tried: from the config the file stores, and from
    today's config of the same experiment, scale and variant.  The stored
    config is resolved as Hydra composed it, *before* the named variant was
    merged, so an interpolation that a variant changes (acc_random_init's
    ``oracle.preset: ${experiment.preset}`` under ``authors``) kept the
    default's value there.  A grid is taken when it has the stored number of
    cases and holds every stored record; without records, today's grid is
    taken when its ``config_hash`` is the stored one (the experiment config
    that ran), else the stored config's when both expand to the same cases;
    for a run without a variant, the stored config's when its ``config_hash``
    is the stored one; otherwise the file is refused.
    """
    config = info.get("config")
    if not isinstance(config, dict) or "experiment" not in config:
        raise Refused("it stores no composed config (config.experiment)")
    scale, variant, _ = split_label(label)
    name = info.get("experiment") or config["experiment"].get("name")
    candidates = {"stored config": _from_stored_config(config),
                  "today's config": _from_todays_config(name, scale, variant)}
    sized = {k: c for k, c in candidates.items() if len(c[1]) == info.get("n_cases")}
    if not sized:
        counts = ", ".join(f"{k}: {len(c[1])}" for k, c in candidates.items())
        raise Refused(f"its config expands to another number of cases with today's code ({counts}), and it "
                      f"stored n_cases={info.get('n_cases')}")
    notes = []
    if stored_ids is not None:
        holding = {k: c for k, c in sized.items() if stored_ids <= {case.case_id for case in c[1]}}
        if not holding:
            raise Refused(f"its {len(stored_ids)} records are not all cases of the expanded grid "
                          f"({', '.join(sized)})")
        source = "today's config" if "today's config" in holding else "stored config"
        notes.append(f"{len(stored_ids)} records, all in the grid of the {source}")
    else:
        ids = {k: [c.case_id for c in cands[1]] for k, cands in sized.items()}
        if "today's config" in sized and stable_hash(sized["today's config"][0]) == info.get("config_hash"):
            source = "today's config"
            notes.append("today's config hashes to the stored config_hash")
        elif (not variant and "stored config" in sized
              and stable_hash(sized["stored config"][0]) == info.get("config_hash")):
            # without a variant the stored config is the config that ran, resolved as the run resolved it
            source = "stored config"
            notes.append("the stored config hashes to the stored config_hash (today's config is another grid)")
        elif len(ids) == 2 and ids["stored config"] == ids["today's config"]:
            source = "stored config"
            notes.append("the stored and today's config expand to the same cases")
        else:
            raise Refused("without its records, no expansion can be trusted: the stored config and today's config "
                          "expand to different grids and today's config_hash is not the stored one (rerun the "
                          "script beside records.parquet)")
    placed, cases, targets = sized[source]
    spec = SweepSpec.of(placed, cases, label=label, targets=targets)
    recorded = spec.to_json()
    grid = recorded.pop("grid")
    if info.get("config_hash") and info["config_hash"] != spec.config_hash:
        notes.append(f"config_hash kept as stored ({info['config_hash']}; the {source} hashes {spec.config_hash})")
        recorded["config_hash"] = info["config_hash"]
    if variant != spec.variant:
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
