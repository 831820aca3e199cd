"""OS statistics time series: ``iostat -x`` (kinds "iostat"), ``mpstat -P ALL`` ("mpstat"),
``vmstat`` ("vmstat"), as SLOB's collectors and planner's own collectors write them.

Every value is a metric labelled ``sample`` (1-based report number) and ``time`` when the tool
printed one (``iostat -t``, mpstat's first column, ``vmstat -t``); iostat rows add ``device``,
mpstat rows ``cpu`` (``all`` or a number; mpstat's ``Average:`` rows get ``time=Average``).
The first iostat/vmstat report is the average since boot, not an interval: reports should skip
``sample=1`` (fact ``first_sample=since_boot``).

Names: ``iostat.<column>`` (``r/s`` -> ``iostat.r_iops``, ``rkB/s`` -> ``iostat.r_kbs``,
``r_await`` -> ``iostat.r_await_ms``, ``aqu-sz``/``avgqu-sz`` -> ``iostat.queue_size``,
``%util`` -> ``iostat.util_pct``, ...), ``iostat.cpu_<col>_pct`` for avg-cpu,
``mpstat.<col>_pct`` (``%usr`` -> ``mpstat.usr_pct``; older ``%user`` maps to the same name),
``vmstat.<col>``. Decimal commas (some locales) are read as points.

Layouts read as well: iostat's ``-t`` stamp in every form strftime ``%x %X`` takes in a locale (and ISO,
epoch seconds, sysstat < 8.1.6's ``Time:``), ``-o JSON``, ``--pretty`` (device name last), ``-h``/``--human``
sizes (``11.4M``) and sysstat 11's name-on-its-own-line ``-h``; mpstat's translated time column and summary
word; vmstat ``-w`` and translated column names (read by position); a report pasted with a blank line after every
line. ``first_sample`` is ``interval`` when the pasted command line shows iostat ``-y``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from planner.errors import ParseError
from planner.metrics import Direction, MetricSink, MetricTable, Parsed
from planner.parsers.lines import Ahead, each_line
from planner.parsers.mailwrap import MailWrap, column_words, cut_header
from planner.parsers.numbers import put

_H, _L, _N = Direction.HIGHER, Direction.LOWER, Direction.NEUTRAL
_IOSTAT_COLS: dict[str, tuple[str, str, Direction]] = {
    "r/s": ("r_iops", "IO/s", _H), "w/s": ("w_iops", "IO/s", _H), "d/s": ("d_iops", "IO/s", _H),
    "f/s": ("f_iops", "IO/s", _H), "tps": ("tps", "IO/s", _H),
    "rkB/s": ("r_kbs", "KB/s", _H), "wkB/s": ("w_kbs", "KB/s", _H), "dkB/s": ("d_kbs", "KB/s", _H),
    "rMB/s": ("r_mbs", "MB/s", _H), "wMB/s": ("w_mbs", "MB/s", _H), "dMB/s": ("d_mbs", "MB/s", _H),
    "rrqm/s": ("rrqm_s", "merges/s", _N), "wrqm/s": ("wrqm_s", "merges/s", _N),
    "drqm/s": ("drqm_s", "merges/s", _N), "%rrqm": ("rrqm_pct", "%", _N), "%wrqm": ("wrqm_pct", "%", _N),
    "%drqm": ("drqm_pct", "%", _N),
    "r_await": ("r_await_ms", "ms", _L), "w_await": ("w_await_ms", "ms", _L),
    "d_await": ("d_await_ms", "ms", _L), "f_await": ("f_await_ms", "ms", _L),
    "await": ("await_ms", "ms", _L), "svctm": ("svctm_ms", "ms", _L),
    "aqu-sz": ("queue_size", "requests", _N), "avgqu-sz": ("queue_size", "requests", _N),
    "rareq-sz": ("r_areq_kb", "KB", _N), "wareq-sz": ("w_areq_kb", "KB", _N),
    "dareq-sz": ("d_areq_kb", "KB", _N), "avgrq-sz": ("avgrq_sectors", "sectors", _N),
    "%util": ("util_pct", "%", _N),
    # the basic report (no -x): names as before, with their units
    "kB_read/s": ("kb_read_s", "KB/s", _H), "kB_wrtn/s": ("kb_wrtn_s", "KB/s", _H),
    "kB_dscd/s": ("kb_dscd_s", "KB/s", _H), "kB_read": ("kb_read", "KB", _N), "kB_wrtn": ("kb_wrtn", "KB", _N),
    "kB_dscd": ("kb_dscd", "KB", _N), "MB_read/s": ("mb_read_s", "MB/s", _H), "MB_wrtn/s": ("mb_wrtn_s", "MB/s", _H),
}
_MPSTAT_ALIASES = {"%user": "usr", "%system": "sys"}
_VMSTAT_UNITS = {"r": "processes", "b": "processes", "swpd": "KiB", "free": "KiB", "buff": "KiB",
                 "cache": "KiB", "inact": "KiB", "active": "KiB", "si": "KiB/s", "so": "KiB/s",
                 "bi": "blocks/s", "bo": "blocks/s", "in": "/s", "cs": "/s", "us": "%", "sy": "%",
                 "id": "%", "wa": "%", "st": "%", "gu": "%"}
# the date is the locale's %x, which has spaces in some ("2026년 12월 02일")
_BANNER = re.compile(r"^Linux\s+(\S+)\s+\(([^)]*)\)\s+(.+?)\s+(_\S+_)\s+\((\d+)\s+CPU\)")
# iostat -t prints strftime("%x %X") in the user's locale (sysstat common.c write_sample_timestamp), "%FT%T%z"
# with S_TIME_FORMAT=ISO, seconds since the epoch with -U (12.7.8+), and "Time: %X" before sysstat 8.1: a line
# that is only a date and a time, in any of those spellings, opens a report.
_DATE = (r"(?:\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\.?|\d{4}\s*[年년.]\s*\d{1,2}\s*[月월.]\s*\d{1,2}\s*[日일.]?)")
_CLOCK = r"\d{1,2}(?::|\s*[時时시h]\s*)\d{2}(?::|\s*[分분m]\s*)\d{2}(?:[.,]\d+)?(?:\s*[秒초s])?"
_MERIDIEM = r"(?:[AaPp]\.?[Mm]\.?|午前|午後|上午|下午|오전|오후)"
_TIME_OF_DAY = rf"(?:{_MERIDIEM}\s*)?{_CLOCK}(?:\s*{_MERIDIEM})?"
_STAMP = re.compile(rf"^\s*((?:Time:\s*)?(?:{_DATE}[T\s]\s*)?(?:{_MERIDIEM}\s*)?{_CLOCK}(?:\s*{_MERIDIEM})?"
                    r"(?:\s*(?:Z|[+-]\d{2}:?\d{2}|[A-Z]{2,5}))?|\d{9,11})\s*$")
_NUM = re.compile(r"^-?(\d+(?:[.,]\d+)?|[.,]\d+)$")


def _num(tok: str) -> float | None:
    return float(tok.replace(",", ".")) if _NUM.match(tok) else None


# --human / -h: "11.3M", "4.0k", "57.7%" (sysstat common.c cprintf_unit: B k M G T P, 1024 apart, sectors as kB)
_HUMAN = re.compile(r"^(-?\d+(?:[.,]\d+)?)([BkMGTP%])$")
_HUMAN_POWER = {"B": -1, "k": 0, "M": 1, "G": 2, "T": 3, "P": 4}


def _iostat_num(tok: str, col: str) -> float | None:
    """An iostat value in its column's unit, printed plain or human-readable."""
    if (plain := _num(tok)) is not None or not (m := _HUMAN.match(tok)):
        return plain
    n = float(m.group(1).replace(",", "."))
    if m.group(2) == "%":
        return n if col.startswith("%") else None
    kb = n * 1024.0 ** _HUMAN_POWER[m.group(2)]
    return kb / 1024 if "MB" in col else kb * 2 if col in ("avgrq-sz", "rsec/s", "wsec/s") else kb


