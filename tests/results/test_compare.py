"""planner compare: % difference against the first run, better/worse by the metric's direction."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_report_helpers import seed_study

from planner.cli.main import main
from planner.metrics import Direction
from planner.results.compare import compare, format_table
from planner.results.measure import Measurement, read_run
from planner.results.stats import pct_diff, verdict


def m(run: str, play: str, metric: str, value: float, direction: Direction, unit: str = "IOPS") -> Measurement:
    return Measurement(run, play, "h1", "plays[0].workloads[0]", "slob", "slob", "a", "awr_text", (), 0, 0, False,
                       metric, (), value, unit, direction, False, True, True, "")


def test_verdict_follows_direction() -> None:
    assert verdict(pct_diff(100, 110), Direction.HIGHER) == "better"
    assert verdict(pct_diff(100, 110), Direction.LOWER) == "worse"
    assert verdict(pct_diff(2.0, 1.0), Direction.LOWER) == "better"
    assert verdict(pct_diff(100, 90), Direction.HIGHER) == "worse"
    assert verdict(pct_diff(100, 110), Direction.NEUTRAL) == "n/a"
    assert verdict(pct_diff(0, 5), Direction.HIGHER) == "n/a"


def test_compare_one_system_per_run_lines_up_plays_with_different_names() -> None:
    a = [m("A", "exadata", "physical_read_iops", 138_010.5, Direction.HIGHER),
         m("A", "exadata", "single_block_read_latency_ms", 1.0, Direction.LOWER, "ms")]
    b = [m("B", "violin", "physical_read_iops", 159_183.9, Direction.HIGHER),
         m("B", "violin", "single_block_read_latency_ms", 0.5, Direction.LOWER, "ms")]
    c = compare([("A", a), ("B", b)])
    assert not c.by_play and len(c.rows) == 2
    iops, lat = c.rows
    assert iops.cells[1].verdict == "better" and round(iops.cells[1].pct or 0, 1) == 15.3
    assert lat.cells[1].verdict == "better" and lat.cells[1].pct == -50.0
    table = format_table(c)
    assert "159,183.9 (+15.3% better)" in table and "0.5 (-50.0% better)" in table


@pytest.mark.slow
def test_compare_runs_from_folders_via_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed_study(tmp_path, "20260101T100000Z-a")
    seed_study(tmp_path, "20260102T100000Z-b", violin_iops=236_486.7)
    assert main(["compare", "20260101T100000Z-a", "20260102T100000Z-b", "--runs-dir", str(tmp_path),
                 "--metric", "physical_read_iops"]) == 0
    out = capsys.readouterr().out
    # an aligned table in words: the metric's display name, the point in words, numbers right-aligned
    row = next(line for line in out.splitlines() if line.startswith("violin"))
    assert row.split() == ["violin", "slob", "—", "Physical", "read", "IOPS", "159,183.9", "236,486.7", "(+48.6%",
                           "better)"]
    assert "exadata   slob       256 SLOB reader sessions" in out and "(+0.0% same)" in out
    lines = out.splitlines()
    assert len({line.index("Physical read IOPS") for line in lines if "Physical read IOPS" in line}) == 1
    assert main(["compare", "20260101T100000Z-a", "--runs-dir", str(tmp_path)]) == 5


def test_compare_missing_metric_in_one_run_shows_a_dash(tmp_path: Path) -> None:
    a = read_run(seed_study(tmp_path, "a"))
    c = compare([("a", a.measurements), ("empty", [])])
    assert c.rows and all(r.cells[1].value is None for r in c.rows)
    assert "—" in format_table(c)


def test_a_difference_inside_the_repeats_spread_is_within_noise() -> None:
    """Medians 100k vs 110k look 10% better, but run A's repeats reach 112k: no result either way."""
    def rep(run: str, values: list[float]) -> list[Measurement]:
        return [Measurement(run, "sys", "h1", "plays[0].workloads[0]", "slob", "slob", "a", "awr_text", (), i, i,
                            False, "physical_read_iops", (), v, "IOPS", Direction.HIGHER, False, True, True, "")
                for i, v in enumerate(values)]

    noisy = compare([("A", rep("A", [90_000, 100_000, 112_000])), ("B", rep("B", [105_000, 110_000, 111_000]))])
    assert noisy.rows[0].cells[1].verdict == "within noise"
    assert "(+10.0% within noise)" in format_table(noisy)
    clear = compare([("A", rep("A", [98_000, 100_000, 101_000])), ("B", rep("B", [108_000, 110_000, 111_000]))])
    assert clear.rows[0].cells[1].verdict == "better"
    single = compare([("A", rep("A", [100_000])), ("B", rep("B", [110_000]))])  # one run each: no spread known
    assert single.rows[0].cells[1].verdict == "better"


def _fio_run(tmp_path: Path, runs: Path, bs: str, hosts: int) -> str:
    names = ["alpha", "beta"][:hosts]
    lines = []
    for h in names:
        (tmp_path / "hosts" / h / "data").mkdir(parents=True, exist_ok=True)
        lines.append(f"{h} ansible_connection=local planner_root={tmp_path / 'hosts' / h}")
    inv = tmp_path / f"hosts-{hosts}.ini"
    inv.write_text("[lab]\n" + "\n".join(lines) + "\n")
    plan = tmp_path / f"plan-{bs}-{hosts}.yaml"
    plan.write_text("plan: cmp\nplays:\n  - name: disk\n    hosts: lab\n    workloads:\n"
                    f"      - fio: {{target: /data/f.dat, rw: randread, bs: {bs}, size: 2m, runtime: 1, "
                    "ioengine: psync}\n")
    before = set(runs.iterdir()) if runs.exists() else set()
    assert main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report"]) == 0
    (new,) = set(runs.iterdir()) - before - {runs / "planner.sqlite"}
    return new.name


@pytest.mark.slow
def test_compare_names_the_settings_the_runs_differ_in_above_the_numbers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    a = _fio_run(tmp_path, runs, "4k", 1)
    b = _fio_run(tmp_path, runs, "8k", 2)
    c = _fio_run(tmp_path, runs, "4k", 1)
    capsys.readouterr()
    assert main(["compare", a, b, "--runs-dir", str(runs)]) == 0
    out = capsys.readouterr().out
    head, _, numbers = out.partition("fio IOPS")
    assert "The runs differ in 2 setting(s)" in head  # before the first figure, not after it
    block = next(line for line in head.splitlines() if "block size (fio)" in line)
    assert block.split()[-2:] == ["4k", "8k"]
    hosts = next(line for line in head.splitlines() if line.split()[1:2] == ["hosts"])
    assert hosts.split()[-2:] == ["1", "2"]
    assert numbers  # the comparison itself still follows
    assert main(["compare", a, c, "--runs-dir", str(runs)]) == 0
    assert "The runs were set alike" in capsys.readouterr().out
