"""A metric's words live in one table (metrics.DISPLAY_NAMES): the report's OS table reads them from there."""

from __future__ import annotations

from planner.metrics import DISPLAY_NAMES
from planner.report.context import OS_LABELS


def test_the_os_table_reads_its_words_from_the_one_table() -> None:
    assert OS_LABELS == {"os.cpu_busy_pct": "CPU busy %", "os.cpu_iowait_pct": "CPU iowait %",
                         "os.read_iops": "OS read IOPS", "os.write_iops": "OS write IOPS",
                         "os.util_pct_max": "Busiest device utilisation %", "os.samples": "Samples in the window"}
    assert all(words.startswith(DISPLAY_NAMES[m]) for m, words in OS_LABELS.items())
