"""The report's findings, each said once for the points it applies to: a check that fires at every point of a
sweep reads "on all 3 points", one that fires at some "at 32 and 64 virtual users", instead of one row per point.
Findings are grouped when they are the same check on the same system, host and step, saying the same thing
(their titles and messages alike but for the figures): a figure that differs is said as its span ("32.0 to 64.0
average active sessions on 16 CPUs") and kept per point under Numbers."""

from __future__ import annotations

import re
from collections.abc import Sequence

from planner.metrics import words_in
from planner.report.context_types import FindingRow, NumberRow
from planner.report.study import label_words_of
from planner.results.finding import Finding
from planner.results.stats import Series

_FIGURE = re.compile(r"\d[\d,.]*")
_NO_POINT = ("", "—")


def finding_rows(findings: Sequence[Finding], series: Sequence[Series], grouped: bool = True) -> list[FindingRow]:
    """``grouped``: a finding said at several points of a step is one row (the report's text); else one row per
    finding, as the store and ``planner show`` list them (the context's ``findings``). ``point_words``: the points
    in words ("8 virtual users", "at 16 and 32 virtual users", "on all 3 points"); ``point`` stays the first
    point's record key ("virtual_users=8"). A finding's ``step`` is its title."""
    kinds = {(s.play, s.title): s.kind for s in series if s.kind}
    points: dict[tuple[str, str, str], set[str]] = {}
    for s in series:
        points.setdefault((s.play, s.host, s.title), set()).add(s.point_label)
    groups: dict[object, list[Finding]] = {}
    for i, f in enumerate(findings):
        key = (i,) if f.point in _NO_POINT or not grouped else (
            f.code, f.severity, f.about, _FIGURE.sub("#", f.title), f.play, f.host, f.step,
            _FIGURE.sub("#", f.message))
        groups.setdefault(key, []).append(f)
    kept = [part for group in groups.values() for part in ([[f] for f in group] if _ambiguous(group) else [group])]
    return [_row(group, kinds.get((group[0].play, group[0].step), ""),
                 len(points.get((group[0].play, group[0].host, group[0].step), ()))) for group in kept]


# a span beside the message's own range words would read "from 8 to 16 to 16 to 32 virtual users"
_RANGE_WORD = re.compile(r"(?:\bto|\bfrom|\bbetween|\band|-|–)\s*$")
_RANGE_NEXT = re.compile(r"^\s*(?:to\b|and\b|-|–)")


def _ambiguous(group: list[Finding]) -> bool:
    """Whether a figure that differs between the group's points sits beside a range word of the message itself
    ("rose 9.2% from 16 to 32 virtual users"): its span would read as a longer range, so each point keeps its row."""
    if len(group) < 2:
        return False
    for text in ([f.message for f in group], [f.title for f in group]):
        parts, figures = _FIGURE.split(text[0]), [_FIGURE.findall(m) for m in text]
        for i, fig in enumerate(figures[0]):
            if any(f[i] != fig for f in figures) and (_RANGE_WORD.search(parts[i]) or _RANGE_NEXT.search(parts[i + 1])):
                return True
    return False


def _row(group: list[Finding], kind: str, step_points: int) -> FindingRow:
    first = group[0]
    said = [label_words_of(f.point, kind) for f in group]
    message = words_in(_spanned([f.message for f in group]))
    title = words_in(_spanned([f.title for f in group]))
    return FindingRow(code=first.code, severity=first.severity.value, title=title, play=first.play,
                      host=first.host, step=first.step, point=first.point,
                      point_words=said[0] if len(group) == 1 else _where(said, step_points), message=message,
                      numbers=_numbers(group, said), about=first.about.value)


def _spanned(messages: list[str]) -> str:
    """The group's one message: a figure that differs between points said as its span ("8 to 32 virtual users",
    "CPU was 98.5 to 100.0% busy"); the messages are alike but for their figures (the grouping key)."""
    texts = [_FIGURE.split(m) for m in messages]
    figures = [_FIGURE.findall(m) for m in messages]
    out = [texts[0][0]]
    for i, fig in enumerate(figures[0]):
        seen = [f[i] for f in figures]
        if any(v != fig for v in seen):
            low, high = min(seen, key=_value), max(seen, key=_value)
            fig = low if low == high else f"{low} to {high}"
        out += [fig, texts[0][i + 1]]
    return "".join(out)


def _value(figure: str) -> float:
    try:
        return float(figure.replace(",", "").rstrip("."))
    except ValueError:
        return 0.0


def _where(said: list[str], step_points: int) -> str:
    """"on all 3 points" when the step had no other; else "at 16 and 32 virtual users"."""
    if len(said) == step_points:
        return f"on all {step_points} points"
    heads = [w.partition(" ") for w in said]
    if all(h[1] and h[2] == heads[0][2] for h in heads):  # one unit: "16 and 32 virtual users"
        return f"at {_join([h[0] for h in heads])} {heads[0][2]}"
    return f"at {_join(said)}"


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _numbers(group: list[Finding], said: list[str]) -> list[NumberRow]:
    """A figure the same at every point once; one that differs once per point, named by its point."""
    out: list[NumberRow] = []
    for j, (name, value) in enumerate(group[0].numbers):
        values = [f.numbers[j][1] if j < len(f.numbers) else "" for f in group]
        if all(v == value for v in values):
            out.append({"name": words_in(name), "value": words_in(value)})
        elif not all(w.startswith(f"{v} ") for w, v in zip(said, values, strict=True)):  # not the point again
            out += [{"name": f"{words_in(name)} ({w})", "value": words_in(v)}
                    for w, v in zip(said, values, strict=True)]
    return out