def _norm(col: str) -> str:
    base = col.lstrip("%")
    name = re.sub(r"[^a-z0-9]+", "_", base.lower().replace("/s", "_s")).strip("_")
    return f"{name}_pct" if col.startswith("%") else name


def _banner(sink: MetricSink, line: str) -> None:
    """The sysstat banner's facts, from one of a file's first five lines (the first banner wins)."""
    if "kernel" not in sink.facts and (m := _BANNER.match(line.strip()[:4096])):
        sink.facts.update(kernel=m.group(1), host=m.group(2), date=m.group(3), cpus=m.group(5))


def looks_like_iostat(text: str) -> bool:
    # "Device" heads the columns, or ends them with --pretty; -o JSON is sysstat's own document
    return bool(re.search(r"^[ \t]*Device:?[ \t]+.*(r/s|tps)|^[ \t]+(?:r/s|tps)\b.*[ \t]Device[ \t]*$", text,
                          re.MULTILINE)) or _iostat_json(text) is not None


def looks_like_mpstat(text: str) -> bool:
    return bool(re.search(rf"^(?:{_TIME_OF_DAY}(?:\s+[A-Z]{{2,5}})?|\S+)\s+CPU\s+%(usr|user)\b", text, re.MULTILINE)) \
        or looks_like_sar_memory(text)


