"""Markdown reports from synthetic run folders: every section, repeats, charts, StrictUndefined, kinds, CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_report_helpers import DATA, FLASHBACK_EVENTS, Exec, awr_excerpt, seed_study, write_run

from planner.cli.main import main
from planner.errors import PlannerError
from planner.report.render import render_run_report

SECTIONS = ("## Result", "## Summary", "## Findings", "## Reproduction", "## Workloads", "## Hosts", "## Provenance")


@pytest.mark.slow
def test_default_report_has_every_section_and_answers_the_seed_questions(tmp_path: Path) -> None:
    run = seed_study(tmp_path)
    out = render_run_report(run)
    assert out == run / "report.md"
    text = out.read_text()
    for s in SECTIONS:
        assert s in text
    # the answer first: the Result section opens the report, per system its figure and best point
    assert text.index("## Result") < text.index("## Summary") < text.index("## Findings")
    assert "- **exadata**: 138,010.5 Physical read IOPS at 256 SLOB reader sessions (best of 2 points)" in text
    assert "**reproduced**, measured 159,183.9 (+0.0%)" in text and "Most important finding: **" in text
    # summary: systems side by side at their best point, in words, not keys
    assert "| Physical read IOPS | 138,010.5 (256 SLOB reader sessions) | 159,183.9 |" in text
    assert "| db file sequential read, avg wait (ms) |" in text
    assert "{basis=" not in text and "physical_read_iops" not in text and "{event=" not in text
    # host lines (AWR-style and facts), prep before -> after with the saved state, top waits with average wait
    assert "| exadataX2-8 | Linux x86 64-bit | 128 | 64 | 8 | 1,009.40 |" in text
    assert "| flashback | changed | flashback: on -> off | flashback YES | yes |" in text
    assert "| db file sequential read | User I/O | 177,142,915 | 4,804 | 0.0271 | 60.0 |" in text
    assert "CPU busy % 0.7" in text and "AWR Host CPU busy % 98.0" in text  # OS stats over the window
    # findings with numbers, verdicts, provenance
    assert "Far from the rated Physical read IOPS" in text and "share = 9.2%" in text
    assert ("| flashdba 2012 | violin | Physical read IOPS | 159,183.9 | 159,183.9 | +0.0% | ±10.0% | **reproduced**"
            in text)
    assert "git commit 0123456789abcdef (clean)" in text and "[commands.jsonl](commands.jsonl)" in text
    assert 'statistics.quantiles(method="inclusive")' in text
    assert "SIMULATED" not in text


@pytest.mark.slow
def test_repeats_show_median_and_spread_and_the_chart_is_written(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    run = seed_study(tmp_path)
    text = render_run_report(run).read_text()
    # readers=256 repeats 120,000 / 138,010.5 / 150,000 after one warm-up (10,000, excluded): one sweep table,
    # points as rows, metrics as columns, the median with the min-max over repeats
    assert "Median over repeats (1 warm-up left out), min–max in brackets." in text
    assert "| 256 SLOB reader sessions | 138,010.5 (120,000–150,000) |" in text
    charts = sorted((run / "charts").glob("*.svg"))
    assert ("![Physical read IOPS, by SLOB reader sessions](charts/physical-read-iops-by-slob-reader-sessions.svg)"
            in text)
    svg = charts[0].read_text()
    assert "<svg" in svg and "<dc:date>" not in svg  # no Date metadata: reproducible files


@pytest.mark.slow
def test_without_charts_the_table_stands_alone(tmp_path: Path) -> None:
    from planner.report.render import render
    from planner.results.measure import read_run

    run = seed_study(tmp_path)
    text = render(read_run(run), "default.md.j2", run, charts=False)
    assert "![" not in text and "(120,000–150,000)" in text and not (run / "charts").exists()


@pytest.mark.slow
def test_comparison_template_and_cli_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = seed_study(tmp_path)
    target = tmp_path / "out" / "cmp.md"
    target.parent.mkdir()
    assert main(["report", run.name, "--runs-dir", str(tmp_path), "--template", "slob_comparison.md.j2",
                 "-o", str(target)]) == 0
    assert str(target) in capsys.readouterr().out
    text = target.read_text()
    assert text.startswith("# SLOB comparison: exadata vs violin")
    assert "### exadata (rated: Physical read IOPS 1,500,000)" in text
    assert text.index("## Result") < text.index("## Systems side by side") < text.index("## Details")
    assert "[commands.jsonl](../" in text  # links are relative to where the report is written
    assert main(["report", run.name, "--runs-dir", str(tmp_path), "--template", "nope.md.j2"]) == 5


@pytest.mark.slow
def test_strict_undefined_names_the_missing_key(tmp_path: Path) -> None:
    run = seed_study(tmp_path)
    bad = tmp_path / "bad.md.j2"
    bad.write_text("{{ run.no_such_key }}\n")
    with pytest.raises(PlannerError, match="no_such_key"):
        render_run_report(run, template=str(bad), output=tmp_path / "bad.md")


@pytest.mark.slow
def test_simulated_banner(tmp_path: Path) -> None:
    text = render_run_report(seed_study(tmp_path, simulated=True)).read_text()
    assert "**SIMULATED" in text and "rehearsal" in text
    assert "**inconclusive**, measured 159,183.9 (+0.0%) — the run was simulated" in text
    # issue 43: an X2-8 shown with the rehearsing machine's 2 CPUs, unlabelled, reads as an impossible host
    assert "Host facts (the rehearsing machine's, not the simulated host's" in text
    assert "- Host facts (the rehearsing machine's, which every simulated host shares): " in text


@pytest.mark.slow
def test_parse_errors_are_reported_and_the_rest_still_renders(tmp_path: Path) -> None:
    execs = [Exec("plays[0].workloads[0]", "slob", "exa", {"awr.txt": ("garbage\n", "awr_text")}),
             Exec("plays[0].workloads[0]", "slob", "exa", {"awr2.txt": (awr_excerpt(5_000), "awr_excerpt")},
                  repeat=1)]
    run = write_run(tmp_path, "r1", execs, [{"name": "exadata", "hosts": ["exa"]}], plan=None)
    text = render_run_report(run).read_text()
    assert "**parse problems**" in text and "awr_text parser" in text
    assert "5,000" in text


@pytest.mark.slow
def test_flashback_and_rac_findings_in_the_report(tmp_path: Path) -> None:
    execs = [Exec("plays[0].workloads[0]", "slob", "exa",
                  {"awr.txt": (awr_excerpt(5_782.1, events=FLASHBACK_EVENTS), "awr_excerpt")}),
             Exec("plays[0].collect[0]", "awr", "exa",
                  {"rac.txt": (DATA / "awr" / "awr_11203_rac_askmaclean.txt", "awr_text")})]
    run = write_run(tmp_path, "r1", execs, [{"name": "exadata", "hosts": ["exa"]}], plan=None)
    text = render_run_report(run).read_text()
    assert "Configuration waits take 50.4% of DB time" in text and "event = flashback buf free by RVWR" in text
    assert "RAC figures are not IOPS" in text
    assert "| MAC10 | AIX-Based Systems (64-bit) |" in text  # the RAC report's host line


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "name", "content", "akind", "expect"), [
    ("fio", "fio.json", DATA / "fio" / "fio-3.33-randread.json", "fio_json", "fio IOPS"),
    ("orion", "t_summary.txt", DATA / "orion" / "orion-seed-x25m_summary.txt", "orion_summary", "3,985"),
    ("slb", "slb.txt", DATA / "slb" / "slb-westmere-seed.txt", "slb", "101,281,934"),
    ("iozone", "iozone.txt", DATA / "iozone" / "iozone-seed-x25m.txt", "iozone", "585.2"),
    ("calibrate_io", "cal.txt", "max_iops = 3913\nlatency  = 0\nmax_mbps = 137\n", "calibrate_io", "3,913"),
])
def test_each_workload_kind_renders_its_section(tmp_path: Path, kind: str, name: str, content: str | Path,
                                                akind: str, expect: str) -> None:
    plan = f"plan: k\nplays:\n  - name: ssd\n    hosts: h\n    workloads:\n      - {kind}: {{}}\n"
    run = write_run(tmp_path, "r1", [Exec("plays[0].workloads[0]", kind, "h", {name: (content, akind)})],
                    [{"name": "ssd", "hosts": ["h"]}], plan=plan)
    from planner.results.measure import read_run

    assert read_run(run).step_kinds.get("plays[0].workloads[0]") in (kind, None)
    text = render_run_report(run).read_text()
    assert f"({kind})" in text and expect in text
    assert "One run per point." in text and "| run |" in text  # the workload's sweep table, one row


@pytest.mark.slow
def test_plan_report_output_is_written_too(tmp_path: Path) -> None:
    from planner.results.measure import load_run_plan

    run = seed_study(tmp_path)
    plan = load_run_plan(run)
    assert plan is not None
    from dataclasses import replace

    from planner.plan.model import ReportSpec

    plan = replace(plan, report=ReportSpec("slob_comparison.md.j2", "reports/latest.md"))
    out = render_run_report(run, plan)
    assert out == run / "report.md"
    assert (run / "reports" / "latest.md").read_text().startswith("# SLOB comparison")
    assert not (tmp_path / "planner.sqlite").exists()  # indexing is `planner runs`/`index`, not rendering


@pytest.mark.slow
def test_apply_renders_the_report_of_a_real_run_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "host" / "etc").mkdir(parents=True)
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={tmp_path}/host\n")
    (tmp_path / "plan.yaml").write_text(
        "plan: smoke\nplays:\n  - name: local\n    hosts: lab\n    prep:\n"
        "      - copy: {content: \"noop\\n\", dest: /etc/scheduler.txt}\n"
        "    workloads:\n      - command: {argv: [\"true\"]}\n        repeat: 2\n")
    rc = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
               "--runs-dir", str(tmp_path / "runs")])
    assert rc == 0
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    assert f"report: {run / 'report.md'}" in capsys.readouterr().out
    text = (run / "report.md").read_text()
    for s in SECTIONS:
        assert s in text
    assert "| copy | changed |" in text  # prep shown from the real results.json
    assert "Host facts: " in text and "No workload produced parsed output." in text
    assert main(["runs", "--runs-dir", str(tmp_path / "runs")]) == 0
    assert run.name in capsys.readouterr().out


@pytest.mark.slow
def test_side_by_side_aligns_differently_named_workloads_of_one_kind(tmp_path: Path) -> None:
    """One play names its SLOB step, the other does not: still one row per metric, both systems in it."""
    execs = [Exec("plays[0].workloads[0]", "SLOB read-only, 16 to 256 readers", "exa",
                  {"awr.txt": (awr_excerpt(138_010.5), "awr_excerpt")}, {"readers": 256}, 0, 0),
             Exec("plays[1].workloads[0]", "slob", "vio",
                  {"awr.txt": (awr_excerpt(159_183.9), "awr_excerpt")}, {}, 0, 0)]
    run = write_run(tmp_path, "20260101T100000Z-slob", execs,
                    [{"name": "exadata", "hosts": ["exa"]}, {"name": "violin", "hosts": ["vio"]}])
    text = render_run_report(run).read_text()
    row = [line for line in text.splitlines() if line.startswith("| Physical read IOPS |")][0]
    assert "138,010.5" in row and "159,183.9" in row and "—" not in row


@pytest.mark.slow
def test_one_report_in_two_layouts_counts_once(tmp_path: Path) -> None:
    """SLOB leaves awr.txt and awr.html of the same snapshots: 3 repeats are n=3, not 6."""
    execs = [Exec("plays[0].workloads[0]", "slob", "exa",
                  {"awr.txt": (DATA / "awr" / "awr_11201_orcl_fabioprado.txt", "awr_text"),
                   "awr.html": (DATA / "awr" / "awr_122_slob2.html", "awr_html")}, {}, i, i) for i in range(3)]
    run = write_run(tmp_path, "20260101T100000Z-slob", execs, [{"name": "exadata", "hosts": ["exa"]}])
    from planner.results.measure import read_run

    data = read_run(run)
    reads = [m for m in data.measurements if m.metric == "physical_reads_per_s"]
    assert len(reads) == 3 and {m.artifact_kind for m in reads} == {"awr_text"}
    assert {a.kind for a in data.artifacts} == {"awr_text"}  # the second layout is kept in the record, not read
    text = render_run_report(run).read_text()
    assert "| 3 runs |" in text and "6 runs" not in text


@pytest.mark.slow
def test_host_facts_line_leaves_out_what_the_host_did_not_say(tmp_path: Path) -> None:
    facts = {"exa": {"hostname": "exa", "cpus": 2, "cores": 2, "sockets": 1, "memory_gb": 23.5,
                     "cpu_model": "", "distribution": "", "kernel": "6.1.0"}}
    run = write_run(tmp_path, "20260101T100000Z-slob", [Exec("plays[0].workloads[0]", "slob", "exa",
                    {"awr.txt": (awr_excerpt(1000.0), "awr_excerpt")}, {}, 0, 0)],
                    [{"name": "exadata", "hosts": ["exa"]}], facts=facts)
    text = render_run_report(run).read_text()
    assert "Host facts: exa — 2 CPUs, 2 cores, 1 socket, 23.5 GB memory; kernel 6.1.0." in text


@pytest.mark.slow
def test_a_host_in_two_plays_shows_each_plays_own_waits(tmp_path: Path) -> None:
    """Violin with 8 then 16 LUNs: one host, two plays, both steps titled "slob" - never summed together."""
    from planner.report.render import render
    from planner.results.measure import read_run

    ev8 = "db file sequential read         1,000,000       500      1   60.0 User I/O\n"
    ev16 = "db file sequential read         2,000,000       700      0   70.0 User I/O\n"
    execs = [Exec("plays[0].workloads[0]", "slob", "vio",
                  {"awr.txt": (awr_excerpt(159_183.9, events=ev8), "awr_excerpt")}, {}, 0, 0),
             Exec("plays[1].workloads[0]", "slob", "vio",
                  {"awr.txt": (awr_excerpt(236_486.7, events=ev16), "awr_excerpt")}, {}, 0, 0)]
    run = write_run(tmp_path, "20260101T100000Z-slob", execs,
                    [{"name": "violin 8 LUNs", "hosts": ["vio"]}, {"name": "violin 16 LUNs", "hosts": ["vio"]}])
    text = render(read_run(run), "slob_comparison.md.j2", run)
    assert "### violin 8 LUNs" in text and "### violin 16 LUNs" in text
    assert "| db file sequential read | User I/O | 0.50 ms, 60.0% | 0.35 ms, 70.0% |" in text
    assert "3,000,000" not in text  # the two plays' waits were once summed as one workload
    default = render(read_run(run), "default.md.j2", run)
    assert "Top wait events — slob in violin 8 LUNs" in default and "slob in violin 16 LUNs" in default


def test_the_window_sampling_wins_over_the_kits_own(tmp_path: Path) -> None:
    """SLOB's runit.sh samples iostat itself (iostat.out) while planner's window does too (iostat.txt):
    the window's covers exactly the workload and is the one measured; an empty kit file is no parse problem."""
    from planner.results.measure import read_run

    execs = [Exec("plays[0].workloads[0]", "slob", "exa",
                  {"awr.txt": (awr_excerpt(1000.0), "awr_excerpt"),
                   "iostat.out": ("Linux 6.1 (vm) \t11/30/26 \t_x86_64_\t(2 CPU)\n", "iostat"),
                   "iostat.txt": (DATA / "ostats" / "iostat-x-t.txt", "iostat")}, {}, 0, 0)]
    data = read_run(write_run(tmp_path, "20260101T100000Z-slob", execs, [{"name": "exadata", "hosts": ["exa"]}]))
    assert [a.path.rsplit("/", 1)[-1] for a in data.artifacts if a.kind == "iostat"] == ["iostat.txt"]
    assert all(a.parsed_ok for a in data.artifacts)
    assert {m.artifact.rsplit("/", 1)[-1] for m in data.measurements if m.artifact_kind == "iostat"} == {"iostat.txt"}


