"""SLB: Kevin Closson's Silly Little Benchmark (the SLB-compatible kit)."""
