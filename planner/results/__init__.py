"""From run folders to numbers: measurements, statistics over repeats, findings, comparisons
(planner.store keeps them)."""
