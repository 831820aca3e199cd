"""fio's outputs, one pure parser each: ``json_report`` (JSON / JSON+), ``terse`` (``--minimal``), ``text``
(normal output) and ``log`` (the per-interval IOPS, bandwidth and latency logs)."""
