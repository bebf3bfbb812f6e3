"""The README's example commands, run in a fresh ``git clone`` as a new user meets them.

Every ``python -m ccexp ...`` line of the README's bash blocks runs in the
clone (at the scale it names), and afterwards ``git status --porcelain`` is
empty: no example writes into a tracked file (issue 12: the quick example
used to rewrite the committed paper-scale report).  Left out, with the reason:

- the main job without a scale runs the paper grid (about 25 minutes): it is
  run as ``--cfg job`` (Hydra composes and prints the config, the run is
  not started), which checks that the command is valid;
- ``pip``, ``pytest``, ``mlflow ui`` (a server), ``dvc`` (tests/test_dvc.py
  runs a stage at scale=ci in a clone) and ``python -m ccexp.data fetch``
  (the network; tests/test_data_fetch.py) are not ccexp runs.

The clone runs the installed (editable) package with its configs; the clone
is where the commands write (their ``results/`` is relative to the clone).
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

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
    for line in readme_commands():
        args = shlex.split(line.replace("/tmp/r", str(scratch)))[1:]  # after "python"
        module, rest = args[1], args[2:]
        if module == "ccexp" and rest and not any(a.startswith("experiment.scale=") for a in rest):
            rest = [*rest, "--cfg", "job"]  # the paper grid: composed and printed, not run (see the docstring)
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


def _seconds(text: str) -> tuple[float, float]:
    """A printed duration ("6.7 min", "1,591 s", "40 s") in seconds, with half a unit of its last digit."""
    number, unit = text.replace(",", "").split()
    scale = {"s": 1.0, "min": 60.0}[unit]
    decimals = len(number.split(".")[1]) if "." in number else 0
    return float(number) * scale, 0.5 * 10.0 ** -decimals * scale


def test_every_run_time_in_the_readme_is_its_committed_run_json():
    """Issue 12: one run-time statement per experiment, taken from the committed run.json."""
    import json

    text = (ROOT / "README.md").read_text()
    table = text.split("| experiment | cases | wall clock at paper scale |", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[2]
    committed = sorted(p.parent.parent.name for p in (ROOT / "results").glob("*/paper/run.json"))
    assert committed and set(committed) <= set(rows), set(committed) - set(rows)
    for name in committed:
        wall = json.loads((ROOT / "results" / name / "paper" / "run.json").read_text())["wall_seconds"]
        cell = rows[name]
        assert "`run.json`" in cell, (name, cell)
        shown, half = _seconds(re.match(r"([\d.,]+ (?:s|min))", cell).group(1))
        assert abs(shown - wall) <= half + 1e-9, (name, cell, wall)
        if (m := re.search(r"`run.json`: ([\d.,]+ s)", cell)) is not None:
            exact, half = _seconds(m.group(1))
            assert abs(exact - wall) <= half + 1e-9, (name, cell, wall)
