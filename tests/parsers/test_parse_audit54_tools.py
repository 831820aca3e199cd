"""Stop 54's held-out audit of the tool parsers (fio, sysstat, pgbench, sysbench, HammerDB, iozone): new real public
files, and real output generated here in modes the suite lacked (sources in each folder's README and in
tests/data/README.md, "Held-out audit, stop 54 (tools)"). Every value a DBA reads off each file was written down by
eye before planner read it; each must be read, and read right. ``fact:<name>`` rows are facts a report relies on
(whether iostat's first report is the average since boot), ``unit:<metric>`` rows the unit planner gives a value
(vmstat -S M).

Tally (right / wrong / missing / refused) before and after: ``python tests/parsers/test_parse_audit54_tools.py``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.parsers import parse_file
from planner.parsers.unwrap import unwrap

D = Path(__file__).parents[1] / "data"
Row = tuple[str, dict[str, str], float | str]
HAND_READ: dict[str, list[Row]] = {
    "fio/fio-3.x-all-clients-rst-indented.txt": [
        ("fio.iops", {"job": "All clients", "dir": "read"}, 433000),
        ("fio.bw_kib", {"job": "All clients", "dir": "read"}, 1692 * 1024),
        ("fio.bw_mbs", {"job": "All clients", "dir": "read"}, 1774),
        ("fio.runtime_ms", {"job": "All clients", "dir": "read"}, 120095),
        ("fio.clat_ms", {"job": "All clients", "dir": "read", "stat": "mean"}, 7.07764),
        ("fio.slat_ms", {"job": "All clients", "dir": "read", "stat": "max"}, 109.182),
        ("fio.usr_cpu_pct", {"job": "All clients"}, 4.58),
        ("fio.sys_cpu_pct", {"job": "All clients"}, 11.67),
    ],
    "fio/fio-3.33-client-two-servers-loopback.txt": [  # generated here: two servers, each its own disk stats
        ("fio.iops", {"job": "rr", "dir": "read"}, 15400),
        ("fio.bw_kib", {"job": "rr", "dir": "read"}, 60.3 * 1024),
        ("fio.iops", {"job": "rr#2", "dir": "read"}, 15700),
        ("fio.bw_mbs", {"job": "rr#2", "dir": "read"}, 64.2),
        ("fio.iops", {"job": "All clients", "dir": "read"}, 31100),
        ("fio.bw_kib", {"job": "All clients", "dir": "read"}, 121 * 1024),
        ("fio.bw_mbs", {"job": "All clients", "dir": "read"}, 127),
        ("fio.runtime_ms", {"job": "All clients", "dir": "read"}, 2001),
        ("fio.clat_ms", {"job": "All clients", "dir": "read", "stat": "mean"}, 0.06295733),
        ("fio.usr_cpu_pct", {"job": "All clients"}, 3.02),
        ("fio.disk_util_pct", {"device": "vda", "run": "1"}, 66.77),
        ("fio.disk_util_pct", {"device": "vda", "run": "2"}, 68.41),
    ],
    "fio/fio-3.33-client-two-servers-loopback.json": [
        ("fio.iops", {"job": "rr", "dir": "read"}, 15315.342329),
        ("fio.bw_kib", {"job": "rr", "dir": "read"}, 61261),
        ("fio.iops", {"job": "rr#2", "dir": "read"}, 15319.340330),
        ("fio.iops", {"job": "All clients", "dir": "read"}, 30634.682659),
        ("fio.bw_kib", {"job": "All clients", "dir": "read"}, 122538),
        ("fio.usr_cpu_pct", {"job": "All clients"}, 2.525),
        ("fio.disk_util_pct", {"device": "vda", "host": "127.0.0.1:18766"}, 64.761905),
        ("fio.disk_util_pct", {"device": "vda", "host": "127.0.0.1:18765"}, 64.962406),
    ],
    "fio/fio-3.25-randrw-group-reporting-indented.txt": [
        ("fio.iops", {"job": "test", "dir": "read"}, 295),
        ("fio.bw_kib", {"job": "test", "dir": "read"}, 1181),
        ("fio.bw_mbs", {"job": "test", "dir": "read"}, 1.21),
        ("fio.runtime_ms", {"job": "test", "dir": "read"}, 30008),
        ("fio.clat_ms", {"job": "test", "dir": "read", "stat": "mean"}, 6.72056),
        ("fio.clat_ms", {"job": "test", "dir": "read", "stat": "p99"}, 25.035),
        ("fio.iops", {"job": "test", "dir": "write"}, 304),
        ("fio.bw_kib", {"job": "test", "dir": "write"}, 1220),
        ("fio.clat_ms", {"job": "test", "dir": "write", "stat": "p99.99"}, 17.433),
        ("fio.usr_cpu_pct", {"job": "test"}, 0.33),
        ("fio.sys_cpu_pct", {"job": "test"}, 1.70),
        ("fio.disk_util_pct", {"device": "vda"}, 99.75),
    ],
    "fio/fio-2.2.8-five-groups-mixed.txt": [
        ("fio.iops", {"job": "hdd_4kws", "dir": "mixed"}, 482),
        ("fio.bw_kib", {"job": "hdd_4kws", "dir": "mixed"}, 1929.3),
        ("fio.runtime_ms", {"job": "hdd_4kws", "dir": "mixed"}, 30056),
        ("fio.clat_ms", {"job": "hdd_4kws", "dir": "mixed", "stat": "mean"}, 66.33),
        ("fio.clat_ms", {"job": "hdd_4kws", "dir": "mixed", "stat": "p99"}, 86.528),
        ("fio.iops", {"job": "hdd_4kwd", "dir": "mixed"}, 489),
        ("fio.bw_kib", {"job": "hdd_4kwd", "dir": "mixed"}, 1956.1),
        ("fio.clat_ms", {"job": "hdd_4kwd", "dir": "mixed", "stat": "p99"}, 88),
        ("fio.iops", {"job": "hdd_4krd", "dir": "mixed"}, 451),
        ("fio.clat_ms", {"job": "hdd_4krd", "dir": "mixed", "stat": "mean"}, 70.61922),
        ("fio.clat_ms", {"job": "hdd_4krd", "dir": "mixed", "stat": "p99"}, 400),
        ("fio.bw_kib", {"job": "hdd_1mwd", "dir": "mixed"}, 173977),
        ("fio.usr_cpu_pct", {"job": "hdd_1mwd"}, 0.97),
        ("fio.bw_kib", {"job": "hdd_1mwd#2", "dir": "mixed"}, 174028),
        ("fio.clat_ms", {"job": "hdd_1mwd#2", "dir": "mixed", "stat": "mean"}, 5.88173),
        ("fio.disk_util_pct", {"device": "sdd"}, 99.30),
    ],
    "iozone/iozone-t12-nfs-rdma-mail.txt": [
        ("iozone.throughput", {"view": "children", "test": "initial writers", "procs": "12"}, 5008474.03),
        ("iozone.throughput", {"view": "parent", "test": "initial writers", "procs": "12"}, 4996927.80),
        ("iozone.per_process", {"stat": "min", "test": "initial writers"}, 416956.88),
        ("iozone.min_xfer", {"test": "initial writers"}, 1046272.00),
        ("iozone.throughput", {"view": "parent", "test": "rewriters"}, 5012539.29),
        ("iozone.throughput", {"view": "children", "test": "readers"}, 5805484.25),
        ("iozone.per_process", {"stat": "max", "test": "readers"}, 484444.16),
        ("iozone.per_process", {"stat": "avg", "test": "re-readers"}, 484352.26),
    ],
    "iozone/iozone-t15-cpu-markdown-breaks.txt": [
        ("iozone.throughput", {"view": "children", "test": "initial writers", "procs": "15"}, 40158.15),
        ("iozone.throughput", {"view": "parent", "test": "initial writers", "procs": "15"}, 19398.05),
        ("iozone.per_process", {"stat": "max", "test": "initial writers"}, 5415.58),
        ("iozone.min_xfer", {"test": "initial writers"}, 48.00),
        ("iozone.throughput", {"view": "children", "test": "readers"}, 638236.86),
        ("iozone.per_process", {"stat": "avg", "test": "readers"}, 42549.12),
        ("iozone.iops", {"view": "parent", "test": "readers"}, 412259.33 / 16),
    ],
    "ostats/iostat-x-sysstat9-el6-util-over-100.txt": [
        ("iostat.r_iops", {"device": "vda", "sample": "1"}, 137.57),
        ("iostat.rsec_s", {"device": "vda", "sample": "1"}, 2882.02),
        ("iostat.await_ms", {"device": "vda", "sample": "1"}, 1.67),
        ("iostat.util_pct", {"device": "vda", "sample": "1"}, 5.79),
        ("iostat.cpu_iowait_pct", {"sample": "1"}, 5.03),
        ("iostat.util_pct", {"device": "vda", "sample": "2"}, 102.04),
        ("iostat.r_await_ms", {"device": "vda", "sample": "2"}, 96.19),
        ("iostat.cpu_iowait_pct", {"sample": "2"}, 96.94),
        ("iostat.rsec_s", {"device": "vda", "sample": "3"}, 50969.07),
        ("iostat.util_pct", {"device": "vda", "sample": "3"}, 103.09),
        ("iostat.avgrq_sectors", {"device": "vda", "sample": "3"}, 537.39),
        ("iostat.queue_size", {"device": "vda", "sample": "3"}, 9.49),
        ("fact:first_sample", {}, "since_boot"),
    ],
    "ostats/iostat-y-x-sysstat904-double-spaced.md": [
        ("iostat.w_iops", {"device": "sdb", "sample": "1"}, 2.00),
        ("iostat.wsec_s", {"device": "sdb", "sample": "1"}, 6.50),
        ("iostat.await_ms", {"device": "sdb", "sample": "1"}, 5.75),
        ("iostat.util_pct", {"device": "sdb", "sample": "1"}, 1.15),
        ("iostat.cpu_user_pct", {"sample": "1"}, 16.07),
        ("iostat.cpu_idle_pct", {"sample": "1"}, 78.08),
        ("fact:first_sample", {}, "interval"),
    ],
    "ostats/iostat-y-xz-p-ALL-prompt.txt": [  # generated here, the command line as typed above the output
        ("iostat.r_iops", {"device": "vda", "sample": "1"}, 16.67),
        ("iostat.w_kbs", {"device": "vda", "sample": "1"}, 1494.12),
        ("iostat.d_iops", {"device": "vda", "sample": "1"}, 159.80),
        ("iostat.f_await_ms", {"device": "vda", "sample": "1"}, 0.15),
        ("iostat.util_pct", {"device": "vda", "sample": "2"}, 2.80),
        ("iostat.cpu_user_pct", {"sample": "1"}, 84.80),
        ("iostat.cpu_steal_pct", {"sample": "1"}, 0.49),
        ("fact:first_sample", {}, "interval"),
    ],
    "ostats/iostat-hdy-sysstat11-el8.md": [
        ("iostat.tps", {"device": "vda", "sample": "1"}, 64.0),
        ("iostat.kb_read_s", {"device": "vda", "sample": "1"}, 288.0),
        ("iostat.kb_wrtn_s", {"device": "vda", "sample": "1"}, 308.0),
        ("iostat.tps", {"device": "vda", "sample": "2"}, 12.0),
        ("iostat.kb_wrtn_s", {"device": "vda", "sample": "2"}, 84.0),
        ("iostat.kb_wrtn_s", {"device": "vda", "sample": "5"}, 100.0),
        ("fact:first_sample", {}, "interval"),
    ],
    "ostats/iostat-xd-sysstat11-el8.md": [
        ("iostat.r_iops", {"device": "vda", "sample": "1"}, 4.64),
        ("iostat.r_await_ms", {"device": "vda", "sample": "1"}, 5.86),
        ("iostat.r_areq_kb", {"device": "vda", "sample": "1"}, 18.12),
        ("iostat.util_pct", {"device": "vda", "sample": "1"}, 0.34),
        ("iostat.w_iops", {"device": "vda", "sample": "3"}, 37.0),
        ("iostat.w_kbs", {"device": "vda", "sample": "3"}, 395.5),
        ("iostat.wrqm_pct", {"device": "vda", "sample": "3"}, 21.28),
        ("iostat.util_pct", {"device": "vda", "sample": "6"}, 0.10),
        ("fact:first_sample", {}, "since_boot"),
    ],
    "ostats/sar-u-ALL-P-ALL-I-q-w-sysstat10.md": [  # CPU tables between sar's -w, -I SUM and -q tables
        ("mpstat.usr_pct", {"time": "02:57:58 PM", "cpu": "all"}, 0.12),
        ("mpstat.idle_pct", {"time": "02:57:58 PM", "cpu": "all"}, 99.75),
        ("mpstat.idle_pct", {"time": "02:57:58 PM", "cpu": "4"}, 99.01),
        ("mpstat.steal_pct", {"time": "02:57:59 PM", "cpu": "all"}, 0.12),
        ("mpstat.sys_pct", {"time": "02:58:06 PM", "cpu": "0"}, 76.24),
        ("mpstat.sys_pct", {"time": "02:58:06 PM", "cpu": "all"}, 9.62),
        ("mpstat.idle_pct", {"time": "02:58:07 PM", "cpu": "all"}, 87.48),
        ("mpstat.usr_pct", {"time": "02:58:07 PM", "cpu": "0"}, 27.27),
        ("mpstat.gnice_pct", {"time": "02:58:07 PM", "cpu": "7"}, 0.0),
    ],
    "ostats/vmstat-S-K-then-M-two-runs.md": [  # run 1 has no "run" label: "" asks for its absence
        ("vmstat.free", {"run": "", "sample": "1"}, 3167672),
        ("unit:vmstat.free", {"run": "", "sample": "1"}, "KiB"),
        ("vmstat.cache", {"run": "", "sample": "1"}, 6753820),
        ("vmstat.free", {"run": "2", "sample": "1"}, 3096),
        ("unit:vmstat.free", {"run": "2", "sample": "1"}, "MiB"),
        ("unit:vmstat.cache", {"run": "2", "sample": "1"}, "MiB"),
        ("unit:vmstat.swpd", {"run": "2", "sample": "1"}, "MiB"),
        ("unit:vmstat.si", {"run": "2", "sample": "1"}, "KiB/s"),
        ("vmstat.id", {"run": "2", "sample": "1"}, 99),
    ],
    "ostats/vmstat-S-m-mysqlslap-prompt.txt": [
        ("vmstat.free", {"sample": "1"}, 7817),
        ("unit:vmstat.free", {"sample": "1"}, "MB"),
        ("vmstat.cache", {"sample": "2"}, 6353),
        ("unit:vmstat.cache", {"sample": "2"}, "MB"),
        ("vmstat.bo", {"sample": "5"}, 12388),
        ("unit:vmstat.bo", {"sample": "5"}, "blocks/s"),
        ("vmstat.cs", {"sample": "8"}, 41028),
        ("vmstat.wa", {"sample": "2"}, 8),
    ],
    "pgbench/pg17_6_client_15_server_P6.md": [
        ("pgbench.tps", {}, 1382.749901),
        ("pgbench.latency_ms", {"stat": "avg"}, 5.779),
        ("pgbench.latency_ms", {"stat": "stddev"}, 4.091),
        ("pgbench.initial_connection_ms", {}, 122.995),
        ("pgbench.transactions", {}, 82816),
        ("pgbench.clients", {}, 8),
        ("pgbench.threads", {}, 1),
        ("pgbench.failed", {}, 0),
        ("pgbench.progress_tps", {"stat": "max"}, 1612.6),
        ("pgbench.progress_tps", {"stat": "min"}, 927.0),
        ("fact:server_version", {}, "15.14"),
    ],
    "pgbench/pg17_5_prepared_four_runs_indented.md": [
        ("pgbench.tps", {"run": "1"}, 2885.165356),
        ("pgbench.tps", {"run": "2"}, 20231.266812),
        ("pgbench.tps", {"run": "3"}, 531.683066),
        ("pgbench.tps", {"run": "4"}, 3751.476679),
        ("pgbench.latency_ms", {"run": "2", "stat": "avg"}, 0.989),
        ("pgbench.latency_ms", {"run": "4", "stat": "avg"}, 5.331),
        ("pgbench.clients", {"run": "2"}, 20),
        ("pgbench.transactions", {"run": "3"}, 5292),
        ("pgbench.initial_connection_ms", {"run": "4"}, 212.885),
        ("fact:query_mode", {}, "prepared"),
    ],
    "sysbench/sysbench_1_0_20_memory.md": [
        ("sysbench.memory_ops_per_s", {}, 17106884.26),
        ("sysbench.memory_mib_per_s", {}, 16705.94),
        ("sysbench.memory_transferred_mib", {}, 102400.0),
        ("sysbench.time_s", {}, 6.1282),
        ("sysbench.events", {}, 104857600),
        ("sysbench.threads", {}, 8),
        ("sysbench.latency_ms", {"stat": "max"}, 10.77),
    ],
    "sysbench/local_1_0_20_memory_prompt.txt": [  # generated here
        ("sysbench.memory_operations", {}, 2097152),
        ("sysbench.memory_ops_per_s", {}, 3172851.34),
        ("sysbench.memory_mib_per_s", {}, 3098.49),
        ("sysbench.memory_transferred_mib", {}, 2048.0),
        ("sysbench.time_s", {}, 0.6590),
        ("sysbench.latency_ms", {"stat": "max"}, 52.85),
        ("sysbench.threads", {}, 2),
    ],
    "sysbench/sysbench_0_4_12_memory_indented.md": [
        ("sysbench.memory_ops_per_s", {}, 6906.34),
        ("sysbench.memory_mib_per_s", {}, 6906.34),
        ("sysbench.memory_transferred_mib", {}, 10240.0),
        ("sysbench.time_s", {}, 1.4827),
        ("sysbench.latency_ms", {"stat": "avg"}, 0.14),
        ("sysbench.latency_ms", {"stat": "p95"}, 0.15),
        ("sysbench.threads", {}, 1),
    ],
    "sysbench/sysbench_0_5_memory_flush_left.txt": [
        ("sysbench.memory_ops_per_s", {}, 1436157.48),
        ("sysbench.memory_mib_per_s", {}, 11219.98),
        ("sysbench.memory_transferred_mib", {}, 2048.0),
        ("sysbench.time_s", {}, 0.1825),
        ("sysbench.latency_ms", {"stat": "max"}, 5.59),
        ("sysbench.threads", {}, 16),
    ],
    "sysbench/sysbench_1_1_memory_flush_left.txt": [
        ("sysbench.memory_ops_per_s", {}, 935770.17),
        ("sysbench.memory_mib_per_s", {}, 7310.70),
        ("sysbench.events_per_s", {}, 935770.1744),
        ("sysbench.time_s", {}, 0.2801),
        ("sysbench.latency_ms", {"stat": "p95"}, 0.02),
        ("sysbench.threads", {}, 16),
    ],
    "sysbench/sysbench_1_1_fileio_iops_glued_prompt.txt": [
        ("sysbench.file_ops_per_s", {"op": "read"}, 1853.25),
        ("sysbench.file_mib_per_s", {"op": "read"}, 28.96),
        ("sysbench.file_ops_per_s", {"op": "write"}, 1235.50),
        ("sysbench.file_mib_per_s", {"op": "write"}, 19.30),
        ("sysbench.file_ops_per_s", {"op": "fsync"}, 4020.99),
        ("sysbench.latency_ms", {"stat": "avg"}, 0.14),
        ("sysbench.latency_ms", {"stat": "p95"}, 0.39),
        ("sysbench.threads", {}, 1),
    ],
    "hammerdb/hammerdb_4_0_docs_mssql_cli_three_vu_runs.txt": [
        ("hammerdb.nopm", {"run": "1"}, 35576),
        ("hammerdb.tpm", {"run": "1"}, 81705),
        ("hammerdb.nopm", {"run": "2"}, 60364),
        ("hammerdb.tpm", {"run": "2"}, 138633),
        ("hammerdb.nopm", {"run": "3"}, 103055),
        ("hammerdb.tpm", {"run": "3"}, 236412),
        ("hammerdb.active_vu", {"run": "1"}, 1),
        ("hammerdb.active_vu", {"run": "2"}, 2),
        ("hammerdb.active_vu", {"run": "3"}, 4),
        ("hammerdb.vu_finished", {"run": "3"}, 5),
        ("hammerdb.vu_failed", {"run": "3"}, 0),
        ("fact:database", {}, "SQL Server"),
    ],
    "hammerdb/hammerdb_3_etprof_docs_mssql_log.txt": [
        ("hammerdb.nopm", {}, 101789),
        ("hammerdb.tpm", {}, 468610),
        ("hammerdb.active_vu", {}, 4),
        ("hammerdb.rampup_min", {}, 1),
        ("hammerdb.proc_calls", {"proc": "NEWORD"}, 93933),
        ("hammerdb.proc_calls", {"proc": "PAYMENT"}, 93922),
        ("hammerdb.proc_calls", {"proc": "DELIVERY"}, 9577),
        ("hammerdb.proc_avg_ms", {"proc": "NEWORD"}, 0.873),
        ("hammerdb.proc_avg_ms", {"proc": "SLEV"}, 1.541),
    ],
}


@dataclass(frozen=True)
class Tally:
    """One file's hand-read values as planner reads them."""

    right: int
    wrong: tuple[tuple[Row, list[object]], ...]
    missing: tuple[Row, ...]
    refused: str  # the parse error when the file was refused whole


