"""A finding about the rehearsal itself (its caps, the rehearsing machine's CPU) is marked so where it is made
(``Finding.about``), not by a word in its title: the pg rehearsal's report led with "Throughput stopped scaling on
a saturated CPU", read from the rehearsing machine's own CPU, because its title did not say "rehearsal"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import planner
from planner.metrics import Direction
from planner.report.finding_groups import finding_rows
from planner.report.render import environment
from planner.report.study import result, validity
from planner.results.finding import About, Finding, Severity
from planner.results.findings import all_findings, oltp_not_scaling
from planner.results.findings_db import cpu_steal
from planner.results.stats import Series

STEP = "TPROC-C"


def _s(users: int, metric: str, value: float, simulated: bool = False) -> Series:
    return Series("P", "h", "plays[0].workloads[0]", STEP, "hammerdb", (("virtual_users", users),), metric,
                  metric, (), "", Direction.HIGHER, True, simulated, (value,), 0)


SATURATED = [_s(16, "hammerdb.nopm", 25_968), _s(16, "hammerdb.active_vu", 16), _s(16, "os.cpu_busy_pct", 99.9),
             _s(32, "hammerdb.nopm", 18_100), _s(32, "hammerdb.active_vu", 32), _s(32, "os.cpu_busy_pct", 99.9)]


def test_throughput_flat_on_the_rehearsing_machines_cpu_is_about_the_rehearsal() -> None:
    [rehearsed] = oltp_not_scaling(SATURATED, rehearsal=True)
    assert rehearsed.about is About.REHEARSAL
    [real] = oltp_not_scaling(SATURATED)  # a real run: the lab host's CPU, about the study as before
    assert real.about is About.STUDY and real.title == rehearsed.title


def test_every_finding_on_the_rehearsing_machines_cpu_is_about_the_rehearsal() -> None:
    about = {f.code: f.about for f in all_findings(SATURATED, rehearsal=True)}
    assert about["cpu_bound"] is About.REHEARSAL and about["oltp_not_scaling"] is About.REHEARSAL
    assert about["generator_on_db_host"] is About.STUDY  # the plan's topology: said of a real run too
    assert {f.about for f in all_findings(SATURATED)} == {About.STUDY}
    steal = [_s(8, "os.cpu_steal_pct", 30.0, simulated=True)]
    assert [f.about for f in cpu_steal(steal)] == [About.REHEARSAL]
    assert [f.about for f in cpu_steal([_s(8, "os.cpu_steal_pct", 30.0)])] == [About.STUDY]


def _finding(code: str, title: str, about: About, severity: Severity = Severity.NOTE) -> Finding:
    return Finding(code, severity, title, "P", "h", STEP, "virtual_users=32", f"{title.lower()}", (), about)


REHEARSED = [_finding("oltp_not_scaling", "Throughput stopped scaling on a saturated CPU", About.REHEARSAL),
             _finding("generator_on_db_host", "The load generator ran on the database host", About.STUDY),
             _finding("short_timed_test", "Timed test cut short in the rehearsal", About.REHEARSAL)]


def _rows(found: list[Finding]) -> list[Any]:
    return list(finding_rows(found, [_s(32, "hammerdb.nopm", 1.0)]))


def test_a_finding_about_the_rehearsal_never_leads_whatever_its_title() -> None:
    """Before: the title was searched for "rehearsal"; "Throughput stopped scaling on a saturated CPU" led."""
    rows = _rows(REHEARSED)
    assert [r["about"] for r in rows] == ["rehearsal", "study", "rehearsal"]
    said = result({}, {}, [], [], rows)
    assert said["top_finding"]["title"] == "The load generator ran on the database host"
    assert (said["more_findings"], said["rehearsal_findings"]) == (0, 2)
    alone = result({}, {}, [], [], _rows([REHEARSED[0]]))
    assert alone["top_finding"] is None and alone["rehearsal_findings"] == 1
    # a row without ``about`` (a template's own, an older context) is about the study, whatever its title
    old = {"title": "Timed test cut short in the rehearsal", "severity": "note", "play": "P"}
    assert result({}, {}, [], [], [old])["top_finding"] is old


def test_a_finding_about_the_rehearsal_does_not_weigh_on_the_systems_validity() -> None:
    warned = _finding("cpu_bound", "CPU busy in the rehearsal", About.REHEARSAL, Severity.WARNING)
    assert validity("P", _rows([warned, *REHEARSED])) == {
        "verdict": "can be trusted", "why": [], "notes": ["The load generator ran on the database host"]}


def test_the_findings_list_says_the_rehearsals_apart(tmp_path: Path) -> None:
    env = environment([Path(planner.__file__).parent / "report/templates"])
    macros = env.get_template("_macros.md.j2").module
    text = str(macros.findings_section(_rows(REHEARSED)))  # type: ignore[attr-defined]
    study, _, rehearsal = text.partition("About this rehearsal (not the systems):")
    assert "The load generator ran on the database host" in study and "saturated CPU" not in study
    assert "Throughput stopped scaling on a saturated CPU" in rehearsal and "cut short" in rehearsal
    only = str(macros.findings_section(_rows([REHEARSED[0]])))  # type: ignore[attr-defined]
    assert only.startswith("No finding about the systems:") and "About this rehearsal" in only
    assert "About this rehearsal" not in str(macros.findings_section(_rows([REHEARSED[1]])))  # type: ignore[attr-defined]


def test_planner_show_says_the_rehearsals_apart() -> None:
    """Before: `planner show` listed every finding under "findings:", the rehearsing machine's CPU among them."""
    from planner.cli.results import finding_lines

    lines = finding_lines(REHEARSED)
    head = lines.index("about this rehearsal (not the systems):")
    assert lines[:2] == ["", "findings:"] and lines[head - 1] == ""
    assert [line.split(":")[1].strip() for line in lines[2:head - 1]] == [
        "The load generator ran on the database host (P h, 32 virtual users)"]
    assert all("saturated CPU" not in line for line in lines[:head])
    assert sum("rehearsal" in line or "saturated CPU" in line for line in lines[head + 1:]) == 2
    only = finding_lines([REHEARSED[0]])
    assert "findings:" not in only and only[1] == "about this rehearsal (not the systems):"
    assert finding_lines([]) == []
