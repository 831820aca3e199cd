"""validate refuses a ``reproduces:`` claim that could only read "inconclusive" in the final report (issue 39): one
on a metric no step of its play produces, and one that matches several series. Exit 5, file:line:col, with the
metrics that would match; and the label form the hint gives does match the one series."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.metrics import Direction
from planner.results.stats import Series, matches

PLAN = """\
plan: claims
plays:
  - name: A
    hosts: localhost
    workloads:
      - fio: {target: /tmp/f, rw: randread, bs: 8k, runtime: 5, size: 1m}
  - name: B
    hosts: localhost
    workloads:
      - fio: {target: /tmp/g, rw: randrw, extra: {rwmixread: 70}, bs: 8k, runtime: 5, size: 1m}
reproduces:
  - {source: "a blog", play: A, metric: orion.max_small_iops, expected: 1000}
  - {source: "a blog", play: A, metric: physical_reads_per_s, expected: 1000}
  - {source: "a blog", play: A, metric: fio.clat_ms, expected: 1}
  - {source: "a blog", play: A, metric: fio.iops, expected: 1000}
  - {source: "a blog", play: A, metric: "fio.clat_ms{stat=p99}", expected: 1}
  - {source: "a blog", play: B, metric: fio.iops, expected: 1000}
  - {source: "a blog", play: B, metric: "fio.iops{dir=read}", expected: 700}
  - {source: "a blog", play: B, metric: "fio.clat_ms{stat=p99}", expected: 1}
"""


def _validate(tmp_path: Path, capsys: pytest.CaptureFixture[str], plan: str) -> tuple[int, str]:
    (tmp_path / "p.yaml").write_text(textwrap.dedent(plan))
    code = main(["validate", str(tmp_path / "p.yaml")])
    return code, capsys.readouterr().err


def _line(needle: str) -> int:
    return next(i for i, line in enumerate(PLAN.splitlines(), 1) if needle in line)


def test_claims_no_step_of_the_play_produces_or_matching_several_series_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _validate(tmp_path, capsys, PLAN)
    assert code == 5, err
    lines = [line for line in err.splitlines() if "reproduces[" in line]
    assert len(lines) == 5, err  # A's fio.iops (one series) and fio.clat_ms{stat=p99}, B's fio.iops{dir=read} pass
    orion, db, split, mixed, mixed_lat = lines
    assert f"p.yaml:{_line('orion.max_small_iops')}:" in orion
    assert "no step of play 'A' produces it (a orion step does)" in orion and "fio.iops" in orion
    assert f":{_line('physical_reads_per_s')}:" in db and "no step of play 'A' produces it" in db
    assert "awr" in db and "slob" in db  # the kinds that would give it
    assert f":{_line('fio.clat_ms, ')}:" in split and "matches several series of fio step" in split
    assert "(one per stat: mean, p50, p99, max)" in split and "fio.clat_ms{stat=mean}" in split
    assert f":{_line('play: B, metric: fio.iops,')}:" in mixed and "(one per dir: read, write)" in mixed
    assert "e.g. fio.iops{dir=read}" in mixed
    assert f":{_line('play: B, metric: ' + chr(34) + 'fio.clat_ms')}:" in mixed_lat and "one per dir" in mixed_lat
    assert "one per stat" not in mixed_lat  # the statistic is named


def test_with_the_steps_that_produce_them_the_claims_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = (PLAN.replace("metric: orion.max_small_iops", "metric: fio.bw_mbs")
            .replace("metric: physical_reads_per_s", "metric: fio.iops")
            .replace("metric: fio.clat_ms,", 'metric: "fio.lat_ms{stat=mean}",')
            .replace("play: B, metric: fio.iops,", 'play: B, metric: "fio.iops{dir=write}",')
            .replace('play: B, metric: "fio.clat_ms{stat=p99}"', 'play: B, metric: "fio.clat_ms{stat=p99,dir=read}"'))
    code, err = _validate(tmp_path, capsys, plan)
    assert code == 0, err


def _series(labels: dict[str, str]) -> Series:
    key = "fio.clat_ms{" + ",".join(f"{k}={v}" for k, v in labels.items()) + "}"
    return Series("A", "h", "w", "w", "fio", (), "fio.clat_ms", key, tuple(labels.items()), "ms", Direction.LOWER,
                  True, False, (1.0,), 0)


def test_the_hinted_label_form_matches_the_series_that_carries_it() -> None:
    p99 = _series({"stat": "p99", "job": "j", "dir": "read"})
    mean = _series({"stat": "mean", "job": "j", "dir": "read"})
    assert matches(p99, "fio.clat_ms{stat=p99}") and not matches(mean, "fio.clat_ms{stat=p99}")
    assert matches(p99, "fio.clat_ms{dir=read, stat=p99}") and not matches(p99, "fio.clat_ms{stat}")
