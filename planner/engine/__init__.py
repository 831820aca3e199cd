"""The engine: runs a typed Plan on its hosts (fan-out, probes, windows, locks, interrupts) and writes the run
record. Never imports the CLI."""
