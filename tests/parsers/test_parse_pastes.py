"""Issue 18: the layouts people paste. Real files where one was found (sources in the tests/data READMEs);
where none was, a constructed sample is built here from a real file plus the named damage, and says so."""

from __future__ import annotations

import re
from pathlib import Path

from planner.parsers import describe, detect, parse_file, parse_text

DATA = Path(__file__).parents[1] / "data"


def test_21c_adg_standby_header_only_fragment() -> None:
    """Real: `head -20` of an awrrpt text report taken on a 21c Active Data Guard standby."""
    p = parse_file(DATA / "awr/awr_21c_adg_standby_header.txt")
    assert p.kind == "awr_text"
    assert (p.fact("db_name"), p.fact("dbid"), p.fact("unique_name"), p.fact("db_role"), p.fact("edition")) == \
        ("DBSDU", "3442244332", "DBSDU_fra2b", "PHYSICAL STANDBY", "XP")
    assert (p.fact("version"), p.fact("rac"), p.fact("cdb")) == ("21.0.0.0.0", "NO", "YES")
    assert (p.fact("instance"), p.fact("inst_num"), p.fact("startup_time"), p.fact("user_name"),
            p.fact("system_data_visible")) == ("DBSDU", "1", "23-Jun-21 09:29", "SYS", "YES")
    assert p.fact("containers") == "CDB$ROOT,PDB$SEED,PDBSDU"
    assert (p.fact("host_name"), p.value("cpus"), p.value("cores"), p.value("memory_gb")) == ("dbcnsby", 2, 1, 14.43)
    d = describe(p)
    assert d.version == "21.0.0.0.0" and [u.split(":")[0] for u in d.unread] == ["Snapshots", "Load Profile",
                                                                                   "Top Events"]


def test_122_html_header_fields() -> None:
    p = parse_file(DATA / "awr/awr_122_aimsdb_noncdb.html")
    assert (p.fact("unique_name"), p.fact("db_role"), p.fact("edition"), p.fact("startup_time")) == \
        ("AIMSDB", "PRIMARY", "EE", "11-Sep-20 09:09")


def _markdown(text: str) -> str:
    """What an HTML-to-Markdown converter makes of a text report: column runs become | cells |, bold titles."""
    out = []
    for line in text.splitlines():
        if re.match(r"^\s*[-~ ]+$", line) and "-" in line:
            out.append("|" + "|".join("---" for _ in line.split()) + "|")
        elif re.search(r"\S\s{2,}\S", line):
            out.append("| " + " | ".join(c for c in re.split(r"\s{2,}", line.strip())) + " |")
        elif line.strip():
            out.append(f"**{line.strip()}**")
        else:
            out.append(line)
    return "\n".join(out)


def test_markdown_converted_awr_text() -> None:
    """Constructed (no real Markdown-converted AWR report was found): the real 11.2.0.1 report converted."""
    real = (DATA / "awr/awr_11201_orcl_fabioprado.txt").read_text()
    md = _markdown(real)
    assert md.count("|") > 100 and "**WORKLOAD REPOSITORY report for**" in md
    want, got = parse_text(real, "awr.txt"), parse_text(md, "awr.md")
    assert got.kind == "awr_text" and got.fact("layout") == "markdown"
    assert (got.fact("version"), got.fact("db_name")) == ("11.2.0.1.0", "ORCL")
    for name in ("db_time_per_s", "physical_reads_per_s", "logical_reads_per_s", "redo_size_per_txn", "cpus",
                 "memory_gb", "buffer_cache_mb", "elapsed_min"):
        assert got.value(name) == want.value(name) is not None, name
    assert got.value("wait.time_s", event="db file sequential read") == \
        want.value("wait.time_s", event="db file sequential read")


PROMPT = """Current Instance
~~~~~~~~~~~~~~~~
   DB Id    DB Name      Inst Num Instance
----------- ------------ -------- ------------
 3442244332 DBSDU               1 DBSDU

Specify the Report Type
~~~~~~~~~~~~~~~~~~~~~~~
Enter value for report_type: html

Enter value for num_days: 1

Listing the last day's Completed Snapshots
Instance     DB Name      Snap Id    Snap Started    Snap Level
------------ ------------ ---------- ------------------ ----------
DBSDU        DBSDU                1  29 Jun 2021 13:50    1
                                  2  29 Jun 2021 14:00    1

Using the report name awrrpt_1_1_2.html
"""


