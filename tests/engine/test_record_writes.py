"""The run record's writes are fewer and cheaper (issue 47, stop 53), and every reader still reads what they
write, an older planner's indented files included: results.json and facts are compact JSON (json's C encoder;
a list one item a line, appendable), plan.resolved.yaml represents each entry once and is not rewritten when
nothing new was noted, meta.json redacts each field once and is not rewritten unchanged, and the controller's
platform is said without ``platform.platform()`` (a ``uname -p`` child per apply). No process starts."""

from __future__ import annotations

import json
import platform
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner import redaction
from planner.engine import runrecord
from planner.engine.runrecord import RunRecord, environment_meta
from planner.engine.runstate import ResultLog
from planner.results import runfolder
from planner.status import Artifact, ArtifactKind, Status, StepResult


@pytest.fixture(autouse=True)
def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def _result(step: str, host: str, point: int | None = None) -> StepResult:
    return StepResult(step, f"title {step}", host, Status.CHANGED, "msg with ünï and \"quotes\"", point=point,
                      artifacts=(Artifact(f"artifacts/p/{host}/x.txt", ArtifactKind.NONE, "f" * 64),))


def _counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    calls = [0]
    real = getattr(owner, name)

    def counted(*a: Any, **k: Any) -> Any:
        calls[0] += 1
        return real(*a, **k)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_results_are_compact_one_a_line_and_read_back(tmp_path: Path) -> None:
    rec = RunRecord(tmp_path / "runs", "p", secrets=("s3cr3t",))
    log = ResultLog()
    log.record = rec
    log.append(_result("plays[0].prep[0]", "h1"))
    log.append(_result("plays[0].prep[0]", "s3cr3t-host"))
    log.save()
    for i in range(3):
        log.append(_result("plays[0].workloads[0]", "h1", point=i))
        log.save()
    text = (rec.path / runfolder.RESULTS).read_text()
    lines = text.splitlines()
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == 2 + 5 and log.whole_writes == 1
    assert all(line.startswith("{") for line in lines[1:-1]) and "s3cr3t" not in text
    assert [r.host for r in runfolder.read_results(rec.path)] == ["h1", "********-host", "h1", "h1", "h1"]
    assert [r.msg for r in runfolder.read_results(rec.path)] == ['msg with ünï and "quotes"'] * 5


def test_an_older_planners_indented_results_are_appended_to(tmp_path: Path) -> None:
    """A run made by an older planner (results.json as json.dumps(indent=2) laid it out) resumed by this one."""
    rec = RunRecord(tmp_path / "runs", "p")
    old = [runfolder.result_to_json(_result("plays[0].prep[0]", h)) for h in ("h1", "h2")]
    (rec.path / runfolder.RESULTS).write_text(json.dumps(old, indent=2) + "\n")
    log = ResultLog(old, resumed=True)
    log.record = rec
    log.append(_result("plays[0].workloads[0]", "h1", point=0))
    log.save(final=True)
    assert log.whole_writes == 0  # appended, not rewritten
    entries = runfolder.read_result_entries(rec.path)
    assert [(e["host"], e["point"]) for e in entries] == [("h1", None), ("h2", None), ("h1", 0)]


def test_facts_are_compact_and_people_files_indented(tmp_path: Path) -> None:
    rec = RunRecord(tmp_path / "runs", "p")
    rec.write("facts/h1.json", {"hostname": "h1", "devices": [{"name": "sdb"}]})
    rec.write(runfolder.RECAP, {"hosts": {"h1": {"ok": 1}}})
    facts = (rec.path / "facts" / "h1.json").read_text()
    assert facts == '{"hostname": "h1", "devices": [{"name": "sdb"}]}\n'
    assert runfolder.read_facts(rec.path)["h1"]["devices"] == [{"name": "sdb"}]
    assert (rec.path / runfolder.RECAP).read_text() == json.dumps({"hosts": {"h1": {"ok": 1}}}, indent=2) + "\n"


def _plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    return v if v is None or isinstance(v, bool | int | float | str) else str(v)


