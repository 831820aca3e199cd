"""fio: flexible I/O tester (its step, parsers, series and words)."""
