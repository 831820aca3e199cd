"""What a user is shown never passes hostile text through (issue 40 L2): `export --format csv` printed raw ESC,
BEL and C1 bytes and cells starting ``=``, ``+``, ``-``, ``@`` (formulas to a spreadsheet); U+202E (a bidi
override) passed through show, runs, compare, report.md and report.html. One helper, planner.shown, for all."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from test_report_helpers import Exec, awr_excerpt, write_run

from planner.cli.main import main
from planner.shown import csv_cell, visible

RLO = "\u202e"
PLAY = f"=HYPERLINK(\"http://x\",\"{RLO}exe.txt\")"
HOST = f"vio{RLO}gnp.exe"
TITLE = "+SUM(1)\x1b]0;pwned\x07\x9b31m"
PARAM = "@cmd\x1b[2J"


def _runs(root: Path) -> list[Path]:
    return [write_run(root, run_id, [Exec("plays[0].workloads[0]", TITLE, HOST,
                                          {"awr.txt": (awr_excerpt(iops), "awr_excerpt")}, {"bs": PARAM}, 0, 0)],
                      [{"name": PLAY, "hosts": [HOST]}])
            for run_id, iops in (("20260101T100000Z-a", 100_000.0), ("20260102T100000Z-b", 120_000.0))]


def _raw(text: str) -> set[str]:
    return {c for c in text if c == RLO or c in "\x1b\x07" or "\x80" <= c <= "\x9f"}


@pytest.mark.parametrize("argv", [["show", "{a}"], ["runs", "--runs-dir", "{root}"], ["compare", "{a}", "{b}"],
                                  ["report", "{a}"], ["report", "{a}", "--format", "html"],
                                  ["export", "{a}", "--format", "csv"], ["export", "{a}", "--format", "json"]])
def test_no_control_or_bidi_character_reaches_what_a_user_sees(argv: list[str], tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    a, b = _runs(tmp_path)
    code = main([x.format(a=a, b=b, root=tmp_path) for x in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    seen = out + err
    for name in ("report.md", "report.html"):
        if argv[0] == "report" and (a / name).is_file():
            seen += (a / name).read_text()
    assert not _raw(seen), sorted(_raw(seen))


def test_export_csv_cells_are_never_formulas(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, _ = _runs(tmp_path)
    assert main(["export", str(a), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows
    for row in rows:
        for key, value in row.items():
            assert not value.startswith(("=", "+", "-", "@")), (key, value)
    assert rows[0]["title"].startswith("'+SUM(1)\\x1b]0;pwned\\x07\\x9b31m")


def test_the_helper() -> None:
    assert visible(f"a\x1b[31mb{RLO}c\td\n") == "a\\x1b[31mb\\u202ec\td\n"
    assert csv_cell("-2+3") == "'-2+3" and csv_cell(-2.5) == -2.5 and csv_cell("db file") == "db file"