def _same(got: object, value: float | str) -> bool:
    if isinstance(value, str):
        return got == value
    return isinstance(got, int | float) and abs(float(got) - value) <= 1e-6 * max(1.0, abs(value))


def tally(name: str) -> Tally:
    try:
        parsed = parse_file(D / name)
    except ParseError as e:
        return Tally(0, (), (), str(e))
    right, wrong, missed = 0, [], []
    for row in HAND_READ[name]:
        metric, labels, value = row
        if metric.startswith("fact:"):
            hits: list[object] = [parsed.fact(metric[5:])] if parsed.fact(metric[5:]) else []
        else:  # "unit:<metric>" is the unit planner gives that metric
            hits = [m.unit if metric.startswith("unit:") else m.value for m in parsed.metrics
                    if m.name == metric.removeprefix("unit:") and all(m.label(k) == v for k, v in labels.items())]
        if not hits:
            missed.append(row)
        elif not all(_same(h, value) for h in hits):
            wrong.append((row, hits))
        else:
            right += 1
    return Tally(right, tuple(wrong), tuple(missed), "")


@pytest.mark.parametrize("name", sorted(HAND_READ))
def test_every_hand_read_value_is_read_right(name: str) -> None:
    got = tally(name)
    assert not got.refused, got.refused
    assert not got.wrong, got.wrong
    assert not got.missing, got.missing
    assert got.right == len(HAND_READ[name])


