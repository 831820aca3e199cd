"""One Tcl word for a hammerdbcli script, whatever the value holds (both the Oracle and the PostgreSQL scripts)."""

from __future__ import annotations

import re

from planner.errors import StepError

_TCL_SPECIAL = re.compile(r'([\\"$\[\]{}])')


def tcl_quote(value: object) -> str:
    """One Tcl word whatever the value holds: double quotes, with every substitution character escaped."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if any(c in text for c in "\0\n\r"):
        raise StepError(f"hammerdb: refused a value with a line break or NUL: {text[:40]!r}")
    return '"' + _TCL_SPECIAL.sub(r"\\\1", text) + '"'
