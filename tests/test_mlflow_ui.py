"""The README's MLflow recipe, looked at in a real headless browser (issue 32, item 6).

The slow test opens the session's ``scale=ci`` exp1 store (the
``exp1_ci_run`` fixture) plus a custom grid's run in it with the README's
``mlflow ui`` command, and follows the README's "Comparing two algorithms"
steps in Debian's Chromium, driven by Playwright: the experiment, the
Model-training toggle, the runs page with both parent runs (the preset's
``exp1_triplets[scale=ci]`` and the custom grid's
``exp1_triplets[scale=ci+custom-<hash>]``), a parent unfolded to its
children, the README's two search strings, and the compare view.  A
screenshot of each step is kept in ``.test-artifacts/mlflow-ui/`` (or
``$CCEXP_TEST_ARTIFACTS/mlflow-ui/``).  The test skips, naming the package,
where Playwright or Chromium is not installed (``.ci/run`` installs both).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
#: Chromium's flags on this kind of machine (root, no network but loopback): /work/.library/env/machines/python.md
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


#: the run-name links of the runs table
NAME_LINKS = '[col-id="attributes.`Run Name`"] a'


def _readme() -> str:
    return (ROOT / "README.md").read_text()


def readme_ui_command() -> str:
    """The README's ``mlflow ui ...`` line (its comment cut off)."""
    [line] = [ln.split("  #")[0].strip() for ln in _readme().splitlines() if ln.startswith("mlflow ui ")]
    return line


def readme_searches() -> list[str]:
    """The search strings of the README's comparison recipe, step 2."""
    step = _readme().split("2. Each invocation shows as one row", 1)[1].split("\n3. ", 1)[0]
    first = re.search(r"``(params\..*?)``", step, flags=re.S).group(1)
    second = re.search(r"`(attributes\.run_name LIKE [^`]*)`", step).group(1)
    return [" ".join(first.split()), second]


def test_the_readme_recipe_names_what_the_browser_test_looks_for():
    assert readme_ui_command().startswith("mlflow ui --backend-store-uri sqlite:///results/mlflow.db --port ")
    assert readme_searches() == ["params.`dataset.k` = '8' and params.`oracle.noise` = '0.2'",
                                 "attributes.run_name LIKE 'ls_ad_vc[%'"]
    text = " ".join(_readme().split())
    for words in ("Model training", "**Runs**", "**Training runs**", "**Compare**", "exp1_triplets[scale=ci]",
                  "exp1_triplets[scale=ci+custom-<hash>]"):
        assert words in text, words


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _artifacts() -> Path:
    folder = Path(os.environ.get("CCEXP_TEST_ARTIFACTS", ROOT / ".test-artifacts")) / "mlflow-ui"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
def ui_store(exp1_ci_run, tmp_path):
    """A copy of the session's exp1 ci store with a custom grid's run added; yields (folder, port)."""
    out, _ = exp1_ci_run
    work = tmp_path / "work"
    shutil.copytree(out, work / "results", ignore=shutil.ignore_patterns("*.lock"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "CCEXP_RESULTS"))}
    custom = subprocess.run([sys.executable, "-m", "ccexp", "experiment=exp1_triplets", "experiment.scale=ci",
                             "experiment.algorithms=[ls_ad_vc]", "runner.n_jobs=1", "runner.progress=false",
                             "report=false"], cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert custom.returncode == 0, custom.stderr[-3000:]
    port = _free_port()
    command = readme_ui_command().replace("--port 5000", f"--port {port}")
    assert command != readme_ui_command()
    bindir = Path(sys.executable).parent
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    log = open(tmp_path / "mlflow-ui.log", "w")  # noqa: SIM115 - closed below
    server = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=work, env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 180  # a guard against a server that never comes up, not a timing check
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"mlflow ui did not start:\n{(tmp_path / 'mlflow-ui.log').read_text()[-3000:]}")
            time.sleep(1)
        yield work, port
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=60)
        log.close()


