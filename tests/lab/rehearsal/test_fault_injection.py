"""Injection (issue 9, item 7) and the destructive guard end to end (item 8), through `planner apply`.

Payloads reach the steps the way users' values do: as ``-e @vars.yml`` variables rendered into device
names, parameter values, kit and binary paths, file paths and command arguments. Each payload would
``touch`` a canary file if any shell ever interpreted it. Every value is either passed as one literal
argument (the canary never appears, and every line in commands.jsonl splits into the argv planner meant)
or refused before any host is touched (exit 5, the message names the value and says how to fix it, the
sandbox is byte-for-byte as it was). SQL goes to the sqlplus stand-in, whose state keeps every statement.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import make_prep_root

from planner.cli.main import main
from planner.rehearsal.lab import Lab
from planner.rehearsal.standins import load_state, standin_vars

ORION = Path(__file__).resolve().parents[3] / "planner" / "kinds" / "orion" / "bin" / "orion"
SHAPES = {  # name -> payload template; {c} is the canary's absolute path
    "subst": "$(touch {c})",
    "semicolon": "; touch {c}",
    "backticks": "`touch {c}`",
    "newline": "\ntouch {c}",
    "single_quote": "' ; touch {c} ; '",
    "double_quote": '" ; touch {c} ; "',
    "pipe": "| touch {c}",
    "and": "&& touch {c}",
}
ONE_LINE = [k for k in SHAPES if k != "newline"]


class Project:
    """One local sandbox host (fake sysfs, /dev, /proc, Oracle stand-ins, ORION) and a canary path."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.root = make_prep_root(tmp / "h0")
        (self.root / "dev" / "sdb").write_bytes(b"\0" * (1 << 20))
        (self.root / "opt/orion/bin").mkdir(parents=True)
        (self.root / "opt/orion/bin/orion").symlink_to(ORION)
        (self.root / "etc/motd").write_text("hello\n")
        (tmp / "files").mkdir()
        (tmp / "files" / "inj.j2").write_text("value={{ p }}\n")
        self.canary = tmp / "canary" / f"pwned-{uuid.uuid4().hex}"
        self.canary.parent.mkdir()
        self.inventory = tmp / "hosts.yml"
        self.inventory.write_text(yaml.safe_dump({"all": {"hosts": {"h0": {
            "ansible_connection": "local", **standin_vars(self.root)}}}}))
        self.runs = tmp / "runs"

    def payload(self, shape: str) -> str:
        return SHAPES[shape].format(c=self.canary)

    def apply(self, plan: dict[str, Any], variables: dict[str, Any], *extra: str,
              inventory: Path | None = None) -> int:
        (self.tmp / "plan.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
        (self.tmp / "vars.yml").write_text(yaml.safe_dump(variables))
        return main(["apply", str(self.tmp / "plan.yaml"), "-i", str(inventory or self.inventory), "-e",
                     f"@{self.tmp / 'vars.yml'}", "--runs-dir", str(self.runs), "--no-report", *extra])

    def run_dir(self) -> Path:
        return sorted(p for p in self.runs.iterdir() if p.is_dir())[-1]

    def canary_seen(self) -> list[Path]:
        """The canary itself, or any file of its name anywhere under the test's folder (a relative touch)."""
        found = [p for p in self.tmp.rglob(self.canary.name) if p.is_file()]
        return found + ([self.canary] if self.canary.exists() else [])


def snapshot(root: Path) -> dict[str, str]:
    """Every file and link of a sandbox with its content hash: 'untouched' means equal snapshots."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = "-> " + str(p.readlink())
        elif p.is_file():
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
        else:
            out[rel] = "dir"
    return out


def plan_of(steps: dict[str, list[dict[str, Any]]], **top: Any) -> dict[str, Any]:
    return {"plan": "injection", **top, "plays": [{"name": "inject", "hosts": "all", **steps}]}


def commands(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "commands.jsonl").read_text().splitlines()]


def argvs(line: str) -> list[list[str]]:
    """The argv lists one recorded command line runs: planner writes ``[cd DIR &&] [env K=V...] argv``."""
    words = shlex.split(line)
    if words[:1] == ["cd"]:
        assert words[2] == "&&", f"unexpected command shape: {line!r}"
        words = words[3:]
    if words[:1] == ["env"]:
        words = words[1:]
        while words and "=" in words[0] and not words[0].startswith("/"):
            words = words[1:]
    return [words]


def assert_only_stated_commands(run: Path, canary: Path) -> int:
    """No recorded line runs `touch`, and no `sh -c` script planner sent holds a payload: user values
    travel only as separate arguments. Returns how many command lines were checked."""
    lines = [c["command"] for c in commands(run)]
    assert lines, "no commands recorded"
    for line in lines:
        for argv in argvs(line):
            assert "touch" not in argv, f"a payload became a command: {line!r}"
            if argv[:2] == ["sh", "-c"]:
                assert canary.name not in argv[2], f"a payload was pasted into a shell script: {line!r}"
    return len(lines)


# -- 1. values that are passed through as one literal argument -------------------------------------------
def quoted_plan(shapes: list[str]) -> dict[str, Any]:
    prep, work, collect = [], [], []
    for i, shape in enumerate(shapes):
        v = f"{{{{ {shape} }}}}"
        prep.append({"copy": {"content": v, "dest": f"/etc/inj-{i}.txt"}, "name": f"copy {shape}"})
        work.append({"command": {"argv": ["echo", v]}, "name": f"argv {shape}"})
        work.append({"command": {"cmd": f"echo {v}"}, "name": f"cmd {shape}"})
        if shape != "newline":  # a path with a line break is refused (see the refusal tests)
            work.append({"orion": {"binary": f"/opt/orion/bin/orion{v}", "testname": "t", "luns": ["/dev/sdb"],
                                   "duration": 1},
                         "name": f"orion binary {shape}", "ignore_errors": True})
            work.append({"slob": {"kit": f"/home/oracle/SLOB{v}", "readers": 1}, "name": f"slob kit {shape}",
                         "ignore_errors": True})
            work.append({"iozone": {"binary": f"/opt/iozone{v}", "tests": [0], "file_size": "1m",
                                    "record_size": "4k"}, "name": f"iozone binary {shape}", "ignore_errors": True})
            collect.append({"fetch": {"src": f"/etc/motd{v}"}, "name": f"fetch {shape}", "ignore_errors": True})
            prep.append({"sysctl": {"kernel.core_pattern": f"core{v}"}, "name": f"sysctl {shape}",
                         "ignore_errors": True})
    return plan_of({"prep": prep, "workloads": work, "collect": collect})


@pytest.mark.slow
def test_payloads_stay_one_literal_argument(tmp_path: Path) -> None:
    pj = Project(tmp_path)
    (pj.root / "proc/sys/kernel/core_pattern").write_text("core\n")
    before = snapshot(pj.root)
    variables = {s: pj.payload(s) for s in SHAPES}
    code = pj.apply(quoted_plan(list(SHAPES)), variables, "-v")
    run = pj.run_dir()
    assert pj.canary_seen() == []
    assert code == 0, (run / "console.log").read_text()[-3000:]
    assert assert_only_stated_commands(run, pj.canary) > 50
    results = {r["title"]: r for r in json.loads((run / "results.json").read_text()) if r["host"] == "h0"}
    for shape, value in variables.items():
        for kind in ("argv", "cmd"):  # echo got exactly one argument: the value, untouched
            assert results[f"{kind} {shape}"]["data"]["stdout"] == value + "\n", (kind, shape)
        if shape == "newline":
            continue
        for kind in ("orion binary", "slob kit", "iozone binary", "fetch"):  # a path that does not exist
            assert results[f"{kind} {shape}"]["status"] == "failed", (kind, shape)
        assert results[f"sysctl {shape}"]["status"] == "changed"  # written literally, then restored
    lines = {tuple(w) for c in commands(run) for w in argvs(c["command"])}
    assert ("echo", variables["subst"]) in lines and ("echo", variables["newline"]) in lines
    def system(snap: dict[str, str]) -> dict[str, str]:  # workloads' own scratch folders live in /tmp
        return {k: v for k, v in snap.items() if not k.startswith("tmp")}

    assert system(snapshot(pj.root)) == system(before)  # every prep change (files, sysctl) was restored


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["subst", "single_quote", "newline"])
def test_copy_and_template_content_are_written_literally(tmp_path: Path, shape: str) -> None:
    pj = Project(tmp_path)
    value = pj.payload(shape)
    plan = plan_of({"prep": [{"copy": {"content": "{{ v }}", "dest": "/etc/c.txt"}},
                             {"template": {"src": "files/inj.j2", "dest": "/etc/t.txt"}}]})
    assert pj.apply(plan, {"v": value, "p": value}, "--keep-prep") == 0
    assert (pj.root / "etc/c.txt").read_text() == value
    assert (pj.root / "etc/t.txt").read_text() == f"value={value}\n"
    assert pj.canary_seen() == []


# -- 2. values that are refused before any host is touched -----------------------------------------------
DEV = "{{ v }}"
REFUSED: dict[str, tuple[dict[str, list[dict[str, Any]]], str]] = {
    # name: (steps with {{ v }} where the payload goes, what the message must say)
    "io_scheduler device": ({"prep": [{"io_scheduler": {"devices": [f"/dev/sdb{DEV}"], "scheduler": "noop"}}]},
                            "refused device name"),
    "asm disk": ({"prep": [{"asm_diskgroup": {"name": "DATA", "disks": [f"/dev/mapper/lun01{DEV}"]}}]},
                 "refused disk specification"),
    "orion lun": ({"workloads": [{"orion": {"testname": "t", "luns": [f"/dev/sdb{DEV}"], "write": 10},
                                  "destructive": True}]},
                  "refusing device path"),
    "fio target": ({"workloads": [{"fio": {"target": f"/dev/sdb{DEV}", "rw": "write", "size": "1M"},
                                   "destructive": True}]}, "refusing device path"),
    "init_ora value": ({"prep": [{"init_ora": {"filesystemio_options": f"setall{DEV}"}}]}, "refused value"),
}
PATHS: dict[str, tuple[dict[str, list[dict[str, Any]]], str]] = {
    "template dest": ({"prep": [{"template": {"src": "files/inj.j2", "dest": f"/etc/{DEV}"}}]}, "refused dest"),
    "copy dest": ({"prep": [{"copy": {"content": "x", "dest": f"/etc/{DEV}"}}]}, "refused dest"),
    "fetch src": ({"collect": [{"fetch": {"src": f"/etc/{DEV}"}}]}, "refused src"),
    "slob kit": ({"workloads": [{"slob": {"kit": f"/home/oracle/{DEV}", "readers": 1}}]}, "refused SLOB kit path"),
    "orion binary": ({"workloads": [{"orion": {"binary": f"/opt/{DEV}", "testname": "t", "luns": ["/dev/sdb"]}}]},
                     "refused ORION binary"),
    "iozone binary": ({"workloads": [{"iozone": {"binary": f"/opt/{DEV}", "tests": [0]}}]}, "refused iozone binary"),
    "fio target": ({"workloads": [{"fio": {"target": f"/tmp/{DEV}", "rw": "read", "size": "1M"}}]},
                   "refusing device path"),
}


def assert_refused_untouched(pj: Project, plan: dict[str, Any], variables: dict[str, Any], value: str,
                             words: str, capsys: pytest.CaptureFixture[str]) -> str:
    before = snapshot(pj.root)
    code = pj.apply(plan, variables)
    out, err = capsys.readouterr()
    text = out + err
    assert code == 5, text
    assert words in text and repr(value)[1:-1][:40] in text, text  # names the value...
    assert " — " in text  # ...and says how to fix it
    assert snapshot(pj.root) == before
    assert not pj.runs.exists() or not any(pj.runs.iterdir())  # no run started: no host was touched
    assert pj.canary_seen() == []
    return text


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("where", list(REFUSED))
def test_metacharacters_refused_before_the_host(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                where: str, shape: str) -> None:
    pj = Project(tmp_path)
    steps, words = REFUSED[where]
    value = pj.payload(shape)
    assert_refused_untouched(pj, plan_of(steps), {"v": value}, value, words, capsys)


@pytest.mark.parametrize("value", ["../../../../tmp/escaped", "a/../../x", "x\ny"])
@pytest.mark.parametrize("where", list(PATHS))
def test_climbing_or_multiline_paths_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             where: str, value: str) -> None:
    pj = Project(tmp_path)
    steps, words = PATHS[where]
    text = assert_refused_untouched(pj, plan_of(steps), {"v": value}, value, words, capsys)
    assert "without '..'" in text or "shell metacharacters" in text or "without" in text


@pytest.mark.parametrize(("steps", "words"), [
    ({"prep": [{"sysctl": {"vm.swappiness": "{{ v }}"}}]}, "refused value"),
    ({"workloads": [{"fio": {"target": "/tmp/f", "rw": "read", "size": "1M", "job": {"bs": "{{ v }}"}}}]},
     "cannot span lines"),
])
def test_line_breaks_in_values_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       steps: dict[str, Any], words: str) -> None:
    pj = Project(tmp_path)
    value = pj.payload("newline")
    assert_refused_untouched(pj, plan_of(steps), {"v": value}, value, words, capsys)


@pytest.mark.parametrize("text", ['init_ora: {"x; drop table t": 1}', 'sysctl: {"vm.swappiness; reboot": 1}',
                                  "asm_diskgroup: {name: \"D'; drop\", disks: [/dev/sdb]}"])
def test_injected_names_refused_by_the_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              text: str) -> None:
    pj = Project(tmp_path)
    before = snapshot(pj.root)
    (tmp_path / "plan.yaml").write_text(f"plan: names\nplays:\n  - name: p\n    hosts: all\n    prep:\n"
                                        f"      - {text}\n")
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(pj.inventory), "--runs-dir", str(pj.runs)])
    out = "".join(capsys.readouterr())
    assert code == 5 and "plan.yaml:6:" in out, out
    assert snapshot(pj.root) == before


@pytest.mark.slow
# -- 3. SQL: only the statements planner means reach the database -----------------------------------------
def test_sql_values_are_literals_and_nothing_else_ran(tmp_path: Path) -> None:
    pj = Project(tmp_path)
    # passes planner's value check (no quotes, $, ;): it must arrive as ONE quoted literal
    value = "setall, db_cache_size=1 scope=memory"
    plan = plan_of({"prep": [{"init_ora": {"filesystemio_options": "{{ v }}"}}]})
    pj.apply(plan, {"v": value}, "--keep-prep")
    history = [h.strip().rstrip(";").lower() for h in load_state(pj.root)["history"]]
    alters = [h for h in history if h.startswith("alter")]
    assert alters == [f"alter system set filesystemio_options='{value.lower()}' scope=spfile sid='*'"], history
    # besides the reads and the restart, only the spfile backup init_ora takes before its first spfile write
    backup = re.compile(r"create pfile='[\w/.]+/dbs/planner_initorcl_[\w.-]+\.ora' from spfile")
    others = [h for h in history if not backup.fullmatch(h)
              and not h.startswith(("select", "alter system set filesystemio_options", "shutdown", "startup",
                                    "srvctl"))]
    assert others == [], history
    assert sum(1 for h in history if backup.fullmatch(h)) == 1, history


@pytest.mark.parametrize("value", ["x' scope=memory; drop tablespace users; --", "a\nshutdown abort",
                                   "$(touch /tmp/x)", "'||(select 1 from dual)||'"])
def test_sql_injection_refused_and_no_statement_ran(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    value: str) -> None:
    pj = Project(tmp_path)
    history = list(load_state(pj.root)["history"])
    plan = plan_of({"prep": [{"init_ora": {"filesystemio_options": "{{ v }}"}},
                             {"asm_diskgroup": {"name": "DATA", "disks": ["/dev/mapper/{{ v }}"]}}]})
    assert pj.apply(plan, {"v": value}) == 5
    out = "".join(capsys.readouterr())
    assert "refused value" in out and "refused disk specification" in out
    assert load_state(pj.root)["history"] == history  # not one statement reached the database


# -- 4. over the real SSH lab ------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.ssh
def test_payloads_over_real_ssh(lab: Lab, tmp_path: Path) -> None:
    pj = Project(tmp_path)
    inv = tmp_path / "lab.yml"
    lab.write_inventory(inv)
    host = lab.hosts[0].name
    sandbox = lab.sandbox(host)
    (sandbox / "etc").mkdir(parents=True, exist_ok=True)
    variables = {s: pj.payload(s) for s in SHAPES}
    work = [{"command": {"argv": ["echo", f"{{{{ {s} }}}}"]}, "name": f"argv {s}"} for s in SHAPES]
    work += [{"command": {"cmd": f"echo {{{{ {s} }}}}"}, "name": f"cmd {s}"} for s in SHAPES]
    prep = [{"copy": {"content": f"{{{{ {s} }}}}", "dest": f"/etc/inj-{i}"}, "name": f"copy {s}"}
            for i, s in enumerate(SHAPES)]
    collect = [{"fetch": {"src": f"/etc/x{{{{ {s} }}}}"}, "name": f"fetch {s}", "ignore_errors": True}
               for s in ONE_LINE]
    plan = {"plan": "injection_ssh", "plays": [{"name": "inject", "hosts": host, "prep": prep,
                                                "workloads": work, "collect": collect}]}
    code = pj.apply(plan, variables, inventory=inv)
    run = pj.run_dir()
    assert pj.canary_seen() == []
    assert code == 0, (run / "console.log").read_text()[-3000:]
    assert_only_stated_commands(run, pj.canary)
    results = {r["title"]: r for r in json.loads((run / "results.json").read_text()) if r["host"] == host}
    for shape, value in variables.items():
        assert results[f"argv {shape}"]["data"]["stdout"] == value + "\n"
        assert results[f"cmd {shape}"]["data"]["stdout"] == value + "\n"
        assert results[f"copy {shape}"]["status"] == "changed"
    assert not list((sandbox / "etc").glob("inj-*"))  # restored: they did not exist before


# -- 5. the destructive guard end to end (item 8): fio and ORION writes against signed sandbox devices ----
SIGNED = {  # device -> (how to sign a blank 4 MiB device, evidence the refusal must show)
    "ext4": ([(1080, b"\x53\xef")], "ext"),
    "dos": ([(510, b"\x55\xaa")], "dos partition table"),
    "gpt": ([(510, b"\x55\xaa"), (512, b"EFI PART")], "gpt partition table"),
    "asm": ([(32, b"ORCLDISKDATA_0000"), (72, b"DATA_0000"), (104, b"DATA")], "ASM disk header"),
}


def signed_device(root: Path, name: str) -> Path:
    dev = root / "dev" / name
    data = bytearray(4 << 20)
    for offset, magic in SIGNED[name][0]:
        data[offset:offset + len(magic)] = magic
    dev.write_bytes(bytes(data))
    if name == "ext4" and shutil.which("mkfs.ext4"):  # a real filesystem when e2fsprogs is there
        subprocess.run(["mkfs.ext4", "-F", "-q", str(dev)], check=True, capture_output=True, timeout=30)
    return dev


def write_step(tool: str, dev: str, destructive: bool = True) -> dict[str, Any]:
    args: dict[str, Any] = (
        {"fio": {"target": dev, "rw": "write", "bs": "64k", "size": "1M", "ioengine": "psync", "direct": 0}}
        if tool == "fio" else
        {"orion": {"binary": "/opt/orion/bin/orion", "testname": "t", "luns": [dev], "run": "advanced", "write": 30,
                   "duration": 1}})  # -write is read by -run advanced only
    return {**args, "name": f"{tool} write", **({"destructive": True} if destructive else {})}


def tool_ran(run: Path, tool: str) -> bool:
    want = "fio" if tool == "fio" else "/opt/orion/bin/orion"
    return any(argv and argv[0].endswith(want) for c in commands(run) for argv in argvs(c["command"]))


@pytest.mark.slow
@pytest.mark.parametrize("sig", list(SIGNED))
@pytest.mark.parametrize("tool", ["fio", "orion"])
def test_write_to_signed_device_refused_with_evidence(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      tool: str, sig: str) -> None:
    pj = Project(tmp_path)
    dev = signed_device(pj.root, sig)
    before = dev.read_bytes()
    code = pj.apply(plan_of({"workloads": [write_step(tool, f"/dev/{sig}")]}), {})
    out = capsys.readouterr().out
    run = pj.run_dir()
    result = next(r for r in json.loads((run / "results.json").read_text()) if r["title"] == f"{tool} write")
    assert code == 2 and result["status"] == "failed"
    evidence = SIGNED[sig][1]
    for text in (result["msg"], out):
        assert f"/dev/{sig} holds" in text and evidence in text and "allow_destroy" in text, text
    if sig == "asm":
        assert "disk group DATA" in result["msg"]
    assert dev.read_bytes() == before and not tool_ran(run, tool)


@pytest.mark.parametrize("tool", ["fio", "orion"])
def test_write_without_destructive_true_refused(tmp_path: Path, tool: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A device write the plan spells out is refused by the plan check, before any host is touched."""
    pj = Project(tmp_path)
    (pj.root / "dev" / "blank").write_bytes(bytes(4 << 20))
    code = pj.apply(plan_of({"workloads": [write_step(tool, "/dev/blank", destructive=False)]}), {})
    err = capsys.readouterr().err
    assert code == 5, err
    assert re.search(rf"plan\.yaml:\d+:\d+: .*{tool} writes to block devices and the step is not marked "
                     r"destructive.* — add 'destructive: true'", err), err
    assert not pj.runs.exists() or not any(pj.runs.iterdir())  # no run started: the tool never ran
    assert (pj.root / "dev" / "blank").read_bytes() == bytes(4 << 20)


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["fio", "orion"])
def test_allow_destroy_and_destructive_let_the_write_run(tmp_path: Path, tool: str) -> None:
    pj = Project(tmp_path)
    devs = [signed_device(pj.root, sig) for sig in SIGNED]
    before = {d.name: d.read_bytes() for d in devs}
    steps = [{**write_step(tool, f"/dev/{d.name}"), "name": f"{tool} {d.name}"} for d in devs]
    code = pj.apply(plan_of({"workloads": steps}, allow_destroy=[f"/dev/{d.name}" for d in devs]), {})
    run = pj.run_dir()
    assert code == 0, (run / "console.log").read_text()[-2000:]
    assert tool_ran(run, tool)
    results = {r["title"]: r for r in json.loads((run / "results.json").read_text())}
    assert all(results[f"{tool} {d.name}"]["status"] == "changed" for d in devs)
    if tool == "fio":  # fio really wrote over the signatures
        assert all(d.read_bytes() != before[d.name] for d in devs)


