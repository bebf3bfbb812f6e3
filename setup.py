"""Package layout that pyproject.toml alone cannot express.

``conf/`` stays at the top level (users asked for it) and is installed as
the package ``ccexp.conf``, so ``python -m ccexp`` and the ``ccexp`` console
script find the Hydra configs from editable and regular installs alike.
All metadata lives in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["ccexp", "ccexp.*"]) + ["ccexp.conf"],
    package_dir={"ccexp.conf": "conf"},
)
