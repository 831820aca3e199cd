"""The stand-in's AWR follows the layout of its release (issue 41; planner/rehearsal/standins/awrgen_legacy.py,
docs/oracle-behaviour.md 41.v1-41.v4), and planner reads each: an 11.2.0.3 lab's own path is ``Physical reads:``
in blocks, never 19c's ``Read IO requests``."""

from __future__ import annotations

from datetime import datetime

import pytest

from planner.parsers import parse_text
from planner.parsers.derived import derive
from planner.rehearsal.standins import awrgen, awrgen_render

HOST = awrgen.HostInfo("labhost", cpus=16, cores=8, sockets=2)
IV = awrgen.Interval(101, 102, datetime(2026, 12, 7, 1, 0), 300.0)


def _reports(release: str) -> tuple[awrgen.Figures, str, str]:
    db = awrgen.DbInfo(release=release)
    fig = awrgen.simulate(awrgen.Workload(sessions=8), HOST, db)
    return fig, awrgen_render.awr_text(fig, HOST, db, IV, 8), awrgen_render.awr_html(fig, HOST, db, IV, 8)


@pytest.mark.parametrize(("release", "present", "absent"), [
    ("10.2.0.5.0", ["Top 5 Timed Events", "CPU time", "  Physical reads:", "Instance     Inst Num Startup Time    "
                    "Release     RAC"], ["Read IO requests", "Unique Name", "Top 10", "IO Profile"]),
    ("11.1.0.7.0", ["Top 5 Timed Events", "  Physical reads:"], ["Read IO requests", "Unique Name"]),
    ("11.2.0.3.0", ["Top 5 Timed Foreground Events", "DB CPU  ", "  Physical reads:", "W/A MB processed:"],
     ["Read IO requests", "Unique Name", " CDB", "Top 10", "IO Profile", "Background CPU"]),
    ("12.1.0.2.0", ["Read IO requests:", "Top 10 Foreground Events", "IO Profile"], ["Unique Name", " CDB"]),
    ("19.0.0.0.0", ["Read IO requests:", "Unique Name DB Role", "RAC CDB", "Top 10 Foreground Events"],
     ["Top 5 Timed"]),
])
def test_each_release_prints_its_own_awr_layout(release: str, present: list[str], absent: list[str]) -> None:
    _fig, text, html = _reports(release)
    for want in present:
        assert want in text, want
    for unwanted in absent:
        assert unwanted not in text, unwanted
    assert ("Read IO requests" in html) is (release >= "11.2.0.4")


@pytest.mark.parametrize("release", ["10.2.0.5.0", "11.2.0.3.0", "12.1.0.2.0", "19.0.0.0.0"])
def test_planner_reads_every_releases_layout(release: str) -> None:
    fig, text, html = _reports(release)
    basis = "blocks" if release < "11.2.0.4" else "requests"
    for kind, body in (("awr_text", text), ("awr_html", html)):
        parsed = parse_text(body, f"awr-{release}", kind)
        iops = [m for m in derive(parsed) if m.name == "physical_read_iops"]
        assert [(dict(m.labels)["basis"], round(m.value)) for m in iops] == [(basis, round(fig.read_reqs))], kind
