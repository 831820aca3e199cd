"""Every `planner --help`, `-h` and `planner VERB --help` prints help and exits 0: the first commands a newcomer
types (argparse %-formats help strings, so a bare "%" in one once crashed them all with a TypeError)."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from planner.cli.main import main
from planner.cli.parser import build_parser, parser_for


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


def _help(parser: argparse.ArgumentParser, argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        parser.parse_args(argv)
    return out.getvalue()


@pytest.mark.parametrize("verb", _verbs())
def test_a_command_line_builds_its_own_verb_alike(verb: str) -> None:
    """A command line builds only the verb it names (the others named, empty): its help, usage, defaults and
    the verbs listed are those of the whole parser (issue 47: the other 19 verbs were ~5 ms of start-up)."""
    whole, own = build_parser(), parser_for([verb])
    assert _help(own, [verb, "--help"]) == _help(whole, [verb, "--help"])
    assert own.format_usage() == whole.format_usage()
    argv = {"apply": [verb, "p.yaml", "-i", "h", "-f", "3", "-e", "a=1", "--vault-id", "x@f"],
            "show": [verb, "RUN", "--runs-dir", "r"], "store": [verb, "migrate"]}.get(verb)
    if argv:
        assert own.parse_args(argv) == whole.parse_args(argv)


def test_version_and_top_help_are_the_whole_parsers() -> None:
    assert _help(parser_for(["--help"]), ["--help"]) == _help(build_parser(), ["--help"])
    assert "analyze" in _help(parser_for(["--help"]), ["--help"])
    assert _help(parser_for(["--version"]), ["--version"]) == _help(build_parser(), ["--version"])


def test_example_plans_name_their_source_by_a_public_url_not_a_local_path() -> None:
    from pathlib import Path

    for plan in sorted((Path(__file__).resolve().parents[2] / "plans").glob("*.yaml")):
        head = "".join(line for line in plan.read_text().splitlines(keepends=True) if line.startswith("#"))
        assert "/work/" not in head and "seeds/" not in head, plan.name  # exists only where it was written
        if "Source:" in head:
            assert "https://" in head, plan.name


@pytest.mark.parametrize("columns", [None, "50", "130", "0", "-3", "wide"])
def test_the_help_width_is_shutils(columns: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """planner's help formatter finds the width as argparse's own does (shutil.get_terminal_size), without
    importing shutil (issue 47): the same help, wrapped alike."""
    import shutil

    from planner.cli.parser import Formatter

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert Formatter("planner")._width == argparse.HelpFormatter("planner")._width == \
        shutil.get_terminal_size().columns - 2