@pytest.mark.slow
def test_nul_byte_is_refused_not_a_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """exec() cannot take a NUL: refused by name (a failed step, or exit 5 for a path), never exit 1."""
    pj = Project(tmp_path)
    code = pj.apply(plan_of({"workloads": [{"command": {"argv": ["echo", "a{{ v }}b"]}, "name": "nul"}]}),
                    {"v": "\0"})
    run = pj.run_dir()
    result = next(r for r in json.loads((run / "results.json").read_text()) if r["title"] == "nul")
    assert code == 2 and "NUL byte" in result["msg"], result
    capsys.readouterr()
    assert_refused_untouched(Project(tmp_path / "second"),
                             plan_of({"prep": [{"copy": {"content": "x", "dest": "/etc/a{{ v }}"}}]}),
                             {"v": "\0"}, "/etc/a\0", "refused dest", capsys)


# -- 5. fio options that would run a command on the host: refused at the plan check ----------------------
FIO = {"target": "/tmp/fio.dat", "rw": "read", "size": "64k", "runtime": 1, "ioengine": "psync"}
HOOK_STEPS: dict[str, tuple[dict[str, Any], str]] = {  # name -> (fio args, the option the message names)
    "extra exec_postrun": ({**FIO, "extra": {"exec_postrun": "touch {c}"}}, "exec_postrun"),
    "extra exec_prerun": ({**FIO, "extra": {"exec_prerun": "touch {c}"}}, "exec_prerun"),
    "job, upper case": ({**FIO, "job": {"name": "j", "EXEC_PRERUN": "touch {c}"}}, "EXEC_PRERUN"),
    "job, mixed case": ({**FIO, "job": {"Exec_PostRun": "touch {c}"}}, "Exec_PostRun"),
    "exec engine": ({**FIO, "ioengine": "exec", "job": {"program": "/usr/bin/touch", "arguments": "{c}"}},
                    "ioengine=exec"),
    "exec engine in a sweep": ({**FIO, "ioengine": ["psync", "Exec"]}, "ioengine=Exec"),
    "exec engine's program": ({**FIO, "extra": {"program": "/usr/bin/touch", "arguments": "{c}"}}, "program"),
    "external engine": ({**FIO, "job": {"ioengine": "external:/tmp/evil.so"}}, "external:/tmp/evil.so"),
}
JOB_FILES = {  # name -> (job file text, the option named, its line:col)
    "global, with a value": ("[global]\nsize=64k\nexec_prerun=touch {c}\n[j]\nrw=read\n", "exec_prerun", "3:1"),
    "per job, upper case": ("[global]\nsize=64k\n[j]\nrw=read\n  EXEC_POSTRUN = touch {c}\n", "EXEC_POSTRUN", "5:3"),
    "bare flag": ("[j]\nrw=read\nsize=64k\nexec_postrun\n", "exec_postrun", "4:1"),
    "exec engine": ("[j]\nioengine=exec\nprogram=/usr/bin/touch\narguments={c}\n", "ioengine=exec", "2:1"),
    "include": ("include /tmp/other.fio\n[j]\nrw=read\nsize=64k\n", "include /tmp/other.fio", "1:1"),
}
REFUSAL = "fio options that run commands on the host are refused"