def test_the_audit_has_its_files_and_values() -> None:
    assert all((D / name).is_file() for name in HAND_READ)
    assert len(HAND_READ) >= 12 and sum(len(v) for v in HAND_READ.values()) >= 120


if __name__ == "__main__":  # the tally for tests/data/README.md
    totals = [0, 0, 0, 0]
    for file in sorted(HAND_READ):
        t, n = tally(file), len(HAND_READ[file])
        counts = (t.right, len(t.wrong), len(t.missing), n if t.refused else 0)
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        print(f"{file}: right/wrong/missing/refused {counts} of {n} {t.refused[:140]}")
        for row, hits in t.wrong:
            print(f"    WRONG {row} read {hits}")
        for row in t.missing:
            print(f"    MISSING {row}")
    print(f"all: right {totals[0]}, wrong {totals[1]}, missing {totals[2]}, refused {totals[3]}", file=sys.stdout)


def test_unwrap_keeps_a_samplers_command_and_drops_other_prompts() -> None:
    # iostat -y and vmstat -S are told only by the command line (iostat(1), vmstat(8)): its prompt comes off, the
    # command stays; any other prompted command goes as before
    text = "$ iostat -y -x 1 2\n[root@db ~]# sudo vmstat -S M 1\n$ ls -l /tmp\n# a comment\nuser@h:~$ fio x.fio\n"
    lines = unwrap(text).text.split("\n")
    assert lines[:5] == ["iostat -y -x 1 2", "sudo vmstat -S M 1", "", "", ""]
