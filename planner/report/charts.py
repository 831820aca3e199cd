"""Sweep charts: a metric against the swept parameter, median line with the min-max band over repeats.

matplotlib is an optional extra (``planner[charts]``), imported lazily with the Agg backend; without it no
chart is drawn and the report keeps the table alone. SVGs are written reproducibly: no Date metadata and a
fixed ``svg.hashsalt`` (matplotlib issue #27831: ids otherwise differ run to run).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ChartPoint:
    x: str  # the swept parameter's value as printed
    low: float
    median: float
    high: float


def matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _numeric(xs: Sequence[str]) -> list[float] | None:
    try:
        return [float(x) for x in xs]
    except ValueError:
        return None


def sweep_chart(path: Path, title: str, xlabel: str, ylabel: str,
                lines: Sequence[tuple[str, Sequence[ChartPoint]]]) -> Path | None:
    """Write one SVG with a line per (label, points); returns the path, or None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    matplotlib.rcParams["svg.hashsalt"] = "planner"
    fig, ax = plt.subplots(figsize=(7, 4))
    try:
        for label, points in lines:
            xs_text = [p.x for p in points]
            xs: Sequence[float] = _numeric(xs_text) or list(range(len(points)))
            ax.plot(xs, [p.median for p in points], marker="o", label=f"{label} (median)")
            ax.fill_between(xs, [p.low for p in points], [p.high for p in points], alpha=0.2)
            if _numeric(xs_text) is None:
                ax.set_xticks(list(xs), xs_text, rotation=30, ha="right")
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        if lines:
            ax.legend(fontsize="small")
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, format="svg", metadata={"Date": None})
    finally:
        plt.close(fig)
    return path
