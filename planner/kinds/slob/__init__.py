"""SLOB: Kevin Closson's Silly Little Oracle Benchmark, driven through its own kit."""
