"""Host output and fetched files cost bounded controller memory (issue 14 row 7), over the real loopback sshd.

Each measurement runs in a fresh process (benchmarks/memory/probe.py) so its peak RSS is its own. Asserted: a
bound on memory, never a speed (the full figures, 500 MB of output and a 2 GB fetch, are in
benchmarks/memory/RESULTS.md).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from planner.rehearsal.lab import Lab

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

PROBE = Path(__file__).resolve().parents[3] / "benchmarks" / "memory" / "probe.py"
BOUND_MB = 150  # python + paramiko + planner's imports take ~40-60 MB; the old code held 3x the output


def probe(lab: Lab, *args: str) -> dict:
    h = lab.hosts[0]
    spec = {"name": h.name, "address": h.address, "port": h.port, "user": h.user, "key_file": str(h.key_file),
            "vars": dict(h.vars)}
    out = subprocess.run([sys.executable, str(PROBE), json.dumps(spec), *args], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.timeout(600)
def test_100mb_of_output_is_counted_not_held(lab: Lab) -> None:
    r = probe(lab, "output", str(100 << 20))
    assert r["ok"] and r["stdout_bytes"] == 100 << 20 and r["truncated"]
    assert r["kept_chars"] < 2 << 20
    assert r["peak_rss_mb"] < BOUND_MB, r


@pytest.mark.timeout(600)
def test_a_large_sparse_fetch_is_streamed_hashed_and_stays_sparse(lab: Lab, tmp_path: Path) -> None:
    name = lab.hosts[0].name
    remote = lab.sandbox(name) / "big.sparse"
    with remote.open("wb") as f:  # 300 MB: a hole, a little data, a hole
        f.seek(150 << 20)
        f.write(b"planner" * 1000)
        f.truncate(300 << 20)
    local = tmp_path / "got" / "big.sparse"
    r = probe(lab, "fetch", str(remote), str(local))
    assert r["ok"] and r["size"] == 300 << 20 and r["mode"] == "0o600", r
    assert r["allocated"] < 16 << 20  # the holes stayed holes
    assert r["peak_rss_mb"] < BOUND_MB, r
    h = hashlib.sha256()
    with local.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    with remote.open("rb") as f:
        assert h.hexdigest() == hashlib.file_digest(f, "sha256").hexdigest()
    remote.unlink()


@pytest.mark.parametrize("size", [1000, 6 << 20])  # the inline path and the SFTP path
def test_a_fetch_over_its_size_cap_is_refused_by_name(lab: Lab, tmp_path: Path, size: int) -> None:
    name = lab.hosts[0].name
    remote = lab.sandbox(name) / f"capped{size}.bin"
    remote.write_bytes(b"z" * size)
    local = tmp_path / "capped.bin"
    r = probe(lab, "fetch", str(remote), str(local), str(size - 1))
    assert not r["ok"] and not r["left"] and not list(tmp_path.glob(".*.part"))
    assert f"holds {size} bytes, more than the fetch limit of {size - 1} bytes" in r["error"]
    assert "max_size" in r["error"]
    ok = probe(lab, "fetch", str(remote), str(local), str(size))
    assert ok["ok"] and local.read_bytes() == b"z" * size
    remote.unlink()
