"""A gzip bomb among a run's artifacts (a 4 MB awr.html.gz that inflates to 4 GiB) is refused by name in every
verb that reads artifacts, within bounded memory, never a MemoryError."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from test_report_helpers import seed_study

from planner.parsers import MAX_INFLATED_BYTES

MEMBER = 64 << 20


def _bomb(path: Path, inflated: int) -> None:
    """Concatenated gzip members (gunzip reads them as one stream): one 64 MiB member of zeros, repeated."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    member = c.compress(bytes(MEMBER)) + c.flush()
    with path.open("wb") as f:
        for _ in range(inflated // MEMBER):
            f.write(member)


def _limited() -> None:
    # what a verb may use at most; the bomb inflated whole needs four times this
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _planner(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "planner", *argv], capture_output=True, text=True, timeout=120,
                          preexec_fn=_limited, check=False)


@pytest.fixture(scope="module")
def bombed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("gz")
    run = seed_study(tmp / "runs")
    bomb = run / "artifacts" / "awr.html.gz"
    _bomb(bomb, 4 << 30)
    assert bomb.stat().st_size < 5 << 20
    results = json.loads((run / "results.json").read_text())
    results.append({**results[-1], "artifacts": [{"path": "artifacts/awr.html.gz", "kind": "awr_html"}]})
    (run / "results.json").write_text(json.dumps(results))
    return run, bomb


REFUSAL = f"inflates to more than {MAX_INFLATED_BYTES >> 20} MiB"


@pytest.mark.slow
@pytest.mark.parametrize("verb", ["parse", "analyze", "show", "report", "export"])
def test_a_gzip_bomb_is_refused_by_name(verb: str, bombed: tuple[Path, Path], tmp_path: Path) -> None:
    run, bomb = bombed
    argv = {"parse": ["parse", str(bomb)], "analyze": ["analyze", str(bomb)], "show": ["show", str(run)],
            "report": ["report", str(run), "-o", str(tmp_path / "r.md")],
            "export": ["export", str(run), "--format", "json"]}[verb]
    r = _planner(*argv)
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr, r.stderr[-2000:]
    said = r.stdout + r.stderr + ((tmp_path / "r.md").read_text() if verb == "report" else "")
    if verb == "export":  # measurements only: the bomb has none, the others are all there
        assert r.returncode == 0 and json.loads(r.stdout), r.stderr
    else:
        assert REFUSAL in said, said[-2000:]
        assert r.returncode == (2 if verb in ("parse", "analyze") else 0), r.stderr


def test_a_gzip_file_below_the_bound_still_reads() -> None:
    import gzip

    from planner.parsers import decode

    text = "WORKLOAD REPOSITORY report for\n" * 1000
    data = gzip.compress(text.encode()) + gzip.compress(b"second member\n")
    assert decode(data, "awr.txt.gz") == text + "second member\n"
