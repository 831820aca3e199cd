"""ORION's tables: its parser kinds (csv matrices, summary), metric words and axis words."""

from planner.kindspec import KindSpec, ParserKind, ReportWords

_PARSE = "planner.kinds.orion.parse"

KIND = KindSpec(
    "orion", step="planner.kinds.orion.step:Orion",
    parsers=(
        ParserKind("orion_csv", _PARSE, "ORION csv matrix", "looks_like_csv", "parse_csv",
                   (r"_(iops|mbps|lat)\.csv$",), best_cell=True, step_kind="orion", in_outcome=True, prefixed=True),
        ParserKind("orion_summary", _PARSE, "ORION summary/console", "looks_like_summary", "parse_summary",
                   (r"_summary\.txt$",), headline=(("orion.max_small_iops", {}), ("orion.max_large_mbps", {}),
                                                    ("orion.min_small_latency_ms", {})),
                   result_lines=r"Maximum (?:Large MBPS|Small IOPS)|Minimum Small Latency|Small (?:Read|Write) "
                                r"Latency:|^[ \t]*Name:\s*\S+\s+Size:|^[ \t]*(?:Small IO size|Large IO size|Write|"
                                r"Duration for each Data Point|Total Data Points):", step_kind="orion",
                   in_outcome=True, reads="ORION summary/csv"),
        # a 12c+ _lat.csv (the step names it)
        ParserKind("orion_csv_us", _PARSE, "ORION 12c+ latency csv (us)", "looks_like_csv", "parse_csv_us",
                   best_cell=True, step_kind="orion"),
    ),
    standin="planner.kinds.orion.standin:install",
    extras=("planner.kinds.orion.extra:OrionRun",),
    report=ReportWords(
        prefix="orion", tool="ORION",
        metric_words={
            "orion.max_small_iops": "ORION max small-I/O IOPS",
            "orion.max_large_mbps": "ORION max large-I/O throughput",
            "orion.min_small_latency_ms": "ORION min small-I/O latency",
            "orion.small_latency_ms": "ORION small-I/O latency",
            "orion.iops": "ORION IOPS", "orion.mbps": "ORION throughput", "orion.lat": "ORION latency",
        },
        param_words={"num_disks": "disks"},
    ),
)
