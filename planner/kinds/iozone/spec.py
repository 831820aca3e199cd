"""iozone's tables: its parser kind, metric words and axis words."""

from planner.kindspec import KindSpec, ParserKind, ReportWords

KIND = KindSpec(
    "iozone", step="planner.steps.wl_iozone:Iozone",
    parsers=(
        ParserKind("iozone", "iozone", "iozone output (throughput mode or result table)",
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
)
