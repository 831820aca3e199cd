"""pgbench and sysbench through the parse registry as they will be once their kinds are registered: their
ParserKinds added after the registered kinds', in a child interpreter (the registry's tables are built at
import), every sample read by planner.parsers.parse_file: unwrapped, detected as its kind, no warning."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
CHILD = """
import json, sys
from pathlib import Path
import planner.kindspec as kindspec
from planner.kinds.pgbench import spec as pgbench
from planner.kinds.sysbench import spec as sysbench
registered = kindspec.parser_kinds
kindspec.parser_kinds = lambda: (*registered(), *pgbench.PARSERS, *sysbench.PARSERS)
from planner.parsers import parse_file
out = {}
for path in sys.argv[1:]:
    p = parse_file(Path(path))
    out[Path(path).name] = [p.kind, [str(e) for e in p.errors], p.value(p.kind + ".tps")]
print(json.dumps(out))
"""


@pytest.mark.slow
def test_every_sample_reads_through_the_registry_as_its_kind_with_no_warning() -> None:
    files = [str(f) for kind in ("pgbench", "sysbench") for f in sorted((ROOT / "tests" / "data" / kind).iterdir())
             if f.name != "README.md"]
    done = subprocess.run([sys.executable, "-c", CHILD, *files], capture_output=True, text=True, cwd=ROOT,
                          check=True, timeout=120)
    read = json.loads(done.stdout)
    assert len(read) == len(files)
    for name, (kind, errors, _tps) in read.items():
        assert kind == ("sysbench" if name.startswith(("sysbench", "local_1_0")) else "pgbench"), name
        assert errors == [], name
    assert read["pg_docs_15_latency_limit_r.txt"][2] == 346.224794
    assert read["sysbench_1_1_0_oltp_point_select.md"][2] == 1714.17
