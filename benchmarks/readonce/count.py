"""Count, in one headline rehearsal (`planner apply --rehearse plans/violin_vs_exadata.yaml`), how often each
artifact is parsed, each chart drawn and each record file written; prints them as JSON.

    python benchmarks/readonce/count.py            # the checkout on sys.path (run from its root)

Counters are wrapped around the one function each path goes through: parsers.parse_text (every parse of
a file), charts.sweep_chart (every chart drawn) and files.atomic_write (every record file written).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any


def count(root: Path, work: Path) -> dict[str, Any]:
    import planner.files as files
    import planner.parsers as parsers
    import planner.report.study as study
    from planner.cli.main import main

    for d in ("plans", "inventory"):
        shutil.copytree(root / d, work / d, ignore=shutil.ignore_patterns("reports"))
    parses: Counter[str] = Counter()
    charts: Counter[str] = Counter()
    writes: Counter[str] = Counter()
    parse_text, sweep_chart, atomic_write = parsers.parse_text, study.sweep_chart, files.atomic_write

    def counted_parse(text: str, source: str = "", kind: str | None = None) -> Any:
        parses[Path(source).name if "/artifacts/" not in source else source.split("/artifacts/", 1)[1]] += 1
        return parse_text(text, source, kind)

    def counted_chart(path: Path, *a: Any, **k: Any) -> Any:
        charts[Path(path).name] += 1
        return sweep_chart(path, *a, **k)

    def counted_write(path: Path, data: bytes, mode: int | None = None) -> None:
        writes[Path(path).name] += 1
        atomic_write(path, data, mode)

    parsers.parse_text, study.sweep_chart, files.atomic_write = counted_parse, counted_chart, counted_write
    os.environ.setdefault("PLANNER_REHEARSE_TRANSPORT", "local")
    os.chdir(work)
    code = main(["apply", "--rehearse", str(work / "plans" / "violin_vs_exadata.yaml"), "--runs-dir",
                 str(work / "runs"), "-e", "run_time=30"])
    return {"exit_code": code, "artifacts_parsed": len(parses), "parses": sum(parses.values()),
            "max_parses_per_artifact": max(parses.values(), default=0), "charts": dict(charts),
            "writes": {k: writes[k] for k in ("results.json", "restore.json", "meta.json", "report.md",
                                               "violin_vs_exadata.md")}}


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="planner-count-") as tmp:
        out = count(Path.cwd(), Path(tmp))
    print(json.dumps(out, indent=2), file=sys.__stdout__)
