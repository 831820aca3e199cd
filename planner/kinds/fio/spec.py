"""fio's tables: its parser kinds (JSON, terse, normal text), metric words, axis words and sweep-table columns."""

from planner.kindspec import Headline, KindSpec, ParserKind, ReportWords, SeriesHeadline

_HEADLINE: Headline = (("fio.iops", {}), ("fio.bw_mbs", {}), ("fio.lat_ms", {"stat": "mean"}),
                       ("fio.clat_ms", {"stat": "p99"}))
_PARSE = "planner.kinds.fio.parse"

# fio engines that keep one I/O in flight per job whatever iodepth says (fio's man page, "iodepth": "Note that
# increasing iodepth beyond 1 will not affect synchronous ioengines"): the step warns of an iodepth sweep on one
# before it runs, the findings say it of the run.
SYNC_ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2"})

KIND = KindSpec(
    "fio", step="planner.kinds.fio.step:Fio",
    run_findings="planner.kinds.fio.findings:run_findings",
    # its job file and a preconditioning run's output (step.py), kept as they ran; its per-interval logs
    # (series.py), read into the point's series
    artifact_kinds=("fio_job", "fio_precondition", "fio_log"),
    # its per-interval logs judge a point (steady_state: metric iops | bw | lat), fio's own ss= verdict beside
    series=SeriesHeadline(steady=(("iops", "fio.iops"), ("bw", "fio.bw_mbs"), ("lat", "fio.clat_ms")),
                          latency="fio.clat_ms", own_verdict="planner.kinds.fio.findings:own_steady"),
    parsers=(
        ParserKind("fio_json", f"{_PARSE}.json_report", "fio JSON output", names=(r"\.json$",),
                   headline=_HEADLINE, step_kind="fio", reads="fio JSON, terse or normal output"),
        ParserKind("fio_terse", f"{_PARSE}.terse", "fio terse (--minimal) output",
                   names=(r"fio.*\.(terse|csv)$",), headline=_HEADLINE),
        ParserKind("fio_text", f"{_PARSE}.text", "fio normal (text) output", names=(r"fio.*\.(txt|log|out)$",),
                   headline=_HEADLINE,
                   result_lines=r"^[ \t]*(?:(?:read|write|trim|mixed)\s*: (?:IOPS=|io=)|(?:slat|clat|lat)\s*\("
                                r"(?:nsec|usec|msec)\):\s*min=|cpu\s*:\s*usr=|\S+: ios=.*util=)"),
    ),
    report=ReportWords(
        prefix="fio", tool="fio",
        metric_words={
            "fio.iops": "fio IOPS", "fio.bw_mbs": "fio bandwidth", "fio.bw_kib": "fio bandwidth",
            "fio.lat_ms": "fio total latency", "fio.clat_ms": "fio completion latency",
            "fio.slat_ms": "fio submission latency", "fio.disk_util_pct": "fio disk utilisation",
        },
        param_words={"iodepth": "I/O depth", "numjobs": "fio jobs", "bs": "block size"},
        # fio's headline columns (IOPS, MB/s, mean latency, p99) per direction; its 40 other latency statistics
        # stay in the per-metric details and the exports, not in a sweep table a DBA reads across
        table_metrics=(),
        series_words={"fio.iops": "IOPS", "fio.bw_mbs": "bandwidth", "fio.clat_ms": "completion latency"},
    ),
)
