"""Hostile inputs, round 3 (issue 24 row 16): the smaller ones. A 1 GB fetched file indexed in bounded memory,
a FIFO given to parse, ``show ''``, and ``-e`` split as Ansible splits it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_report_helpers import seed_study
from test_store_backends import cli

from planner.plan.templating import parse_extra_vars

INDEX_ONE = """
import resource, sys
from pathlib import Path
from planner.results.measure import read_run
from planner.store.record import capture
stored = capture(read_run(Path(sys.argv[1])))
big = [a for a in stored.artifacts if a.path.endswith("big.log")][0]
hwm = [ln for ln in open("/proc/self/status") if ln.startswith("VmHWM:")]  # own peak: ru_maxrss counts the parent
print(big.size, big.content is None, int(hwm[0].split()[1]) // 1024)
"""


@pytest.mark.slow
def test_indexing_a_1gb_fetched_file_reads_it_in_bounded_memory(tmp_path: Path) -> None:
    run = seed_study(tmp_path / "runs")
    big = run / "artifacts" / "exa" / "big.log"
    with big.open("wb") as f:
        f.truncate(1 << 30)  # sparse: 1 GiB of zeros, no disk used
    results = json.loads((run / "results.json").read_text())
    results[1]["artifacts"].append({"path": "artifacts/exa/big.log", "kind": "", "sha256": ""})
    (run / "results.json").write_text(json.dumps(results))
    out = subprocess.run([sys.executable, "-c", INDEX_ONE, str(run)], capture_output=True, text=True, timeout=300,
                         check=True).stdout.split()
    assert out[:2] == [str(1 << 30), "True"]
    assert int(out[2]) < 300, f"{out[2]} MB peak RSS to index a 1 GB log"  # was 1.15 GB: read whole


def test_parse_of_a_fifo_says_what_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "awr.txt"
    os.mkfifo(fifo)
    for argv in (["parse", str(fifo)], ["analyze", str(fifo)]):
        code, _, err = cli(capsys, *argv)
        assert code == 5 and "is a FIFO (named pipe), not a regular file" in err and "no such file" not in err
    code, _, err = cli(capsys, "parse", str(tmp_path / "none.txt"))
    assert code == 5 and "no such file" in err


def test_show_of_an_empty_run_id_matches_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed_study(tmp_path / "runs")  # the one run: '' is a part of every name
    code, _, err = cli(capsys, "show", "", "--runs-dir", str(tmp_path / "runs"))
    assert code == 5 and "no run ''" in err


@pytest.mark.parametrize(("item", "expected"), [
    ("v={{ x }}", {"v": "{{ x }}"}),
    ("v={{ a | default('b c') }} w=2", {"v": "{{ a | default('b c') }}", "w": "2"}),
    ('a=b c="foo bar"', {"a": "b", "c": "foo bar"}),
    ("msg='hello world' n=1", {"msg": "hello world", "n": "1"}),
    ("v={# a note #}x", {"v": "{# a note #}x"}),
])
def test_extra_vars_keep_a_jinja_block_together_as_ansible_does(item: str, expected: dict[str, str],
                                                               tmp_path: Path) -> None:
    assert parse_extra_vars([item], tmp_path) == expected


@pytest.mark.parametrize("item", ["v={{ x", 'v="x', "v={% if a"])
def test_extra_vars_with_an_unclosed_block_or_quote_are_refused(item: str, tmp_path: Path) -> None:
    from planner.errors import InputError

    with pytest.raises(InputError) as e:
        parse_extra_vars([item], tmp_path)
    assert e.value.exit_code == 5 and "-e" in str(e.value.problems[0])
