"""The PostgreSQL client's connection, as the workload kinds import it: planner.db.libpq under its old name.

libpq's side of the server moved under the engine-neutral db/ seam (planner.db.engine); the kinds that import it
from here keep working until they import planner.db.libpq themselves.
"""

from __future__ import annotations

from planner.db.libpq import DROP, PASSWORD_VAR, RUN, Server, passfile_line, write_passfile

__all__ = ["DROP", "PASSWORD_VAR", "RUN", "Server", "passfile_line", "write_passfile"]