# procps translates the group line and the memory (even swpd) column names ("frei", "libre tampon", "交换 空闲"),
# never si so bi bo in cs us sy id; -w widens the group line to "--procs--"
_VMSTAT_HEAD = re.compile(r"^[ \t]*r\s+b\s+(?:\S+\s+){4}si\s+so\s+bi\s+bo\s+in\s+cs\s+us\s+sy\s+id\b", re.MULTILINE)
_VMSTAT_GROUPS = re.compile(r"^[ \t]*-*procs\b-*\s+-+\S+-+", re.MULTILINE)
# vmstat -S/--unit k|K|m|M prints the memory columns (swpd free buff cache, -a inact active) in 1000, 1024, 10^6
# or 2^20 bytes and says so nowhere in its output; "this does not change the swap (si/so) or block (bi/bo) fields"
# (vmstat(8), procps-ng). A pasted command line names the unit.
_VMSTAT_CMD = re.compile(r"(?:^|[\s#$>:])vmstat(?:\s|$)")
_VMSTAT_UNIT_OPT = re.compile(r"\s(?:-[a-zA-Z]*S\s*|--unit[=\s]\s*)([kKmM])(?=\s|$)")
_VMSTAT_MEMORY_UNIT = {"k": "kB", "K": "KiB", "m": "MB", "M": "MiB"}


def looks_like_vmstat(text: str) -> bool:
    return bool(_VMSTAT_GROUPS.search(text)) and bool(_VMSTAT_HEAD.search(text))


def looks_like(text: str) -> bool:
    return looks_like_iostat(text) or looks_like_mpstat(text) or looks_like_vmstat(text)


def parse(text: str, source: str = "<text>") -> Parsed:
    if looks_like_iostat(text):
        return parse_iostat(text, source)
    if looks_like_mpstat(text):
        return parse_mpstat(text, source)
    return parse_vmstat(text, source)


_DEVICE_HEAD = re.compile(r"^Device:?\s|^[^\d\s]\S*\s.*\sDevice$")  # --pretty puts "Device" last
# iostat -y omits the report since boot (iostat(1)): when the command line is pasted above the output, its first
# report is an interval like the others
_SKIPS_BOOT = re.compile(r"(?:^|[\s#$>:])iostat\s(?:.*\s)?-[A-Za-z]*y[A-Za-z]*(?=\s|$)")
_IOSTAT_CMD = re.compile(r"\s*(?:sudo\s+)?(?:\S*/)?iostat(?:\s|$)")  # a pasted command line ends a report


def parse_iostat(text: str, source: str = "<text>") -> Parsed:
    if (doc := _iostat_json(text)) is not None:
        return _parse_iostat_json(doc, text, source)
    return parse_iostat_lines(each_line(text), source)


