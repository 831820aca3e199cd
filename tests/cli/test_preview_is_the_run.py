"""Every example plan rehearses end to end, and -C -D shows what the run then does: for every example plan, the
tool commands and the files a rehearsal writes are the ones its preview printed, and the preview prints nothing
the run does not do.

The two rehearsals run in different sandboxes and runs, so paths are compared with the sandbox root and the
point folder written as placeholders; commands are compared by their tool's argument list (the run wraps some
in a fixed `sh -c` that redirects output, which the preview writes as `>file`).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from planner.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
PLANS = sorted(p.stem for p in (ROOT / "plans").glob("*.yaml"))
# the commands that are the workload's own (not planner's housekeeping around it)
TOOL = re.compile(r"(^|[\s/])(runit\.sh|setup\.sh|fio|iozone|orion|slb) ")
FILES = ("slob.conf", "job.fio")


def _norm(text: str) -> str:
    text = re.sub(r"[^\s'\"=]*/planner-rehearsal-[A-Za-z0-9_]+", "SANDBOX", text)
    return re.sub(r"[^\s'\"=>]*/point\d{3}", "POINTDIR", text).replace("<point dir>", "POINTDIR")


def _core(line: str) -> str:
    """A preview's `$ ...` line as the tool's own argument list: no cd, env, redirections or comment."""
    line = line.split("   #", 1)[0].strip()
    if line.startswith("cd ") and " && " in line:
        line = line.split(" && ", 1)[1]
    words = shlex.split(line)
    if words and words[0] == "env":
        words = words[1:]
    words = [w for w in words if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w) or words.index(w) > 0
             and not all(re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", x) for x in words[:words.index(w) + 1])]
    words = [w for w in words if not re.match(r"^\d?>", w)]
    return shlex.join(words)


def _preview_commands(preview: str) -> set[str]:
    return {_core(_norm(m.group(1))) for m in re.finditer(r"^\s*\$ (.+)$", preview, re.M)
            if TOOL.search(m.group(1))}


def _run_commands(run: Path) -> list[str]:
    out = []
    for line in (run / "commands.jsonl").read_text().splitlines():
        cmd = _norm(json.loads(line)["command"])
        if TOOL.search(cmd) and "command -v" not in cmd:
            out.append(cmd)
    return out


def _checkout(tmp_path: Path) -> Path:
    for d in ("plans", "inventory"):
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("reports"))
    return tmp_path / "plans"


@pytest.mark.slow
@pytest.mark.parametrize("plan", PLANS)
def test_preview_shows_what_the_rehearsal_runs_and_writes(plan: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    plans = _checkout(tmp_path)
    extra = ["-e", "run_time=30"] if plan != "local_demo" else ["-e", f"demo_dir={tmp_path}/demo"]
    args = ["apply", *(["--rehearse"] if plan != "local_demo" else []), str(plans / f"{plan}.yaml"),
            "--runs-dir", str(tmp_path / "runs"), *extra]
    assert main([*args, "-C", "-D"]) == 0
    preview = _norm(capsys.readouterr().out)
    assert main(args) == 0, capsys.readouterr().out[-3000:]
    capsys.readouterr()
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "complete" and meta["simulated"] is (plan != "local_demo")
    if plan != "local_demo":  # the example plans rehearse end to end, their report marked as simulated
        assert "SIMULATED" in (run / "report.md").read_text().upper()
        assert any(r["artifacts"] for r in json.loads((run / "results.json").read_text()))
        # the default world is a lab's first day: every host with a database stand-in has a fresh one, said so
        assert {w["database"] for w in meta["world"]} <= {"fresh", ""}, meta["world"]
        if any(w["database"] for w in meta["world"]):
            assert "a fresh database (as DBCA leaves it" in (run / "report.md").read_text()
    if plan == "violin_vs_exadata":  # slob_cache before setup.sh loaded the tables: sized from the kit, and said
        said = [str(r.get("msg")) for r in json.loads((run / "results.json").read_text())]
        assert any("BUFFER_POOL KEEP from /home/oracle/SLOB/setup.sh: USER1.CF1 is not loaded yet" in m for m in said)
        assert any("BUFFER_POOL KEEP of USER1.CF1 (DBA_SEGMENTS)" in m for m in said)  # the 16-LUN play: loaded
    shown, ran = _preview_commands(preview), _run_commands(run)
    unshown = [c for c in ran if not any(s in c for s in shown)]
    assert not unshown, f"the run did what -C -D did not show: {unshown[:3]}\nshown: {sorted(shown)[:5]}"
    false = [s for s in shown if not any(s in c for c in ran)]
    assert not false, f"-C -D showed what the run never did: {false[:3]}\nran: {ran[:5]}"
    flat = "\n".join(x.strip() for x in preview.splitlines())
    for name in FILES:
        for written in run.glob(f"artifacts/**/{name}"):
            body = "\n".join(x.strip() for x in _norm(written.read_text()).strip().splitlines())
            assert body in flat, f"{written.relative_to(run)} as written is not what -C -D showed"
