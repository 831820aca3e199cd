"""CALIBRATE_IO's tables: its parser kind and metric words."""

from planner.kindspec import KindSpec, ParserKind, ReportWords

KIND = KindSpec(
    "calibrate_io", step="planner.kinds.calibrate_io.step:CalibrateIo",
    parsers=(
        ParserKind("calibrate_io", "planner.kinds.calibrate_io.parse", "CALIBRATE_IO result",
                   headline=(("calibrate.max_iops", {}), ("calibrate.max_mbps", {}), ("calibrate.latency_ms", {})),
                   one_figure=True, step_kind="calibrate_io", in_outcome=True, reads="CALIBRATE_IO",
                   result_lines=r"^[ \t]*(?:max[ _]iops|max[ _]mbps|max[ _]pmbps|latency|actual[ _]latency)\s*[=:]"),
    ),
    extras=("planner.kinds.calibrate_io.extra:Calibration",),
    report=ReportWords(
        prefix="calibrate", tool="CALIBRATE_IO",
        metric_words={
            "calibrate.max_iops": "CALIBRATE_IO max IOPS",
            "calibrate.max_mbps": "CALIBRATE_IO max throughput",
            "calibrate.max_pmbps": "CALIBRATE_IO max throughput of one process",
            "calibrate.latency_ms": "CALIBRATE_IO latency",
            "calibrate.num_physical_disks": "CALIBRATE_IO physical disks",
        },
    ),
)
