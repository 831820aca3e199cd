"""A kind's report partial lives in its folder (planner/kinds/<kind>/report.md.j2); a plan's own overrides it."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_report_helpers import DATA, Exec, write_run

from planner import kindspec
from planner.report.render import environment, render_run_report, template_dirs

PLAN = "plan: k\nplays:\n  - name: ssd\n    hosts: h\n    workloads:\n      - slb: {users: 1}\n"


def test_the_kinds_partials_are_found_in_their_folders() -> None:
    _name, dirs = template_dirs("default.md.j2", None)
    env = environment(dirs)
    for kind in ("orion", "slb", "calibrate_io"):
        folder = kindspec.folder(kind)
        assert folder is not None and f"{kind}.md.j2" in env.list_templates()
        assert env.get_template(f"{kind}.md.j2").filename == str(folder / "report.md.j2")
    assert kindspec.folder("command") is None


@pytest.mark.slow
def test_the_slb_section_says_what_slb_measures_and_a_plans_own_partial_wins(tmp_path: Path) -> None:
    run = write_run(tmp_path, "r1", [Exec("plays[0].workloads[0]", "slb", "h",
                                          {"slb.txt": (DATA / "slb" / "slb-westmere-seed.txt", "slb")})],
                    [{"name": "ssd", "hosts": ["h"]}], plan=PLAN)
    assert "SLB measures memory, not storage" in render_run_report(run).read_text()
    mine = tmp_path / "mine"
    (mine / "templates").mkdir(parents=True)
    (mine / "templates" / "slb.md.j2").write_text("Our own words on this kind.\n")
    (mine / "p.yaml").write_text(PLAN)
    from planner.plan.loader import load_plan

    text = render_run_report(run, plan=load_plan(mine / "p.yaml", inventory_must_exist=False)).read_text()
    assert "Our own words on this kind." in text and "SLB measures memory" not in text
