"""``python -m ccexp.reproduce``: the whole five-paper reproduction at paper scale, one command (issue 31).

Runs every paper experiment (17; ``--variants`` adds each experiment's named
variants, reported as a second total) into one results folder, each as its
own ``python -m ccexp`` process (``tracking=off``, its report at the end), with
one progress display, then ``python -m ccexp.report all`` (REPRODUCTION.md).
It writes ``<results>/reproduce.json``: the wall time per experiment and in
total, each run's peak memory (driver and workers, from its ``run.json``),
the machine and the commit.

Scheduling on ``--jobs N`` cores, longest first (by the last committed
``run.json``) onto whichever core is free (list scheduling): a timing
experiment (``experiment.one_case_at_a_time: true``: recon_runtime,
acc_xi_runtime, agg_scalability) measures one case at a time, so the timing
experiments run one after another on one core of their own, first; every other
experiment starts as soon as a core is free, as one process on one core
(``runner.n_jobs=1``), and the last one to start takes every core still free.
One experiment per core costs no inter-process traffic, and no core waits for
the slowest worker of another experiment's sweep: a core freed by the timing
experiments, or by a short experiment, takes the next one at once (the first
version kept one lane for all the others, so an experiment started beside the
timing lane kept its one core and left the freed core idle until it ended).

Ctrl-C or SIGTERM stops the experiments running then as either stops a
sweep (their records stay, their ``run.json`` says ``interrupted``), writes
``reproduce.json`` with ``status: interrupted`` and exits with 128 + the
signal; the same command resumes.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tqdm.auto import tqdm

from .__main__ import list_experiments
from .report import PAPER_OF
from .runner.compose import compose_config
from .runner.layout import PAPER_SCALE, experiment_dir, scale_label
from .runner.provenance import git_state, machine
from .runner.sweep import terminate_as_interrupt

#: The five papers whose experiments the reproduction runs (cc_gaps and cross are studies beyond them).
PAPERS = ("ukkonen2017", "zhu2013", "liu2011", "aronsson2024", "gionis2007")


@dataclass
class Job:
    """One experiment (or one of its named variants) to run at paper scale."""

    experiment: str
    variant: str | None = None
    timing: bool = False  # one case at a time (experiment.one_case_at_a_time)
    expected_seconds: float = 0.0  # its last committed run.json, for the order and the progress display
    seconds: float | None = None
    returncode: int | None = None
    n_jobs: int | None = None
    run: dict = field(default_factory=dict)  # the run.json it wrote: cases, errors, peak memory

    @property
    def label(self) -> str:
        """The results folder of the run (``paper`` or ``paper+<variant>``)."""
        return scale_label(PAPER_SCALE, variant=self.variant)

    @property
    def name(self) -> str:
        """How the progress display names it: ``acc_random_init`` or ``acc_random_init[authors]``."""
        return self.experiment + (f"[{self.variant}]" if self.variant else "")


def paper_experiments() -> list[str]:
    """The experiments of the five papers, in the page's order of papers."""
    names = list_experiments()
    return [n for p in PAPERS for n in names if PAPER_OF.get(n) == p]


def _declared(name: str) -> tuple[bool, list[str]]:
    """``(one case at a time, named variants)`` as the experiment's config declares them."""
    exp = compose_config([f"experiment={name}"]).experiment
    return bool(exp.get("one_case_at_a_time", False)), sorted(exp.get("variants") or {})


def plan(names: list[str], variants: bool, committed: Path) -> list[Job]:
    """The jobs, each with what its committed ``run.json`` under ``committed`` says it took."""
    jobs = []
    for name in names:
        timing, declared = _declared(name)
        for v in [None, *(declared if variants else [])]:
            job = Job(name, v, timing)
            run = experiment_dir(committed, name, job.label) / "run.json"
            if run.is_file():
                job.expected_seconds = float(json.loads(run.read_text()).get("wall_seconds") or 0.0)
            jobs.append(job)
    return jobs


def _command(job: Job, results: Path, n_jobs: int) -> list[str]:
    cmd = [sys.executable, "-m", "ccexp", f"experiment={job.experiment}", f"experiment.scale={PAPER_SCALE}",
           f"paths.results={results}", "tracking=off", "runner.progress=false", f"runner.n_jobs={n_jobs}"]
    if job.variant:
        cmd.append(f"experiment.variant={job.variant}")
    return cmd


