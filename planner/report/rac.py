"""The report's RAC section: for each workload point measured by a global (RAC) AWR report, the cluster's totals
first (``instance=all``), then one row per instance, in words. Only RAC runs have such reports, so a single-instance
report has no RAC section at all.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

from planner.results.measure import GLOBAL_KINDS, RunData
from planner.results.stats import fmt

_COLUMNS = (("physical_read_iops", "read IOPS"), ("physical_write_iops", "write IOPS"),
            ("physical_read_mb_per_s", "read MB/s"), ("physical_write_mb_per_s", "write MB/s"))


def rac_sections(data: RunData) -> list[dict[str, Any]]:
    facts = {a.path: dict(a.facts) for a in data.artifacts if a.kind in GLOBAL_KINDS}
    values: dict[tuple[str, str, str, str], dict[tuple[str, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    basis: dict[tuple[str, str], str] = {}
    titles: dict[str, str] = {}
    sources: dict[tuple[str, str, str, str], str] = {}
    names = dict(_COLUMNS)
    for m in data.measurements:
        if m.artifact not in facts or m.metric not in names or m.warmup:
            continue
        where = (m.play, m.host, m.step, m.point_label)
        who = m.label("instance")
        values[where][(who, m.metric)].append(m.value)
        if who == "all":
            basis[(m.step, m.metric)] = m.label("basis")
        titles[m.step] = m.title
        sources.setdefault(where, m.artifact)
    out = []
    for (play, host, step, point), by in values.items():
        f = facts[sources[(play, host, step, point)]]
        insts = sorted({who for who, _ in by if who != "all"},
                       key=lambda s: (not s.isdigit(), int(s) if s.isdigit() else 0))
        rows = []
        for who in ["all", *insts]:
            label = "all (cluster total)" if who == "all" else \
                f"{who}: {f.get(f'instance[{who}]', '?')} on {f.get(f'host[{who}]', '?')}"
            rows.append({"instance": label, "cells": [fmt(statistics.median(by[(who, k)])) if by.get((who, k)) else "—"
                                                      for k, _ in _COLUMNS]})
        blocks = sorted({n for (s, k), b in basis.items() if s == step and b == "blocks" for n in [names[k]]})
        out.append({"play": play, "host": host, "title": titles[step], "point": point, "db_name": f.get("db_name", ""),
                    "instances": len(insts), "source": sources[(play, host, step, point)],
                    "columns": [n for _, n in _COLUMNS], "rows": rows,
                    "blocks_note": ("the cluster's " + ", ".join(blocks) if blocks else "the per-instance rows")
                                   + " count blocks/s (the report has no IO requests for them: blocks equal IOPS for "
                                     "single-block reads only, as SLOB's)"})
    return out
