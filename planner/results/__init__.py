"""From run folders to numbers: measurements, statistics over repeats, findings, comparisons and the results store."""
