"""Parser registry (detection, decoding, bad input) and the ``planner parse`` command."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.cli.parse import run_parse
from planner.errors import InputError, ParseError
from planner.parsers import KINDS, NOT_RECOGNISED, detect, parse_file, parse_text, summarise

DATA = Path(__file__).parents[1] / "data"
EXPECTED = {
    "orion/orion-11.1.0.7-vdb_summary.txt": "orion_summary",
    "orion/orion-19c-console.txt": "orion_summary",
    "orion/orion-12.2-oltp-write50.txt": "orion_summary",
    "orion/mytest_iops.csv": "orion_csv",
    "fio/fio-2.2.10-write.json": "fio_json",
    "fio/fio-3.42-randwrite-cbt.out": "fio_json",
    "fio/fio-3.33-randrw-jsonplus.json": "fio_json",
    "slb/slb-westmere-seed.txt": "slb",
    "iozone/iozone-3.506-t4-random.txt": "iozone",
    "iozone/iozone-seed-x25m.txt": "iozone",
    "ostats/iostat-x-t.txt": "iostat",
    "ostats/iostat-xz-sysstat10.txt": "iostat",
    "ostats/mpstat-P-ALL.txt": "mpstat",
    "ostats/vmstat-t.txt": "vmstat",
    "ostats/vmstat-n.txt": "vmstat",
    "hammerdb/siddhsql_hammerdb_pg_10vu.txt": "hammerdb",
    "hammerdb/oracle_awr_11g_console.txt": "hammerdb",
}


@pytest.mark.slow
@pytest.mark.parametrize(("rel", "kind"), sorted(EXPECTED.items()))
def test_detect_real_files_by_content(rel: str, kind: str) -> None:
    text = (DATA / rel).read_text()
    assert detect(text) == kind  # no file-name help
    assert parse_file(DATA / rel).kind == kind


def test_kinds_cover_every_parser() -> None:
    assert {"awr_text", "awr_html", "statspack", "awr_excerpt", "orion_summary", "orion_csv", "fio_json",
            "slb", "iozone", "calibrate_io", "iostat", "mpstat", "vmstat",
            "awr_compare", "awr_rac_html", "fio_text",  # issue 18 added these three
            "orion_csv_us",  # issue 16: a 12c+ _lat.csv is in microseconds
            "awr_rac_text",  # issue 16 row 4: the global RAC report in text
            "fio_terse",  # fio --minimal, terse versions 3-5
            "swingbench", "swingbench_console", "hammerdb",  # charbench XML/console, hammerdbcli
                "addm",  # issue 45: ADDM reports
            "pgbench", "sysbench",  # issue 44: the kinds' own parsers (planner/kinds/*/parse.py)
            "pg_stat",  # issue 44: PostgreSQL's statistics around a point
            "pgbench_log"} == set(KINDS)  # issue 44: pgbench's per-transaction log, for latency percentiles


def test_calibrate_detected() -> None:
    assert detect("max_iops = 3913\nlatency  = 0\nmax_mbps = 137\n") == "calibrate_io"


def test_not_recognised_and_empty_and_unknown_kind() -> None:
    with pytest.raises(ParseError, match="not a recognised benchmark output") as e:
        parse_text("just some notes\n", "notes.txt")
    assert e.value.source == "notes.txt"
    with pytest.raises(ParseError, match="empty input"):
        parse_text("  \n", "e.txt")
    with pytest.raises(ParseError, match="unknown kind 'nmon'"):
        parse_text("x", "x", kind="nmon")


def test_explicit_wrong_kind_names_the_parser() -> None:
    with pytest.raises(ParseError) as e:
        parse_text((DATA / "slb/slb-westmere-seed.txt").read_text(), "seed.txt", kind="fio_json")
    assert e.value.parser == "fio"


def test_binary_gzip_latin1_utf16(tmp_path: Path) -> None:
    seed = (DATA / "orion/orion-seed-x25m_summary.txt").read_bytes()
    (tmp_path / "bin.dat").write_bytes(bytes(range(256)) * 40)
    with pytest.raises(ParseError, match="binary"):
        parse_file(tmp_path / "bin.dat")
    (tmp_path / "s.txt.gz").write_bytes(gzip.compress(seed))
    assert parse_file(tmp_path / "s.txt.gz").value("orion.max_small_iops") == 3985
    (tmp_path / "broken.gz").write_bytes(gzip.compress(seed)[:20])
    with pytest.raises(ParseError, match="gzip"):
        parse_file(tmp_path / "broken.gz")
    (tmp_path / "l1.txt").write_bytes(b"Caf\xe9 r\xe9sultats\n" + seed)
    assert parse_file(tmp_path / "l1.txt").value("orion.max_large_mbps") == 139.22
    (tmp_path / "u16.txt").write_bytes(seed.decode().encode("utf-16"))
    assert parse_file(tmp_path / "u16.txt").value("orion.min_small_latency_ms") == 0.25
    (tmp_path / "crlf.txt").write_bytes(seed.replace(b"\n", b"\r\n"))
    assert parse_file(tmp_path / "crlf.txt").value("orion.max_small_iops") == 3985
    with pytest.raises(ParseError, match="cannot read"):
        parse_file(tmp_path / "missing.txt")


def test_summarise_headlines() -> None:
    fio = parse_file(DATA / "fio/fio-3.33-randread.json")
    assert {m.key for m in summarise(fio)} == {
        "fio.iops{job=randread,dir=read}", "fio.bw_mbs{job=randread,dir=read}",
        "fio.lat_ms{stat=mean,job=randread,dir=read}", "fio.clat_ms{stat=p99,job=randread,dir=read}"}
    orion = parse_file(DATA / "orion/orion-19c-console.txt")
    assert [m.value for m in summarise(orion)][:2] == [58778, 1571.33]
    slb = parse_file(DATA / "slb/slb-westmere-seed.txt")
    assert [m.value for m in summarise(slb)] == [101281934, 96178233, 59615316, 72611381]
    iops_csv = parse_file(DATA / "orion/mytest_iops.csv")
    assert [m.value for m in summarise(iops_csv)] == [6210]
    ioz = parse_file(DATA / "iozone/iozone-seed-x25m.txt")
    assert [round(m.value) for m in summarise(ioz)] == [4681, 585]


def test_run_parse_plain_table() -> None:
    out = io.StringIO()
    rc = run_parse([DATA / "orion/orion-seed-x25m_summary.txt"], "table", out)
    lines = out.getvalue().splitlines()
    assert rc == 0
    # issue 18 item 4: each file's line first (what it was read as, its version, what was not read)
    assert lines[0].endswith("orion-seed-x25m_summary.txt: read as ORION summary/console, version not printed, "
                             "everything read")
    assert lines[1].split() == ["file", "kind", "metric", "value", "unit", "direction", "line"]
    assert "orion.max_small_iops" in lines[3] and "3985" in lines[3] and lines[3].rstrip().endswith("3")


def test_run_parse_json_csv_and_exit_code(tmp_path: Path) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_text("nothing to see\n")
    files = [DATA / "slb/slb-westmere-seed.txt", junk]
    out = io.StringIO()
    assert run_parse(files, "json", out) == 2
    doc = json.loads(out.getvalue())
    assert doc[0]["kind"] == "slb" and doc[1]["kind"] is None
    assert NOT_RECOGNISED in doc[1]["error"]
    rops = [m for m in doc[0]["metrics"] if m["name"] == "slb.rops_per_s"][0]
    assert rops == {"name": "slb.rops_per_s", "labels": {"run": "1"}, "value": 101281934.0, "unit": "ops/s",
                    "direction": "higher", "derived": False,
                    "source": {"file": str(files[0]), "line": 59}}
    out = io.StringIO()
    assert run_parse([DATA / "slb/slb-westmere-seed.txt"], "csv", out) == 0
    rows = list(csv.reader(io.StringIO(out.getvalue())))
    assert rows[0] == ["file", "kind", "metric", "value", "unit", "direction", "line", "derived"]
    assert [str(files[0]), "slb", "slb.rops_per_s{run=1}", "101281934", "ops/s", "higher", "59", "false"] in rows


def test_run_parse_adds_derived_metrics_for_awr_family() -> None:
    """The seed's "IOPS per core" and latency-from-waits come out of `planner parse`, flagged derived."""
    report = DATA / "awr/awr_122_slob2.html"
    out = io.StringIO()
    assert run_parse([report], "csv", out) == 0
    rows = {r[2]: r for r in csv.reader(io.StringIO(out.getvalue()))}
    assert rows["physical_read_iops{basis=requests}"][3:] == ["8047.3", "IOPS", "higher", "53", "true"]
    assert rows["read_iops_per_core"][7] == "true" and rows["physical_read_io_requests_per_s"][7] == "false"
    out = io.StringIO()
    run_parse([report], "table", out)
    assert "read_iops_per_core (derived)" in out.getvalue()
    out = io.StringIO()
    run_parse([DATA / "slb/slb-westmere-seed.txt"], "json", out)
    slb = json.loads(out.getvalue())[0]["metrics"]
    # SLB's only computed figures are the per-process latency's min/median/max (issue 15 item 14); what the
    # kit printed stays "read", and no AWR-family formula is applied to it
    assert ({m["name"] if "name" in m else m["key"].split("{")[0] for m in slb if m["derived"]}
            <= {"slb.avg_nsec_per_op"})
    assert any(not m["derived"] for m in slb)


