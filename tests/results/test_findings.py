"""Each finding: one case that triggers it (numbers from the seeds) and one that does not; verdicts."""

from __future__ import annotations

from planner.metrics import Direction
from planner.plan.model import Claim
from planner.results.findings import (
    Severity,
    below_rated,
    cached_reads,
    cpu_bound,
    noisy_repeats,
    rac_not_iops,
    wait_class_share,
)
from planner.results.measure import Measurement
from planner.results.stats import Series, series
from planner.results.verdicts import Verdict, verdict_for

H, L, N = Direction.HIGHER, Direction.LOWER, Direction.NEUTRAL


def m(metric: str, value: float, *, unit: str = "", direction: Direction = N, play: str = "exadata",
      host: str = "exa", repeat: int = 0, labels: dict[str, str] | None = None, headline: bool = False,
      params: dict[str, object] | None = None, warmup: bool = False, simulated: bool = False) -> Measurement:
    return Measurement("run1", play, host, "plays[0].workloads[0]", "slob", "slob", "awr.txt", "awr_text",
                       tuple((params or {}).items()), 0, repeat, warmup, metric, tuple((labels or {}).items()),
                       value, unit, direction, simulated, False, headline, "awr.txt:1")


def s(*ms: Measurement) -> list[Series]:
    return series(list(ms))


def test_cached_reads_flags_the_seeds_5gb_buffer_cache_run() -> None:
    # the commenter's 3PAR run: Logical reads 3,262,027.4/s, Physical reads 586,285.5/s
    found = cached_reads(s(m("logical_reads_per_s", 3_262_027.4), m("physical_reads_per_s", 586_285.5)))
    assert len(found) == 1 and found[0].code == "cached_reads" and found[0].severity is Severity.WARNING
    assert ("ratio", "5.6") in found[0].numbers and ("physical reads/s", "586,285.5") in found[0].numbers


def test_cached_reads_quiet_for_slob_with_a_small_recycle_pool() -> None:
    assert cached_reads(s(m("logical_reads_per_s", 167_143.1), m("physical_reads_per_s", 159_183.9))) == []


def test_cached_reads_flags_buffer_cache_against_working_set() -> None:
    found = cached_reads(s(m("buffer_cache_mb", 5056)), {"exadata": 20_480})
    assert [f.title for f in found] == ["Buffer cache large against the working set"]
    assert ("share", "25%") in found[0].numbers
    assert cached_reads(s(m("buffer_cache_mb", 64)), {"exadata": 20_480}) == []


def waits(cls1: str, pct1: float) -> list[Series]:
    top = {"section": "top"}
    return s(m("wait.pct_db_time", pct1, labels={**top, "event": "flashback buf free by RVWR", "wait_class": cls1}),
             m("wait.pct_db_time", 26.6, labels={**top, "event": "cell single block physical rea",
                                                  "wait_class": "User I/O"}),
             m("wait.pct_db_time", 2.9, labels={**top, "event": "free buffer waits", "wait_class": cls1}))


def test_flashback_configuration_wait_share_is_flagged() -> None:
    found = wait_class_share(waits("Configuration", 47.5))
    assert len(found) == 1
    f = found[0]
    assert f.code == "wait_class" and "50.4% of DB time" in f.title
    assert ("event", "flashback buf free by RVWR") in f.numbers and ("% DB time", "50.4") in f.numbers


def test_wait_share_quiet_when_user_io_dominates() -> None:
    assert wait_class_share(waits("Configuration", 5.0)) == []
    assert wait_class_share(waits("User I/O", 47.5)) == []


def test_wait_share_from_derived_class_share_when_no_pct_column() -> None:
    found = wait_class_share(s(m("wait_class_share_pct", 30.0, labels={"wait_class": "Other"})))
    assert [f.numbers[0] for f in found] == [("wait class", "Other")]


def test_cpu_bound_from_awr_host_cpu_and_iops_per_core() -> None:
    # seed: Host CPU %Idle 0.6; Violin 159,183.9 IOPS on 8 cores = 19,898 per core
    found = cpu_bound(s(m("host_cpu.idle_pct", 0.6), m("read_iops_per_core", 19_897.99)))
    assert {f.title for f in found} == {"CPU-bound run", "Read IOPS per core at the CPU ceiling"}
    assert ("AWR Host CPU busy %", "99.4") in found[0].numbers


def test_cpu_bound_from_os_stats_and_quiet_when_idle() -> None:
    assert [f.code for f in cpu_bound(s(m("os.cpu_busy_pct", 95.0)))] == ["cpu_bound"]
    assert cpu_bound(s(m("host_cpu.idle_pct", 60.0), m("read_iops_per_core", 2_156.4), m("os.cpu_busy_pct", 40))) == []


def test_noisy_repeats_over_threshold_only() -> None:
    noisy = [m("physical_read_iops", v, repeat=i, headline=True, unit="IOPS", direction=H)
             for i, v in enumerate((120_000, 138_010.5, 150_000))]
    found = noisy_repeats(s(*noisy))
    assert len(found) == 1 and ("CV %", "11.1") in found[0].numbers and ("repeats", "3") in found[0].numbers
    calm = [m("physical_read_iops", v, repeat=i, headline=True, unit="IOPS", direction=H)
            for i, v in enumerate((60_000, 61_000, 62_000))]
    assert noisy_repeats(s(*calm)) == []


