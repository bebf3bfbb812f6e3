"""Every public function, class and method of ccexp says what it is (issue 16: "83 public functions have no docstring").

Public means a name without a leading underscore, defined in the module that is
scanned (re-exports are checked where they are defined). A method that
overrides a documented one inherits its docstring (``inspect.getdoc``), as the
reader of ``help()`` sees it: the many ``fit_problem``/``warmup`` of the
estimators say what their base class says.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
import types

import ccexp


def undocumented(module: types.ModuleType) -> list[str]:
    """The public functions, classes, methods and properties of ``module`` without a docstring."""
    missing = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if not inspect.getdoc(obj):
            missing.append(f"{module.__name__}.{name}")
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if inspect.isfunction(member):
                    doc = inspect.getdoc(getattr(obj, attr))
                elif isinstance(member, property):
                    doc = member.__doc__
                else:
                    continue
                if not doc:
                    missing.append(f"{module.__name__}.{name}.{attr}")
    return missing


def test_every_public_name_of_ccexp_has_a_docstring():
    missing = []
    for info in pkgutil.walk_packages(ccexp.__path__, "ccexp."):
        missing += undocumented(importlib.import_module(info.name))
    assert missing == [], f"{len(missing)} public names without a docstring: {missing}"


def test_the_check_catches_what_it_should(monkeypatch):
    module = types.ModuleType("fake")
    monkeypatch.setitem(sys.modules, "fake", module)  # inspect.getdoc finds a method's class through it
    exec(  # noqa: S102 - a synthetic module, written here
        "class Base:\n"
        "    '''A base.'''\n"
        "    def fit(self):\n"
        "        '''Fit.'''\n"
        "class Child(Base):\n"
        "    '''A child.'''\n"
        "    def fit(self):\n"  # inherits Base.fit's docstring: fine
        "        pass\n"
        "    def extra(self):\n"
        "        pass\n"
        "    @property\n"
        "    def size(self):\n"
        "        return 1\n"
        "def f():\n"
        "    pass\n"
        "def _private():\n"
        "    pass\n",
        module.__dict__,
    )
    assert sorted(undocumented(module)) == ["fake.Child.extra", "fake.Child.size", "fake.f"]
