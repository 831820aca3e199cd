"""The AWR global (RAC) report in text (awrgrpt / AWR_GLOBAL_REPORT_TEXT): cluster totals and per instance rows,
on a real 11.2.0.3 three-instance fragment and on a labelled constructed 19c two-instance sample
(tests/data/awr_rac/README.md says which is which)."""

from __future__ import annotations

from pathlib import Path

from planner.parsers import detect, parse_file, summarise
from planner.results.stats import fmt

DATA = Path(__file__).parents[1] / "data/awr_rac"
REAL = DATA / "awrgrpt_11203_dd453_fragment.txt"
CONSTRUCTED = DATA / "awrgrpt_19c_2inst_constructed.txt"


def test_real_11203_fragment_gives_the_cluster_sum_and_each_instance() -> None:
    text = REAL.read_text()
    assert detect(text, "awr_rac.txt") == "awr_rac_text"
    assert detect(text, "notes.txt") == "awr_rac_text"  # by content too: cut above its title
    p = parse_file(REAL)
    assert p.kind == "awr_rac_text" and not p.errors
    assert (p.fact("dbid"), p.fact("db_name"), p.fact("rac"), p.fact("version")) == \
        ("473377021", "DD453", "YES", "11.2.0.3.0")
    assert (p.fact("begin_snap_id"), p.fact("end_snap_id")) == ("35846", "35847")
    assert [p.fact(f"instance[{i}]") for i in "123"] == ["DD4531", "DD4532", "DD4533"]
    assert [p.fact(f"host[{i}]") for i in "123"] == ["y0319t791", "y0319t792", "y0319t793"]
    cluster = {m.name: m.value for m in p.metrics if not m.labels}
    assert (cluster["instances"], cluster["hosts"], cluster["block_size"]) == (3, 3, 8192)
    assert (cluster["db_time_min"], cluster["elapsed_min"]) == (0.45, 30.03)
    # the Sum row is the cluster: never one instance's line
    assert (cluster["logical_reads_per_s"], cluster["physical_reads_per_s"], cluster["physical_writes_per_s"]) == \
        (2379.87, 0.3, 1.1)
    assert round(cluster["redo_size_per_s"], 1) == round(3.7 * 1024, 1)  # the report prints KB/s
    assert p.value("logical_reads_per_s", instance="2") == 807.67
    assert p.value("physical_writes_per_s", instance="3") == 0.3
    assert (p.value("uptime_h", instance="3"), p.value("db_time_min", instance="2")) == (29.89, 0.16)
    # 11.2.0.3 prints blocks, not requests: the cluster's IOPS is counted in blocks, and says so
    iops = p.get("physical_read_iops", instance="all")
    assert iops is not None and iops.value == 0.3 and iops.label("basis") == "blocks" and iops.derived
    assert p.value("physical_write_iops", instance="1") == 0.4
    heads = {m.key for m in summarise(p)}
    assert "physical_read_iops{basis=blocks,instance=all}" in heads
    assert not any("instance=1" in k for k in heads)  # the headline is the cluster's only


def test_constructed_19c_sample_reads_requests_bytes_and_top_events() -> None:
    p = parse_file(CONSTRUCTED)
    assert p.kind == "awr_rac_text" and not p.errors and p.fact("title") == "WORKLOAD REPOSITORY REPORT (RAC)"
    assert p.value("physical_read_io_requests_per_s") == 24802.2  # System Statistics (Global), per Second
    assert p.value("physical_read_iops", instance="all") == 24802.2
    assert p.get("physical_read_iops", instance="all").label("basis") == "requests"  # type: ignore[union-attr]
    assert round(p.value("physical_read_mb_per_s", instance="all") or 0, 2) == round(203188034.2 / 1048576, 2)
    assert p.value("physical_write_iops", instance="all") == 1860.7
    # per instance: blocks (the Global table has no per-instance requests)
    assert p.value("physical_reads_per_s") == 24801.2
    one, two = p.value("physical_read_iops", instance="1"), p.value("physical_read_iops", instance="2")
    assert one and two and abs(one + two - 24801.2) < 0.2
    # Top Timed Events: '*' is cluster-wide, then each instance
    dfsr = dict(event="db file sequential read", instance="*")
    assert (p.value("wait.waits", **dfsr), p.value("wait.time_s", **dfsr), p.value("wait.avg_ms", **dfsr),
            p.value("wait.pct_db_time", **dfsr)) == (14880736, 6623.85, 0.45, 69.0)
    assert p.value("wait.time_s", event="DB CPU", instance="*") == 3072.15
    assert p.get("wait.time_s", event="free buffer waits", instance="*").label("wait_class") == "Configuration"  # type: ignore[union-attr]
    assert p.value("wait.waits", event="db file sequential read", instance="2") is not None


