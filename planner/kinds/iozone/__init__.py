"""iozone: the filesystem benchmark (throughput mode and result tables)."""
