"""Issue 43's leftover: a finding that fires at every point of a sweep was listed once per point (three rows of
"More virtual users than warehouses" for 8, 16 and 32 virtual users); it reads once with the points it applies to.
And a note on the rehearsal itself never leads the report."""

from __future__ import annotations

from pathlib import Path

import planner
from planner.metrics import Direction
from planner.report.finding_groups import finding_rows
from planner.report.render import environment
from planner.report.study import Row, charts, result, zero_rows
from planner.results.finding import Finding, Severity
from planner.results.measure import Measurement
from planner.results.stats import series

STEP = "tproc-c"


def nopm(vu: int) -> Measurement:
    return Measurement("run1", "violin", "db1", "plays[0].workloads[0]", STEP, "hammerdb", "run.txt", "hammerdb",
                       (("virtual_users", vu),), 0, 0, False, "hammerdb.nopm", (), 1000.0 * vu, "", Direction.HIGHER,
                       False, False, True, "run.txt:1")


def vu_finding(vu: int, severity: Severity = Severity.WARNING) -> Finding:
    return Finding("vu_over_warehouses", severity, "More virtual users than warehouses", "violin", "db1", STEP,
                   f"virtual_users={vu}", f"{vu} virtual users on 4 warehouses share home warehouses",
                   (("virtual users", str(vu)), ("warehouses", "4")))


SWEEP = series([nopm(vu) for vu in (2, 8, 16, 32)])


def test_a_finding_at_every_point_reads_once_on_all_points() -> None:
    [row] = finding_rows([vu_finding(vu) for vu in (2, 8, 16, 32)][1:] + [vu_finding(2)], SWEEP)
    assert row["point_words"] == "on all 4 points" and row["point"] == "virtual_users=8"
    assert row["message"] == "2 to 32 virtual users on 4 warehouses share home warehouses"
    # the users are the points themselves: said once, in the points; a figure alike everywhere once
    assert row["numbers"] == [{"name": "warehouses", "value": "4"}]


def test_a_finding_at_some_points_names_them_and_keeps_each_figure() -> None:
    cpu = [Finding("cpu_bound", Severity.WARNING, "CPU-bound run", "violin", "db1", STEP, f"virtual_users={vu}",
                   f"host CPU was {busy}% busy", (("CPU busy %", busy), ("threshold %", "90")))
           for vu, busy in ((16, "97.5"), (32, "99.0"))]
    one = Finding("noisy", Severity.NOTE, "Noisy repeats", "violin", "db1", STEP, "virtual_users=8", "cv 12%", ())
    rows = finding_rows([*cpu, one], SWEEP)
    assert [r["point_words"] for r in rows] == ["at 16 and 32 virtual users", "8 virtual users"]
    assert rows[0]["message"] == "host CPU was 97.5 to 99.0% busy"
    assert rows[0]["numbers"] == [{"name": "CPU busy % (16 virtual users)", "value": "97.5"},
                                  {"name": "CPU busy % (32 virtual users)", "value": "99.0"},
                                  {"name": "threshold %", "value": "90"}]


def test_a_figure_beside_the_messages_own_range_is_not_spanned() -> None:
    """Seen in the pg rehearsal's report: "NOPM rose 1.0 to 9.2% from 8 to 16 to 16 to 32 virtual users"."""
    flat = [Finding("oltp_not_scaling", Severity.NOTE, "Throughput stopped scaling", "violin", "db1", STEP,
                    f"virtual_users={hi}", f"NOPM rose {pct}% from {lo} to {hi} virtual users", ())
            for lo, hi, pct in ((8, 16, "9.2"), (16, 32, "1.0"))]
    rows = finding_rows(flat, SWEEP)
    assert [r["message"] for r in rows] == ["NOPM rose 9.2% from 8 to 16 virtual users",
                                           "NOPM rose 1.0% from 16 to 32 virtual users"]