def _start(job: Job, results: Path, n_jobs: int, logs: Path) -> tuple[subprocess.Popen, float]:
    job.n_jobs = n_jobs
    log = open(logs / f"{job.experiment}{'+' + job.variant if job.variant else ''}.log", "w")
    proc = subprocess.Popen(_command(job, results, n_jobs), stdout=log, stderr=subprocess.STDOUT)
    return proc, time.perf_counter()


#: Seconds the experiments get to stop on their own after Ctrl-C, before they are sent SIGTERM.
_INTERRUPT_GRACE = 10.0


def run_all(jobs: list[Job], results: Path, cores: int, progress: bool = True) -> None:
    """Run ``jobs`` on ``cores`` cores, longest first onto a free core; the timing jobs first, one at a time.

    A job that is not a timing job runs on one core (``n_jobs=1``), except the
    last one to start, which takes every core free then.  On one core every job
    runs alone, one after another.
    """
    logs = results / "reproduce-logs"
    logs.mkdir(parents=True, exist_ok=True)
    timing = [j for j in jobs if j.timing]
    others = sorted((j for j in jobs if not j.timing), key=lambda j: -j.expected_seconds)
    total = sum(j.expected_seconds for j in jobs) or len(jobs)
    bar = tqdm(total=round(total), unit="s", desc="reproduction (expected seconds done)", disable=not progress,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} elapsed {postfix}")
    running: list[tuple[Job, subprocess.Popen, float]] = []

    def launch(job: Job, n_jobs: int) -> None:
        proc, t0 = _start(job, results, n_jobs, logs)
        running.append((job, proc, t0))

    try:
        with terminate_as_interrupt():
            _schedule(timing, others, running, cores, launch, results, bar)
    except KeyboardInterrupt as exc:
        # Ctrl-C at a terminal reached the experiments too (its process group): they get a moment to stop on
        # their own, so that a second signal does not fall into their own stopping.  SIGTERM (or a SIGINT sent
        # to this process alone) is passed on, so that each stops as a sweep stops (its run.json says
        # interrupted, its records stay) instead of computing on, orphaned, for hours
        if getattr(exc, "signum", signal.SIGINT) == signal.SIGINT:
            deadline = time.monotonic() + _INTERRUPT_GRACE
            while time.monotonic() < deadline and any(proc.poll() is None for _, proc, _ in running):
                time.sleep(0.1)
        for job, proc, t0 in running:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for job, proc, t0 in running:
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            _finished(job, proc, t0, results)
        raise
    finally:
        bar.close()


def _finished(job: Job, proc: subprocess.Popen, t0: float, results: Path) -> None:
    """Take what an experiment's process left: its time, its exit status and its run.json."""
    job.seconds, job.returncode = round(time.perf_counter() - t0, 1), proc.returncode
    run = experiment_dir(results, job.experiment, job.label) / "run.json"
    job.run = json.loads(run.read_text()) if run.is_file() else {}


def _schedule(timing: list[Job], others: list[Job], running: list, cores: int, launch, results: Path, bar) -> None:
    """The loop of :func:`run_all`: start jobs on free cores until every job has ended."""
    while timing or others or running:
        # a timing experiment gets a core of its own, never beside another one; on one core it runs alone
        if timing and not any(j.timing for j, _, _ in running) and (cores > 1 or not running):
            launch(timing.pop(0), 1)
        free = cores - sum(j.n_jobs for j, _, _ in running)
        while others and free >= 1:
            # one core each while jobs wait for cores; the last job to start takes the cores left
            n_jobs = free if len(others) == 1 and not timing else 1
            launch(others.pop(0), n_jobs)
            free -= n_jobs
        bar.set_postfix_str(" + ".join(f"{j.name} ({time.perf_counter() - t:.0f} s)" for j, _, t in running))
        time.sleep(1.0)
        for entry in list(running):
            job, proc, t0 = entry
            if proc.poll() is None:
                continue
            _finished(job, proc, t0, results)
            bar.update(round(job.expected_seconds or 1))
            tqdm.write(f"{job.name}: {job.seconds:.0f} s, exit {job.returncode}")
            running.remove(entry)


