"""Where a test file lives: tests mirror planner's packages, and the tests that reach the sshd lab have a tree of
their own (issue 42). tests/test_layout.py holds the rule; run this file after merging to move new flat files:

    python tests/layout.py            # print the git mv commands for every test file out of place
    python tests/layout.py --apply    # run them, and fix each moved file's Path(__file__) depth

A file's place is derived from what it tests: ``tests/<package>/`` for the planner package it imports most
(``top`` for planner's top-level modules, or when it imports none; the command line and the top
weigh half), under ``tests/lab/`` when it uses the
``ssh`` mark. A file already in the folder of any package it imports is in place (an edit that adds an import
moves nothing). Kinds' tests keep ``tests/kinds/<kind>/``; helper modules (not ``test_*.py``, and
test_report_helpers.py, which others import by name) stay at the top, where the root conftest puts them on
sys.path.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent
LAB = "lab"
TOP = "top"
CLI = "cli"
HELPERS = frozenset({"test_report_helpers.py"})
_IMPORT = re.compile(r"^\s*(?:from\s+planner\.(\w+)|import\s+planner\.(\w+)|from\s+planner\s+import\s+([\w, ()]+))",
                     re.MULTILINE)
# the ssh mark on a test or a module (never the words in a string: a test about marks is not a lab test)
_SSH = re.compile(r"^\s*(?:@pytest\.mark\.ssh\b|pytestmark\s*=.*\bpytest\.mark\.ssh\b)", re.MULTILINE)


def _packages() -> frozenset[str]:
    return frozenset(p.name for p in (TESTS.parent / "planner").iterdir()
                     if p.is_dir() and (p / "__init__.py").is_file())


def imported(text: str) -> Counter[str]:
    """The planner packages a test file imports, each as often as it is imported (top-level modules: ``top``)."""
    packages, out = _packages(), Counter[str]()
    for m in _IMPORT.finditer(text):
        names = [m.group(1) or m.group(2)] if (m.group(1) or m.group(2)) else re.findall(r"\w+", m.group(3))
        out.update(n if n in packages else TOP for n in names)
    return out


def tracked(path: Path) -> bool:
    """A test file the rule applies to: a test module outside the kinds' tree and the data."""
    rel = path.relative_to(TESTS)
    return (path.name.startswith("test_") and path.suffix == ".py" and rel.parts[0] not in ("kinds", "data")
            and not (len(rel.parts) == 1 and path.name in HELPERS))


def place(path: Path) -> tuple[str, ...]:
    """The folder (parts under tests/) a test file belongs in."""
    text = path.read_text(encoding="utf-8")
    counts = imported(text)
    # the command line and the foundation are how most tests reach what they test, not what they test: they
    # weigh half, so a test driving ``main`` over the results lives with the results
    package = min(counts, key=lambda p: (-counts[p] * (0.5 if p in (CLI, TOP) else 1), p)) if counts else TOP
    return (LAB, package) if _SSH.search(text) else (package,)


def in_place(path: Path) -> bool:
    """In the folder of a package it imports (any of them), in the lab tree exactly when it reaches sshd."""
    text, where = path.read_text(encoding="utf-8"), path.relative_to(TESTS).parts[:-1]
    lab = bool(_SSH.search(text))
    if len(where) != 1 + lab or (where[0] == LAB) != lab:
        return False
    return where[-1] in (set(imported(text)) or {TOP})


def misplaced() -> list[tuple[Path, Path]]:
    """(where it is, where it belongs) for every tracked test file out of place, sorted."""
    return [(p, TESTS.joinpath(*place(p), p.name)) for p in sorted(TESTS.rglob("test_*.py"))
            if tracked(p) and not in_place(p)]


_FILE = re.compile(r"Path\(__file__\)(\.resolve\(\))?((?:\.parent)+(?!s)|\.parents\[(\d+)\]|\.with_name\()")


def deepen(text: str, by: int) -> str:
    """``text`` with its paths from ``Path(__file__)`` reaching as far up after the file moved ``by`` folders
    down (``.parent`` -> ``.parents[1]``; ``.with_name(x)`` -> ``.parents[by] / x``)."""
    def up(m: re.Match[str]) -> str:
        resolve, tail = m.group(1) or "", m.group(2)
        if tail == ".with_name(":
            return f"Path(__file__){resolve}.parents[{by}].joinpath("
        levels = int(m.group(3)) + 1 if m.group(3) else tail.count(".parent")
        return f"Path(__file__){resolve}.parents[{levels + by - 1}]"
    return _FILE.sub(up, text) if by else text


def main(argv: list[str]) -> int:
    moves = misplaced()
    for src, dst in moves:
        print(f"git mv {src.relative_to(TESTS.parent)} {dst.relative_to(TESTS.parent)}")
    if "--apply" in argv:
        for src, dst in moves:
            dst.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "mv", str(src), str(dst)], check=True, cwd=TESTS.parent)
            by = len(dst.relative_to(TESTS).parts) - len(src.relative_to(TESTS).parts)
            dst.write_text(deepen(dst.read_text(encoding="utf-8"), by), encoding="utf-8")
        _follow_imports(moves)
    return 0


def _dotted(path: Path) -> str:
    return ".".join(path.relative_to(TESTS.parent).with_suffix("").parts)


def _follow_imports(moves: list[tuple[Path, Path]]) -> None:
    """``from tests.test_x import ...`` in any test file names the moved module where it now is."""
    renames = {re.compile(rf"\b{re.escape(_dotted(s))}\b"): _dotted(d) for s, d in moves}
    for path in TESTS.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        new = text
        for old, dotted in renames.items():
            new = old.sub(dotted, new)
        if new != text:
            path.write_text(new, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
