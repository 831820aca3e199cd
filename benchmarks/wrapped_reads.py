"""Before/after figures for pasted files: how many wrapped copies of the project's real files read the same
values as the bare file, per kind (issue 26). Run with the planner to measure on PYTHONPATH:

    python benchmarks/wrapped_reads.py            # this checkout (--held-out: wrappers no test generates)
    PYTHONPATH=/path/to/old/checkout python benchmarks/wrapped_reads.py

Each real file in tests/data is wrapped in every wrapper of tests/test_unwrap.py (fixed, no randomness);
a copy counts as read when it gives the bare file's values, and "everything read" is only counted when true.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "parsers"), str(ROOT / "tests")]  # test_unwrap lives in tests/parsers

import test_unwrap as w  # noqa: E402 - the wrappers are the test's own

from planner.errors import ParseError  # noqa: E402
from planner.parsers import parse_text  # noqa: E402

WRAPPERS = {
    "indent 4": w.indent(4), "tab": w.tab, "quote": w.quote(1, True), "quote x2": w.quote(2, True),
    "quote tight": w.quote(1, False), "fence": w.fence("", False), "fence + prose": w.fence("text", True),
    "heading": w.heading, "html pre": w.html_pre, "prompt": w.prompt("[oracle@db1 ~]$"),
    "trailing comment": w.trailing("# collected by hand"), "fence(indent 4)": lambda t: w.fence("", True)(w.indent(4)(t)),
}
ROWS = {"ts prefix": w.row_prefix("ts"), "host prefix": w.row_prefix("host")}
# Held out: wrappers the tests never generate, to see the unwrapper generalise rather than fit.
HELD_OUT = {
    "html <br> lines": lambda t: "<html><body><div class=\"post\">" + "<br/>\n".join(
        __import__("html").escape(ln).replace(" ", "&nbsp;") for ln in t.split("\n")) + "</div></body></html>",
    "quote x3 tight": lambda t: "\n".join((">>>" + ln) for ln in t.split("\n")),
    "indent 2 + prompt + trailing $": lambda t: w.indent(2)("$ sh run.sh\n" + t + "\n$"),
    "blank-line spaced fence": lambda t: "Output:\n\n~~~\n" + t + "\n~~~\n\nthanks",
}


def _values(text: str, source: str) -> list[tuple[str, float]] | None:
    try:
        return sorted((m.key, m.value) for m in parse_text(text, source).metrics)
    except ParseError:
        return None


def main() -> None:
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for kind, rel in sorted({**w.BODIES, **w.HTML_REPORTS}.items()):
        body = w._body(rel)
        bare = _values(body, rel)
        wrappers = dict(HELD_OUT) if "--held-out" in sys.argv else \
            dict(WRAPPERS, **(ROWS if kind in w.ROW_KINDS else {}))
        if kind in w.HTML_REPORTS:
            wrappers = {k: v for k, v in wrappers.items() if k in ("prompt", "trailing comment", "indent 2 + prompt")}
        for fn in wrappers.values():
            tally[kind][1] += 1
            tally[kind][0] += int(bare is not None and _values(fn(body), rel) == bare)
    total = [sum(v[0] for v in tally.values()), sum(v[1] for v in tally.values())]
    for kind, (ok, n) in sorted(tally.items()):
        print(f"{kind:15} {ok:3}/{n:<3} wrapped copies read the same values")
    print(f"{'all':15} {total[0]:3}/{total[1]:<3} ({100 * total[0] / total[1]:.0f}%)")


if __name__ == "__main__":
    main()
