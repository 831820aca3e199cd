"""Issue 40 High 1: a received or pulled run folder chooses nothing on this controller.

A folder's meta.json argv and cwd, its hosts and its lock paths are data: `planner restore` and `apply --resume`
use them only when the folder was made here (meta.json's origin seal, keyed by this user's restore.key), and
an ssh_config or known_hosts inside a run folder is never used. No host is reached in these tests: a fix that
holds refuses before any connection (a connection through the planted ProxyCommand would write the canary).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from planner.cli.main import main
from planner.engine import origin
from planner.errors import InputError

RUN = "20261207T010000Z-crafted"


@pytest.fixture(autouse=True)
def own_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config/planner/restore.key"


def crafted(tmp_path: Path, **extra: Any) -> tuple[Path, Path]:
    """A received folder: its argv names its own ssh.cfg, whose ProxyCommand would write the canary."""
    runs = tmp_path / "runs"
    run = runs / RUN
    (run / "inventory").mkdir(parents=True)
    canary = tmp_path / "CANARY"
    (run / "inventory/ssh.cfg").write_text(f"Host *\n  ProxyCommand sh -c 'id > {canary}'\n")
    (run / "inventory/known_hosts").write_text("")
    (run / "plan.yaml").write_text("plan: evil\nplays: []\n")
    meta = {"run_id": RUN, "plan": "evil", "plan_file": "plan.yaml", "started": "2026-12-07T01:00:00Z",
            "status": "running", "cwd": str(run), "pid": 999999999,
            "argv": ["apply", "plan.yaml", "-i", "inventory", "--ssh-config", f"{RUN}/inventory/ssh.cfg",
                     "--known-hosts", f"{RUN}/inventory/known_hosts"],
            "hosts": {"h1": {"address": "127.0.0.1", "port": 1, "user": "x", "connection": "ssh"}},
            "remote": {"h1": {"workdir": f"/tmp/planner/{RUN}/h1", "lock": "/etc"}}, **extra}
    (run / "meta.json").write_text(json.dumps(meta))
    (run / "restore.json").write_text("[]")
    return run, canary


def test_restore_of_a_received_folder_reaches_no_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    run, canary = crafted(tmp_path)
    monkeypatch.chdir(tmp_path / "runs")  # where the folder's relative --ssh-config would resolve
    assert main(["restore", str(run)]) == 5
    assert "not made on this controller" in capsys.readouterr().err
    assert not canary.exists()


def test_restore_refuses_an_ssh_config_or_known_hosts_inside_a_run_folder(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    run, canary = crafted(tmp_path)
    for flag, name in (("--ssh-config", "ssh.cfg"), ("--known-hosts", "known_hosts")):
        assert main(["restore", str(run), flag, str(run / "inventory" / name)]) == 5
        assert "is inside the run folder" in capsys.readouterr().err
        assert main(["apply", str(run / "plan.yaml"), flag, str(run / "inventory" / name)]) == 5
        assert "is inside the run folder" in capsys.readouterr().err
    assert not canary.exists()


def test_resume_of_a_received_folder_loads_nothing_from_its_argv(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    run, canary = crafted(tmp_path, status="interrupted")
    assert main(["apply", "--resume", str(run)]) == 5
    err = capsys.readouterr().err
    assert "not made on this controller" in err and "evil" not in err.replace(RUN, "")
    assert not canary.exists()


def test_the_seal_binds_argv_cwd_hosts_and_locks_to_this_controller(tmp_path: Path) -> None:
    meta = {"run_id": RUN, "argv": ["apply", "p.yaml"], "cwd": "/x", "hosts": {"h": {"address": "a"}},
            "remote": {"h": {"lock": "/tmp/planner.lock.h"}}, "status": "running"}
    sealed = origin.sealed(meta)
    assert origin.made_here(sealed)
    assert origin.made_here({**sealed, "status": "complete", "restores": [{}]})  # what a restore rewrites
    for key, value in (("argv", ["apply", "p.yaml", "--ssh-config", "x"]), ("cwd", "/y"),
                       ("hosts", {"h": {"address": "evil"}}), ("remote", {"h": {"lock": "/etc"}})):
        assert not origin.made_here({**sealed, key: value}), key
    assert not origin.made_here(meta)


def test_a_symlinked_or_empty_key_is_refused_in_words(tmp_path: Path, own_key: Path) -> None:
    """L12: a symlinked restore.key gave a raw OSError; an empty 0600 key sealed with no key at all."""
    own_key.parent.mkdir(parents=True)
    real = tmp_path / "elsewhere"
    real.write_text("k" * 64)
    os.chmod(real, 0o600)
    own_key.symlink_to(real)
    with pytest.raises(InputError, match="a link is refused"):
        origin.controller_key()
    own_key.unlink()
    own_key.write_text("")
    os.chmod(own_key, 0o600)
    with pytest.raises(InputError, match="too few to seal"):
        origin.controller_key()


def test_restore_that_cannot_reach_a_host_says_unreachable_and_exits_4(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 40 Medium: a host the dead run locked but restore cannot reach gave an empty recap and exit 0."""
    run, _ = crafted(tmp_path)
    meta = json.loads((run / "meta.json").read_text())
    meta.update(argv=["apply", "plan.yaml"], remote={"h1": {"workdir": f"/tmp/planner/{RUN}/h1",
                                                            "lock": "/tmp/planner.lock.h1"}})
    (run / "meta.json").write_text(json.dumps(origin.sealed(meta)))
    assert main(["restore", str(run), "--known-hosts", str(tmp_path / "none")]) == 4
    out = capsys.readouterr().out
    assert "unreachable=1" in out and "run planner restore again once it answers" in out
    assert json.loads((run / "meta.json").read_text())["restores"][-1]["pending"] == 0
