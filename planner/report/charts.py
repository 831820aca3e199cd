"""Study charts: one headline metric against the swept parameter, every system (play) its own series.

Points are the median over repeats, error bars the min-max over them; the y axis starts at 0 so a 3 % gain
looks like 3 %; the legend sits outside the data. matplotlib is a regular dependency (imported lazily with the
Agg backend so importing planner stays fast); without it no chart is drawn and the tables stand alone. SVGs are
written reproducibly: no Date metadata and a fixed ``svg.hashsalt`` (matplotlib issue #27831: ids otherwise
differ run to run). The format follows the file's suffix (.svg, or .png to look at one).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.errors import PlannerError
from planner.files import write_bytes


@dataclass(frozen=True, slots=True)
class ChartPoint:
    x: str  # the swept parameter's value as printed
    low: float
    median: float
    high: float


@dataclass(frozen=True, slots=True)
class ChartLine:
    label: str  # the system (play), plus the second parameter's value in a two-parameter sweep
    points: tuple[ChartPoint, ...]


def matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def numeric_values(xs: Sequence[str]) -> list[float] | None:
    try:
        return [float(x) for x in xs]
    except ValueError:
        return None


def _tick(v: float) -> str:
    return f"{v:g}"


SIMULATED_MARK = "SIMULATED — a rehearsal, not a measurement"


def _mark_simulated(fig: Any, ax: Any, simulated: bool) -> None:
    """A rehearsal's chart says so on its face: a chart file is pasted on its own, without the report's banner."""
    if not simulated:
        return
    ax.text(0.5, 0.5, "SIMULATED", transform=ax.transAxes, fontsize=40, color="#d62728", alpha=0.18, rotation=20,
            ha="center", va="center", zorder=0)
    fig.text(0.01, 0.005, SIMULATED_MARK, fontsize=8, color="#d62728", ha="left", va="bottom")


def sweep_chart(path: Path, title: str, xlabel: str, ylabel: str, lines: Sequence[ChartLine],
                legend_title: str = "median, bars: min–max over repeats", *, simulated: bool = False) -> Path | None:
    """Write one chart with a series per line; returns the path, or None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    matplotlib.rcParams["svg.hashsalt"] = "planner"
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: searchable, selectable, smaller
    all_x = list(dict.fromkeys(p.x for line in lines for p in line.points))
    numeric = numeric_values(all_x)
    fig, ax = plt.subplots(figsize=(7.5, 4.0))
    try:
        top = 0.0
        for line in lines:
            xs: list[float] = ([float(p.x) for p in line.points] if numeric is not None
                               else [float(all_x.index(p.x)) for p in line.points])
            med = [p.median for p in line.points]
            err = [[max(p.median - p.low, 0.0) for p in line.points],
                   [max(p.high - p.median, 0.0) for p in line.points]]
            ax.errorbar(xs, med, yerr=err, marker="o", capsize=4, linewidth=1.6, label=line.label)
            top = max([top, *(p.high for p in line.points)])
        if numeric is not None:
            # readers 16..256 are doublings: a log2 axis spaces them evenly; ticks stay the values swept
            if min(numeric) > 0 and max(numeric) / min(numeric) >= 8:
                ax.set_xscale("log", base=2)
                ax.minorticks_off()
            ax.set_xticks(sorted(set(numeric)), [_tick(v) for v in sorted(set(numeric))])
            pad = 0.15 if ax.get_xscale() == "log" else 0.0
            if pad:
                ax.set_xlim(min(numeric) / (1 + pad * 4), max(numeric) * (1 + pad * 4))
        else:
            ax.set_xticks(list(range(len(all_x))), all_x, rotation=20 if len(all_x) > 4 else 0)
            ax.set_xlim(-0.5, len(all_x) - 0.5)
        ax.set_ylim(0, top * 1.12 if top > 0 else 1)
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _pos: f"{v:,.10g}"))
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        if lines:
            ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, frameon=False,
                      fontsize="small", title=legend_title, title_fontsize="x-small")
        _mark_simulated(fig, ax, simulated)
        fmt = path.suffix.lstrip(".").lower() or "svg"
        # bbox_inches="tight" grows the canvas to take the outside legend and the y label (no clipping)
        _save(fig, path, fmt)
    finally:
        plt.close(fig)
    return path


@dataclass(frozen=True, slots=True)
class TimeLine:
    label: str
    t: tuple[float, ...]  # bucket starts, s from the window start
    values: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    step_s: float


def time_chart(path: Path, title: str, ylabel: str, lines: Sequence[TimeLine], *, window_s: float,
               warmup_s: float = 0.0, steady: tuple[float, float] | None = None, simulated: bool = False
               ) -> Path | None:
    """One metric over a point's time: the mean per interval, shaded min–max where buckets hold several samples;
    the warm-up greyed, the measured window's end marked, and the steady-state window (start, end) when reached."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    matplotlib.rcParams["svg.hashsalt"] = "planner"
    matplotlib.rcParams["svg.fonttype"] = "none"
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    try:
        top = 0.0
        for line in lines:
            if not line.t:
                continue
            # a value is its interval's average: drawn flat across the interval, not as a point
            xs = [*line.t, line.t[-1] + line.step_s]
            ax.step(xs, [*line.values, line.values[-1]], where="post", linewidth=1.4, label=line.label)
            if any(h != lo for h, lo in zip(line.high, line.low, strict=True)):
                ax.fill_between(xs, [*line.low, line.low[-1]], [*line.high, line.high[-1]], step="post", alpha=0.2,
                                linewidth=0, label="min–max in the interval")
            top = max([top, *line.high])
        if warmup_s > 0:
            ax.axvspan(0, warmup_s, color="0.85", label=f"warm-up ({warmup_s:g}s, not measured)")
        if steady is not None:
            ax.axvspan(*steady, color="tab:green", alpha=0.12, label="steady-state window")
        ax.axvline(window_s, color="0.3", linestyle="--", linewidth=1, label="window end")
        ax.set_xlim(0, window_s * 1.02 if window_s > 0 else 1)
        ax.set_ylim(0, top * 1.12 if top > 0 else 1)
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _pos: f"{v:,.10g}"))
        ax.set_title(title)
        ax.set_xlabel("seconds into the point")
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, frameon=False, fontsize="small")
        _mark_simulated(fig, ax, simulated)
        _save(fig, path, path.suffix.lstrip(".").lower() or "svg")
    finally:
        plt.close(fig)
    return path


def _save(fig: Any, path: Path, fmt: str) -> None:
    """The chart written as every record file is (0600, atomically), never through a link: a received run
    folder's ``charts`` may be a symlink its sender made to lead planner's writes elsewhere."""
    if path.parent.is_symlink() or path.is_symlink():
        link = path.parent if path.parent.is_symlink() else path
        raise PlannerError(f"{link} is a symbolic link: no chart is written through it",
                           hint=f"remove the link {link} (planner makes a plain folder) and render the report again")
    out = io.BytesIO()
    fig.savefig(out, format=fmt, metadata={"Date": None} if fmt == "svg" else {}, bbox_inches="tight", dpi=110)
    write_bytes(path, out.getvalue(), mode=0o600)