def test_a_global_report_missing_its_per_second_table_says_so() -> None:
    text = REAL.read_text().split("System Statistics - Per Second")[0]
    from planner.parsers import parse_text

    p = parse_text(text, "awr_rac.txt")
    assert [e.section for e in p.errors] == ["System Statistics - Per Second"]
    assert p.get("physical_read_iops") is None  # no IOPS invented from nothing


# -- collection and the report, on a two-instance RAC stand-in (issue 16 row 4's done-when) -------------------
import json  # noqa: E402

import pytest  # noqa: E402
from prep_helpers import context  # noqa: E402

from planner.cli.main import main  # noqa: E402
from planner.kinds.slob.standin import install_slob_kit  # noqa: E402
from planner.rehearsal.standins import DEFAULT_HOME, install_standins, rac_state, update_state  # noqa: E402

KIT = "/home/oracle/SLOB"


def _make_rac(root: Path) -> None:
    """The RAC node seed the identity stand-ins share (SLOB1 here on labhost, SLOB2 on labhost2, +ASM1)."""
    update_state(root, lambda s: rac_state(s))


def _slob_rac_project(tmp: Path, stats: str = "awr") -> Path:
    root = tmp / "hosts" / "alpha"
    install_standins(root)
    install_slob_kit(root / KIT.lstrip("/"))
    _make_rac(root)
    (tmp / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} "
                                   f"oracle_home={DEFAULT_HOME} oracle_sid=SLOB1 slob_max_cache_pct=100 "
                                   "oracle_diagnostics_pack=true\n")
    (tmp / "plan.yaml").write_text(
        "plan: p\nplays:\n  - name: p\n    hosts: lab\n    workloads:\n      - name: s\n"
        f"        slob: {{kit: {KIT}, readers: 8, run_time: 30, setup: true, database_statistics_type: {stats}}}\n")
    return root


def _run(tmp: Path) -> tuple[int, Path, dict]:
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini"), "--runs-dir", str(tmp / "runs")])
    run = next(p for p in (tmp / "runs").iterdir() if p.is_dir())
    (res,) = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "s"]
    return code, run, res


@pytest.mark.slow
def test_rac_standin_report_shows_cluster_totals_from_the_global_report(tmp_path: Path) -> None:
    _slob_rac_project(tmp_path)
    code, run, res = _run(tmp_path)
    assert code == 0, res["msg"]
    kinds = {a["path"].rsplit("/", 1)[-1]: a["kind"] for a in res["artifacts"]}
    assert kinds["awr_rac.txt"] == "awr_rac_text" and kinds["awr.txt"] == "awr_text"
    assert "RAC: cluster totals from the kit's global report (awr_rac.txt)" in res["msg"]
    glob = parse_file(run / next(a["path"] for a in res["artifacts"] if a["kind"] == "awr_rac_text"))
    cluster = glob.value("physical_read_iops", instance="all")
    one, two = glob.value("physical_read_iops", instance="1"), glob.value("physical_read_iops", instance="2")
    assert cluster and one and two and one < cluster and two < cluster
    inst = parse_file(run / next(a["path"] for a in res["artifacts"] if a["kind"] == "awr_text"))
    assert inst.fact("rac") == "YES"  # awr.txt is instance 1's: about half the cluster's physical reads
    assert inst.value("physical_reads_per_s") == pytest.approx(one, rel=0.01)
    report = (run / "report.md").read_text()
    assert "## Cluster (RAC)" in report
    assert "| all (cluster total) |" in report
    assert f"| 1: SLOB1 on labhost | {fmt(one)} |" in report and f"| 2: SLOB2 on labhost2 | {fmt(two)} |" in report
    assert f"| all (cluster total) | {fmt(cluster)} |" in report
    # the headline (Summary) is the cluster's read IOPS, not instance 1's
    summary = report.split("## Summary", 1)[1].split("## ", 1)[0]
    assert f"| Physical read IOPS | {fmt(cluster)} |" in summary
    assert "RAC figures are not IOPS" not in report  # the cluster's IOPS are there: no "add them up" note
    assert "instance 1" not in summary and fmt(one) not in summary  # no instance's figure passes for the system's
    from planner.results.measure import read_run

    heads = {m.key: m.value for m in read_run(run).measurements if m.headline and "iops" in m.metric}
    assert heads == {"physical_read_iops{basis=requests,instance=all}": cluster,
                     "physical_write_iops{basis=requests,instance=all}":
                         glob.value("physical_write_iops", instance="all")}


@pytest.mark.slow
def test_rac_with_statspack_says_per_instance_only_and_why(tmp_path: Path) -> None:
    _slob_rac_project(tmp_path, "statspack")
    code, _run_dir, res = _run(tmp_path)
    assert code == 0, res["msg"]
    assert not any(a["kind"] == "awr_rac_text" for a in res["artifacts"])
    assert "Statspack has no global report, so the figures are per instance only" in res["msg"]
    assert "GV$INSTANCE has 2 instance(s)" in res["msg"]


