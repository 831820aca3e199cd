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


DESCRIPTOR = ("(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST={host})(PORT={port}))"
              "(CONNECT_DATA=(SERVER=DEDICATED)({kind}={name})))")


def test_a_descriptor_reaches_the_database_as_the_thin_driver_does(
        tmp_path: Path, listener, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """docs/oracle-behaviour.md 53.d1: JDBC thin takes an Oracle Net descriptor after ``@`` (keywords case-blind,
    blanks between tokens, ADDRESS_LIST, SERVICE_NAME or SID). Before: only Easy Connect strings were read, so a
    Swingbench ``connect:`` written as a descriptor was refused with ORA-12514 by a listener that served it."""
    (tmp_path / "opt/kit/bin").mkdir(parents=True)
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "opt/kit/bin/prog")])
    (tmp_path / "db1.json").write_text(json.dumps({"database": {"instance_name": "ORCL1"}}))
    write_listener(tmp_path, {"//DB1:1521/ORCL": tmp_path / "db1.json"})
    reached = [DESCRIPTOR.format(host="db1", port=1521, kind="SERVICE_NAME", name="orcl"),
               "(description = (address = (protocol = tcp)(host = DB1)(port = 1521))\n"
               "  (connect_data = (service_name = ORCL)))",
               "(DESCRIPTION=(ADDRESS_LIST=(ADDRESS=(PROTOCOL=TCP)(HOST=db9)(PORT=1521))"
               "(ADDRESS=(PROTOCOL=TCP)(HOST=db1)(PORT=1521)))(CONNECT_DATA=(SERVICE_NAME=orcl)))",
               DESCRIPTOR.format(host="db1", port=1521, kind="SID", name="orcl1"),
               "db1:1521/orcl"]  # Easy Connect without its optional //
    assert [listener.ucp_refusal(c) for c in reached] == [""] * len(reached)
    assert os.environ["PLANNER_STANDIN_STATE"] == str(tmp_path / "db1.json")
    refused = {DESCRIPTOR.format(host="db1", port=1522, kind="SERVICE_NAME", name="orcl"): "ORA-12514, ",
               DESCRIPTOR.format(host="db1", port=1521, kind="SID", name="orcl"): "ORA-12505, TNS:listener does "
                                                                                  "not currently know of SID",
               "(DESCRIPTION=(ADDRESS=(HOST=db1)(PORT=1521)(CONNECT_DATA=(SERVICE_NAME=orcl))":
                   "java.sql.SQLRecoverableException: IO Error: NL Exception was generated",
               "(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=db1)(PORT=1521)))": "NL Exception was generated"}
    for connect, words in refused.items():
        said = listener.ucp_refusal(connect)
        assert said.startswith("oracle.ucp.UniversalConnectionPoolException: ") and words in said, (connect, said)


def test_a_served_descriptor_serves_each_of_its_addresses(
        tmp_path: Path, listener, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The rehearsal writes the user's own string when it names the database host: a descriptor too."""
    (tmp_path / "opt/kit/bin").mkdir(parents=True)
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "opt/kit/bin/prog")])
    served = DESCRIPTOR.format(host="127.0.0.1", port=1521, kind="SERVICE_NAME", name="soe")
    serve_listener(tmp_path, served, tmp_path / "db1")
    assert listener.reach(served) is True and listener.reach("//127.0.0.1/SOE") is True
    assert listener.reach("//127.0.0.1/orcl") is False