def test_noisy_repeats_ignores_warmups() -> None:
    ms = [m("physical_read_iops", 10_000, warmup=True, headline=True, direction=H),
          *(m("physical_read_iops", v, repeat=i, headline=True, direction=H) for i, v in enumerate((100, 101)))]
    assert noisy_repeats(s(*ms)) == []


def test_below_rated_the_x2_8_datasheet_case() -> None:
    ms = s(m("physical_read_iops", 138_010.5, unit="IOPS", direction=H, params={"readers": 256}),
           m("physical_read_iops", 61_000, unit="IOPS", direction=H, params={"readers": 16}))
    found = below_rated(ms, {"exadata": {"physical_read_iops": 1_500_000}})
    assert len(found) == 1 and found[0].point == "readers=256"
    assert ("share", "9.2%") in found[0].numbers and ("rated", "1,500,000") in found[0].numbers
    assert below_rated(ms, {"exadata": {"physical_read_iops": 150_000}}) == []


def test_below_rated_sums_a_plays_hosts() -> None:
    ms = s(*(m("physical_read_iops", 400_000, unit="IOPS", direction=H, host=h) for h in ("n1", "n2")))
    assert below_rated(ms, {"exadata": {"physical_read_iops": 1_500_000}}) == []  # 800k of 1.5M: not "far"
    assert below_rated(ms, {"exadata": {"physical_read_iops": 2_000_000}}) != []


def test_rac_reads_are_flagged_not_iops() -> None:
    found = rac_not_iops(s(m("awr.rac", 1), m("physical_reads_per_s", 138_010.5)))
    assert [f.code for f in found] == ["rac_not_iops"]
    assert rac_not_iops(s(m("physical_reads_per_s", 138_010.5))) == []


def claim(expected: float, tol: float = 10, metric: str = "physical_read_iops") -> Claim:
    return Claim("flashdba 2012", "exadata", metric, expected, tol)


def test_verdicts_reproduced_not_reproduced_inconclusive() -> None:
    ms = s(*(m("physical_read_iops", v, repeat=i, unit="IOPS", direction=H)
             for i, v in enumerate((150_000, 159_183.9, 160_000))))
    ok = verdict_for(claim(159_183.9), ms)
    assert ok.verdict is Verdict.REPRODUCED and ok.measured == 159_183.9 and ok.diff_pct == 0
    bad = verdict_for(claim(236_486.7), ms)
    assert bad.verdict is Verdict.NOT_REPRODUCED and bad.diff_pct is not None and round(bad.diff_pct, 1) == -32.7
    straddle = verdict_for(claim(181_000, 5), ms)  # band 171,950..190,050; repeats top out at 160,000
    assert straddle.verdict is Verdict.NOT_REPRODUCED
    near = verdict_for(claim(176_000, 5), s(*(m("physical_read_iops", v, repeat=i, direction=H)
                                              for i, v in enumerate((150_000, 159_183.9, 170_000)))))
    assert near.verdict is Verdict.INCONCLUSIVE and "repeats" in near.reason


def test_verdict_inconclusive_when_missing_or_simulated() -> None:
    assert verdict_for(claim(1.0, metric="orion.max_small_iops"), s(m("x", 1))).verdict is Verdict.INCONCLUSIVE
    sim = verdict_for(claim(159_183.9), s(m("physical_read_iops", 159_183.9, direction=H, simulated=True)))
    assert sim.verdict is Verdict.INCONCLUSIVE and "simulated" in sim.reason


def test_verdict_accepts_several_series_that_agree() -> None:
    # CALIBRATE_IO prints max_iops in DBMS_OUTPUT and in DBA_RSRC_IO_CALIBRATE: the same number twice
    ms = s(m("calibrate.max_iops", 3913, labels={"form": "dbms_output"}, direction=H),
           m("calibrate.max_iops", 3913, labels={"form": "dba_rsrc_io_calibrate"}, direction=H))
    assert verdict_for(Claim("SOL II", "exadata", "calibrate.max_iops", 3913, 10), ms).verdict is Verdict.REPRODUCED
    differ = s(m("fio.iops", 1, labels={"job": "a"}, direction=H), m("fio.iops", 2, labels={"job": "b"}, direction=H))
    assert verdict_for(Claim("x", "exadata", "fio.iops", 1, 10), differ).verdict is Verdict.INCONCLUSIVE


def test_noisy_repeats_are_one_warning_per_step_not_per_metric_and_point() -> None:
    # a sweep of 3 points x 2 metrics, every series noisy: one warning naming the noisiest, the rest counted
    ms = [m(metric, base * f, repeat=i, headline=True, unit="IOPS", direction=H, params={"readers": r})
          for r, base in ((16, 100_000), (32, 150_000), (64, 200_000))
          for metric, spread in (("physical_read_iops", (0.8, 1.0, 1.2)), ("physical_write_iops", (0.7, 1.0, 1.3)))
          for i, f in enumerate(spread)]
    found = noisy_repeats(s(*ms))
    assert len(found) == 1
    assert found[0].message.startswith("Physical write IOPS varies by CV 30.0%")  # words, the worst first
    assert "5 more metric/point pair(s)" in found[0].message and ("noisy series", "6") in found[0].numbers
