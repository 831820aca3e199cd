"""iozone's sizes as iozone reads them (its man page, iozone3 506: "-s # Used to specify the size, in Kbytes, of
the file to test. One may also specify -s #k (size in Kbytes) or -s #m (size in Mbytes) or -s #g (size in
Gbytes)"; ``-r`` likewise): a bare number is KB. Pure, for the step and the findings alike."""

from __future__ import annotations

import re
from typing import Any

from planner.units import KIB, suffix_bytes

_SIZE = re.compile(r"^(\d+)([kKmMgG]?)$")


def size_kb(value: Any) -> float | None:
    """An iozone ``-r`` or ``-s`` in KiB (``8`` and ``8k`` are 8, ``1m`` is 1024); None when not a plain size."""
    m = _SIZE.match(str(value).strip()) if value is not None else None
    if not m:
        return None
    return float(m.group(1)) * suffix_bytes(m.group(2) or "K") / KIB  # a bare number is KiB
