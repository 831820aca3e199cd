"""Every `planner --help`, `-h` and `planner VERB --help` prints help and exits 0: the first commands a newcomer
types (argparse %-formats help strings, so a bare "%" in one once crashed them all with a TypeError)."""

from __future__ import annotations

import argparse

import pytest

from planner.cli.main import build_parser, main


def _verbs() -> list[str]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(sub.choices)


def test_every_verb_is_listed() -> None:
    assert {"apply", "check", "validate", "parse", "runs", "show", "report", "compare", "export"} <= set(_verbs())


@pytest.mark.parametrize("argv", [["--help"], ["-h"], *([v, "--help"] for v in _verbs())],
                         ids=lambda a: " ".join(a))
def test_help_prints_without_a_traceback(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "usage: planner" in out and "Traceback" not in out + err
    if len(argv) == 2:
        assert argv[0] in out.splitlines()[0]


def test_example_plans_name_their_source_by_a_public_url_not_a_local_path() -> None:
    from pathlib import Path

    for plan in sorted((Path(__file__).resolve().parents[2] / "plans").glob("*.yaml")):
        head = "".join(line for line in plan.read_text().splitlines(keepends=True) if line.startswith("#"))
        assert "/work/" not in head and "seeds/" not in head, plan.name  # exists only where it was written
        if "Source:" in head:
            assert "https://" in head, plan.name