@pytest.mark.slow
def test_awr_collection_on_rac_keeps_the_global_report_beside_the_instance_one(prep_root: Path) -> None:
    from planner.steps import dbreport

    _make_rac(prep_root)
    ctx = context(prep_root, oracle_diagnostics_pack=True)
    token = dbreport.begin(ctx, "awr")
    assert token.cluster.rac and token.cluster.instances == 2 and token.notes == ()
    arts = dbreport.end(ctx, token, "awr")
    assert [a.kind for a in arts] == ["awr_text", "awr_rac_text"]
    p = parse_file(prep_root / arts[1].path)
    assert p.fact("instance[2]") == "SLOB2" and p.value("instances") == 2
    sp = dbreport.begin(ctx, "statspack")
    assert "Statspack has no global report" in sp.notes[0] and "GV$INSTANCE has 2 instance(s)" in sp.notes[0]


@pytest.mark.slow
def test_a_single_instance_database_gets_no_global_report(prep_root: Path) -> None:
    from planner.steps import dbreport

    ctx = context(prep_root, oracle_diagnostics_pack=True)
    token = dbreport.begin(ctx, "awr")
    assert not token.cluster.rac and token.cluster.why == "GV$INSTANCE has 1 instance(s)"
    assert [a.kind for a in dbreport.end(ctx, token, "awr")] == ["awr_text"]


def test_the_global_report_in_two_layouts_is_measured_once_and_analyze_calls_its_totals_cluster() -> None:
    from planner.results.analyze import analyze, series_of
    from planner.results.measure import _shadowed
    from planner.status import Artifact

    arts = [Artifact("p/awr.txt", "awr_text"), Artifact("p/awr_rac.txt", "awr_rac_text"),
            Artifact("p/awr_rac.html.gz", "awr_rac_html")]
    assert _shadowed(arts) == {"p/awr_rac.html.gz"}  # its figures would count twice beside the text's
    assert _shadowed(arts[:1] + arts[2:]) == set()  # alone, the HTML global report is measured
    hosts = {s.host for fa in analyze([CONSTRUCTED]).files for s in series_of(fa) if s.metric == "physical_read_iops"}
    assert hosts == {"cluster", "instance 1", "instance 2"}


def _s(play: str, labels: tuple[tuple[str, str], ...], value: float, headline: bool = True) -> object:
    from planner.metrics import Direction
    from planner.results.stats import Series

    key = "physical_read_iops{" + ",".join(f"{k}={v}" for k, v in labels) + "}"
    return Series(play, "h", "plays[0].workloads[0]", "s", "slob", (), "physical_read_iops", key, labels, "IOPS",
                  Direction.HIGHER, headline, False, (value,), 0)


def test_a_rac_cluster_total_sits_beside_a_single_instance_figure_and_is_the_plays_value() -> None:
    """Violin (one instance) vs Exadata (RAC): one summary row, and a claim on physical_read_iops reads the
    cluster's total, not one of the three RAC series (which made it 'inconclusive: name one')."""
    from planner.report.study import rows_of
    from planner.results.stats import play_value

    single = _s("violin", (("basis", "requests"),), 150_000.0)
    cluster = _s("exadata", (("basis", "requests"), ("instance", "all")), 240_000.0)
    inst = _s("exadata", (("basis", "blocks"), ("instance", "1")), 121_000.0, headline=False)
    rows = rows_of([single, cluster])  # type: ignore[list-item]
    assert [r.key for r in rows] == ["physical_read_iops{basis=requests}"] and len(next(iter(rows.values()))) == 2
    (pv,) = play_value([single, cluster, inst], "exadata", "physical_read_iops")  # type: ignore[list-item]
    assert pv.value == 240_000.0 and "instance=all" in pv.key


@pytest.mark.slow
@pytest.mark.parametrize(("collect", "said", "kinds"), [
    ("statspack", "Statspack has no global report, so the figures are per instance only", ["statspack"]),
    ("awr", "", ["awr_text", "awr_rac_text"])])
def test_collect_around_a_non_slob_point_on_rac(tmp_path: Path, collect: str, said: str, kinds: list[str]) -> None:
    from planner.rehearsal.standins import standin_vars

    root = tmp_path / "hosts" / "alpha"
    install_standins(root)
    _make_rac(root)
    hostvars = " ".join(f"{k}={v}" for k, v in standin_vars(root).items())
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local {hostvars} "
                                        "oracle_diagnostics_pack=true\n")
    (tmp_path / "plan.yaml").write_text(
        "plan: c\nplays:\n  - name: c\n    hosts: lab\n    workloads:\n      - name: s\n"
        f"        calibrate_io: {{num_physical_disks: 2, max_latency: 10}}\n    collect: [{collect}]\n")
    code, _run_dir, res = _run(tmp_path)
    assert code == 0, res["msg"]
    assert said in res["msg"] and ("GV$INSTANCE has 2 instance(s)" in res["msg"]) == bool(said)
    assert [a["kind"] for a in res["artifacts"] if a["kind"] in ("statspack", "awr_text", "awr_rac_text")] == kinds
