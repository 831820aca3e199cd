"""What a buffered file benchmark measures: its data against the host's memory, said the same way for every kind
whose data can sit in the page cache (each kind reads its own sizes, in its own units)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def page_cache_exposure(data_gb: float | None, facts: Mapping[str, Any]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The test's data against the host's memory: data smaller than memory can be served from the page cache."""
    try:
        memory = float(facts.get("memory_gb") or 0)
    except (TypeError, ValueError):
        memory = 0.0
    if data_gb is None or not memory:
        return "the page cache can hold part or all of the data", ()
    fits = "fits in" if data_gb <= memory else f"is {data_gb / memory:.1f}x"
    return (f"the test's data ({data_gb:g} GB) {fits} the host's {memory:g} GB of memory",
            (("data GB", f"{data_gb:g}"), ("host memory GB", f"{memory:g}")))