def parse_iostat_lines(text_lines: Iterable[str], source: str = "<text>") -> Parsed:
    """``iostat`` text (not -o JSON) one line at a time: a file is read as it is parsed (planner.parsers)."""
    sink = MetricSink(source, table=MetricTable(source))
    lines = Ahead(text_lines)
    for k in range(5):
        if lines.has(k):
            _banner(sink, lines[k])
    sample, time, head_open, values, no_boot = 0, "", False, 0, False
    heads: set[str] = set()  # Device headers read in this report: --pretty -x splits a report under four
    seen = _Memo()
    i = 0
    while lines.has(i):
        line, stripped = lines[i], lines[i].strip()
        i += 1
        no_boot = no_boot or (not sample and _SKIPS_BOOT.search(line) is not None)
        stamp = _STAMP.match(line)
        head = _DEVICE_HEAD.match(stripped) is not None
        starts = bool(stamp) or stripped.startswith("avg-cpu:") or (head and (not sample or stripped in heads))
        if starts and not head_open:  # a new report begins with its timestamp, avg-cpu or a Device line again
            sample, head_open, time, heads = sample + 1, True, "", set()
        if stamp:
            time = re.sub(r"\s+", " ", re.sub(r"^Time:\s*", "", stamp.group(1)))
            continue
        labels = {"sample": str(sample), **({"time": time} if time else {})}
        if stripped.startswith("avg-cpu:"):
            i = _gap(lines, i, len(stripped.split()) - 1, named=False)
            values += _avg_cpu(sink, stripped.split()[1:], lines, i, labels)
            i += 1
            continue
        if head:
            head_open = False
            heads.add(stripped)
            i, read = _device_rows(sink, stripped.split(), lines, i, labels, seen)
            values += read
    if not values:
        raise ParseError("iostat", "Device", "no device rows", source=source)
    sink.facts["first_sample"] = "interval" if no_boot else "since_boot"
    return sink.freeze("iostat")


def _gap(lines: Ahead, i: int, width: int, named: bool = True) -> int:
    """Past a blank line on ``i`` when a whole row of ``width`` values follows it (a page that put a blank line
    after every line of the report); else ``i``."""
    if lines.has(i + 1) and not lines[i].strip() and len(toks := lines[i + 1].split()) == width + named \
            and sum(_iostat_num(t, "") is not None for t in toks) == width:
        return i + 1
    return i


def _avg_cpu(sink: MetricSink, cols: list[str], lines: Ahead, i: int, labels: dict[str, str]) -> int:
    """The avg-cpu values on line ``i`` (0-based) under ``cols``; how many were read."""
    vals = lines[i].split() if lines.has(i) else []
    nums = [_iostat_num(v, col) for v, col in zip(vals, cols, strict=False)]
    if len(vals) != len(cols) or None in nums:
        sink.errors.append(ParseError("iostat", "avg-cpu", "values do not match the avg-cpu header",
                                      source=sink.source, line=i + 1))
        return 0
    for col, v in zip(cols, nums, strict=True):
        if v is not None:
            put(sink, f"iostat.cpu_{_norm(col)}", v, "%", _N, i + 1, labels)
    return len(cols)


def _device_rows(sink: MetricSink, head: list[str], lines: Ahead, i: int, labels: dict[str, str],
                 seen: _Memo) -> tuple[int, int]:
    """The device rows from line ``i`` to the next blank line; --pretty puts the device name last."""
    head, i, wrap = cut_header(head, lines, i, _IOSTAT_COLS)
    last = head[-1] == "Device"
    cols = head[:-1] if last else head[1:]
    named = [(f"iostat.{m}", u, d) for m, u, d in (_IOSTAT_COLS.get(c) or (_norm(c), "", _N) for c in cols)]
    shared = tuple(labels.items())
    values, names = 0, list[str]()
    while lines.has(i) and ((row := lines[i]).strip() or (row := lines[(i := _gap(lines, i, len(cols)))]).strip()) \
            and not ("iostat" in row and _IOSTAT_CMD.match(row)):  # a blank line, a command: the report's end
        toks, no = row.split(), i + 1
        i += 1
        if names and not last and column_words(toks, _IOSTAT_COLS):  # the header's second part, then each row's
            i, read = _stanza(sink, toks, lines, i, names, shared, seen)
            values, names = values + read, []
            continue
        if len(toks) == 1 and not last and lines.has(i) and lines[i].strip():
            # sysstat 11's -h: the name on its own line, its values on the next ("%s\n%13s")
            toks, i = toks + lines[i].split(), i + 1
        while wrap and len(toks) < len(head) and lines.has(i) and (more := lines[i].split()) \
                and len(toks) + len(more) <= len(head) and _iostat_num(more[0], "") is not None:
            toks, i = toks + more, i + 1  # the row's cut-off cells: the header's column count proves it
        name, rest = (toks[-1], toks[:-1]) if last else (toks[0], toks[1:])
        if _num(name) is not None:  # "2427.95" where a device name stands: the end of a cut row
            sink.errors.append(ParseError("iostat", "device row", (wrap or MailWrap(len(lines[no - 1]), (no,)))
                                          .refusal("iostat device rows"), source=sink.source, line=no))
            continue
        nums = [seen.number(t, col) for t, col in zip(rest, cols, strict=False)]
        if len(rest) != len(cols) or None in nums:
            sink.errors.append(ParseError("iostat", "device row", f"row for {name[:30]!r} does not "
                                          "match the Device header", source=sink.source, line=no))
            continue
        # an hour of 32 devices is 2.5 million values: one label tuple and one Source per row, not per value
        sink.add_row(named, nums, no, (seen.pair("device", name), *shared))
        values += len(cols)
        names.append(name)
    return i, values