@pytest.mark.slow
def test_the_readme_comparison_recipe_in_a_headless_browser(ui_store):
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="drives the browser with Playwright: pip install -e '.[browser]'")
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"needs Chromium at {CHROMIUM}: Debian's package chromium (apt-get install chromium; .ci/run does)")
    from mlflow.tracking import MlflowClient

    work, port = ui_store
    base = f"http://127.0.0.1:{port}"
    client = MlflowClient(tracking_uri=f"sqlite:///{work / 'results' / 'mlflow.db'}")
    exp = client.get_experiment_by_name("exp1_triplets")
    parents = {r.info.run_name: r for r in client.search_runs([exp.experiment_id], "tags.`ccexp.kind` = 'sweep'")}
    [custom] = [n for n in parents if n.startswith("exp1_triplets[scale=ci+custom-")]
    assert set(parents) == {"exp1_triplets[scale=ci]", custom}  # the custom grid's parent can be told apart
    shots = _artifacts()
    taken = []

    def shot(page, name):
        path = shots / f"{len(taken) + 1:02d}-{name}.png"
        page.screenshot(path=str(path))
        taken.append(path)

    def row(page, name):
        return page.locator('[role="row"]').filter(has=page.get_by_text(name, exact=True)).first

    def unfold(page, name):
        row(page, name).locator('button[data-component-id*="runnamecellrenderer"]').click()

    def names(page):
        return page.locator(NAME_LINKS).all_inner_texts()

    def settle(page, done, seconds=120):
        """The child run names the table shows once ``done(names)`` holds (or the last seen, after ``seconds``)."""
        deadline = time.monotonic() + seconds  # a guard for a loaded machine, not a timing check
        while True:
            shown = set(names(page)) - set(parents)
            if done(shown) or time.monotonic() > deadline:
                return shown
            time.sleep(0.5)

    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1600})
            page.set_default_timeout(120_000)  # a loaded 2-core machine: a guard, not a timing check
            # 1. the experiment list; the experiment lands on its (GenAI) overview
            page.goto(base + "/")
            page.get_by_text("exp1_triplets", exact=True).first.wait_for()
            shot(page, "experiments")
            page.get_by_text("exp1_triplets", exact=True).first.click()
            page.get_by_text("Overview", exact=True).first.wait_for()
            shot(page, "overview")
            # the toggle at the top left: Model training -> the runs page, with both parent runs
            page.get_by_text("Model training", exact=True).first.click()
            page.get_by_role("heading", name="Runs", exact=True).wait_for()
            for name in parents:
                row(page, name).wait_for()
            assert "/runs" in page.url
            shot(page, "runs-both-parents")
            # 2. the preset's parent unfolded: its children under it
            unfold(page, "exp1_triplets[scale=ci]")
            unfolded = {"exp1_triplets[scale=ci]"}
            page.wait_for_function(f"() => document.querySelectorAll({NAME_LINKS!r}).length > 10")
            children = [n for n in names(page) if n not in parents]
            algorithms = {"ls_ad_vc", "ls_ad", "ls_eq_vc", "ls_eq", "triplet_approx", "tste_dpmm", "crowdclust_dpmm"}
            assert len(children) >= 9 and {n.split("[", 1)[0] for n in children} <= algorithms, children
            shot(page, "parent-unfolded")
            # the README's search strings filter the children (the MLflow API's answer is the reference)
            box = page.locator('input[placeholder*="metrics.rmse"]').first
            for i, search in enumerate(readme_searches()):
                box.fill(search)
                box.press("Enter")
                want = {r.info.run_name for r in client.search_runs([exp.experiment_id], search, max_results=1000)}
                assert want and not want & set(parents)
                for name in set(parents) - unfolded:  # an unfolded parent stays so while the search changes
                    unfold(page, name)
                    unfolded.add(name)
                shown = settle(page, lambda s: s == want)
                assert shown == want, (search, shown ^ want)  # what the API finds, and only that
                shot(page, f"search-{i + 1}")
            # 3. two runs ticked, Compare: the compare view
            for n in sorted(shown)[:2]:
                row(page, n).locator("input.ag-checkbox-input").check()
            page.get_by_role("button", name="Compare", exact=True).click()
            page.get_by_text("Comparing 2 Runs").first.wait_for()
            page.get_by_text("Parallel Coordinates Plot").first.wait_for()
            page.locator(".js-plotly-plot").first.wait_for()  # the plot drawn, not its placeholder
            assert "compare-runs" in page.url
            for n in sorted(shown)[:2]:
                assert page.get_by_text(n, exact=True).count() >= 1
            shot(page, "compare")
            # the runs page opened by its URL, as the README offers, by a new visitor: "Training runs"
            # (a browser that chose Model training before keeps to that view, headed "Runs")
            page = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
            page.set_default_timeout(120_000)
            page.goto(f"{base}/#/experiments/{exp.experiment_id}/runs")
            page.get_by_role("heading", name="Training runs").wait_for()
            shot(page, "runs-by-url")
        finally:
            browser.close()
    print("\nMLflow UI screenshots: " + ", ".join(str(p) for p in taken))
    assert all(p.stat().st_size > 10_000 for p in taken)
