"""planner.testing, what plugin authors test a kind with (docs/plugins.md): the doc's own tests of its motd kind
pass as written, and the scripted connection records and refuses as it says."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import StepError
from planner.testing import Answer, ScriptedConnection, UnscriptedCommand, scripted_host, step_context

DOC = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def doc_block(first_line: str) -> str:
    import re

    for body in re.findall(r"^```python\n(.*?)^```$", DOC.read_text(), flags=re.S | re.M):
        if body.startswith(first_line + "\n"):
            return body
    raise AssertionError(f"docs/plugins.md has no python block starting {first_line!r}")


def test_the_docs_tests_of_its_plugin_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "site/planner_motd").mkdir(parents=True)
    (tmp_path / "site/planner_motd/__init__.py").write_text(doc_block("# planner_motd/__init__.py"))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    namespace: dict[str, object] = {}
    exec(compile(doc_block("# tests/test_motd.py"), "docs/plugins.md", "exec"), namespace)
    tests = {name: fn for name, fn in namespace.items() if name.startswith("test_") and callable(fn)}
    assert len(tests) == 2
    for name, fn in tests.items():
        (tmp_path / name).mkdir()
        fn(tmp_path / name)


def test_a_command_without_an_answer_is_named(tmp_path: Path) -> None:
    conn = ScriptedConnection(scripted_host())
    with pytest.raises(UnscriptedCommand, match=r"alpha: no scripted answer for: fio --version"):
        step_context(conn, tmp_path).run(["fio", "--version"])
    assert conn.commands == ["fio --version"]  # recorded all the same
    loose = ScriptedConnection(scripted_host(), strict=False)
    assert loose.run(["true"]).ok


def test_answers_become_cwd_and_env_as_shown(tmp_path: Path) -> None:
    conn = ScriptedConnection(scripted_host(), {
        "sudo -u oracle -- cd /opt/slob && ORACLE_SID=orcl ./runit.sh 4": Answer("done\n", "", 0),
        "false": Answer(exit_code=1, stderr="no")})
    ctx = step_context(conn, tmp_path, become=True, become_user="oracle")
    r = ctx.run(["./runit.sh", "4"], cwd="/opt/slob", env={"ORACLE_SID": "orcl"}, stdin=b"input")
    assert r.stdout == "done\n" and r.command.startswith("sudo -n -H -u oracle -- sh -c ")
    assert conn.ran[0].become and conn.ran[0].cwd == "/opt/slob" and conn.ran[0].stdin == "input"
    with pytest.raises(StepError, match="exit code 1: false: no"):
        step_context(conn, tmp_path).run(["false"])


def test_files_read_written_and_fetched(tmp_path: Path) -> None:
    conn = ScriptedConnection(scripted_host(), files={"/tmp/awr.txt": "WORKLOAD REPOSITORY report\n"},
                              scripts={"WRITE": 'printf "%s\\n" "$1" > "$2"'})
    ctx = step_context(conn, tmp_path)
    assert conn.read_text("/etc/absent") is None
    conn.put(b"x\n", "/etc/motd")
    assert conn.read_text("/etc/motd") == "x\n" and conn.written == {"/etc/motd": b"x\n"}
    art = ctx.fetch("/tmp/awr.txt", kind="awr_text")
    assert (tmp_path / art.path).read_text() == "WORKLOAD REPOSITORY report\n" and conn.fetched == ["/tmp/awr.txt"]
    with pytest.raises(FileNotFoundError):
        conn.get("/tmp/none", tmp_path / "none")
    with pytest.raises(UnscriptedCommand, match=r"sh -c '<WRITE>' sh 10 /proc/sys/vm/swappiness"):
        ctx.sh('printf "%s\\n" "$1" > "$2"', "10", "/proc/sys/vm/swappiness")
