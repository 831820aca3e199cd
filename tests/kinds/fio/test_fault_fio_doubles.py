"""fio faults whose test doubles used fio's exec_postrun hook, which the plan check now refuses
(planner.kinds.fio.step): the host's disk fills while fio writes its report; fio's JSON report is cut short.

The double is a wrapper named ``fio`` first on the PATH of the local transport, around the real fio.
The small disk is a tmpfs (root only; the test skips, saying why, where mount is not permitted).
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.parsers import parse_file

ENOSPC = "No space left on device"
REAL_FIO = shutil.which("fio")
pytestmark = pytest.mark.skipif(REAL_FIO is None, reason="fio is not installed")


@pytest.mark.slow
def test_host_disk_full_while_fio_writes_its_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    small_disk: Callable[[Path, str], Path]) -> None:
    root = tmp_path / "host"
    small = small_disk(root / "tmp/small", "256k")
    small.chmod(0o700)  # a tmpfs comes up 1777; planner's folder must be one only the login user can write
    wrapper = tmp_path / "bin" / "fio"
    wrapper.parent.mkdir()
    # TEST DOUBLE of "something else filled the disk": the first run is plain fio; the second fills the
    # point's disk (the run's folder is on it: planner_workdir) and then runs the real fio.
    wrapper.write_text(f'#!/bin/sh\nif [ -e "{tmp_path}/armed" ]; then dd if=/dev/zero of="{small}/filler" bs=4k '
                       f'2>/dev/null; else touch "{tmp_path}/armed"; fi\nexec {REAL_FIO} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} "
                                        "planner_workdir=/tmp/small\n")
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: disk_full
        plays:
          - name: disk full
            hosts: lab
            workloads:
              - name: point
                fio: {target: /tmp/fio.data, rw: read, bs: [4k, 8k], size: 128k, ioengine: psync}
        """))
    runs = tmp_path / "runs"
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir", str(runs),
                 "--no-report"])
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "point"]
    assert not list(run.rglob("*.tmp")) and not list(run.rglob(".*.part"))
    assert code == 2
    assert [(r["point"], r["status"]) for r in results] == [(0, "changed"), (1, "failed")]
    # fio itself says nothing (exit 0, an empty report): planner names the full disk and where it is
    msg = results[1]["msg"]
    assert msg.startswith("fio wrote no output"), msg
    assert f"{ENOSPC} on alpha: {small}/" in msg and "0 KiB free" in msg, msg
    # the point measured before the disk filled is complete and still parses
    (js,) = [a for a in results[0]["artifacts"] if a["kind"] == "fio_json"]
    assert parse_file(run / js["path"], "fio_json").metrics
    assert json.loads((run / "meta.json").read_text())["status"] == "failed"


@pytest.mark.slow
def test_fio_json_cut_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "host"
    (root / "tmp").mkdir(parents=True)
    cut = '{"fio version" : "fio-3.33", "jobs" : [ { "jobname" : "cut", "read" : { "io_bytes" : 40'
    wrapper = tmp_path / "bin" / "fio"
    wrapper.parent.mkdir()
    # TEST DOUBLE: fio runs for real, then its JSON report is replaced by one cut off mid-object.
    wrapper.write_text(f"#!/bin/sh\n{REAL_FIO} \"$@\" || exit\nfor a; do case $a in --output=*) "
                       f"out=${{a#--output=}};; esac; done\nprintf '%s' '{cut}' > \"$out\"\n")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root}\n")
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: fio_cut
        plays:
          - name: cut
            hosts: lab
            workloads:
              - name: fio cut
                fio: {target: /tmp/fio.data, rw: read, bs: 4k, size: 256k, ioengine: psync}
        """))
    runs = tmp_path / "runs"
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir", str(runs),
                 "--no-report"])
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    (result,) = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "fio cut"]
    assert code == 2 and result["status"] == "failed"
    assert "fio parser: section 'json': truncated or invalid JSON" in result["msg"]
    kept = {a["kind"]: (run / a["path"]).read_text() for a in result["artifacts"]}
    assert kept["fio_json"] == cut  # the raw output, exactly as the tool left it
    assert "[global]" in kept["fio_job"]