def test_awr_html_spooled_from_sqlplus_with_prompt_lines_and_crlf(tmp_path: Path) -> None:
    """Constructed: a real 19c HTML report after SQL*Plus prompt lines (awrrpt's dialogue), CRLF endings."""
    real = (DATA / "awr/awr_19c_orclcdb.html").read_text()
    f = tmp_path / "awrrpt_1_1_2.lst"
    f.write_bytes((PROMPT * 60 + "<html><head><title>AWR Report</title></head>" + real).replace("\n", "\r\n")
                  .encode())
    assert len(PROMPT * 60) > 16384  # beyond the 16 KB the detector once looked at
    p, want = parse_file(f), parse_file(DATA / "awr/awr_19c_orclcdb.html")
    assert p.kind == "awr_html" and p.fact("version") == "19.0.0.0.0"
    assert p.fact("lines_skipped").startswith("1-") and "text before <html>" in str(describe(p))
    assert {m.key: m.value for m in p.metrics} == {m.key: m.value for m in want.metrics}
    offset = (PROMPT * 60).count("\n")
    m, w = p.get("physical_reads_per_s"), want.get("physical_reads_per_s")
    assert m is not None and w is not None and m.source.line == w.source.line + offset


def test_orion_console_in_a_markdown_fence() -> None:
    """Real: ORION output pasted in a ```properties fence with the author's ## notes."""
    p = parse_file(DATA / "orion/orion-console-markdown-fenced.md")
    assert p.kind == "orion_summary" and not p.errors
    assert (p.value("orion.max_large_mbps"), p.value("orion.max_small_iops"),
            p.value("orion.min_small_latency_ms")) == (32.78, 84, 20.34984)


def test_orion_console_mangled_by_markdown() -> None:
    """Constructed from the real 19c console: underscores escaped, bold, two lines glued together."""
    real = (DATA / "orion/orion-19c-console.txt").read_text()
    mangled = real.replace("_", "\\_").replace("Maximum Large MBPS=1571.33 @ Small=0 and Large=5\n\n",
                                               "**Maximum Large MBPS=1571.33 @ Small=0 and Large=5**")
    p, want = parse_text(mangled, "orion.md"), parse_text(real, "orion.txt")
    assert p.fact("version") == "RDBMS_19.3.0.0.0DBRU_LINUX.X64_190417"
    assert (p.value("orion.max_large_mbps"), p.value("orion.max_small_iops")) == (1571.33, 58778)
    assert p.value("orion.min_small_latency_ms") == want.value("orion.min_small_latency_ms") == 0.097677


def test_dotted_calibrate_io_output() -> None:
    """Constructed (none found in public text): the seed's figures printed the dotted way."""
    p = parse_text("Max IOPS ........ 3,913\nMax MBPS ........ 137\nLatency ......... 0\n", "calibrate.txt")
    assert p.kind == "calibrate_io"
    assert (p.value("calibrate.max_iops"), p.value("calibrate.max_mbps"), p.value("calibrate.latency_ms")) == \
        (3913, 137, 0)


def test_dba_rsrc_io_calibrate_query_result_alone() -> None:
    """Real: the DBA_RSRC_IO_CALIBRATE listing of a 19c session, without the DBMS_OUTPUT block (was not
    recognised: the heading detector only matched at the start of the file)."""
    f = DATA / "calibrate/dba_rsrc_io_calibrate_19c.txt"
    assert detect(f.read_text(), f.name) == "calibrate_io"
    p = parse_file(f)
    assert (p.value("calibrate.max_iops"), p.value("calibrate.max_mbps"), p.value("calibrate.max_pmbps"),
            p.value("calibrate.latency_ms"), p.value("calibrate.num_physical_disks")) == (24002, 175, 186, 10.868, 1)