@pytest.mark.slow
def test_run_parse_partial_errors_exit_2_and_are_listed() -> None:
    out = io.StringIO()
    assert run_parse([DATA / "orion/orion-seed-x25m_summary.txt", DATA / "iozone/iozone-seed-x25m.txt"],
                     "table", out) == 0
    out = io.StringIO()
    rc = run_parse([DATA / "orion/mytest_iops.csv", DATA / "orion/README.md"], "table", out)
    assert rc == 2 and "error: " in out.getvalue()


def test_run_parse_rejects_unknown_format() -> None:
    with pytest.raises(InputError):
        run_parse([], "xml", io.StringIO())


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000), st.sampled_from(["x.txt", "a_iops.csv", "r.json", "awr.html", "iostat.out"]))
def test_arbitrary_bytes_raise_only_parse_error(tmp_path_factory: pytest.TempPathFactory, data: bytes,
                                                name: str) -> None:
    path = tmp_path_factory.mktemp("h") / name
    path.write_bytes(data)
    try:
        parsed = parse_file(path)
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert parsed.metrics or parsed.errors  # never an empty success


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.text(max_size=3000), st.sampled_from([None, *KINDS]))
def test_arbitrary_text_into_every_kind_raises_only_parse_error(text: str, kind: str | None) -> None:
    try:
        parsed = parse_text(text, "h.txt", kind)
    except ParseError as e:
        assert e.parser and e.section  # a named error
    else:
        assert parsed.metrics or parsed.errors  # never an empty success


def test_missing_parser_module_disables_only_its_kinds(monkeypatch: pytest.MonkeyPatch) -> None:
    import planner.parsers as registry

    monkeypatch.setitem(registry._modules, "awr_text", ImportError("No module named 'awr_text'"))
    with pytest.raises(ParseError, match="the awr_text parser is not available"):
        parse_text("WORKLOAD REPOSITORY report for\n", "awr.txt", kind="awr_text")
    assert detect((DATA / "fio/fio-2.2.10-write.json").read_text(), "awr.txt") == "fio_json"


def test_summarise_unknown_kind_is_empty() -> None:
    from planner.metrics import MetricSink

    sink = MetricSink("a")
    sink.add("x", 1, "u")
    sink.add("y", 2, "u", derived=True)
    head = summarise(sink.freeze("nonexistent_kind"))
    assert head == []  # unknown kinds have no headline
