"""The AWR history of ``planner analyze`` as one self-contained HTML page: charts as inline SVG, nothing loaded.

Each chart puts the snapshots in time order along the x axis; every point carries a tooltip (the SVG
``<title>`` a browser shows on hover) with its snapshot and value, snapshots that were mostly waits are
shaded, and anomalies are ringed in red. Every text from the reports (event names, times, file names) is
escaped: a report is input, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from planner.report.html import STYLE
from planner.results.history import LOAD, History, Snapshot

W, H, PAD_L, PAD_R, PAD_T, PAD_B = 900, 220, 64, 150, 16, 34
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
EXTRA = ".band{fill:#f6e7c8}.ring{fill:none;stroke:#d62728;stroke-width:2}.axis{stroke:#888}" \
        "svg text{font-size:11px;fill:#333}.lede{font-size:1.05em}"


def _tick(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.2f}".rstrip("0").rstrip(".")


def _chart(title: str, snaps: Sequence[Snapshot], lines: Sequence[tuple[str, Sequence[float | None]]],
           anomalous: Sequence[set[int]] = ()) -> str:
    n = len(snaps)
    values = [v for _, vs in lines for v in vs if v is not None]
    if n < 2 or not values:
        return ""
    top = max(values) * 1.1 or 1.0
    pw, ph = W - PAD_L - PAD_R, H - PAD_T - PAD_B

    def x(i: int) -> float:
        return PAD_L + pw * i / (n - 1)

    def y(v: float) -> float:
        return PAD_T + ph * (1 - v / top)

    parts = [f'<svg role="img" aria-label="{escape(title)}" width="{W}" height="{H}" viewBox="0 0 {W} {H}">']
    step = pw / (n - 1)
    for i, s in enumerate(snaps):
        if (w := s.wait_share) is not None and w > 0.5:
            parts.append(f'<rect class="band" x="{x(i) - step / 2:.1f}" y="{PAD_T}" width="{step:.1f}" '
                         f'height="{ph}"><title>{escape(s.begin or s.source)}: mostly waits</title></rect>')
    parts.append(f'<line class="axis" x1="{PAD_L}" y1="{PAD_T + ph}" x2="{PAD_L + pw}" y2="{PAD_T + ph}"/>')
    parts.append(f'<line class="axis" x1="{PAD_L}" y1="{PAD_T}" x2="{PAD_L}" y2="{PAD_T + ph}"/>')
    for frac in (0, 0.5, 1):
        v = top * frac / 1.1 if frac else 0
        parts.append(f'<text x="{PAD_L - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{_tick(v)}</text>')
    for i in (0, n - 1):
        parts.append(f'<text x="{x(i):.1f}" y="{H - 12}" text-anchor="{"start" if i == 0 else "end"}">'
                     f'{escape(snaps[i].begin or "")}</text>')
    for k, (name, vs) in enumerate(lines):
        colour = COLOURS[k % len(COLOURS)]
        pts = [(x(i), y(v), i, v) for i, v in enumerate(vs) if v is not None]
        path = " ".join(f"{'M' if j == 0 else 'L'}{px:.1f},{py:.1f}" for j, (px, py, _, _) in enumerate(pts))
        parts.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="1.6"/>')
        rings = anomalous[k] if k < len(anomalous) else set()
        for px, py, i, v in pts:
            at = snaps[i]
            tip = f"{at.begin or at.source} (snaps {at.begin_id}-{at.end_id}): {name} {_tick(v)}"
            cls = ' class="ring" r="5"' if i in rings else f' r="2.5" fill="{colour}"'
            parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}"{cls}><title>{escape(tip)}</title></circle>')
        parts.append(f'<text x="{PAD_L + pw + 8}" y="{PAD_T + 14 * (k + 1)}" fill="{colour}" '
                     f'style="fill:{colour}">{escape(name)}</text>')
    parts.append("</svg>")
    return f"<h3>{escape(title)}</h3>\n" + "".join(parts)


def _rings(h: History, what: str) -> set[int]:
    keys = {(a.source, a.what) for a in h.anomalies}
    return {i for i, s in enumerate(h.snapshots) if (s.source, what) in keys}


def _stand_out(n: int) -> str:
    return "no value stands out" if n == 0 else "1 value stands out" if n == 1 else f"{n} values stand out"


def _history(h: History) -> str:
    snaps = h.snapshots
    top = h.top_events[:4]
    worst = max(snaps, key=lambda s: s.aas or 0)
    lede = (f"{len(snaps)} reports from {escape(snaps[0].begin or '?')} to {escape(snaps[-1].begin or '?')}. "
            f"Busiest: {worst.aas or 0:,.1f} active sessions at {escape(worst.begin or worst.source)}. "
            f"{len(h.mostly_waits)} snapshots were mostly waits (shaded); {_stand_out(len(h.anomalies))} (ringed).")
    out = [f"<h2>{escape(h.database)}</h2>", f'<p class="lede">{lede}</p>',
           _chart("DB time against DB CPU (per second: average active sessions)", snaps,
                  [("active sessions", [s.aas for s in snaps]), ("DB CPU", [s.cpu for s in snaps])],
                  [_rings(h, "Average active sessions")]),
           _chart("Top events over time (% of DB time)", snaps,
                  [(e, [dict(s.waits).get(e) for s in snaps]) for e in top])]
    for name, words in LOAD:
        vs = [dict(s.load).get(name) for s in snaps]
        if sum(v is not None for v in vs) >= 2:
            out.append(_chart(f"Load profile: {words}", snaps, [(words, vs)], [_rings(h, words)]))
    if h.anomalies:
        out += ["<h3>What stands out</h3>", "<ul>"]
        out += [f"<li>{escape(a.what)} {a.value:,.1f} at {escape(a.begin or a.source)} (median {a.median:,.1f})</li>"
                for a in h.anomalies]
        out.append("</ul>")
    return "\n".join(out)


def history_page(histories: Sequence[History], title: str = "AWR history") -> str:
    body = [f"<h1>{escape(title)}</h1>"]
    if not histories:
        body.append("<p>No database had two or more reports: there is no history to draw.</p>")
    body += [_history(h) for h in histories]
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{STYLE}{EXTRA}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
