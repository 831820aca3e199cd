"""planner's declared dependencies, each by the name it is imported as: a Python that cannot import one is told
which package is missing and how to install it, before any host is touched.

planner imports its dependencies lazily (start-up time), so a Python without one (another interpreter than the
venv's, a half-installed environment) used to get as far as the verb's first use of it: for rich, the middle of
an apply, after its prep was applied, as a traceback. ansible-core imports its own at start and refuses to run
without one (lib/ansible/cli/__init__.py: ``print('ERROR: %s' % e); sys.exit(5)`` around ``from ansible import
constants``, which imports Jinja2 and PyYAML); planner looks for each at start the same way, exit 5, without
importing them: ``find_spec`` finds a package where ``import`` would, in microseconds, where importing them all
would take ~0.5 s. The table is pairs, not a dataclass: it is read at every start-up, where building a class
costs more than the whole check.
"""

from __future__ import annotations

import importlib.util
import sys

from planner.errors import Problem

# pyproject.toml's [project] dependencies in its order, as declared there, with the module planner imports
# (tests/cli/test_dependencies.py holds the two equal)
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


def missing() -> list[tuple[str, str]]:
    """The dependencies (requirement, module) this Python cannot import, found without importing any."""
    return [(requirement, module) for requirement, module in DEPENDENCIES if not _findable(module)]


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


def problems() -> list[Problem]:
    """One problem per missing dependency, each saying how to install it into the Python running planner."""
    return [Problem(None, "", f"planner needs the Python package {package(requirement)} ({requirement}), which "
                    f"{sys.executable} cannot import (No module named '{module}')", install_hint(requirement))
            for requirement, module in missing()]


def install_hint(requirement: str) -> str:
    return (f"install it into that Python: {sys.executable} -m pip install '{requirement}' (or run planner from "
            "the virtual environment it was installed in)")


def hint_for(module: str) -> str:
    """For a ModuleNotFoundError met while a verb ran (a dependency's own dependency, a broken package): what
    to do about ``module``."""
    top = module.partition(".")[0]
    for requirement, name in DEPENDENCIES:
        if name == top:
            return f"planner needs the Python package {package(requirement)}: {install_hint(requirement)}"
    if top == "planner":
        return "this planner is incomplete: install it again (pip install . from its source)"
    return (f"{top} is missing from {sys.executable}, which a package planner uses needs: "
            f"{sys.executable} -m pip check names each missing requirement")
