"""iozone's tables: its parser kind, metric words, axis words and the host variable it reads."""

from planner.kindspec import HostVar, KindSpec, ParserKind, ReportWords

KIND = KindSpec(
    "iozone", step="planner.kinds.iozone.step:Iozone",
    run_findings="planner.kinds.iozone.findings:run_findings",
    standin="planner.kinds.iozone.standin:install",
    parsers=(
        ParserKind("iozone", "planner.kinds.iozone.parse", "iozone output (throughput mode or result table)",
                   headline=(("iozone.throughput", {"view": "parent"}), ("iozone.iops", {"view": "parent"}),
                             ("iozone.throughput", {"mode": "auto"}), ("iozone.iops", {"mode": "auto"})),
                   result_lines=r"(?:Children see|Parent sees) throughput|throughput per process|Min xfer\s*=",
                   step_kind="iozone", reads="iozone"),
    ),
    report=ReportWords(
        prefix="iozone", tool="iozone",
        metric_words={"iozone.iops": "iozone IOPS", "iozone.throughput": "iozone throughput",
                      "iozone.per_process": "iozone throughput per process", "iozone.min_xfer": "iozone min transfer"},
        param_words={"record_kb": "record size (KB)", "file_size": "file size"},
    ),
    host_vars=(
        HostVar("iozone_min_mb_per_s", "number", "10",
                "the slowest rate (MB/s, a number > 0) the host's disk may run at: a point's timeout is the bytes "
                "iozone moves at that rate plus a margin"),
    ),
)
