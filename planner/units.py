"""Sizes with a K/M/G/T/P suffix, read one way: the one reader behind every size planner takes or parses.

Every tool planner drives reads these suffixes as powers of 1024 (dd and fio's ``bs``, ``size``; Oracle's big
integer parameters; the kernel's huge pages; SLOB's SCALE; iozone's ``-r``; AWR's Cache Sizes), so there is
one table. What differs between callers is said by the caller, never guessed here: which letters the tool
takes, whether case matters, fractions, a trailing ``B``, blanks, and what a bare number counts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30

# Binary multiples, as dd, fio, iozone, Oracle and the kernel read a size suffix.
SUFFIX_BYTES: Mapping[str, int] = {"": 1, "K": KIB, "M": MIB, "G": GIB, "T": 1 << 40, "P": 1 << 50}

_WHOLE = r"[0-9]+"
_FRACTION = r"[0-9]+(?:\.[0-9]+)?"


def suffix_bytes(suffix: str) -> int:
    """The multiple one suffix letter stands for (``""`` is 1); KeyError for a letter that is none."""
    return SUFFIX_BYTES[suffix.upper()]


def parse_size(value: object, *, suffixes: str = "KMGT", fraction: bool = False,
               byte_suffix: bool = False, ignore_case: bool = True, space: bool = False) -> float | None:
    """Bytes from a size such as ``8192``, ``512M`` or ``1.5g``; None when it is not one.

    ``suffixes``: the letters this caller's tool takes (upper case); a bare number is bytes (a tool that
    counts KiB, as iozone, multiplies by ``suffix_bytes(suffix or "K")``). ``fraction``: ``1.5G`` allowed.
    ``byte_suffix``: a trailing ``B``/``b`` allowed (``64MB``). ``ignore_case``: ``512m`` allowed. ``space``:
    ``4 G`` allowed.
    The text is read as given: a caller that forgives blanks around it strips them first. Whole numbers times
    a power of two are exact in a float, so ``int()`` of the answer loses nothing.
    """
    letters = suffixes + suffixes.lower() if ignore_case else suffixes
    pattern = (f"({_FRACTION if fraction else _WHOLE}){' *' if space else ''}({f'[{letters}]?' if letters else ''})"
               f"{'[bB]?' if byte_suffix else ''}")
    m = re.fullmatch(pattern, str(value))
    if m is None:
        return None
    number, suffix = float(m.group(1)), m.group(2).upper()
    return number * SUFFIX_BYTES[suffix]
