"""The metrics model: every number planner reports carries its unit, its direction and its origin.

Parsers (planner/parsers/) turn tool output into a ``Parsed`` document: typed ``Metric`` values, a few
text facts (database name, version, host line) and the sections that could not be read. Nothing here
does I/O.
"""

from __future__ import annotations

import enum
import functools
import re
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

from planner import kindspec
from planner.errors import ParseError


class Direction(enum.Enum):
    """Whether a larger value is an improvement (Rally's treat_increase_as_improvement)."""

    HIGHER = "higher"
    LOWER = "lower"
    NEUTRAL = "neutral"  # descriptive values: CPUs, memory, snapshot ids, elapsed minutes


@dataclass(frozen=True, slots=True)
class Source:
    """Where a value was read: file (artifact path or name as given) and 1-based line, when known."""

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass(frozen=True, slots=True)
class Metric:
    """One number. ``labels`` qualify it: instance, event, device, job, direction, time..."""

    name: str
    value: float
    unit: str
    direction: Direction = Direction.NEUTRAL
    source: Source | None = None
    labels: tuple[tuple[str, str], ...] = ()
    derived: bool = False  # computed from other metrics (formula documented in planner/parsers/derived.py)

    def label(self, key: str, default: str = "") -> str:
        for k, v in self.labels:
            if k == key:
                return v
        return default

    @property
    def key(self) -> str:
        """Stable name with labels, e.g. ``wait.time_s{event=db file sequential read}``."""
        if not self.labels:
            return self.name
        inner = ",".join(f"{k}={v}" for k, v in self.labels)
        return f"{self.name}{{{inner}}}"


@dataclass(frozen=True, slots=True)
class Parsed:
    """What one parser made of one file."""

    kind: str  # "awr_text", "awr_html", "statspack", "orion_summary", "orion_csv", "fio_json", ...
    source: str
    # a tuple, or a MetricTable (a long series: columns, each Metric made when read)
    metrics: Sequence[Metric] = ()
    facts: tuple[tuple[str, str], ...] = ()  # text values: db_name, version, host_name, platform, rac
    errors: tuple[ParseError, ...] = ()  # sections that could not be read; what could be read still is
    simulated: bool = False  # output written by a planner stand-in, not the real tool

    def fact(self, key: str, default: str = "") -> str:
        for k, v in self.facts:
            if k == key:
                return v
        return default

    def get(self, name: str, **labels: str) -> Metric | None:
        """The first metric with this name whose labels include all of ``labels``."""
        for m in self.metrics:
            if m.name == name and all(m.label(k) == v for k, v in labels.items()):
                return m
        return None

    def value(self, name: str, **labels: str) -> float | None:
        m = self.get(name, **labels)
        return m.value if m else None

    def all(self, name: str) -> list[Metric]:
        if isinstance(self.metrics, MetricTable):
            return self.metrics.named(name)
        return [m for m in self.metrics if m.name == name]


_LabelSet = tuple[tuple[str, str], ...]


