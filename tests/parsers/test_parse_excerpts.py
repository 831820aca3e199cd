"""Excerpts as pasted in the seed write-up /work/shared/seeds/slob-violin-vs-exadata.txt (flashdba blog post
"SLOB testing on Violin and Exadata" and its comments): values must parse to what the text prints."""

from __future__ import annotations

import pytest

from planner.errors import ParseError
from planner.parsers import excerpt

# Copied verbatim from the seed (line numbers of the seed file in comments).
# seed lines 5, 8-10, 13, 21-23, 37-44, 46-51, 70-76, 93-113, 131-146, 119-127
HOST_X28 = ('Host Name Platform CPUs Cores Sockets Memory(GB) ---------------- -------------------------------- ---- '
            '----- ------- ---------- exadataX2-8.vmem Linux x86 64-bit 128 64 8 1009.40')
LP_X28 = 'Load Profile Per Second\n~~~~~~~~~~~~ ---------------\nPhysical reads: 138,010.5'
HOST_OEL = ('Host Name Platform CPUs Cores Sockets Memory(GB) ---------------- -------------------------------- ---- '
            '----- ------- ---------- oel57 Linux x86 64-bit 16 8 2 11.74')
LP_236 = 'Load Profile Per Second\n~~~~~~~~~~~~ ---------------\nPhysical reads: 236,486.7'
DOTTED_LP = ('Load.Profile..............Per.Second....Per.Transaction'
             '~~~~~~~~~~~~.........---------------....---------------\n'
             '......DB.Time(s):...............13.4................0.8\n'
             '.......DB.CPU(s):................2.0................0.1\n'
             '.......Redo.size:.......24,273,456.1........1,396,735.5\n'
             '...Logical.reads:............9,750.4..............561.1\n'
             '...Block.changes:...........10,927.9..............628.8\n'
             '..Physical.reads:............5,782.1..............332.7\n'
             '.Physical.writes:............6,148.2..............353.8')
DOTTED_TOP = ('Event.................................Waits.....Time(s)...(ms)...time.Wait.Class'
              '------------------------------.------------.-----------.------.------.----------\n'
              'flashback.buf.free.by.RVWR...........19,358.......2,211....114...47.5.Configurat\n'
              'cell.single.block.physical.rea....2,003,269.......1,238......1...26.6.User.I/O\n'
              'DB.CPU..............................................695..........14.9\n'
              'latch.free..........................135,055.........377......3....8.1.Other\n'
              'free.buffer.waits....................17,982.........135......8....2.9.Configurat')
EMDASH_HOST = ('Host Name Platform CPUs Cores Sockets Memory(GB)\n'
               '—————- ——————————– —- —– ——- ———-\n'
               'Linux x86 64-bit 16 8 2 70.60\n'
               '…\n'
               'Load Profile Per Second\n'
               '~~~~~~~~~~~~ —————\n'
               'Physical reads: 156,519.1')
THREEPAR = ('Cache Sizes Begin End\n'
            '~~~~~~~~~~~ ———- ———-\n'
            'Buffer Cache: 5,056M 5,056M Std Block Size: 8K\n'
            'Shared Pool Size: 5,024M 5,024M Log Buffer: 16,528K\n'
            'Load Profile Per Second Per Transaction Per Exec Per Call\n'
            '~~~~~~~~~~~~ ————— ————— ———- ———-\n'
            'DB Time(s): 79.5 2,184.2 0.01 14.51\n'
            'DB CPU(s): 31.7 870.3 0.00 5.78\n'
            'Redo size: 8,040.1 220,858.9\n'
            'Logical reads: 3,262,027.4 89,607,002.5\n'
            'Block changes: 44.4 1,219.5\n'
            'Physical reads: 586,285.5 16,105,101.7\n'
            'Physical writes: 30.3 832.3\n'
            'User calls: 5.5 150.6\n'
            'Parses: 5.7 156.4\n'
            'Hard parses: 0.6 15.7\n'
            'W/A MB processed: 0.2 5.7\n'
            'Logons: 0.0 0.9\n'
            'Executes: 12,680.0 348,316.2\n'
            'Rollbacks: 0.0 0.0\n'
            'Transactions: 0.0')