def _stanza(sink: MetricSink, head: list[str], lines: Ahead, i: int, names: list[str],
            shared: tuple[tuple[str, str], ...], seen: _Memo) -> tuple[int, int]:
    """A report a page wrapped as stanzas: the Device header's second part, then each device's second part in
    the same order, no name. Read only when each line has one number per column, else refused by name."""
    named = [(f"iostat.{m}", u, d) for m, u, d in (_IOSTAT_COLS.get(c) or (_norm(c), "", _N) for c in head)]
    rows = []
    for name in names:
        toks = lines[i].split() if lines.has(i) else []
        nums = [seen.number(t, col) for t, col in zip(toks, head, strict=False)]
        if len(toks) != len(head) or None in nums:
            sink.errors.append(ParseError("iostat", "device row", f"the Device header goes on at line {i} "
                                          f"({' '.join(head)[:60]}) but line {i + 1} is not one value per column "
                                          f"for {name[:30]!r}: the wrapped part is not read", source=sink.source,
                                          line=i + 1))
            return i, 0
        rows.append((i + 1, name, nums))
        i += 1
    for no, name, nums in rows:
        sink.add_row(named, nums, no, (seen.pair("device", name), *shared))
    return i, len(rows) * len(head)


@dataclass(slots=True)
class _Memo:
    """One object per printed value and per label within a parse: most of a report's columns print 0.00 on
    most rows (discards, flushes, merges), devices and CPUs repeat every second, and a float or a label is a
    good part of what a stored value costs. Bounded: a memo past its size starts again."""

    numbers: dict[tuple[str, str], float | None] = field(default_factory=dict)
    floats: dict[float, float] = field(default_factory=dict)
    pairs: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)

    def number(self, tok: str, col: str) -> float | None:
        """``_iostat_num`` of a token in its column."""
        if (key := (tok, col)) in self.numbers:
            return self.numbers[key]
        if len(self.numbers) > _MEMO_MAX:
            self.numbers.clear()
        self.numbers[key] = got = _iostat_num(tok, col)
        return got

    def float(self, v: float) -> float:
        if len(self.floats) > _MEMO_MAX:
            self.floats.clear()
        return self.floats.setdefault(v, v)

    def pair(self, key: str, value: str) -> tuple[str, str]:
        if len(self.pairs) > _MEMO_MAX:
            self.pairs.clear()
        return self.pairs.setdefault((key, value), (key, value))


_MEMO_MAX = 4096


def _iostat_json(text: str) -> dict[str, object] | None:
    """The document ``iostat -o JSON`` prints, or None."""
    head = text.lstrip()[:40]
    if not (head.startswith("{") and '"sysstat"' in head) or '"disk_device"' not in text:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def _json_col(key: str) -> str:
    # JSON keys are the text columns without their "%" (sysstat iostat.c write_json_ext_stat)
    return f"%{key}" if key in ("rrqm", "wrqm", "drqm", "util") else key