def summary(jobs: list[Job], total_seconds: float, report_seconds: float, results: Path) -> dict:
    """What ``reproduce.json`` holds: per experiment and in total, the machine and the commit."""
    def row(j: Job) -> dict:
        peak = j.run.get("peak_rss_bytes") or {}
        return {"experiment": j.experiment, "variant": j.variant, "timing": j.timing, "n_jobs": j.n_jobs,
                "wall_seconds": j.seconds, "returncode": j.returncode, "n_cases": j.run.get("n_cases"),
                "n_errors": j.run.get("n_errors"), "code_version": j.run.get("code_version"),
                "peak_rss_bytes": {"driver": peak.get("driver"), "workers": peak.get("workers")}}

    papers = [row(j) for j in jobs if j.variant is None]
    variants = [row(j) for j in jobs if j.variant is not None]
    return {
        "command": " ".join(sys.argv), "results": str(results), "git": git_state(), "machine": machine(),
        "wall_seconds": round(total_seconds, 1), "report_seconds": round(report_seconds, 1),
        "paper_experiments": {"wall_seconds_summed": round(sum(r["wall_seconds"] or 0 for r in papers), 1),
                              "runs": papers},
        "variants": {"wall_seconds_summed": round(sum(r["wall_seconds"] or 0 for r in variants), 1),
                     "runs": variants},
        "failed": [r["experiment"] + (f"[{r['variant']}]" if r["variant"] else "") for r in papers + variants
                   if r["returncode"] != 0],
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry; returns the exit status (1 when an experiment failed, 128 + the signal when Ctrl-C
    or SIGTERM stopped it: the experiments running then are stopped as a sweep is, and a rerun resumes)."""
    parser = argparse.ArgumentParser(prog="python -m ccexp.reproduce", description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="results", help="results folder (default: results, the committed one)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="cores to use (default: all)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these experiments only")
    parser.add_argument("--variants", action="store_true", help="also each experiment's named variants (a second total)")
    parser.add_argument("--no-progress", action="store_true", help="no progress display")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and the commands, run nothing")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be >= 1, got {args.jobs}")
    names = paper_experiments()
    if args.only:
        unknown = sorted(set(args.only) - set(names))
        if unknown:
            parser.error(f"not a paper experiment: {', '.join(unknown)}; valid: {', '.join(names)}")
        names = [n for n in names if n in args.only]
    results = Path(args.results).resolve()
    committed = Path(__file__).resolve().parents[1] / "results"
    jobs = plan(names, args.variants, committed if committed.is_dir() else results)
    if args.dry_run:
        for j in jobs:
            print(f"{j.name:<28} expected {j.expected_seconds:8.0f} s  {'(one case at a time) ' if j.timing else ''}"
                  + " ".join(_command(j, results, 1)[2:]))
        print(f"on {args.jobs} cores: the timing experiments first, one after another on one core; the others "
              f"longest first, each on a free core (the last to start on every core free then)")
        return 0
    t0 = time.perf_counter()
    try:
        run_all(jobs, results, args.jobs, progress=not args.no_progress)
    except KeyboardInterrupt as exc:
        # what ended before it, and the experiments it stopped (each keeps its records): reproduce.json says so
        out = summary(jobs, time.perf_counter() - t0, 0.0, results)
        out["status"] = "interrupted"
        (results / "reproduce.json").write_text(json.dumps(out, indent=2, default=str) + "\n")
        done = sum(j.returncode == 0 for j in jobs)
        signum = getattr(exc, "signum", signal.SIGINT)
        print(f"ccexp.reproduce: interrupted ({signal.Signals(signum).name}); {done} of {len(jobs)} experiments "
              f"ended, the others keep what they stored: rerun the same command to resume", file=sys.stderr)
        return 128 + signum
    t_report = time.perf_counter()
    rc = subprocess.call([sys.executable, "-m", "ccexp.report", "all", "--results", str(results)],
                         stdout=subprocess.DEVNULL)
    end = time.perf_counter()
    out = summary(jobs, end - t0, end - t_report, results)
    out["status"] = "finished"
    out["report_returncode"] = rc
    (results / "reproduce.json").write_text(json.dumps(out, indent=2, default=str) + "\n")
    papers = out["paper_experiments"]
    print(f"reproduction: {len(papers['runs'])} paper experiments in {out['wall_seconds'] / 60:.1f} min wall "
          f"({papers['wall_seconds_summed'] / 60:.1f} min summed)"
          + (f"; variants {out['variants']['wall_seconds_summed'] / 60:.1f} min" if out["variants"]["runs"] else "")
          + f"; {results / 'reproduce.json'}; {results / 'REPRODUCTION.md'}")
    if out["failed"]:
        print(f"failed: {', '.join(out['failed'])} (logs in {results / 'reproduce-logs'})", file=sys.stderr)
    return 1 if out["failed"] or rc else 0


if __name__ == "__main__":
    raise SystemExit(main())