def _fio_plan(args: dict[str, Any], canary: Path) -> dict[str, Any]:
    text = json.dumps(args).replace("{c}", str(canary))
    return plan_of({"workloads": [{"fio": json.loads(text), "name": "hooked"}]})


@pytest.mark.parametrize("where", list(HOOK_STEPS))
def test_fio_shell_hooks_in_options_refused_before_the_host(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            where: str) -> None:
    pj = Project(tmp_path)
    args, option = HOOK_STEPS[where]
    text = assert_refused_untouched(pj, _fio_plan(args, pj.canary), {}, option, REFUSAL, capsys)
    assert re.search(r"plan\.yaml:\d+:\d+: plays\[0\]\.workloads\[0\]\.fio: ", text), text  # file:line:col: ...
    assert "`command:` step" in text.split(" — ", 1)[1]  # ...and how to do it instead


@pytest.mark.parametrize("where", list(JOB_FILES))
def test_fio_shell_hooks_in_a_job_file_refused_before_the_host(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               where: str) -> None:
    pj = Project(tmp_path)
    body, option, line_col = JOB_FILES[where]
    job = tmp_path / "jobs" / "hooked.fio"
    job.parent.mkdir()
    job.write_text(body.replace("{c}", str(pj.canary)))
    plan = _fio_plan({"job_file": str(job), "ioengine": "psync"}, pj.canary)
    text = assert_refused_untouched(pj, plan, {}, option, REFUSAL, capsys)
    assert f"{job}:{line_col}: " in text, text  # the job file's own line and column