def _parse_iostat_json(doc: dict[str, object], text: str, source: str) -> Parsed:
    sink = MetricSink(source, table=MetricTable(source))
    # one disk or avg-cpu object per line, as sysstat prints them: the k-th one is on the k-th such line
    disk_lines = iter([n for n, ln in enumerate(each_line(text), 1) if '"disk_device"' in ln])
    cpu_lines = iter([n for n, ln in enumerate(each_line(text), 1) if '"avg-cpu"' in ln])
    hosts = _dig(doc, "sysstat", "hosts")
    for host in hosts if isinstance(hosts, list) else []:
        if not isinstance(host, dict):
            continue
        sink.facts.update({k: str(host[j]) for k, j in (("kernel", "release"), ("host", "nodename"),
                                                        ("date", "date"), ("cpus", "number-of-cpus")) if j in host})
        stats = host.get("statistics")
        for sample, stat in enumerate(stats if isinstance(stats, list) else [], 1):
            if not isinstance(stat, dict):
                continue
            labels = {"sample": str(sample), **({"time": str(stat["timestamp"])} if "timestamp" in stat else {})}
            cpu = stat.get("avg-cpu")
            if isinstance(cpu, dict):
                no = next(cpu_lines, None)
                for key, v in _numbers(cpu):
                    put(sink, f"iostat.cpu_{_norm('%' + key)}", v, "%", _N, no, labels)
            disks = stat.get("disk")
            for disk in disks if isinstance(disks, list) else []:
                if isinstance(disk, dict):
                    _json_disk(sink, disk, next(disk_lines, None), labels)
    if not sink.count():
        raise ParseError("iostat", "disk", "no disk statistics in the JSON document", source=source)
    sink.facts["first_sample"] = "since_boot"
    return sink.freeze("iostat")


def _json_disk(sink: MetricSink, disk: dict[str, object], no: int | None, labels: dict[str, str]) -> None:
    name = str(disk.get("disk_device", "?"))
    for key, v in _numbers(disk):
        col = _json_col(key)
        metric, unit, direction = _IOSTAT_COLS.get(col, (_norm(col), "", _N))
        put(sink, f"iostat.{metric}", v, unit, direction, no, {"device": name, **labels})


def _numbers(obj: dict[str, object]) -> list[tuple[str, float]]:
    return [(k, float(v)) for k, v in obj.items() if isinstance(v, int | float) and not isinstance(v, bool)]


def _dig(doc: object, *keys: str) -> object:
    for key in keys:
        doc = doc.get(key) if isinstance(doc, dict) else None
    return doc


def _split_time(line: str) -> tuple[str, list[str]]:
    """mpstat's first column: the locale's %X (spaces in some: "04시 23분 40초"), or its word for "Average:".
    A time zone sar prints after the time ("10:04:01 PM IST") belongs to the time."""
    if m := re.match(rf"\s*({_TIME_OF_DAY})\s", line):
        time, rest = re.sub(r"\s+", " ", m.group(1)), line[m.end():].split()
        if len(rest) > 1 and re.fullmatch(r"[A-Z]{2,5}", rest[0]) and rest[0] != "CPU":
            time, rest = f"{time} {rest[0]}", rest[1:]
        return time, rest
    toks = line.split()
    if re.fullmatch(r"[A-Za-z][\w.-]*", toks[0]) and toks[0] != "all":
        return toks[0], []  # a word, not a time: the command line pasted with the output ("mpstat 5 10")
    # the summary rows' word is translated ("Durchschn.:", "平均値:"); planner names them Average in every locale
    return ("Average" if toks[0].endswith(":") else toks[0]), toks[1:]


# sar -r's memory table (sysstat 7 to 12: kbmemfree kbmemused %memused ..., kbavail from 11.x, kbcommit from 8.1)
_MEMORY_HEAD = "kbmemfree"
# %commit is the memory the workload asked for against RAM + swap: over 100 when the kernel overcommits (sar(1))
_MAY_EXCEED_100 = frozenset({"%commit"})


@dataclass
class _Series:
    """One table kind's place: its run (from 1), the sample inside the run, and the banner it was read under."""

    run: int = 0
    sample: int = 0
    last_time: str | None = None
    epoch: int = -1


@dataclass
class _Tables:
    """Where the reader of sysstat's time-stamped tables is: the table under the last header (CPU, memory, or
    one planner does not read), and each kind's series. A sysstat banner starts a new epoch: a kind's next row
    after one begins that kind's next run, so two runs in one file never join one series."""

    kind: str = ""
    cols: list[str] = field(default_factory=list)
    epoch: int = 0
    series: dict[str, _Series] = field(default_factory=dict)
    seen: _Memo = field(default_factory=_Memo)  # one object per repeated value and label (bounded memory)
    named: list[tuple[str, str]] = field(default_factory=list)  # (metric, unit) per column of ``named_for``
    named_for: list[str] | None = None

    def row_labels(self, time: str, **more: str) -> tuple[tuple[str, str], ...]:
        return tuple(self.seen.pair(k, v) for k, v in self.labels(time, **more).items())

    def new_run(self) -> None:
        self.epoch, self.kind, self.cols = self.epoch + 1, "", []

    def labels(self, time: str, **more: str) -> dict[str, str]:
        one = self.series.setdefault(self.kind, _Series())
        if one.epoch != self.epoch:
            one.run, one.sample, one.last_time, one.epoch = one.run + 1, 0, None, self.epoch
        if time != one.last_time:
            one.sample, one.last_time = one.sample + 1, time
        run = {"run": str(one.run)} if one.run > 1 else {}
        return {**more, "time": time, "sample": str(one.sample), **run}


