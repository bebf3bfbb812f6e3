"""The README's example commands, run in a fresh ``git clone`` as a new user meets them.

Every ``python -m ccexp ...`` line of the README's bash blocks runs in the
clone (at the scale it names), and afterwards ``git status --porcelain`` is
empty: no example writes into a tracked file (issue 12: the quick example
used to rewrite the committed paper-scale report).  Left out, with the reason:

- the main job without a scale runs the paper grid (about 25 minutes): it is
  run as ``--cfg job`` (Hydra composes and prints the config, the run is
  not started), which checks that the command is valid;
- ``python -m ccexp.reproduce`` runs every paper experiment at paper scale
  (hours): it runs with ``--dry-run`` (the plan and its commands are
  printed, nothing is run);
- ``pip``, ``pytest``, ``mlflow ui`` (a server), ``dvc`` (tests/test_dvc.py
  runs a stage at scale=ci in a clone) and ``python -m ccexp.data fetch``
  (the network; tests/test_data_fetch.py) are not ccexp runs.

The clone runs its own package and configs (``python -m`` puts the clone
first on ``sys.path``, and ccexp binds ``ccexp.conf`` to the clone's
``conf/``: tests/test_checkout_conf.py) with the environment's dependencies;
the clone is where the commands write (their ``results/`` is relative to
the clone).
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ccexp._installed import format_seconds

from conftest import require_experiment_data

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("pip install") and "python -m ccexp" in line:
                line = "python -m ccexp" + line.split("python -m ccexp", 1)[1]
            if line.startswith("python -m ccexp") and not line.startswith("python -m ccexp.data fetch"):
                lines.append(line)
    return lines


def test_readme_names_no_path_a_user_does_not_have():
    text = (ROOT / "README.md").read_text()
    assert "../shared" not in text
    assert "oracle.noise=0.1 " not in text.replace("`oracle.noise=0.1` on", "")  # refused now: the sweep form is shown
    commands = readme_commands()
    assert any("experiment.sweep.oracle.noise=[0.1]" in c for c in commands)
    assert len(commands) >= 10


@pytest.mark.slow
def test_readme_examples_in_a_clone_leave_git_status_clean(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    scratch = tmp_path / "r"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_") and k != "CCEXP_RESULTS_DIR"}
    ran = []
    for line in readme_commands():  # real data first: skip, naming the file, before any command runs
        args = shlex.split(line)[3:]  # after "python -m ccexp"
        if shlex.split(line)[2] == "ccexp" and any(a.startswith("experiment.scale=") for a in args):
            name = next(a.split("=", 1)[1] for a in args if a.lstrip("+").startswith("experiment="))
            require_experiment_data(name, overrides=[a for a in args if not a.lstrip("+").startswith("experiment=")])
    for line in readme_commands():
        args = shlex.split(line.replace("/tmp/r", str(scratch)))[1:]  # after "python"
        module, rest = args[1], args[2:]
        if module == "ccexp" and rest and not any(a.startswith("experiment.scale=") for a in rest):
            rest = [*rest, "--cfg", "job"]  # the paper grid: composed and printed, not run (see the docstring)
        if module == "ccexp.reproduce":
            rest = [*rest, "--dry-run"]  # the paper-scale reproduction: planned and printed, not run
        if module == "ccexp" and "--cfg" not in rest:
            rest = [*rest, "runner.progress=false"]
        proc = subprocess.run([sys.executable, "-m", module, *rest], cwd=clone, capture_output=True, text=True,
                              timeout=900, env=env)
        if module == "ccexp.data":  # `status` only looks; it exits 1 when a file is missing on this machine
            assert proc.returncode in (0, 1) and re.search(r"files in .*: .*ok", proc.stdout + proc.stderr), line
        else:
            assert proc.returncode == 0, f"{line}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
        ran.append(line)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, check=True)
    assert status.stdout == "", f"tracked files changed by the README's examples:\n{status.stdout}"
    # the runs did write, next to the committed reports and never into them
    assert (clone / "results" / "exp1_triplets" / "quick" / "records.parquet").is_file()
    assert list((clone / "results" / "exp1_triplets").glob("ci+custom-*/records.parquet"))
    assert len(ran) == len(readme_commands())


def test_ci_runs_the_readme_test_commands_in_order():
    """.ci/run calls each command of the README's "Tests" block, as written and in that order."""
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Tests\n", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    commands = [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["pytest", "pytest -m slow"]
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    positions = [ci_lines.index(c) for c in commands]  # ValueError if CI does not run one of them
    assert positions == sorted(positions)


