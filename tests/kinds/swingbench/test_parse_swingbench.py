"""Swingbench results XML (charbench -r): pinned value by value on tests/data/swingbench/ (see its README)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from planner.errors import ParseError
from planner.kinds.swingbench import parse as swingbench
from planner.metrics import Direction
from planner.parsers import detect, parse_text

DATA = Path(__file__).resolve().parents[2] / "data" / "swingbench"
FULL = DATA / "soe_v2_full_stats.xml"
HEADER = DATA / "licence_header_overview.xml"


def test_full_stats_file_reads_every_overview_value() -> None:
    p = parse_text(FULL.read_text(), str(FULL))
    assert p.kind == "swingbench" and p.errors == ()
    assert p.value("swingbench.completed_txns") == 159142
    assert p.value("swingbench.failed_txns") == 3
    assert p.value("swingbench.tps") == 663.09
    assert p.value("swingbench.tpm") == pytest.approx(663.09 * 60)
    assert p.value("swingbench.max_tpm") == 41988
    assert p.value("swingbench.max_tps") == 705
    assert p.value("swingbench.users") == 25
    assert p.value("swingbench.run_time_s") == 240
    assert p.fact("benchmark") == "Order Entry (PLSQL) V2"  # charbench writes the name in quotes
    assert p.fact("version") == "2.6.0.1170"
    assert p.fact("connect") == "//oracle12c2/orcl"
    assert p.get("swingbench.tps").direction is Direction.HIGHER
    assert p.get("swingbench.failed_txns").direction is Direction.LOWER


def test_each_transaction_type_keeps_its_response_times_and_percentiles() -> None:
    p = swingbench.parse(FULL.read_text(), "t")
    po = {"transaction": "Process Orders"}
    assert p.value("swingbench.tx_count", **po) == 59142
    assert p.value("swingbench.tx_failed", **po) == 3
    assert p.value("swingbench.response_ms", **po, stat="avg") == 257.86816475601097
    assert p.value("swingbench.response_ms", **po, stat="min") == 2
    assert p.value("swingbench.response_ms", **po, stat="max") == 6274
    assert p.value("swingbench.response_ms", **po, stat="p10") == 14
    assert p.value("swingbench.response_ms", **po, stat="p50") == 170
    assert p.value("swingbench.response_ms", **po, stat="p90") == 636
    assert p.value("swingbench.response_ms", **po, stat="p95") == 1013
    assert p.value("swingbench.response_ms", transaction="Customer Registration", stat="p90") == 25
    # a type without percentiles (stats not "full") has only min/avg/max
    browse = {m.label("stat") for m in p.all("swingbench.response_ms") if m.label("transaction") == "Browse Products"}
    assert browse == {"min", "avg", "max"}
    assert p.get("swingbench.response_ms").unit == "ms"


def test_a_comment_before_the_declaration_and_grouped_numbers_still_read() -> None:
    p = parse_text(HEADER.read_text(), str(HEADER))
    assert p.kind == "swingbench" and p.errors == ()
    assert p.value("swingbench.completed_txns") == 1139220
    assert p.value("swingbench.tps") == 759.99
    assert p.value("swingbench.run_time_s") == 24 * 60 + 59
    assert p.value("swingbench.max_tps") == 127
    assert p.fact("version") == "2.5.0.971"
    assert not p.all("swingbench.users")  # not in this file: missing, never 0


def test_without_namespace_it_reads_too() -> None:
    text = ("<Results><Overview><TotalCompletedTransactions>120</TotalCompletedTransactions>"
            "<AverageTransactionsPerSecond>2.5</AverageTransactionsPerSecond><TotalRunTime>0:00:48</TotalRunTime>"
            "<TotalFailedTransactions>3</TotalFailedTransactions></Overview></Results>")
    assert detect(text) == "swingbench"
    p = swingbench.parse(text, "t")
    assert (p.value("swingbench.completed_txns"), p.value("swingbench.tpm"), p.value("swingbench.run_time_s"),
            p.value("swingbench.failed_txns")) == (120, 150, 48, 3)


@pytest.mark.parametrize(("tag", "n"), [("TenthPercentile", 10), ("FiftiethPercentile", 50),
                                        ("NinetiethPercentile", 90), ("NinetyFifthPercentile", 95),
                                        ("NinetyNinthPercentile", 99), ("TwentyFifthPercentile", 25),
                                        ("SeventyFifthPercentile", 75), ("Percentile99", 99),
                                        ("ResultsHistogram", None), ("OddPercentile", None)])
def test_percentile_tags_by_their_words(tag: str, n: int | None) -> None:
    assert swingbench.percentile_of(tag) == n


def test_billion_laughs_is_refused_before_parsing() -> None:
    lol = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
           + "".join(f'<!ENTITY lol{i} "{"&lol" + str(i - 1) + ";" if i > 1 else "&lol;"}' * 10 + '">'
                     for i in range(1, 10))
           + ']><Results xmlns="http://www.dominicgiles.com/swingbench"><Overview>'
           "<TotalCompletedTransactions>&lol9;</TotalCompletedTransactions></Overview></Results>")
    start = time.monotonic()
    with pytest.raises(ParseError, match="DOCTYPE or ENTITY"):
        swingbench.parse(lol, "lol.xml")
    assert time.monotonic() - start < 5  # refused, not expanded


def test_external_entity_is_refused_and_no_file_is_read() -> None:
    xxe = ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
           '<Results xmlns="http://www.dominicgiles.com/swingbench"><Overview>'
           "<BenchmarkName>&xxe;</BenchmarkName><TotalCompletedTransactions>1</TotalCompletedTransactions>"
           "</Overview></Results>")
    with pytest.raises(ParseError, match="DOCTYPE or ENTITY") as e:
        parse_text(xxe, "xxe.xml")
    assert "root:" not in str(e.value)


def test_a_file_over_the_bound_is_refused_without_building_a_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(swingbench, "MAX_BYTES", 1000)
    with pytest.raises(ParseError, match="over the"):
        swingbench.parse(FULL.read_text(), "big.xml")


@pytest.mark.parametrize("text", [
    '<Results xmlns="http://www.dominicgiles.com/swingbench"><Overview></Overview></Results>',
    '<Results xmlns="http://www.dominicgiles.com/swingbench"><Overview><TotalCompletedTransactions>',
    '<Other xmlns="http://www.dominicgiles.com/swingbench"/>',
])
def test_empty_truncated_or_foreign_files_raise_named_errors(text: str) -> None:
    with pytest.raises(ParseError, match="swingbench parser"):
        swingbench.parse(text, "t")


def test_an_unreadable_number_is_named_not_zero() -> None:
    text = ('<Results xmlns="http://www.dominicgiles.com/swingbench"><Overview>'
            "<TotalCompletedTransactions>12,34</TotalCompletedTransactions>"
            "<AverageTransactionsPerSecond>5</AverageTransactionsPerSecond></Overview></Results>")
    p = swingbench.parse(text, "t")
    assert not p.all("swingbench.completed_txns")
    assert any("TotalCompletedTransactions" in str(e) for e in p.errors)


def test_an_escaped_character_keeps_the_file_xml_not_a_web_page() -> None:
    # "&amp;" once made the paste unwrapper take the file for HTML and strip every tag before detection
    text = FULL.read_text().replace('"Test of full stats"', '"R&amp;D array, 25 users"')
    p = parse_text(text, "results.xml")
    assert p.kind == "swingbench" and p.fact("comment") == "R&D array, 25 users"
    assert p.value("swingbench.tps") == 663.09


def test_the_headline_is_tps_tpm_peak_and_failures() -> None:
    from planner.parsers import summarise

    heads = [m.name for m in summarise(swingbench.parse(FULL.read_text(), "t"))]
    assert heads == ["swingbench.tps", "swingbench.tpm", "swingbench.max_tps", "swingbench.failed_txns"]


def test_a_byte_order_mark_before_the_declaration_still_reads() -> None:
    p = parse_text("\ufeff" + FULL.read_text(), "results.xml")
    assert p.kind == "swingbench" and p.value("swingbench.completed_txns") == 159142


CONSOLE = DATA / "charbench_console_4users.txt"


def test_console_columns_read_by_their_header_names() -> None:
    p = parse_text(CONSOLE.read_text(), "charbench.log")
    assert p.kind == "swingbench_console" and p.errors == ()
    # the [0/4] ramp-up line is not a rate; the two lines with all 4 users are
    assert p.value("swingbench.console_tps", stat="mean") == 4
    assert p.value("swingbench.console_tps", stat="max") == 8
    assert p.value("swingbench.console_tpm", stat="max") == 8
    assert p.value("swingbench.users") == 4
    assert p.value("swingbench.console_errors") == 0


def test_console_with_columns_in_another_order_and_an_unreadable_cell() -> None:
    text = ("Time     Users       TPS      TPM\n12:00:01 [8/8]       100      6,000\n"
            "12:00:02 [8/8]       120      7,2x0\n")
    p = swingbench.parse_console(text, "t")
    assert p.value("swingbench.console_tps", stat="mean") == 110
    assert p.value("swingbench.console_tpm", stat="max") == 6000
    assert any("TPM" in str(e) and e.line == 3 for e in p.errors)


def test_console_without_rows_is_a_named_error() -> None:
    with pytest.raises(ParseError, match="every user connected"):
        swingbench.parse_console("Time     Users       TPM      TPS\n10:58:35 [0/4]       0        0\n", "t")


def test_connect_string_straight_under_configuration_and_nan_for_a_type_that_never_ran() -> None:
    text = ('<Results xmlns="http://www.dominicgiles.com/swingbench"><Overview>'
            "<TotalCompletedTransactions>10</TotalCompletedTransactions></Overview>"
            "<Configuration><NumberOfUsers>4</NumberOfUsers><ConnectString>//db/soe</ConnectString></Configuration>"
            '<TransactionResults><Result id="Sales Rep Query"><TransactionCount>0</TransactionCount>'
            "<AverageResponse>NaN</AverageResponse></Result></TransactionResults></Results>")
    p = swingbench.parse(text, "t")
    assert p.fact("connect") == "//db/soe" and p.value("swingbench.users") == 4
    assert p.errors == () and not p.all("swingbench.response_ms")
    assert p.value("swingbench.tx_count", transaction="Sales Rep Query") == 0


def test_an_overview_quoted_alone_in_a_markdown_post() -> None:
    """Issue 45: a post quoting only results.xml's <Overview> in an ```xml fence, prose around it (constructed from
    the constructed soe_v2_full_stats.xml: no real post was found)."""
    from planner.parsers import parse_text

    x = (DATA / "soe_v2_full_stats.xml").read_text()
    overview = x[x.index("<Overview>"):x.index("</Overview>") + len("</Overview>")]
    post = f"Here are my results from last night:\n\n```xml\n{overview}\n```\n\nAny idea why TPS is low?\n"
    p = parse_text(post, "post.md")
    assert p.kind == "swingbench" and not p.errors and p.fact("fragment") == "the <Overview> element alone"
    assert (p.value("swingbench.tps"), p.value("swingbench.failed_txns")) == (663.09, 3)
    assert p.value("swingbench.users") == 25