class MetricTable(Sequence[Metric]):
    """Many metrics of one file held as columns: an hour of ``iostat -x`` over 32 devices is 2.5 million
    values, and one frozen Metric per value (with its float) took ~150 bytes each, 480 MB for 24 MB of input.
    Here a value costs its float, its line and two small indexes (~20 bytes); a Metric is made when one is read,
    so callers see the same sequence of Metric a tuple gives. Every metric's source is ``file`` at its line."""

    __slots__ = ("_file", "_heads", "_head_ids", "_label_sets", "_label_ids", "_head", "_labels", "_values",
                 "_lines")

    def __init__(self, file: str) -> None:
        self._file = file
        # (name, unit, direction, derived): a handful per file, shared by every row
        self._heads: list[tuple[str, str, Direction, bool]] = []
        self._head_ids: dict[tuple[str, str, Direction, bool], int] = {}
        self._label_sets: list[_LabelSet] = []  # each label set once: a row's device and sample, say
        self._label_ids: dict[_LabelSet, int] = {}
        self._head = array("I")
        self._labels = array("I")
        self._values = array("d")
        self._lines = array("I")  # 0: no line

    def add(self, name: str, value: float, unit: str, direction: Direction, line: int | None,
            labels: _LabelSet, derived: bool = False) -> None:
        head = (name, unit, direction, derived)
        if (h := self._head_ids.get(head)) is None:
            h = self._head_ids[head] = len(self._heads)
            self._heads.append(head)
        if (lab := self._label_ids.get(labels)) is None:
            lab = self._label_ids[labels] = len(self._label_sets)
            self._label_sets.append(labels)
        self._head.append(h)
        self._labels.append(lab)
        self._values.append(value)
        self._lines.append(line or 0)

    def _make(self, i: int) -> Metric:
        name, unit, direction, derived = self._heads[self._head[i]]
        line = self._lines[i]
        return Metric(name, self._values[i], unit, direction, Source(self._file, line or None),
                      self._label_sets[self._labels[i]], derived)

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, i: int) -> Metric: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Metric, ...]: ...

    def __getitem__(self, i: int | slice) -> Metric | tuple[Metric, ...]:
        if isinstance(i, slice):
            return tuple(self._make(j) for j in range(*i.indices(len(self))))
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._make(i)

    def __iter__(self) -> Iterator[Metric]:
        return (self._make(i) for i in range(len(self._values)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"MetricTable({self._file!r}, {len(self)} metrics)"

    def named(self, name: str) -> list[Metric]:
        """The metrics called ``name``, in order (Parsed.all), without making the others."""
        heads = {h for h, head in enumerate(self._heads) if head[0] == name}
        return [self._make(i) for i, h in enumerate(self._head) if h in heads] if heads else []

    def keep_labelled(self, keep: Callable[[_LabelSet], bool]) -> MetricTable:
        """The metrics whose labels pass ``keep`` (asked once per label set), as a table sharing these names."""
        passed = [keep(ls) for ls in self._label_sets]
        out = MetricTable(self._file)
        out._heads, out._head_ids, out._label_sets, out._label_ids = (self._heads, self._head_ids,
                                                                      self._label_sets, self._label_ids)
        for i, lab in enumerate(self._labels):
            if passed[lab]:
                out._head.append(self._head[i])
                out._labels.append(lab)
                out._values.append(self._values[i])
                out._lines.append(self._lines[i])
        return out

    def repeats(self) -> Iterator[tuple[int, int]]:
        """(first, later) indexes of two metrics under one key (name and labels), as Parsed's own check finds
        them: one bit per name per label set, not one entry per value (2.5 million keys took more than the parse)."""
        bit = {name: 1 << n for n, name in enumerate(dict.fromkeys(head[0] for head in self._heads))}
        head_bit = [bit[head[0]] for head in self._heads]
        seen: dict[int, int] = {}
        for i, (h, lab) in enumerate(zip(self._head, self._labels, strict=True)):
            mask = seen.get(lab, 0)
            if mask & head_bit[h]:
                yield next(j for j in range(i) if self._labels[j] == lab
                           and head_bit[self._head[j]] == head_bit[h]), i
            else:
                seen[lab] = mask | head_bit[h]


@dataclass(slots=True)
class MetricSink:
    """Mutable helper parsers use while reading; frozen into ``Parsed`` at the end. With a ``table`` (a parser
    of long series) the metrics go into its columns, not into the list."""

    source: str
    metrics: list[Metric] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    errors: list[ParseError] = field(default_factory=list)
    table: MetricTable | None = None

    def add(self, name: str, value: float, unit: str, direction: Direction = Direction.NEUTRAL,
            line: int | None = None, derived: bool = False, **labels: str) -> Metric:
        m = Metric(name, float(value), unit, direction, Source(self.source, line),
                   tuple(labels.items()), derived)
        self.keep(m)
        return m

    def keep(self, m: Metric) -> None:
        if self.table is None:
            self.metrics.append(m)
        else:
            self.table.add(m.name, m.value, m.unit, m.direction, m.source.line if m.source else None, m.labels,
                           m.derived)

    def add_row(self, heads: Sequence[tuple[str, str, Direction]], values: Sequence[float | None], line: int,
                labels: tuple[tuple[str, str], ...]) -> None:
        """One printed row: a value per (name, unit, direction) head, None where there is none."""
        if self.table is None:
            where = Source(self.source, line)
            self.metrics += [Metric(name, v, unit, direction, where, labels)
                             for (name, unit, direction), v in zip(heads, values, strict=True) if v is not None]
            return
        for (name, unit, direction), v in zip(heads, values, strict=True):
            if v is not None:
                self.table.add(name, v, unit, direction, line, labels)

    def count(self) -> int:
        return len(self.table) if self.table is not None else len(self.metrics)

    def freeze(self, kind: str, simulated: bool = False) -> Parsed:
        metrics: Sequence[Metric] = self.table if self.table is not None else tuple(self.metrics)
        return Parsed(kind, self.source, metrics, tuple(self.facts.items()), tuple(self.errors), simulated)


# -- display names: words for reports, `planner show` and `compare` -----------------------------------------
# Keys (``physical_read_iops{basis=requests}``) stay what JSON/CSV exports and `planner parse --format json`
# print; a person reads these. "{label}" in a name is filled from that label (and the label is not repeated).
# A metric missing here still reads as words (display_name's fallback); parsers adding metrics may add a row.
_GENERIC_NAMES: dict[str, str] = {
    # derived from AWR / Statspack (planner/parsers/derived.py)
    "physical_read_iops": "Physical read IOPS",
    "physical_write_iops": "Physical write IOPS",
    "physical_read_mb_per_s": "Physical read throughput", "physical_write_mb_per_s": "Physical write throughput",
    "read_iops_per_core": "Physical read IOPS per core",
    "single_block_read_latency_ms": "{event}, avg wait",
    "redo_mb_per_s": "Redo rate",
    "logical_to_physical_ratio": "Logical to physical reads",
    "wait_class_share_pct": "{wait_class} share of DB time",
    # AWR Load Profile per second, the figures the SLOB seeds compare
    "db_time_per_s": "DB time per second",
    "db_cpu_per_s": "DB CPU per second",
    "logical_reads_per_s": "Logical reads",
    "physical_reads_per_s": "Physical reads",
    "physical_writes_per_s": "Physical writes",
    "physical_read_io_requests_per_s": "Physical read requests",
    "physical_write_io_requests_per_s": "Physical write requests",
    "redo_size_per_s": "Redo size",
    "buffer_cache_mb": "Buffer cache",
    "cpus": "CPUs", "cores": "Cores", "sockets": "Sockets", "memory_gb": "Memory",
    "elapsed_min": "Elapsed", "db_time_s": "DB time", "db_time_min": "DB time", "db_cpu_min": "DB CPU",
    "aas": "Average active sessions",
    "wait.waits": "{event}, waits", "wait.time_s": "{event}, wait time", "wait.avg_ms": "{event}, avg wait",
    "wait.pct_db_time": "{event}, % of DB time",
    "wait_class.time_s": "{wait_class} wait time", "wait_class.avg_ms": "{wait_class}, avg wait",
    "wait_class.pct_db_time": "{wait_class}, % of DB time",
    "host_cpu.idle_pct": "AWR host CPU idle",
    # OS statistics over the workload window (planner/transport/ostats.py)
    "os.cpu_busy_pct": "CPU busy", "os.cpu_iowait_pct": "CPU iowait", "os.cpu_steal_pct": "CPU steal",
    "os.read_iops": "OS read IOPS",
    "os.write_iops": "OS write IOPS", "os.util_pct_max": "Busiest device utilisation",
    "os.samples": "Samples in the window",
    # PostgreSQL's statistics around a point (planner/parsers/pg_stat.py, collect: [pg_stat])
    "pg_stat.tps": "Server commits+rollbacks per second", "pg_stat.cache_hit_pct": "Shared buffer hit ratio",
    "pg_stat.blocks_read": "Blocks read", "pg_stat.blocks_hit": "Blocks hit in shared buffers",
    "pg_stat.blocks_written": "Blocks written", "pg_stat.checkpoints": "Checkpoints in the window",
    "pg_stat.checkpoints_requested": "Requested checkpoints", "pg_stat.checkpoint_buffers": "Buffers checkpointed",
    "pg_stat.wal_bytes": "WAL written", "pg_stat.temp_files": "Temp files", "pg_stat.temp_bytes": "Temp bytes",
    "pg_stat.deadlocks": "Deadlocks", "pg_stat.rollbacks": "Rollbacks", "pg_stat.autovacuum_runs": "Autovacuum runs",
    "pg_stat.autovacuum_workers": "Autovacuum workers seen", "pg_stat.statement_calls": "Statements executed",
    "pg_stat.window_s": "Statistics window", "pg_stat.shared_buffers_bytes": "shared_buffers",
    "pg_stat.max_connections": "max_connections", "pg_stat.database_bytes": "Database size",
    "pg_stat.server_version_num": "Server version",
}


@functools.cache
def display_names() -> dict[str, str]:
    """The words of planner's own metrics, then each workload kind's (its spec's metric_words). Built when first
    read, not at import: it imports every kind's spec, which an apply before its first host command does not need."""
    return {**_GENERIC_NAMES, **kindspec.metric_words()}


def __getattr__(name: str) -> dict[str, str]:  # DISPLAY_NAMES, the table's name since before it was lazy
    if name == "DISPLAY_NAMES":
        return display_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# Metric families whose names come from the tool's own output (an iostat column, an AWR statistic): a claim
# may name any member; other names must be ones planner produces (planner.steps.metric_names).
OUTPUT_NAMED_FAMILIES = frozenset({"fio", "global", "iostat", "mpstat", "vmstat", "load_profile", "efficiency",
                                   "host_cpu", "io_profile", "stat", "wait", "wait_class", "os"})
# How a label reads in words; "{v}" is its value. Labels not listed read "key value".
LABEL_WORDS: dict[str, str] = {
    "event": "{v}", "test": "{v}", "stat": "{v}", "wait_class": "{v}", "section": "{v} section",
    "basis": "counted in {v}", "view": "{v} view", "job": "job {v}", "device": "device {v}", "cpu": "CPU {v}",
    "instance": "instance {v}", "run": "run {v}", "form": "from {v}", "transaction": "{v}",
}
# each workload kind's family is spelt as its tool is (planner.kindspec: "orion" -> "ORION")


@functools.cache
def _prefixes() -> dict[str, str]:  # at first use: the kinds' specs are not imported with the metrics model
    return {**kindspec.tool_prefixes(), "os": "OS", "mpstat": "mpstat", "iostat": "iostat", "vmstat": "vmstat"}

_PER = {"s": "per second", "txn": "per transaction", "exec": "per execute", "call": "per call"}
_UNLABELLED = {"single_block_read_latency_ms": "Single-block read, avg wait"}
_UNIT_IN_NAME = {"IOPS", "IO/s", "ratio", "NOPM", "TPM"}  # "Physical read IOPS (IOPS)" says it twice


def _words(name: str) -> str:
    """A readable form of an unlisted key: ``iozone.per_process`` -> "iozone per process"."""
    head, _, rest = name.partition(".")
    if not rest:
        head, rest = "", name
    words = rest.replace("_pct", " %").replace("_", " ").strip()
    for per, text in _PER.items():
        if words.endswith(f" per {per}") and per != "s":
            words = words[: -len(per)] + text[4:]
    if words.endswith(" per s"):
        words = words[: -len(" per s")]
    if head in _prefixes():  # tool names keep their own spelling: "fio ...", "ORION ..."
        return f"{_prefixes()[head]} {words}"
    text = f"{head.replace('_', ' ')} {words}".strip()
    return text[:1].upper() + text[1:]


_PERCENTILE = re.compile(r"^p(\d+(?:\.\d+)?)$")


def _ordinal(number: str) -> str:
    last = number.split(".")[-1]
    suffix = "th" if last[-2:] in ("11", "12", "13") else {"1": "st", "2": "nd", "3": "rd"}.get(last[-1:], "th")
    return f"{number}{suffix}"


def label_words(key: str, value: str) -> str:
    m = _PERCENTILE.match(value) if key == "stat" else None
    if m:
        return f"{_ordinal(m.group(1))} percentile"
    return LABEL_WORDS.get(key, "{k} {v}").format(k=key.replace("_", " "), v=value)


def _always_shown(key: str, value: str) -> bool:
    """A percentile is never left for the reader to guess: "completion latency" alone reads as the mean."""
    return key == "stat" and bool(_PERCENTILE.match(value))


def display_name(metric: str, labels: tuple[tuple[str, str], ...] = (), unit: str = "",
                 shown: frozenset[str] | set[str] | None = None) -> str:
    """Words for a metric: "db file sequential read, avg wait (ms)". ``shown``: the labels that tell this
    series from the others it is printed with (see distinguishing_labels); None shows none of them."""
    lab = dict(labels)
    template = display_names().get(metric)
    if template is None and "_per_" in metric and metric.rsplit("_per_", 1)[0] + "_per_s" in display_names():
        base = display_names()[metric.rsplit("_per_", 1)[0] + "_per_s"]
        template = f"{base} {_PER.get(metric.rsplit('_per_', 1)[1], '')}".strip()
    template = template or _words(metric)
    used = {f for f in lab if "{" + f + "}" in template}
    text = template
    for f in used:
        text = text.replace("{" + f + "}", lab[f])
    if "{" in text:  # a placeholder whose label this metric lacks
        text = _UNLABELLED.get(metric) or re.sub(r"\{(\w+)\}", lambda m: m.group(1).replace("_", " "), text)
        text = text[:1].upper() + text[1:]
    extra = [label_words(k, v) for k, v in labels
             if k not in used and (_always_shown(k, v) or (shown is not None and k in shown))]
    if extra:
        text += ", " + ", ".join(extra)
    if unit and unit not in _UNIT_IN_NAME and unit not in text:
        text += f" ({unit})"
    return text


def short_name(metric: str) -> str:
    """The words of a listed metric for a table row beside its value, a percentage marked ("CPU busy %")."""
    words = display_names()[metric]
    return f"{words} %" if "_pct" in metric else words


def distinguishing_labels(label_sets: list[tuple[tuple[str, str], ...]]) -> frozenset[str]:
    """The labels whose value is not the same across all of these (the words worth printing)."""
    keys = {k for ls in label_sets for k, _ in ls}
    return frozenset(k for k in keys if len({dict(ls).get(k) for ls in label_sets}) > 1)


def split_key(key: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``name{a=1,b=2}`` -> (name, (("a", "1"), ("b", "2"))): the inverse of Metric.key."""
    name, brace, rest = key.partition("{")
    if not brace:
        return key, ()
    pairs = [p.partition("=") for p in rest.rstrip("}").split(",")]
    return name, tuple((k, v) for k, _, v in pairs if k)


def display_keys(keys: list[tuple[str, str]]) -> dict[str, str]:
    """(key, unit) pairs -> words per key, with the labels that differ between keys of one metric."""
    parsed = {k: split_key(k) for k, _ in keys}
    by_name: dict[str, list[tuple[tuple[str, str], ...]]] = {}
    for name, labels in parsed.values():
        by_name.setdefault(name, []).append(labels)
    shown = {name: distinguishing_labels(ls) for name, ls in by_name.items()}
    return {k: display_name(parsed[k][0], parsed[k][1], unit, shown[parsed[k][0]]) for k, unit in keys}


def words_in(text: str) -> str:
    """Metric keys inside a sentence, as words ("Far from the rated Physical read IOPS")."""
    for name in sorted(display_names(), key=len, reverse=True):
        if name in text and "{" not in display_names()[name]:
            text = re.sub(rf"(?<![\w.{{]){re.escape(name)}(?:\{{[^}}]*\}})?(?![\w.])", display_names()[name], text)
    return text