def _table_head(rest: list[str]) -> tuple[str, list[str]] | None:
    """A header line's table kind and value columns; None for a line of values."""
    if not rest or any(_num(t) is not None for t in rest):
        return None
    if rest[0] == "CPU" and any(t.startswith("%") for t in rest[1:]):
        return "cpu", rest[1:]
    return ("memory", rest) if rest[0] == _MEMORY_HEAD else ("", [])


def looks_like_sar_memory(text: str) -> bool:
    return bool(re.search(rf"^\S.*?\s{_MEMORY_HEAD}\s+\S+\s+%memused\b", text, re.MULTILINE))


def parse_mpstat(text: str, source: str = "<text>") -> Parsed:
    """mpstat -P ALL and sar -u (the CPU table), sar -r (the memory table); a new header ends a table, and a
    sysstat banner line after rows starts a new run (label ``run`` from the second on: never one series)."""
    return parse_mpstat_lines(each_line(text), source)


def parse_mpstat_lines(lines: Iterable[str], source: str = "<text>") -> Parsed:
    """parse_mpstat one line at a time (a file read as it is parsed)."""
    sink = MetricSink(source, table=MetricTable(source))
    at, values = _Tables(), 0
    for no, line in enumerate(lines, 1):
        if no <= 5:
            _banner(sink, line)
        if _BANNER.match(line.strip()) or line.startswith("==> "):  # a banner, or `head`'s file marker
            at.new_run()
            continue
        toks = line.split()
        if len(toks) < 3:
            continue
        time, rest = _split_time(line)
        if (head := _table_head(rest)) is not None:
            at.kind, at.cols = head
            continue
        if not at.kind or not rest:
            continue
        values += _cpu_row(sink, at, time, rest, no) if at.kind == "cpu" else _memory_row(sink, at, time, rest, no)
    if not values:
        raise ParseError("mpstat", "CPU", "no CPU rows under a 'CPU %usr ...' header", source=source)
    return sink.freeze("mpstat")


def _mpstat_names(cols: list[str]) -> list[tuple[str, str]]:
    """(metric, unit) per mpstat column, worked out once per header rather than once per value."""
    return [(f"mpstat.{_norm(_MPSTAT_ALIASES.get(c, c.lstrip('%')))}_pct", "%") if c.startswith("%")
            else (f"mpstat.{_norm(c)}", "") for c in cols]


def _row_numbers(sink: MetricSink, cols: list[str], toks: list[str], no: int, section: str
                 ) -> list[float] | None:
    """The row's values under ``cols``, or None (with a warning) when they do not fit, or when a share-of-time
    or share-of-memory percentage is outside 0..100: such a row was read under the wrong header."""
    nums = [_num(t) for t in toks]
    if len(nums) != len(cols) or None in nums:
        sink.errors.append(ParseError("mpstat", section, "row does not match the header above it",
                                      source=sink.source, line=no))
        return None
    bad = [c for c, v in zip(cols, nums, strict=True)
           if c.startswith("%") and c not in _MAY_EXCEED_100 and not 0 <= (v or 0) <= 100]
    if bad:
        sink.errors.append(ParseError("mpstat", section, f"{bad[0]} outside 0-100 %: not a {section.lower()} of "
                                      "this table; row skipped", source=sink.source, line=no))
        return None
    return [v for v in nums if v is not None]


def _cpu_row(sink: MetricSink, at: _Tables, time: str, rest: list[str], no: int) -> int:
    if not (rest[0] == "all" or rest[0].isdigit()):
        if sum(_num(t) is not None for t in rest) * 2 >= len(at.cols):  # a CPU row without a readable CPU
            sink.errors.append(ParseError("mpstat", "CPU row", f"row without a CPU number: {rest[0][:20]!r}",
                                          source=sink.source, line=no))
        return 0
    nums = _row_numbers(sink, at.cols, rest[1:], no, "CPU row")
    if nums is None:
        return 0
    return _emit(sink, at, nums, no, at.row_labels(time, cpu=rest[0]))


