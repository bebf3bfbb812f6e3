"""Package layout that pyproject.toml alone cannot express.

``conf/`` stays at the top level (users asked for it) and is installed as
the package ``ccexp.conf``, so ``python -m ccexp`` and the ``ccexp`` console
script find the Hydra configs from editable and regular installs alike.
``experiments/`` (each paper's ``reference.csv``: the numbers a report is
compared with, its ``ablations.csv``, the variants a ``measured`` cause names, its
``fresh_seeds.csv``, the fresh runs a ``chance`` cause pools,
and its README, whose headings the reproduction page links)
is installed as ``ccexp/experiments/``, and the committed paper-scale runs'
``results/<experiment>/paper/run.json`` (what ``--help`` quotes as their run
times) as ``ccexp/paper_runs/<experiment>/paper/run.json``: a wheel carries
all a report and the help page read (issue 32).  All metadata lives in
pyproject.toml.
"""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["ccexp", "ccexp.*"]) + ["ccexp.conf", "ccexp.experiments", "ccexp.paper_runs"],
    package_dir={"ccexp.conf": "conf", "ccexp.experiments": "experiments", "ccexp.paper_runs": "results"},
    package_data={"ccexp.conf": ["*.yaml", "**/*.yaml"],
                  "ccexp.experiments": ["*/reference.csv", "*/ablations.csv", "*/fresh_seeds.csv", "*/README.md"],
                  "ccexp.paper_runs": ["*/paper/run.json"]},
)