def test_fio_job_file_relative_to_the_plan_never_runs_its_hooks(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A relative job_file is read from the plan's folder: refused by Fio.validate_files at the plan check
    (exit 5), before any host is touched."""
    from planner.errors import StepError
    from planner.kinds.fio.step import Fio

    pj = Project(tmp_path)
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "rel.fio").write_text(f"[j]\nrw=read\nsize=64k\nexec_prerun=touch {pj.canary}\n")
    args = {"job_file": "jobs/rel.fio", "ioengine": "psync"}
    with pytest.raises(StepError, match=r"rel\.fio:4:1: fio option exec_prerun"):
        Fio(args).validate_files(tmp_path)
    code = pj.apply(_fio_plan(args, pj.canary), {})
    text = "".join(capsys.readouterr())
    assert REFUSAL in text and "exec_prerun" in text, text
    assert code == 5 and (not pj.runs.exists() or not any(pj.runs.iterdir()))
    assert "rel.fio:4:1:" in text  # the message points into the job file itself
    assert pj.canary_seen() == []


@pytest.mark.slow
def test_fio_options_that_run_nothing_still_pass(tmp_path: Path) -> None:
    """Near misses are not refused: an ioengine named like a path-free engine, an option merely containing
    'exec' in its value, a job named 'program'."""
    pj = Project(tmp_path)
    args = {**FIO, "job": {"name": "program", "description": "exec_prerun is refused"}}
    code = pj.apply(_fio_plan(args, pj.canary), {})
    assert code == 0, (pj.run_dir() / "console.log").read_text()[-2000:]
    assert tool_ran(pj.run_dir(), "fio")
