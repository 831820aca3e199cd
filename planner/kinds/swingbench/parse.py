"""Swingbench charbench results XML (``charbench ... -r results.xml``).

The file is one ``<Results xmlns="http://www.dominicgiles.com/swingbench">`` with an ``<Overview>`` (benchmark
name, run time, completed/failed transactions, average TPS, maximum transaction rate, users, version), a
``<Configuration>``, ``<TransactionResults>`` (one ``<Result id="...">`` per transaction type: count, failed,
min/average/max response in ms and, with ``-stats full``, percentiles such as ``<NinetiethPercentile>``) and
``<BenchmarkMetrics>`` (``<TPSReadings>``: ``epoch-ms, tps,`` pairs).

Metrics: ``swingbench.completed_txns``, ``swingbench.failed_txns``, ``swingbench.tps`` (average, as printed),
``swingbench.tpm`` (derived: the average TPS times 60), ``swingbench.max_tps`` (derived: the highest TPS
reading), ``swingbench.max_tpm`` (``MaximumTransactionRate``: Swingbench's peak rate is per minute),
``swingbench.users``, ``swingbench.run_time_s``; per transaction type (label ``transaction``):
``swingbench.tx_count``, ``swingbench.tx_failed``, ``swingbench.response_ms`` with ``stat`` = min/avg/max/pNN.
Facts: ``benchmark``, ``version``, ``time_of_run``, ``connect``.

The XML is outside input: a DOCTYPE or ENTITY declaration (billion laughs, external entities) is refused before
any parsing, and so is a file over MAX_BYTES; the tree is built with its depth and element count checked
(MAX_DEPTH, MAX_ELEMENTS), so 63 MB of nesting stops early; elements are namespace-blind so a file without
the xmlns reads too.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import cast

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, Parsed
from planner.parsers.numbers import put, read

# A full-stats run of a day writes a few MB (TPS, response and CPU readings once a second); far above that is
# not a results file, and is refused before it is held as a tree.
MAX_BYTES = 64 << 20
MAX_DEPTH = 64
MAX_ELEMENTS = 50_000  # charbench writes a few hundred (readings are comma lists in one element each)
_CHUNK = 1 << 16
_DECLARATION = re.compile(r"<!\s*(?:DOCTYPE|ENTITY)", re.I)
_ROOT = re.compile(r"<(?:\w+:)?Results\b[^>]*>")
_MARKERS = ("TotalCompletedTransactions", "AverageTransactionsPerSecond", "TransactionResults")
_HMS = re.compile(r"^\s*(\d+):(\d{1,2}):(\d{1,2})(?:\.\d+)?\s*$")

_UNITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
          "ninth": 9}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
_TENS_ORDINAL = {"tenth": 10, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60,
                 "seventieth": 70, "eightieth": 80, "ninetieth": 90, "hundredth": 100}
_TEENS = {"eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
          "seventeenth": 17, "eighteenth": 18, "nineteenth": 19}
_FIRST = ("swingbench.tps", "swingbench.tpm", "swingbench.max_tps")
_RESPONSE = {"MinimumResponse": "min", "AverageResponse": "avg", "MaximumResponse": "max"}


# A post or a ticket often quotes only the <Overview> element of results.xml, with no <Results> around it.
_OVERVIEW = re.compile(r"<(?:\w+:)?Overview\b[^>]*>.*?</(?:\w+:)?Overview\s*>", re.S)


def looks_like(text: str) -> bool:
    head = text[:200_000]
    return "dominicgiles.com/swingbench" in head or (
        (_ROOT.search(head) is not None or _OVERVIEW.search(head) is not None)
        and any(f"<{m}" in head for m in _MARKERS))


def _whole(text: str) -> tuple[str, bool]:
    """The results document, and whether it was only an <Overview> quoted on its own (put inside <Results>)."""
    if _ROOT.search(text[:200_000]) is None and (m := _OVERVIEW.search(text[:MAX_BYTES])) is not None:
        return f"<Results>{m.group(0)}</Results>", True
    return text, False


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _children(elem: ET.Element) -> dict[str, ET.Element]:
    """Child elements by local name (the first of each)."""
    out: dict[str, ET.Element] = {}
    for child in elem:
        out.setdefault(_local(child.tag), child)
    return out


def _text(elem: ET.Element | None) -> str:
    return (elem.text or "").strip().strip('"').strip() if elem is not None else ""


def percentile_of(tag: str) -> int | None:
    """``NinetiethPercentile`` -> 90, ``NinetyFifthPercentile`` -> 95, ``Percentile99`` -> 99; else None."""
    low = tag.lower()
    if not low.endswith("percentile"):
        m = re.fullmatch(r"(?:percentile|p)(\d{1,2}(?:\.\d+)?)", low)
        return int(float(m.group(1))) if m else None
    word = low[: -len("percentile")]
    if word in _TENS_ORDINAL or word in _TEENS or word in _UNITS:
        return _TENS_ORDINAL.get(word) or _TEENS.get(word) or _UNITS[word]
    for tens, n in _TENS.items():
        if word.startswith(tens) and word[len(tens):] in _UNITS:
            return n + _UNITS[word[len(tens):]]
    return None


def _root(text: str, source: str) -> ET.Element:
    if len(text) > MAX_BYTES:
        raise ParseError("swingbench", "whole file", f"{len(text)} characters is over the {MAX_BYTES >> 20} MB a "
                         "results file can be; not read", source=source)
    if _DECLARATION.search(text):
        raise ParseError("swingbench", "whole file", "a DOCTYPE or ENTITY declaration: charbench never writes one, "
                         "and entities are how hostile XML expands or reads local files; not read", source=source)
    # Some copies carry a comment (a licence header) before the XML declaration, which XML forbids: the
    # declaration says only the encoding, already decoded here, so it is dropped wherever it stands.
    body = text.lstrip("\ufeff")  # a byte-order mark before the root is no content
    if (decl := re.search(r"<\?xml[^>]*\?>", body[:10_000], re.I)) is not None:
        body = body[:decl.start()] + body[decl.end():]
    try:
        return _bounded_tree(body, source)
    except ET.ParseError as e:
        raise ParseError("swingbench", "XML", f"not well-formed XML ({e})", source=source) from None


def _bounded_tree(body: str, source: str) -> ET.Element:
    """The tree, built while its depth and element count are checked: 63 MB of nested elements (a 62 KB
    gzip) once took 2.6 GB as a tree. charbench writes a few hundred elements, 5 deep: past MAX_ELEMENTS or
    MAX_DEPTH it is not a results file, and the parse stops there."""
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    root: ET.Element | None = None
    depth = count = 0
    for at in range(0, len(body), _CHUNK):
        parser.feed(body[at:at + _CHUNK])
        for item in parser.read_events():
            event, elem = cast(tuple[str, object], item)  # typeshed's union covers the namespace events too
            if event == "end":
                depth -= 1
                continue
            assert isinstance(elem, ET.Element)  # "start" events carry the element
            root = elem if root is None else root
            depth, count = depth + 1, count + 1
            if depth > MAX_DEPTH or count > MAX_ELEMENTS:
                what = f"nested over {MAX_DEPTH} deep" if depth > MAX_DEPTH else f"over {MAX_ELEMENTS} elements"
                raise ParseError("swingbench", "whole file", f"{what}: a charbench results file has a few hundred "
                                 "elements, a few deep; not read", source=source)
    parser.close()
    if root is None:
        raise ET.ParseError("no element found")
    return root


def _number(sink: MetricSink, elem: ET.Element | None, section: str) -> float | None:
    if elem is None:
        return None
    raw = _text(elem)
    if raw.lower() in ("nan", "infinity", "-infinity"):  # Java's words for a type that never ran: no value
        return None
    r = read(raw)
    if r.value is None and r.problem != "blank":
        sink.errors.append(ParseError("swingbench", section, f"<{_local(elem.tag)}> {raw[:30]!r} is not a number; "
                                      "value skipped", source=sink.source))
    return r.value


def _seconds(raw: str) -> float | None:
    m = _HMS.match(raw)
    if m:
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
    return read(raw).value


def _overview(sink: MetricSink, root: dict[str, ET.Element]) -> int:
    ov = _children(root["Overview"]) if "Overview" in root else {}
    conf = _children(root["Configuration"]) if "Configuration" in root else {}
    found = 0
    for tag, name, unit, direction in (
            ("TotalCompletedTransactions", "swingbench.completed_txns", "transactions", Direction.HIGHER),
            ("TotalFailedTransactions", "swingbench.failed_txns", "transactions", Direction.LOWER),
            ("AverageTransactionsPerSecond", "swingbench.tps", "transactions/s", Direction.HIGHER),
            ("MaximumTransactionRate", "swingbench.max_tpm", "transactions/min", Direction.HIGHER)):
        value = _number(sink, ov.get(tag), "Overview")
        if value is not None:
            put(sink, name, value, unit, direction)
            found += 1
    # never `a or b` on elements: a leaf Element is falsy
    users = next((e for e in (ov.get("TotalNumberOfUsers"), conf.get("NumberOfUsers"), conf.get("Users"))
                  if e is not None), None)
    if (n := _number(sink, users, "Overview")) is not None:
        put(sink, "swingbench.users", n, "users")
    if (run := _seconds(_text(ov.get("TotalRunTime")))) is not None:
        put(sink, "swingbench.run_time_s", run, "s")
    for tag, fact in (("BenchmarkName", "benchmark"), ("SwingbenchVersion", "version"),
                      ("TimeOfRun", "time_of_run"), ("Comment", "comment")):
        if words := _text(ov.get(tag)):
            sink.facts[fact] = words[:200]
    return found


def _result_metric(tag: str) -> tuple[str, str, str] | None:
    """(metric, unit, stat) for a child of ``<Result>``; None for what is not read (the histogram)."""
    if tag == "TransactionCount":
        return "swingbench.tx_count", "transactions", ""
    if tag == "FailedTransactionCount":
        return "swingbench.tx_failed", "transactions", ""
    if tag in _RESPONSE:
        return "swingbench.response_ms", "ms", _RESPONSE[tag]
    pct = percentile_of(tag)
    return ("swingbench.response_ms", "ms", f"p{pct}") if pct is not None else None


def _transactions(sink: MetricSink, root: dict[str, ET.Element]) -> int:
    found = 0
    for result in root.get("TransactionResults", ()):
        name = (result.get("id") or "").strip()
        if _local(result.tag) != "Result" or not name:
            continue
        labels = {"transaction": name[:100]}
        for child in result:
            what = _result_metric(_local(child.tag))
            value = _number(sink, child, f"Result {name[:40]}") if what else None
            if what is None or value is None:
                continue
            metric, unit, stat = what
            put(sink, metric, value, unit, Direction.HIGHER if metric == "swingbench.tx_count" else Direction.LOWER,
                labels={**labels, "stat": stat} if stat else labels)
            found += 1
    return found


def _readings(sink: MetricSink, root: dict[str, ET.Element]) -> None:
    """The highest of the once-a-second TPS readings (``epoch-ms, tps,`` pairs)."""
    metrics = _children(root["BenchmarkMetrics"]) if "BenchmarkMetrics" in root else {}
    raw = _text(metrics.get("TPSReadings"))
    values = [read(v).value for v in raw.replace("\n", " ").split(",") if v.strip()]
    rates = [v for v in values[1::2] if v is not None]
    if rates:
        put(sink, "swingbench.max_tps", max(rates), "transactions/s", Direction.HIGHER, derived=True)


def parse(text: str, source: str = "<text>") -> Parsed:
    text, fragment = _whole(text)
    root_elem = _root(text, source)
    if _local(root_elem.tag) != "Results":
        raise ParseError("swingbench", "XML", f"root element is <{_local(root_elem.tag)}>, not <Results>",
                         source=source)
    sink = MetricSink(source)
    root = _children(root_elem)
    found = _overview(sink, root) + _transactions(sink, root)
    if not found:
        raise ParseError("swingbench", "Overview", "no TotalCompletedTransactions, AverageTransactionsPerSecond or "
                         "TransactionResults values", source=source)
    tps = next((m.value for m in sink.metrics if m.name == "swingbench.tps"), None)
    if tps is not None:
        put(sink, "swingbench.tpm", tps * 60, "transactions/min", Direction.HIGHER, derived=True)
    _readings(sink, root)
    # the rates first: a report's result line and tables take a kind's headline metrics in the order read
    sink.metrics.sort(key=lambda m: _FIRST.index(m.name) if m.name in _FIRST else len(_FIRST))
    # under <Connection> in some files, straight under <Configuration> in others
    conf = root.get("Configuration")
    found_cs = next((e for e in conf.iter() if _local(e.tag) == "ConnectString"), None) if conf is not None else None
    if connect := _text(found_cs):
        sink.facts["connect"] = connect[:200]
    if fragment:
        sink.facts["fragment"] = "the <Overview> element alone"
    return sink.freeze("swingbench")


# -- charbench's console (-v users,tpm,tps,...): one line a second under a "Time Users TPM TPS ..." header -------
# [ \t], never \s: under re.M a \s* crosses blank lines, and a run of them makes detection quadratic
_CONSOLE_HEAD = re.compile(r"^[ \t]*Time[ \t]+Users[ \t]+(?:\S+[ \t]+)*?(?:TPM|TPS)\b.*$", re.M)
_CONSOLE_ROW = re.compile(r"^\s*\d{1,2}:\d{2}:\d{2}\s+\[(\d+)/(\d+)\]((?:\s+\S+)*)\s*$")


def looks_like_console(text: str) -> bool:
    head = _CONSOLE_HEAD.search(text[:200_000])
    return head is not None and any(_CONSOLE_ROW.match(ln) for ln in text[head.end():head.end() + 4000].splitlines())


def parse_console(text: str, source: str = "<text>") -> Parsed:
    """TPS and TPM over the lines where every user is connected (the ramp-up's lines are not the rate), their
    mean and max; users; errors (the highest count printed). Columns are found by the header's names."""
    sink = MetricSink(source)
    head = _CONSOLE_HEAD.search(text)
    if head is None:
        raise ParseError("swingbench_console", "header", "no 'Time Users TPM TPS' header", source=source)
    names = head.group(0).split()[2:]  # after Time and Users
    series: dict[str, list[float]] = {}
    users = 0
    for no, line in enumerate(text[head.end():].splitlines(), text.count("\n", 0, head.end()) + 1):
        m = _CONSOLE_ROW.match(line)
        if not m:
            continue
        active, users = int(m.group(1)), int(m.group(2))
        for name, cell in zip(names, m.group(3).split(), strict=False):
            r = read(cell)
            if r.value is None:
                sink.errors.append(ParseError("swingbench_console", name, f"{cell[:30]!r} is not a number",
                                              source=source, line=no))
            elif name in ("TPM", "TPS", "Errors") and (active == users or name == "Errors"):
                series.setdefault(name, []).append(r.value)
    for name, metric, unit in (("TPS", "swingbench.console_tps", "transactions/s"),
                               ("TPM", "swingbench.console_tpm", "transactions/min")):
        if values := series.get(name):
            put(sink, metric, sum(values) / len(values), unit, Direction.HIGHER, labels={"stat": "mean"})
            put(sink, metric, max(values), unit, Direction.HIGHER, labels={"stat": "max"})
    if not sink.metrics:
        raise ParseError("swingbench_console", "rows", "no line with every user connected and a TPS or TPM value",
                         source=source)
    put(sink, "swingbench.users", users, "users")
    if errors := series.get("Errors"):
        put(sink, "swingbench.console_errors", max(errors), "errors", Direction.LOWER)
    return sink.freeze("swingbench_console")
