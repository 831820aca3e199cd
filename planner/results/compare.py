"""``planner compare``: runs side by side, percent difference against the first run, better/worse by direction.

Rows are (play, workload title, sweep point, metric key); a play's value is the median over its repeats,
hosts combined as planner.results.stats.combine_hosts says. A difference is "within noise" when both runs repeated
the point and their ranges (min to max over repeats) overlap: one run's better median is then no result. When the
runs' plays have different names and each run has one play (one system per run, as in the seed), the play is left
out of the row key so they line up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from planner.metrics import Direction
from planner.results.measure import Measurement
from planner.results.stats import combine_hosts, fmt, pct_diff, series, verdict


@dataclass(frozen=True, slots=True)
class Cell:
    value: float | None
    pct: float | None  # against the first run
    verdict: str  # better / worse / same / within noise / n/a / "" for the base


@dataclass(frozen=True, slots=True)
class _Value:
    median: float
    low: float  # min over repeats (hosts combined like the median)
    high: float
    n: int  # fewest repeats of any host
    unit: str
    direction: Direction


@dataclass(frozen=True, slots=True)
class Row:
    play: str
    workload: str
    point: str
    metric: str
    unit: str
    direction: Direction
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class Comparison:
    runs: tuple[str, ...]
    rows: tuple[Row, ...]
    by_play: bool


def _values(ms: Sequence[Measurement], metric: str | None, by_play: bool) -> dict[tuple[str, str, str, str], _Value]:
    per: dict[tuple[str, str, str, str], list[tuple[float, float, float, int, str, Direction]]] = {}
    for s in series(ms):
        if metric is None:
            if not s.headline:
                continue
        elif not (s.metric == metric or s.key == metric or metric in s.key):
            continue
        key = (s.play if by_play else "", s.title, s.point_label, s.key)
        sm = s.summary
        per.setdefault(key, []).append((sm.median, sm.min, sm.max, sm.n, s.unit, s.direction))
    out = {}
    for key, vals in per.items():
        unit = vals[0][4]
        median = combine_hosts([v[0] for v in vals], unit)[0]
        low = combine_hosts([v[1] for v in vals], unit)[0]
        high = combine_hosts([v[2] for v in vals], unit)[0]
        out[key] = _Value(median, low, high, min(v[3] for v in vals), unit, vals[0][5])
    return out


def _verdict(base: _Value, v: _Value, pct: float | None) -> str:
    said = verdict(pct, v.direction)
    if said in ("better", "worse") and base.n >= 2 and v.n >= 2 and v.low <= base.high and base.low <= v.high:
        return "within noise"
    return said


def compare(runs: Sequence[tuple[str, Sequence[Measurement]]], metric: str | None = None) -> Comparison:
    plays = [{m.play for m in ms} for _, ms in runs]
    by_play = not (all(len(p) == 1 for p in plays) and len({next(iter(p)) for p in plays}) > 1)
    tables = [_values(ms, metric, by_play) for _, ms in runs]
    keys: list[tuple[str, str, str, str]] = []
    for t in tables:
        keys += [k for k in t if k not in keys]
    rows = []
    for key in keys:
        found = [t[key] for t in tables if key in t]
        unit, direction = found[0].unit, found[0].direction
        base = tables[0].get(key)
        cells = []
        for i, t in enumerate(tables):
            v = t.get(key)
            if v is None:
                cells.append(Cell(None, None, ""))
            elif i == 0 or base is None:
                cells.append(Cell(v.median, None, ""))
            else:
                p = pct_diff(base.median, v.median)
                cells.append(Cell(v.median, p, _verdict(base, v, p)))
        rows.append(Row(key[0], key[1], key[2], key[3], unit, direction, tuple(cells)))
    return Comparison(tuple(r for r, _ in runs), tuple(rows), by_play)


def format_table(c: Comparison) -> str:
    """A Markdown table (readable in a terminal too)."""
    head = ["play", "workload", "point", "metric", "unit"] if c.by_play else ["workload", "point", "metric", "unit"]
    cols = [*head, c.runs[0], *(f"{r} (vs first)" for r in c.runs[1:])]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in c.rows:
        first = [row.play] if c.by_play else []
        cells = [cell_text(i, cell) for i, cell in enumerate(row.cells)]
        lines.append("| " + " | ".join([*first, row.workload, row.point, row.metric, row.unit, *cells]) + " |")
    if not c.rows:
        lines.append("(no metrics to compare: none are headline metrics, or none match --metric)")
    return "\n".join(lines) + "\n"


def cell_text(i: int, cell: Cell) -> str:
    """A compared value as shown: the first run plain, the others with their change and verdict."""
    if cell.value is None:
        return "—"
    if i == 0 or cell.pct is None:
        return fmt(cell.value)
    return f"{fmt(cell.value)} ({cell.pct:+.1f}% {cell.verdict})"
