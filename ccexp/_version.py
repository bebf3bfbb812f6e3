"""The package version, in a module of its own so that any layer may read it.

``ccexp.__version__`` re-exports it; :mod:`ccexp.runner.provenance` records
it as the code version of a run outside a git checkout, without importing
the package's top-level API (which sits above the runner's dependencies).
"""

__version__ = "0.1.0"
