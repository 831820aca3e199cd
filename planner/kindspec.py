"""What planner knows of each workload kind, declared in the kind's own folder and found here by name.

A workload kind is one folder, ``planner/kinds/<kind>/`` (docs/architecture.md, "A kind is one folder"): its
step, its parsers, its findings, its stand-in and its typed extra, and a ``spec.py`` holding one ``KindSpec``:
the kind's words and tables, and where each of its parts is. The kind is registered by one line, its name in
``KINDS`` below. Everything else that needs a kind's knowledge (the parse registry, the metric words, the report's
axis words and table columns, the step registry, the results, the rehearsal) asks here; none of them holds a
per-kind table.

This module is foundation: it imports no planner package. A kind's spec module imports only this module, so the
tables may be read at any layer; the kind's other modules are named as text (``"package.module:attribute"``) and
imported by whoever needs them, through ``load``. Nothing imports ``planner.kinds`` by name (a contract in
pyproject says so): the kinds' folders span layers, and each of their modules is held to its layer by its role
(``spec``/``extra`` foundation, ``parse`` pure, ``step`` steps, ``findings`` results, ``standin`` rehearsal).

The classes a spec is made of (``KindSpec``, ``ParserKind``, ...) are planner.kindparts', served here by name when
first asked: a run that reads no kind's spec, as an apply up to its first host command, never makes them.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from planner.variables import HostVar as HostVar  # declared there (planner's own host variables), a kind's too

if TYPE_CHECKING:  # served at run time by __getattr__ below: kindspec's names too (noqa: re-exported)
    from planner.kindparts import (
        CacheOption,  # noqa: F401
        DbReport,  # noqa: F401
        Headline,  # noqa: F401
        KindSpec,
        Oltp,
        OwnWindow,
        ParserKind,
        ReportWords,  # noqa: F401
        SeriesHeadline,  # noqa: F401
    )

# The one line per kind: a kind is registered by its folder's name here. The order is the parse registry's
# detection order among the kinds' parsers (a kind whose output another's detector could mistake goes first).
KINDS: tuple[str, ...] = ("fio", "orion", "calibrate_io", "slb", "iozone", "swingbench", "hammerdb", "slob",
                         "pgbench", "sysbench")


# What a spec is made of, in planner.kindparts: served from here when first asked (PEP 562), so that a run that
# reads no kind's spec does not make them
PARTS = frozenset({"CacheOption", "DbReport", "Headline", "KindSpec", "Oltp", "OwnWindow", "ParserKind",
                   "ReportWords", "SeriesHeadline"})


def __getattr__(name: str) -> Any:
    if name in PARTS:
        from planner import kindparts

        return getattr(kindparts, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class KindLoadError(Exception):
    """A kind's spec that cannot be imported or is not a KindSpec: a packaging bug, said by name."""


def _import(where: str) -> Any:
    module, _, name = where.partition(":")
    found = importlib.import_module(module)
    return getattr(found, name) if name else found


@functools.cache
def specs() -> tuple[KindSpec, ...]:
    """Every registered kind's spec, in KINDS order (each spec module imports only this one)."""
    return tuple(_spec(kind) for kind in KINDS)


@functools.cache
def _spec(kind: str) -> KindSpec:
    try:
        found = _import(f"planner.kinds.{kind}.spec:KIND")
    except (ImportError, AttributeError) as e:
        raise KindLoadError(f"kind {kind!r}: planner/kinds/{kind}/spec.py has no KIND ({e})") from e
    from planner.kindparts import KindSpec  # imported by the spec module itself (from here): no cost

    if not isinstance(found, KindSpec) or found.kind != kind:
        raise KindLoadError(f"kind {kind!r}: planner/kinds/{kind}/spec.py's KIND is not its KindSpec")
    return found


def spec(kind: str) -> KindSpec | None:
    """A registered kind's spec; None for any other kind (prep and generic kinds, plugins). Only that kind's
    spec module is imported: a plan's check and run need the kinds it names, not all of them."""
    return _spec(kind) if kind in KINDS else None


def load(where: str) -> Any:
    """A kind's part named ``"package.module:attribute"`` (a spec's ``step``, ``findings``, ``standin``)."""
    return _import(where)


def folder(kind: str) -> Path | None:
    """A registered kind's folder, for the files it ships beside its code (its report partial, ``report.md.j2``);
    None for any other kind."""
    if spec(kind) is None:
        return None
    return Path(str(sys.modules[f"planner.kinds.{kind}.spec"].__file__)).parent


def parser_kinds() -> tuple[ParserKind, ...]:
    """The kinds' parser records, in KINDS order."""
    return tuple(p for s in specs() for p in s.parsers)


def series_words() -> dict[str, str]:
    """Every kind's series words (metric name -> words in a sentence about a point's series)."""
    return {name: words for s in specs() for name, words in s.report.series_words.items()}


def metric_words() -> dict[str, str]:
    """Every kind's metric words (metric name -> words)."""
    return {name: words for s in specs() for name, words in s.report.metric_words.items()}


def tool_prefixes() -> dict[str, str]:
    """Metric family -> the tool's name as spelt ("orion" -> "ORION")."""
    return {s.report.prefix: s.report.tool for s in specs() if s.report.prefix}


def own_windows() -> tuple[OwnWindow, ...]:
    """Every kind's own window source, in KINDS order."""
    return tuple(s.own_window for s in specs() if s.own_window is not None)


def steady_series(word: str) -> tuple[str, ...]:
    """Every kind's series a ``steady_state:`` metric word names (``iops``), its default series first."""
    return tuple(dict(s.series.steady)[word] for s in specs() if s.series and word in dict(s.series.steady))


def default_steady_word() -> str:
    """The ``steady_state:`` metric word a point is judged by when its step asked for none."""
    return next((s.series.steady[0][0] for s in specs() if s.series and s.series.steady), "")


def latency_series() -> tuple[str, ...]:
    """Every kind's own latency series, in KINDS order."""
    return tuple(s.series.latency for s in specs() if s.series and s.series.latency)


def own_verdicts() -> tuple[str, ...]:
    """Every kind's own steady-state verdict function, in KINDS order."""
    return tuple(s.series.own_verdict for s in specs() if s.series and s.series.own_verdict)


def cache_options() -> dict[str, str]:
    """init_ora's kind options: option -> the function reading the pool it sizes."""
    return {s.cache_option.option: s.cache_option.pool for s in specs() if s.cache_option}


def oltp() -> Mapping[str, Oltp]:
    """The transactional kinds, each with the metrics its scaling is read by."""
    return MappingProxyType({s.kind: s.oltp for s in specs() if s.oltp is not None})


@functools.cache
def artifact_kinds() -> frozenset[str]:
    """Every kind's artifact kinds: its parser kinds and the others it keeps (status.ArtifactKind reads them)."""
    return frozenset({p.kind for p in parser_kinds()} | {a for s in specs() for a in s.artifact_kinds})
