"""The lab's listener stand-in, one copy for every kind (planner/rehearsal/standins/bin/_standin_listener.py): the
file a client host's sandbox holds (connect string -> the database host's state), written by the rehearsal and
read by each kind's stand-in load generator; ORA-12514's words in the client's own form."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from planner.rehearsal import standins
from planner.rehearsal.standins import BIN, serve_listener, write_listener

PLANNER = Path(standins.__file__).resolve().parents[2]


@pytest.fixture
def listener(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(BIN))
    monkeypatch.setenv("PLANNER_STANDIN_STATE", "")  # recorded: reach() sets it, the test restores it
    monkeypatch.delenv("PLANNER_STANDIN_STATE")
    import _standin_listener  # type: ignore[import-not-found]

    return _standin_listener


def test_the_file_is_written_as_before_and_served_strings_add_up(tmp_path: Path) -> None:
    path = write_listener(tmp_path, {"//db1:1521/ORCL": tmp_path / "db1.json"})
    assert path == tmp_path / "var/lib/planner-standin/listener.json"
    assert path.read_text() == json.dumps({"//db1:1521/ORCL": str(tmp_path / "db1.json")}, indent=1)
    serve_listener(tmp_path, "//db1:1521/SOE", tmp_path / "db1")  # a second step of the play: its service too
    assert json.loads(path.read_text()) == {"//db1:1521/ORCL": str(tmp_path / "db1.json"),
                                            "//db1:1521/SOE": str(tmp_path / "db1/var/lib/planner-standin/db.json")}


def test_a_program_under_the_sandbox_reaches_the_state_its_connect_string_names(
        tmp_path: Path, listener, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "opt/kit/bin").mkdir(parents=True)
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "opt/kit/bin/prog")])
    assert listener.reach("//db1/orcl") is None  # no listener file: the host's own state
    write_listener(tmp_path, {"//DB1:1521/ORCL": tmp_path / "db1.json"})
    assert listener.reach("//db1/soe") is False and listener.ucp_refusal("orcl").endswith(
        "ORA-12514, TNS:listener does not currently know of service requested in connect descriptor")
    assert listener.reach("//db1/orcl") is True  # Easy Connect's port 1521 when none is written, case-blind
    assert os.environ["PLANNER_STANDIN_STATE"] == str(tmp_path / "db1.json")


def test_the_listener_file_and_its_words_live_in_one_place() -> None:
    """Before: the path and the lookup were written twice (bin/hammerdbcli and Swingbench's bin/_soe_listener.py)."""
    kinds = [p for p in (PLANNER / "kinds").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    said = [f"{p.relative_to(PLANNER)}" for p in kinds if p.suffix != ".md" and any(
        w in p.read_text(errors="replace") for w in ("listener.json", "does not currently know of service"))]
    assert said == []
