"""planner's declared dependencies, each by the name it is imported as: a Python that cannot import one is told
which package is missing and how to install it, exit 5, and a verb that works on hosts is told before it touches
one.

planner imports its dependencies lazily (start-up time), so a Python without one (another interpreter than the
venv's, a half-installed environment) used to get as far as the verb's first use of it: for rich, the middle of
an apply, after its prep was applied, as a traceback. ansible-core imports its own at start and refuses to run
without one (lib/ansible/cli/__init__.py: ``print('ERROR: %s' % e); sys.exit(5)`` around ``from ansible import
constants``, which imports Jinja2 and PyYAML). planner looks for all of them before a verb that works on hosts
(``find_spec`` finds a package where ``import`` would, without importing it: ~0.05 ms each, where importing them
would take ~0.5 s); any other verb meets a missing one where it needs it, changes nothing anywhere, and says
the same (planner.cli.main). The table is pairs, not a dataclass: it is read at start-up, where building a class
costs more than the check.
"""

from __future__ import annotations

import importlib.util
import sys

from planner.errors import Problem

# pyproject.toml's [project] dependencies in its order, as declared there, with the module planner imports
# (tests/cli/test_unexpected_errors.py holds the two equal)
DEPENDENCIES: tuple[tuple[str, str], ...] = (
    ("pyyaml>=6.0", "yaml"),
    ("jsonschema>=4.18", "jsonschema"),
    ("paramiko>=3.4", "paramiko"),
    ("jinja2>=3.1", "jinja2"),
    ("oracledb>=2.0", "oracledb"),
    ("cryptography>=3.3", "cryptography"),
    ("rich>=13.0", "rich"),
    ("markdown-it-py>=2.2", "markdown_it"),
    ("matplotlib>=3.7", "matplotlib"),
    ("psycopg[binary]>=3.1", "psycopg"),
)


def problems() -> list[Problem]:
    """One problem per dependency this Python cannot import, found without importing any."""
    return [missing(requirement, module) for requirement, module in DEPENDENCIES if not _findable(module)]


def _findable(module: str) -> bool:
    if module in sys.modules:  # imported already, or None: an import Python is told to refuse
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken package (a finder raised, or a module without its __spec__)
        return False


def package(requirement: str) -> str:
    """The distribution a requirement names: ``psycopg[binary]>=3.1`` -> ``psycopg``."""
    for stop in "[<>=!~; ":
        requirement = requirement.partition(stop)[0]
    return requirement


def missing(requirement: str, module: str) -> Problem:
    """A dependency this Python cannot import, and how to install it into the Python running planner."""
    return Problem(None, "", f"planner needs the Python package {package(requirement)} ({requirement}), which "
                   f"{sys.executable} cannot import (No module named '{module}')",
                   f"install it into that Python: {sys.executable} -m pip install '{requirement}' (or run planner "
                   "from the virtual environment it was installed in)")


def declared(module: str) -> Problem | None:
    """The problem to say for a ModuleNotFoundError of ``module`` met while a verb ran, when it is (part of) a
    declared dependency; None for any other module (a dependency's own dependency, or planner's)."""
    top = module.partition(".")[0]
    return next((missing(requirement, module) for requirement, name in DEPENDENCIES if name == top), None)


def hint_for(module: str) -> str:
    """What to do about a module a verb could not import that is not one of planner's declared dependencies."""
    top = module.partition(".")[0]
    if top == "planner":
        return "this planner is incomplete: install it again (pip install . from its source)"
    return (f"{top} is missing from {sys.executable}, which a package planner uses needs: "
            f"{sys.executable} -m pip check names each missing requirement")
