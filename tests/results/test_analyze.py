"""``planner analyze`` (issue 18 item 3): findings on reports a user already has, on the seed-like excerpts of
tests/data/seeds_like (copied from /work/shared/seeds/slob-violin-vs-exadata.txt; see its README)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.results.analyze import analyze, parse_rated

SEEDS = Path(__file__).parents[1] / "data/seeds_like"
THREEPAR = SEEDS / "3par_cache_and_load_profile.txt"
FLASHBACK = SEEDS / "exadata_x28_writers_flashback.txt"
X28 = SEEDS / "exadata_x28_readers_138k.txt"
COMPARE = Path(__file__).parents[1] / "data/awr_compare/awrddrpt_19c_pdb_swingbench.txt"


def _codes(path: Path, **kw: object) -> dict[str, list]:
    a = analyze([path], **kw)  # type: ignore[arg-type]
    out: dict[str, list] = {}
    for f in a.findings:
        out.setdefault(f.code, []).append(f)
    return out


def test_3par_case_raises_cached_reads_with_cache_size_and_ratio() -> None:
    found = _codes(THREEPAR)
    [f] = found["cached_reads"]
    numbers = dict(f.numbers)
    assert numbers["ratio"] == "5.6" and numbers["buffer cache MB"] == "5,056"
    assert numbers["logical reads/s"] == "3,262,027.4" and numbers["physical reads/s"] == "586,285.5"
    assert "5.6x physical" in f.message and "4.9 GB" in f.message


def test_flashback_case_raises_the_configuration_wait_finding() -> None:
    [f] = _codes(FLASHBACK)["wait_class"]
    numbers = dict(f.numbers)
    assert numbers["wait class"] == "Configuration" and numbers["event"] == "flashback buf free by RVWR"
    assert numbers["% DB time"] == "50.4"  # 47.5 (flashback buf free by RVWR) + 2.9 (free buffer waits)
    assert "'flashback buf free by RVWR' 47.5% of DB time" in f.message


@pytest.mark.parametrize("path", [THREEPAR, X28])
def test_missing_single_block_waits_say_latency_cannot_be_computed(path: Path) -> None:
    [f] = _codes(path)["latency_missing"]
    assert f.message.startswith("latency cannot be computed: no db file sequential read waits")


def test_latency_present_raises_no_latency_note() -> None:
    """The flashback excerpt has 'cell single block physical read' waits and time: latency is computed."""
    a = analyze([FLASHBACK])
    assert "latency_missing" not in {f.code for f in a.findings}
    assert any(m.name == "single_block_read_latency_ms" for fa in a.files for m in fa.derived)


def test_rated_figure_note() -> None:
    [f] = _codes(X28, rated={"physical_read_iops": 1_500_000})["below_rated"]
    numbers = dict(f.numbers)
    assert (numbers["measured"], numbers["rated"], numbers["share"]) == ("138,010.5", "1,500,000", "9.2%")
    assert "below_rated" not in _codes(X28)  # no --rated, no note


def test_compare_period_report_is_analysed_per_snapshot_set() -> None:
    a = analyze([COMPARE])
    [fa] = a.files
    assert fa.described is not None and fa.described.kind == "awr_compare" and fa.described.version == "19.0.0.0.0"
    points = {f.point for f in a.findings if f.code == "cached_reads"}
    assert points == {"set=1st", "set=2nd"}  # logical reads ~10^6 x physical in both sets


def test_rated_option_errors_are_reported_together() -> None:
    from planner.errors import InputError

    with pytest.raises(InputError) as e:
        parse_rated(["iops", "x=-1", "y=abc", "physical_read_iops=1,500,000"])
    assert len(e.value.problems) == 3
    assert parse_rated(["physical_read_iops=1,500,000"]) == {"physical_read_iops": 1_500_000.0}


def test_cli_markdown_json_and_report_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "analysis.md"
    rc = main(["analyze", str(THREEPAR), str(FLASHBACK), str(X28), "--rated", "physical_read_iops=1500000",
               "-o", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    assert "### WARNING: Reads served from cache" in text and "### WARNING: Configuration waits take 50.4%" in text
    assert "latency cannot be computed: no db file sequential read waits" in text
    assert "### NOTE: Far from the rated physical_read_iops" in text
    assert ("| tests" not in text
            and f"| {X28} | AWR/Statspack excerpt (pasted sections) | — | everything read |" in text)
    assert out.read_text() == text
    rc = main(["analyze", str(X28), "--format", "json", "--rated", "physical_read_iops=1500000"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["files"][0]["read_as"] == "AWR/Statspack excerpt (pasted sections)"
    assert {f["code"] for f in doc["findings"]} == {"below_rated", "latency_missing"}


def test_cli_bad_input_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(tmp_path / "missing.txt")]) == 5
    assert main(["analyze", str(X28), "--rated", "nonsense"]) == 5
    junk = tmp_path / "notes.txt"
    junk.write_text("nothing here\n")
    assert main(["analyze", str(junk)]) == 2
    assert "not read" in capsys.readouterr().out
