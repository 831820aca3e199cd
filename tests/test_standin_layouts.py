"""The stand-in's Statspack and AWR follow the layout of their release (issue 41; docs/oracle-behaviour.md 41.s1,
41.v5), and planner reads each: a 10.2 lab's spreport.sql page has a ``Host  Name: ... Num CPUs:`` line and a
two-column Load Profile, a 21c AWR names the user and the containers."""

from __future__ import annotations

from datetime import datetime

import pytest

from planner.parsers import parse_text
from planner.parsers.derived import derive
from planner.rehearsal.standins import awrgen, awrgen_render

HOST = awrgen.HostInfo("labhost", cpus=16, cores=8, sockets=2, memory_gb=64.0)
IV = awrgen.Interval(101, 102, datetime(2026, 12, 7, 1, 0), 300.0)


def _statspack(release: str) -> tuple[awrgen.Figures, str]:
    db = awrgen.DbInfo(release=release)
    fig = awrgen.simulate(awrgen.Workload(sessions=8), HOST, db)
    return fig, awrgen_render.statspack(fig, HOST, db, IV, 8)


@pytest.mark.parametrize(("release", "present", "absent"), [
    ("10.2.0.5.0", ["Host  Name:   labhost          Num CPUs:   16        Phys Memory (MB):   65,536",
                    "Load Profile                            Per Second       Per Transaction",
                    "                      Sorts:", "  % Blocks changed per Read:", "Instance Efficiency Percentages",
                    "           Shared Pool Size:", "Host CPU  (CPUs: 16)\n", "% of DB time"],
     ["DB time(s):", "Platform", "Cores", "W/A MB processed", "Instance Efficiency Indicators"]),
    ("11.2.0.4.0", ["Host Name             Platform                CPUs Cores Sockets   Memory (G)",
                    "      DB time(s):", "W/A MB processed:", "Instance Efficiency Indicators"],
     ["Num CPUs:", "Sorts:"]),
    ("19.0.0.0.0", ["      DB time(s):", "W/A MB processed:", "Host CPU  (CPUs: 16  Cores: 8  Sockets: 2)"],
     ["Num CPUs:"]),
])
def test_each_release_prints_its_own_statspack_layout(release: str, present: list[str], absent: list[str]) -> None:
    _fig, text = _statspack(release)
    for want in present:
        assert want in text, want
    for unwanted in absent:
        assert unwanted not in text, unwanted


@pytest.mark.parametrize("release", ["10.2.0.5.0", "11.2.0.4.0", "12.1.0.2.0", "19.0.0.0.0"])
def test_planner_reads_every_releases_statspack(release: str) -> None:
    fig, text = _statspack(release)
    parsed = parse_text(text, f"sp-{release}", "statspack")
    assert not parsed.errors, parsed.errors
    iops = [(dict(m.labels)["basis"], round(m.value)) for m in derive(parsed) if m.name == "physical_read_iops"]
    assert iops == [("blocks", round(fig.read_blocks))]
    facts, cpus = dict(parsed.facts), [m.value for m in parsed.metrics if m.name == "cpus"]
    assert (facts["version"], facts["host_name"], cpus) == (release, "labhost", [16.0])