TOP5 = ('Top 5 Timed Foreground Events\n'
        '~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n'
        'Avg\n'
        'wait % DB\n'
        'Event Waits Time(s) (ms) time Wait Class\n'
        '—————————— ———— ———– —— —— ———-\n'
        'DB CPU 9,573 39.8\n'
        'db file sequential read 177,142,915 4,804 0 20.0 User I/O\n'
        'latch: cache buffers chains 124,865 1,442 12 6.0 Concurrenc\n'
        'latch free 16,703 226 14 .9 Other\n'
        'library cache lock 79 16 202 .1 Concurrenc\n'
        'Host CPU (CPUs: 32 Cores: 32 Sockets: 8)\n'
        '~~~~~~~~ Load Average\n'
        'Begin End %User %System %WIO %Idle\n'
        '——— ——— ——— ——— ——— ———\n'
        '23.16 75.62 79.7 19.7 0.0 0.6')
FG_EVENTS = ('Avg\n'
             '%Time Total Wait wait Waits % DB\n'
             'Event Waits -outs Time (s) (ms) /txn time\n'
             '————————– ———— —– ———- ——- ——– ——\n'
             'db file sequential read 177,142,915 0 4,804 0 1.61E+07 20.0\n'
             'latch: cache buffers chain 124,865 0 1,442 12 1.14E+04 6.0\n'
             'latch free 16,703 0 226 14 1,518.5 .9\n'
             'library cache lock 79 0 16 202 7.2 .1\n'
             'log file sync 167 0 1 6 15.2 .0')
LP_159 = "Load Profile Per Second\n~~~~~~~~~~~~ ---------------\nPhysical reads: 159,183.9"


@pytest.mark.parametrize("text,value", [(LP_X28, 138010.5), (LP_159, 159183.9), (LP_236, 236486.7)])
def test_load_profile_alone(text: str, value: float) -> None:
    p = excerpt.parse(text, "seed")
    assert p.kind == "awr_excerpt"
    m = p.get("physical_reads_per_s")
    assert m.value == value and m.unit == "blocks/s" and m.source.line == 3


def test_flattened_host_lines() -> None:
    a = excerpt.parse(HOST_X28)
    assert a.fact("host_name") == "exadataX2-8.vmem" and a.fact("platform") == "Linux x86 64-bit"
    assert (a.value("cpus"), a.value("cores"), a.value("sockets"), a.value("memory_gb")) == (128, 64, 8, 1009.40)
    b = excerpt.parse(HOST_OEL)
    assert b.fact("host_name") == "oel57"
    assert (b.value("cpus"), b.value("cores"), b.value("sockets"), b.value("memory_gb")) == (16, 8, 2, 11.74)


def test_em_dashes_and_missing_host_name() -> None:
    p = excerpt.parse(EMDASH_HOST)
    assert (p.value("cpus"), p.value("cores"), p.value("sockets"), p.value("memory_gb")) == (16, 8, 2, 70.60)
    assert p.fact("host_name") == "" and p.value("physical_reads_per_s") == 156519.1


def test_dotted_load_profile() -> None:
    p = excerpt.parse(DOTTED_LP)
    assert p.value("db_time_per_s") == 13.4 and p.value("db_time_per_txn") == 0.8
    assert p.value("redo_size_per_s") == 24273456.1 and p.value("redo_size_per_txn") == 1396735.5
    assert p.value("physical_reads_per_s") == 5782.1 and p.value("physical_writes_per_s") == 6148.2
    assert p.value("logical_reads_per_s") == 9750.4 and p.value("block_changes_per_txn") == 628.8