def _emit(sink: MetricSink, at: _Tables, nums: list[float], no: int, labels: tuple[tuple[str, str], ...]) -> int:
    """One row's metrics, its labels and repeated values shared (a day of sar is bounded memory, as iostat)."""
    if at.cols is not at.named_for:
        at.named, at.named_for = _table_names(at.kind, at.cols), at.cols
    sink.add_row([(metric, unit, _N) for metric, unit in at.named], nums, no, labels)
    return len(nums)


def _table_names(kind: str, cols: list[str]) -> list[tuple[str, str]]:
    if kind == "cpu":
        return _mpstat_names(cols)
    return [(f"sar.{_norm(c)}", "%" if c.startswith("%") else "KiB" if c.startswith("kb") else "") for c in cols]


def _memory_row(sink: MetricSink, at: _Tables, time: str, rest: list[str], no: int) -> int:
    nums = _row_numbers(sink, at.cols, rest, no, "memory row")
    if nums is None:
        return 0
    return _emit(sink, at, nums, no, at.row_labels(time))


def parse_vmstat(text: str, source: str = "<text>") -> Parsed:
    return parse_vmstat_lines(each_line(text), source)


def parse_vmstat_lines(lines: Iterable[str], source: str = "<text>") -> Parsed:
    """parse_vmstat one line at a time (a file read as it is parsed)."""
    sink = MetricSink(source, table=MetricTable(source))
    cols: list[str] = []
    heads: list[tuple[str, str, Direction]] = []
    stamped, sample, run, broken, memory = False, 0, 1, False, "KiB"
    for no, line in enumerate(lines, 1):
        toks = line.split()
        if "vmstat" in line and _VMSTAT_CMD.search(line):  # a pasted command line: its -S names the memory unit
            memory = _VMSTAT_MEMORY_UNIT[u.group(1)] if (u := _VMSTAT_UNIT_OPT.search(line)) else "KiB"
        if not toks or _VMSTAT_GROUPS.match(line):
            broken = broken or not toks  # a blank line: what follows may be another run
            continue
        if _VMSTAT_HEAD.match(line):
            # vmstat repeats its header every screen with no blank line before it (procps vmstat.c); after a
            # blank line or other text it is another run, whose first line is again the average since boot
            if sample and broken:
                run, sample = run + 1, 0
            broken = False
            # -t ends the column line with the time zone ("UTC"), each row with a date and a time
            stamped = _num(toks[-1]) is None and toks[-1] not in _VMSTAT_UNITS
            cols = _vmstat_columns(toks[:-1] if stamped else toks)
            heads = [(f"vmstat.{_norm(c)}", memory if _VMSTAT_UNITS.get(c) == "KiB" else _VMSTAT_UNITS.get(c, ""), _N)
                     for c in cols]  # the units the run's command line said (vmstat -S)
            continue
        if not cols:
            continue
        data, time = (toks[:-2], " ".join(toks[-2:])) if stamped else (toks, "")
        nums = [_num(t) for t in data]
        if len(nums) != len(cols) or None in nums:
            broken = True  # text between runs (a prompt, a command line)
            if sum(n is not None for n in nums) * 2 >= len(cols):
                sink.errors.append(ParseError("vmstat", "row", "row does not match the header", source=source,
                                              line=no))
            continue
        sample += 1
        row_labels = (("sample", str(sample)), *((("time", time),) if time else ()),
                      *((("run", str(run)),) if run > 1 else ()))
        sink.add_row(heads, nums, no, row_labels)
    if not sample:
        raise ParseError("vmstat", "rows", "no rows under the 'r b swpd free ...' header", source=source)
    sink.facts["first_sample"] = "since_boot"
    return sink.freeze("vmstat")


def _vmstat_columns(head: list[str]) -> list[str]:
    """The English names of vmstat's columns, by position where the locale translated them."""
    active = head[4] == "inact" or re.search(r"a[ck]ti?v", head[5], re.I) is not None  # -a: inact / active
    memory = ["swpd", "free", *(("inact", "active") if active else ("buff", "cache"))]
    return [*head[:2], *memory, *head[6:]]
