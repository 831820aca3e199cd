"""planner: benchmark studies (SLOB, ORION, SLB, CALIBRATE_IO, iozone, fio) as reviewable YAML plans."""

__version__ = "0.1.0"
