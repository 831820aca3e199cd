"""SLB's tables: its parser kind, metric words and axis words."""

from planner.kindspec import KindSpec, ParserKind, ReportWords

KIND = KindSpec(
    "slb", step="planner.kinds.slb.step:Slb",
    parsers=(
        ParserKind("slb", "planner.kinds.slb.parse", "SLB output",
                   headline=(("slb.rops_per_s", {}), ("slb.wops_per_s", {}), ("slb.ops_per_s", {})),
                   result_lines=r"^[ \t]*Users:|Total\s+[wr]ops\b", step_kind="slb", reads="SLB"),
    ),
    storage_test=False,  # a CPU and memory (logical I/O) test: seed "SLB, the Silly Little Benchmark"
    report=ReportWords(
        prefix="slb", tool="SLB",
        metric_words={"slb.rops_per_s": "SLB read operations", "slb.wops_per_s": "SLB write operations",
                      "slb.users": "SLB processes", "slb.runtime_s": "SLB run time"},
        param_words={"users": "SLB processes"},
    ),
)