@pytest.mark.slow
def test_a_rehearsals_os_figures_are_named_as_the_rehearsing_machines(tmp_path: Path) -> None:
    """The headline rehearsal said "written by stand-ins: iostat x9": real iostat wrote them, on the machine that
    rehearsed, so a DBA reading 42,583 physical read IOPS beside "OS read IOPS 19.3" had no word why."""
    iostat = DATA / "ostats" / "iostat-x-t.txt"
    execs = [Exec("plays[0].workloads[0]", "slob", h, {"awr.txt": (awr_excerpt(v), "awr_excerpt"),
                                                       "iostat.txt": (iostat, "iostat")}, {}, 0, 0, simulated=True)
             for h, v in (("exa", 138_010.5), ("vio", 159_183.9))]
    run = write_run(tmp_path, "20260101T100000Z-slob", execs,
                    [{"name": "exadata", "hosts": ["exa"]}, {"name": "violin", "hosts": ["vio"]}], simulated=True)
    text = render_run_report(run).read_text()
    banner = text[:text.index("## ")]
    assert "written by stand-ins: awr_excerpt x2" in banner
    assert "on the rehearsal machine, not the lab: iostat x2" in banner
    # and where the OS figures sit beside the database's (the comparison's side-by-side table)
    study = render_run_report(seed_study(tmp_path / "study", simulated=True)).read_text()
    said = [line for line in study.splitlines() if line.startswith("OS statistics over the workload window")]
    assert said and all("the rehearsing machine's own" in line for line in said), said
    side = seed_study(tmp_path / "side", simulated=True)
    text = render_run_report(side, template="slob_comparison.md.j2").read_text()
    said = [line for line in text.splitlines() if line.startswith("OS statistics over the workload window, same")]
    assert said and "the rehearsing machine's own figures" in said[0], said