def _whole_dump(resolved: dict[str, dict[str, dict[str, Any]]]) -> str:
    """plan.resolved.yaml as the planner before this one dumped it: the whole document at every write."""
    doc = {"plays": [{"name": p, "hosts": hosts} for p, hosts in resolved.items()]}
    return ("# each step's arguments per host after variables (the plan as given is plan.yaml)\n"
            + yaml.dump(_plain(doc), Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False,
                        default_flow_style=False, allow_unicode=True))


def _dumped_entries(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many (play, host, step) entries were dumped to YAML."""
    from planner.engine import resolved_yaml
    count = [0]
    real = resolved_yaml._dump

    def counted(resolved: Any) -> str:
        count[0] += sum(1 for hosts in resolved.values() for steps in hosts.values() if isinstance(steps, dict)
                        for entry in steps.values() if entry)  # not the empty ones that show a key's line
        return real(resolved)

    monkeypatch.setattr(resolved_yaml, "_dump", counted)
    return count


ODD = {"list": [1, 2.5, None, True], "tuple": ("a", "b"), "yes": "yes", "num": "0123", "long": "x " * 80,
       "multi": "line one\nline two", "blank lines": "a\n\n\nb  \n c", "ü": "ünï", "empty": {}, "none": None,
       "path": Path("/tmp/x"), "nested": {"deeper": [{"k": "v: w # not a comment", "-": "- x"}]}, "": "empty key",
       "lead": "  spaces", "colon:": "a:b", "quote'\"": "\\", "nl\nkey": 1}


def test_resolved_plan_dumps_each_entry_once_and_is_the_same_text(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Each write dumped every entry so far again (PyYAML's representer and resolver are Python even under
    libyaml): a warm 30-host play's four steps dumped 300 entries for 120. Now each once; the file the same."""
    rec = RunRecord(tmp_path / "runs", "p")
    dumped = _dumped_entries(monkeypatch)
    writes = _counting(monkeypatch, runrecord, "write_bytes")
    want: dict[str, dict[str, dict[str, Any]]] = {}
    for k in range(4):
        for play in ("host prep", "second: play"):
            step = f"plays[{int(play == 'host prep')}].prep[{k}]"
            for i in range(10):
                entry = {"title": f"step {k}", "kind": "command", "args": {"argv": ["uname", "-a"], "i": i, **ODD}}
                rec.note_resolved(play, f"lab{i:02d}", step, entry, write=False)
                want.setdefault(play, {}).setdefault(f"lab{i:02d}", {})[step] = entry
            rec.note_resolved(play, "", step, None)
            assert (rec.path / runfolder.RESOLVED_PLAN).read_text() == _whole_dump(want)
    assert dumped[0] == 80 and writes[0] == 8
    rec.note_resolved("host prep", "", "plays[1].prep[3]", None)  # nothing new: not written again
    rec.note_resolved("host prep", "lab00", "plays[1].prep[1]", want["host prep"]["lab00"]["plays[1].prep[1]"])
    assert writes[0] == 8 and dumped[0] == 80
    want["host prep"]["lab03"]["plays[1].prep[1]"] = {"title": "changed", "args": {"x": "y"}}  # in the middle
    rec.note_resolved("host prep", "lab03", "plays[1].prep[1]", {"title": "changed", "args": {"x": "y"}})
    assert writes[0] == 9 and dumped[0] == 81
    assert (rec.path / runfolder.RESOLVED_PLAN).read_text() == _whole_dump(want)
    doc = runfolder.read_resolved_plan(rec.path)
    assert doc["plays"][0]["hosts"]["lab03"]["plays[1].prep[1]"] == {"title": "changed", "args": {"x": "y"}}


@pytest.mark.parametrize("host", ["h" * 200, "", "- x", "a: b", "?", "#", "ünï", "1", "null", "x\ny"])
def test_resolved_plan_with_odd_names_is_the_same_text(tmp_path: Path, host: str) -> None:
    """Names YAML writes quoted, in its ``? key`` form or over lines: pieces that do not check make the file
    dumped whole, the same text."""
    rec = RunRecord(tmp_path / "runs", "p")
    want: dict[str, dict[str, dict[str, Any]]] = {}
    for k, entry in enumerate(({"title": "a", "args": ODD}, {}, {"title": "b"})):
        for play in (host, "p"):
            rec.note_resolved(play, host, f"s{k}", entry, write=False)
            rec.note_resolved(play, "h2", host or "s", {"title": "c"}, write=False)
            want.setdefault(play, {}).setdefault(host, {})[f"s{k}"] = entry
            want[play].setdefault("h2", {})[host or "s"] = {"title": "c"}
            rec.note_resolved(play, "", "", None)
            assert (rec.path / runfolder.RESOLVED_PLAN).read_text() == _whole_dump(want)


def test_a_new_record_writes_its_resolved_plan_even_empty(tmp_path: Path) -> None:
    rec = RunRecord(tmp_path / "runs", "p")
    rec.note_resolved("p", "", "plays[0].prep[0]", None)  # a step no host ran
    assert yaml.safe_load((rec.path / runfolder.RESOLVED_PLAN).read_text()) == {"plays": []}


def test_meta_redacts_each_field_once_and_skips_an_unchanged_write(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    rec = RunRecord(tmp_path / "runs", "p", secrets=("hunter2",))
    hosts = {f"lab{i:02d}": {"address": "127.0.0.1", "user": "u", "note": "pw hunter2"} for i in range(30)}
    rec.write_meta(run_id=rec.id, hosts=hosts, status="running")
    nodes = _counting(monkeypatch, redaction, "redact_value")
    writes = _counting(monkeypatch, runrecord, "write_bytes")
    rec.write_meta(pid=1234)
    rec.write_meta(remote={"lab00": {"workdir": "/tmp/w"}})
    assert nodes[0] < 10 and writes[0] == 2  # the hosts (~130 values) were redacted once, at the first write
    rec.write_meta(pid=1234)
    assert writes[0] == 2  # meta.json would not change
    rec.add_secret("127.0.0.1")  # a secret learnt later masks what was written before it
    rec.write_meta(status="complete")
    meta = runfolder.read_meta_object(rec.path)
    assert meta["status"] == "complete" and meta["pid"] == 1234 and meta["remote"] == {"lab00": {"workdir": "/tmp/w"}}
    assert meta["hosts"]["lab00"] == {"address": "********", "user": "u", "note": "pw ********"}
    text = (rec.path / runfolder.META).read_text()
    assert "hunter2" not in text and '\n  "status": "complete",\n' in text  # one field a line, for people
    assert runfolder.read_meta(rec.path).status == "complete"


def test_environment_meta_starts_no_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """platform.platform() ran ``uname -p`` in a child process (for the processor, "unknown" on Linux) at
    every apply: ~5 ms of wall and a fork on the controller's start."""
    monkeypatch.setattr(platform, "_uname_cache", None)  # as in a fresh planner process

    def no_child(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("a child process started")

    monkeypatch.setattr(subprocess.Popen, "__init__", no_child)
    env = environment_meta()
    assert env["controller"] == platform.node() and env["python"] == platform.python_version()
    assert env["controller_platform"].startswith(f"Linux-{platform.release()}-{platform.machine()}")


@pytest.mark.slow
def test_controller_platform_says_what_platform_platform_says() -> None:
    """The same text, where ``uname -p`` says unknown (Debian, Ubuntu); elsewhere platform.platform() repeats the
    machine (``x86_64-x86_64``), which planner does not."""
    if platform.uname().processor in ("", "unknown"):  # uname -p: the process this test starts
        assert environment_meta()["controller_platform"] == platform.platform()


def test_resolved_plan_pieces_are_redacted_once_and_again_for_a_new_secret(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole file was redacted again at every write (the login patterns over every entry so far); now each
    piece once. A secret learnt later is masked in the pieces written before it."""
    rec = RunRecord(tmp_path / "runs", "p", secrets=("hunter2",))
    masked = [0]
    real = redaction.mask_logins

    def counted(text: str) -> str:
        masked[0] += len(text)
        return real(text)

    monkeypatch.setattr(redaction, "mask_logins", counted)
    for k in range(4):
        for i in range(10):
            rec.note_resolved("p", f"h{i}", f"s{k}", {"args": {"pw": "hunter2", "login": "scott/tiger@db", "k": k}},
                              write=False)
        rec.note_resolved("p", "", f"s{k}", None)
    text = (rec.path / runfolder.RESOLVED_PLAN).read_text()
    assert masked[0] <= 1.5 * len(text)  # before: 2.5 times (each write redacted the whole file so far)
    assert "hunter2" not in text and "tiger" not in text and text.count("scott/********@db") == 40
    rec.add_secret("db")
    rec.note_resolved("p", "h0", "s4", {"args": {}}, write=True)
    text = (rec.path / runfolder.RESOLVED_PLAN).read_text()
    assert "@db" not in text and text.count("scott/********@********") == 40


def test_resolved_plan_dumps_an_entry_shared_by_hosts_once_and_their_key_lines_together(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm 30-host play dumped each host's key line in a document of its own (30 of its 39 dumps) and each of
    the 30 hosts' equal entries of a step again (PyYAML's representer is Python: ~12-20 ms of a 4-step play's
    CPU, issue 47 stop 54). Now one dump of the hosts' lines, one of each step's distinct entries; the same text."""
    from planner.engine import resolved_yaml

    rec = RunRecord(tmp_path / "runs", "p", secrets=("hunter2",))
    dumped = _dumped_entries(monkeypatch)
    dumps = _counting(monkeypatch, resolved_yaml, "_dump")
    want: dict[str, dict[str, dict[str, Any]]] = {}
    for k in range(4):
        step = f"plays[0].prep[{k}]"
        for i in range(30):
            entry = {"title": f"step {k}", "kind": "command", "args": {"argv": ["uname", "-a"], "pw": "hunter2", **ODD}}
            rec.note_resolved("host prep", f"lab{i:02d}", step, entry, write=False)
            want.setdefault("host prep", {}).setdefault(f"lab{i:02d}", {})[step] = entry
        rec.note_resolved("host prep", "", step, None)
        text = (rec.path / runfolder.RESOLVED_PLAN).read_text()
        assert text == redaction.redact_text(_whole_dump(want), ("hunter2",))
    assert dumped[0] == 4  # before: 120
    assert dumps[0] <= 10  # the play's head, the hosts' lines, 4 step lines, 4 entries; before: 39
    assert "hunter2" not in text


def test_resolved_plan_entries_alike_as_json_but_not_as_yaml_keep_their_own_text(tmp_path: Path) -> None:
    """Entries share a text only when their YAML is the same: 1, 1.0, true and "1" apart, a mapping's key order
    kept."""
    rec = RunRecord(tmp_path / "runs", "p")
    values: list[Any] = [1, 1.0, True, "1", None, "null", [1], (1,), {"a": 1, "b": 2}, {"b": 2, "a": 1}, Path("/x"),
                         "/x", {1: "k"}, {"1": "k"}]
    want: dict[str, dict[str, dict[str, Any]]] = {}
    for i, v in enumerate(values * 2):
        rec.note_resolved("p", f"h{i:02d}", "s", {"args": {"v": v}}, write=False)
        want.setdefault("p", {}).setdefault(f"h{i:02d}", {})["s"] = {"args": {"v": v}}
    rec.note_resolved("p", "", "s", None)
    assert (rec.path / runfolder.RESOLVED_PLAN).read_text() == _whole_dump(want)


def test_a_fetched_file_without_a_secret_is_only_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Scrubbing copied every fetched file beside itself and removed the copy when no secret was found (nearly
    always): a file made, written and unlinked per fetched file (30 in a warm 30-host play, issue 47 stop 54).
    Now it is read first and copied only when a secret is there; a secret across two blocks is still found."""
    made: list[str] = []
    real_open = Path.open

    def counted(self: Path, mode: str = "r", *a: Any, **k: Any) -> Any:
        if "w" in mode:
            made.append(self.name)
        return real_open(self, mode, *a, **k)

    monkeypatch.setattr(Path, "open", counted)
    clean = tmp_path / "result.txt"
    clean.write_bytes(b"hunter1 hunter3 " * 100)
    made.clear()
    assert runrecord.scrub_file(clean, ("hunter2",), chunk=64) == 0 and made == []
    assert clean.read_bytes() == b"hunter1 hunter3 " * 100
    split = tmp_path / "split.txt"
    split.write_bytes(b"x" * 60 + b"hunter2" + b"y" * 60 + b'"hunter2"')
    made.clear()
    assert runrecord.scrub_file(split, ("hunter2",), chunk=64) == 2
    assert split.read_bytes() == b"x" * 60 + b"********" + b"y" * 60 + b'"********"'
    assert made == [".split.txt.redacting"]
