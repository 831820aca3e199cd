"""The workload kinds, one folder each (planner.kindspec says how a kind is registered and found)."""