def test_a_title_with_its_figures_is_grouped_too() -> None:
    """The violin_vs_exadata rehearsal: "32.0 average active sessions on 16 CPUs" and "64.0 ..." were two rows."""
    aas = [Finding("sessions_over_cpus", Severity.NOTE, f"{n:.1f} average active sessions on 16 CPUs", "violin",
                   "db1", STEP, f"virtual_users={n}", f"on average {n:.1f} sessions were active on 16 CPUs",
                   (("average active sessions", f"{n:.1f}"), ("CPUs", "16.0"))) for n in (16, 32)]
    [row] = finding_rows(aas, SWEEP)
    assert row["title"] == "16.0 to 32.0 average active sessions on 16 CPUs"
    assert row["point_words"] == "at 16 and 32 virtual users"


def test_other_checks_systems_and_messages_stay_apart() -> None:
    other_play = Finding(*(vu_finding(8).code, Severity.WARNING, vu_finding(8).title, "exadata", "db2", STEP,
                           "virtual_users=8", vu_finding(8).message, ()))
    note = vu_finding(16, Severity.NOTE)
    assert len(finding_rows([vu_finding(8), other_play, note], SWEEP)) == 3


def test_a_note_on_the_rehearsal_itself_never_leads_the_report() -> None:
    """Before: the pg rehearsal's Result led with a finding its own 4-warehouse cap made."""
    rehearsal = {"title": "More virtual users than the rehearsal's warehouses", "severity": "note", "play": "p",
                 "about": "rehearsal"}
    study = {"title": "Timed test shorter than HammerDB's default", "severity": "note", "play": "p",
             "about": "study"}
    said = result({}, {}, [], [], [rehearsal, study])
    assert said["top_finding"] is study and (said["more_findings"], said["rehearsal_findings"]) == (0, 1)
    alone = result({}, {}, [], [], [rehearsal])
    assert alone["top_finding"] is None and (alone["more_findings"], alone["rehearsal_findings"]) == (0, 1)


def _sweep(metric: str, values: dict[int, float]) -> list[Measurement]:
    return [Measurement("run1", "soe", "db1", "plays[0].workloads[0]", "SOE", "swingbench", "results.xml",
                        "swingbench", (("users", u),), 0, 0, False, metric, (), v, "transactions", Direction.LOWER,
                        False, False, True, "results.xml:1") for u, v in values.items()]


def test_a_metric_at_zero_everywhere_is_said_in_one_line_not_charted(tmp_path: Path) -> None:
    """Before: Swingbench's report drew "Swingbench failed transactions, by Swingbench users", a line along 0."""
    failed = series(_sweep("swingbench.failed_txns", {8: 0, 16: 0, 32: 0}))
    tps = series(_sweep("swingbench.tps", {8: 100, 16: 180, 32: 240}))
    rows = {Row("SOE", "swingbench.failed_txns"): failed, Row("SOE", "swingbench.tps"): tps}
    names = {"swingbench.failed_txns": "Swingbench failed transactions", "swingbench.tps": "Swingbench TPS"}
    assert zero_rows(rows) == [Row("SOE", "swingbench.failed_txns")]
    drawn = charts(rows, names, ["soe"], {}, tmp_path, tmp_path)
    assert [c["metric"] for c in drawn] == ["swingbench.tps"]
    env = environment([Path(planner.__file__).parent / "report/templates"])
    said = env.get_template("_macros.md.j2").module.charts_section(  # type: ignore[attr-defined]
        {"charts": drawn, "silent": [], "zero": [{"name": "Swingbench failed transactions", "workload": "SOE"}]})
    assert "Swingbench failed transactions: 0 at every point, not charted." in said
    assert "failed-transactions" not in said
    one_point = {Row("SOE", "swingbench.failed_txns"): series(_sweep("swingbench.failed_txns", {8: 0}))}
    assert zero_rows(one_point) == []  # not swept: the table's 0 says it, there was no chart to leave out