def test_dotted_top5_without_title() -> None:
    p = excerpt.parse(DOTTED_TOP)
    ev = dict(event="flashback buf free by RVWR")
    assert (p.value("wait.waits", **ev), p.value("wait.time_s", **ev), p.value("wait.avg_ms", **ev),
            p.value("wait.pct_db_time", **ev)) == (19358, 2211, 114, 47.5)
    assert p.get("wait.waits", **ev).label("wait_class") == "Configuration"
    assert p.value("wait.waits", event="cell single block physical rea") == 2003269
    assert p.value("wait.time_s", event="DB CPU") == 695 and p.value("wait.pct_db_time", event="DB CPU") == 14.9
    assert p.value("wait.avg_ms", event="free buffer waits") == 8


def test_3par_cache_sizes_and_load_profile() -> None:
    p = excerpt.parse(THREEPAR)
    assert p.value("buffer_cache_mb") == 5056 and p.value("log_buffer_kb") == 16528
    assert p.value("physical_reads_per_s") == 586285.5 and p.value("physical_reads_per_txn") == 16105101.7
    assert p.value("db_time_per_exec") == 0.01 and p.value("db_time_per_call") == 14.51
    assert p.value("executes_per_s") == 12680.0 and p.value("transactions_per_s") == 0.0


def test_top5_foreground_with_host_cpu() -> None:
    p = excerpt.parse(TOP5)
    ev = dict(event="db file sequential read")
    assert (p.value("wait.waits", **ev), p.value("wait.time_s", **ev), p.value("wait.avg_ms", **ev),
            p.value("wait.pct_db_time", **ev)) == (177142915, 4804, 0, 20.0)
    assert p.value("wait.time_s", event="DB CPU") == 9573
    assert p.get("wait.waits", event="latch: cache buffers chains").label("wait_class") == "Concurrency"
    assert p.value("host_cpu.load_avg_end") == 75.62 and p.value("host_cpu.idle_pct") == 0.6


def test_foreground_wait_events_with_scientific_notation() -> None:
    p = excerpt.parse(FG_EVENTS)
    ev = dict(event="db file sequential read")
    assert p.value("wait.waits", **ev) == 177142915 and p.value("wait.time_s", **ev) == 4804
    assert p.value("wait.pct_db_time", **ev) == 20.0
    assert p.value("wait.avg_ms", event="library cache lock") == 202


@pytest.mark.parametrize("bad", ["", "just a blog paragraph about storage", "\x00" * 100])
def test_no_section_raises(bad: str) -> None:
    with pytest.raises(ParseError):
        excerpt.parse(bad)


def test_10g_top5_layout_with_call_time_and_truncated_wait_class() -> None:
    """A real 10g/11gR1-layout Top 5 ("Avg %Total / wait Call / Time Wait Class"), RAC events, a wait class cut
    to 10 characters: tests/data/awr/top5_10g_layout_askmaclean.txt (source in tests/data/awr/README.md)."""
    from pathlib import Path

    text = (Path(__file__).parents[1] / "data/awr/top5_10g_layout_askmaclean.txt").read_text()
    p = excerpt.parse(text, "top5")
    assert not p.errors
    assert [m.label("event") for m in p.metrics if m.name == "wait.time_s"] == [
        "gc buffer busy", "enq: TX - row lock contention", "CPU time", "gc current request",
        "gc cr multi block request"]
    assert p.value("wait.waits", event="gc buffer busy") == 79083
    assert p.value("wait.time_s", event="gc buffer busy") == 73024
    assert p.value("wait.avg_ms", event="gc buffer busy") == 923
    assert p.value("wait.pct_db_time", event="gc buffer busy") == 65.4
    assert p.get("wait.time_s", event="enq: TX - row lock contention").label("wait_class") == "Application"
    assert p.value("wait.avg_ms", event="enq: TX - row lock contention") == 488
    assert p.value("wait.time_s", event="CPU time") == 12205 and p.value("wait.pct_db_time", event="CPU time") == 10.9
    assert p.get("wait.waits", event="CPU time") is None  # CPU has no waits: none invented
    assert p.value("wait.avg_ms", event="gc current request") == 1221
    assert p.value("wait.waits", event="gc cr multi block request") == 83666
    assert p.value("wait.pct_db_time", event="gc cr multi block request") == 0.9