def test_ci_runs_the_readme_setup_line_first_in_a_venv_of_its_own_then_pytest():
    """Issue 32: .ci/run starts with the README's two commands, exactly as written, before any other install."""
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Set-up and the main job\n", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```bash\n(.*?)```", section, flags=re.S)[0]
    [setup] = [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]
    assert setup == 'pip install -e ".[dev]" && python -m ccexp experiment=exp1_triplets'
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    venv, at, tests = lines.index("python3 -m venv .venv-ci"), lines.index(setup), lines.index("pytest")
    assert venv < at < tests
    installs = [i for i, line in enumerate(lines) if "pip install" in line and not line.startswith("#")]
    assert [i for i in installs if i < tests] == [lines.index("python -m pip install --quiet --upgrade pip"), at]


def test_the_readmes_ci_line_names_the_extras_ci_installs():
    text = " ".join((ROOT / "README.md").read_text().split())
    ci = (ROOT / ".ci" / "run").read_text()
    [extras] = re.findall(r'^EXTRAS="([a-z,]+)"$', ci, flags=re.M)
    assert 'python -m pip install --quiet -e ".[$EXTRAS]"' in ci
    assert f"CI (`.ci/run`) installs `.[{extras}]`" in text or f"then installs `.[{extras}]`" in text, extras


def _seconds(text: str) -> tuple[float, float]:
    """A printed duration ("6.7 min", "1,591 s", "40 s") in seconds, with half a unit of its last digit."""
    number, unit = text.replace(",", "").split()
    scale = {"s": 1.0, "min": 60.0}[unit]
    decimals = len(number.split(".")[1]) if "." in number else 0
    return float(number) * scale, 0.5 * 10.0 ** -decimals * scale


def committed_paper_runs() -> dict[str, dict]:
    """Each experiment's ``results/<experiment>/paper/run.json`` as committed (``git show HEAD:...``).

    Not the working tree's: the README's main job is a paper-scale run, and a
    user who ran it has rewritten ``results/exp1_triplets/paper/run.json``
    with their own machine's wall time, legitimately (issue 32). Outside a
    git checkout (an unpacked sdist) the files as they are.
    """
    import json

    listing = subprocess.run(["git", "ls-tree", "-r", "--name-only", "HEAD", "--", "results"], cwd=ROOT,
                             capture_output=True, text=True)
    if listing.returncode != 0:
        return {p.parent.parent.name: json.loads(p.read_text()) for p in (ROOT / "results").glob("*/paper/run.json")}
    paths = [p for p in listing.stdout.splitlines() if re.fullmatch(r"results/[^/]+/paper/run\.json", p)]
    return {p.split("/")[1]: json.loads(subprocess.run(["git", "show", f"HEAD:{p}"], cwd=ROOT, capture_output=True,
                                                       text=True, check=True).stdout)
            for p in paths}


def readme_run_times() -> dict[str, str]:
    """The README's run-time table: experiment -> its "wall clock at paper scale" cell."""
    text = (ROOT / "README.md").read_text()
    table = text.split("| experiment | cases | wall clock at paper scale |", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[2]
    return rows


def rows_cases(name: str) -> int:
    """The README run-time table's "cases" cell of ``name``."""
    text = (ROOT / "README.md").read_text()
    table = text.split("| experiment | cases | wall clock at paper scale |", 1)[1].split("\n\n", 1)[0]
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == name:
            return int(cells[1].replace(",", ""))
    raise KeyError(name)


def test_every_run_time_in_the_readme_is_its_committed_run_json():
    """Issue 12: one run-time statement per experiment, taken from the committed run.json."""
    rows = readme_run_times()
    runs = committed_paper_runs()
    committed = sorted(runs)
    assert committed and set(committed) <= set(rows), set(committed) - set(rows)
    for name in committed:
        wall = runs[name]["wall_seconds"]
        cell = rows[name]
        assert "`run.json`" in cell, (name, cell)
        first = re.match(r"([\d.,]+ (?:s|min))", cell).group(1)
        shown, half = _seconds(first)
        assert abs(shown - wall) <= half + 1e-9, (name, cell, wall)
        # the figure `python -m ccexp --help` prints for it, from the same run.json (tests/test_cli.py)
        assert first == format_seconds(wall), f"{name}: write {format_seconds(wall)}, as --help does, not {first}"
        assert rows_cases(name) == runs[name]["n_cases"], (name, runs[name]["n_cases"])
        if (m := re.search(r"`run.json`: ([\d.,]+ s)", cell)) is not None:
            exact, half = _seconds(m.group(1))
            assert abs(exact - wall) <= half + 1e-9, (name, cell, wall)
