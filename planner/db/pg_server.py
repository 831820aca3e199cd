"""A PostgreSQL server as the pg_conf step reaches it: psql for SQL, pg_ctl or systemd for a restart.

SQL goes through the host's psql as the workload kinds reach PostgreSQL (``pg_host``/``pg_port``/``pg_user``; a
``pg_password`` through a private PGPASSFILE made and removed by the same command, the line on stdin, which the
record keeps masked). The server's own files are reached as the OS user that owns the data directory (sudo when
the login is another user): the backup of postgresql.auto.conf and a restart. How the host runs the server is
read from the host, never guessed: ``pg_service`` names a systemd unit (``systemctl restart``, as root), else
``pg_ctl -D DATA restart`` with the postmaster's own program folder (/proc/PID/exe) and its log file (where
its stderr goes, /proc/PID/fd/2), so the server logs where it did; ``pg_bin``/``pg_log`` say them outright.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from planner.db.access import StepContext
from planner.db.libpq import PASSWORD_VAR, Server, passfile_line
from planner.db.pg_settings import Setting
from planner.errors import StepError
from planner.transport.connection import CommandResult, login_user

# "-": the libpq password line comes on stdin into a private file that lives as long as the command
_PSQL = ('if [ "$1" = - ]; then shift; umask 077; p=$(mktemp) || exit 90; trap \'rm -f -- "$p"\' EXIT; '
         'cat >"$p"; PGPASSFILE=$p; export PGPASSFILE; "$@"; else shift; exec "$@"; fi')
_OWNER = 'stat -c %U -- "$1"'
# the postmaster's program and where its stderr goes (the log pg_ctl -l named), from its pid file
_POSTMASTER = 'p=$(head -n 1 -- "$1/postmaster.pid") || exit 3; readlink "/proc/$p/exe"; readlink "/proc/$p/fd/2"'
_BACKUP = 'if [ -e "$2" ]; then echo kept; else cp -p -- "$1" "$2" && echo taken; fi'
_PUT_BACK = 'cp -p -- "$2" "$1"'
_DROP = 'rm -f -- "$1"'
_READ_BACKUP = 'cat -- "$1"'
MASK = "********"
# l: the log; pg_ctl's words and the log's lines since the attempt are printed only when it fails
_PG_CTL = ('l=$1; shift; o=$(stat -c %s -- "$l" 2>/dev/null || echo 0); out=$("$@" 2>&1 </dev/null); rc=$?; '
           'if [ $rc -ne 0 ]; then printf "%s\\n" "$out"; tail -c +$((o + 1)) -- "$l" 2>/dev/null | tail -n 25; fi; '
           'exit $rc')
# u: the unit, l: the server's log when its stderr is a file (a forking unit's pg_ctl -l, Debian's pg_ctlcluster):
# the journal then holds only "pg_ctl: could not start server", the reason is in the log's lines since the attempt
_SYSTEMD = ('u=$1; l=$3; o=$(stat -c %s -- "$l" 2>/dev/null || echo 0); '
            'systemctl "$2" -- "$u" </dev/null 2>&1 && exit 0; rc=$?; '
            'journalctl -u "$u" -n 25 --no-pager -o cat 2>&1; '
            'if [ -n "$l" ]; then tail -c +$((o + 1)) -- "$l" 2>/dev/null | tail -n 25; fi; exit $rc')
# is-active needs no privilege; exit 0 only when active (systemctl(1): 3 "program is not running", unknown units too)
_IS_ACTIVE = 'systemctl is-active -- "$1" </dev/null 2>&1'
START_TIMEOUT_S = 600
_READ = ("select json_build_object('version', current_setting('server_version_num'), 'data', "
         "current_setting('data_directory'), 'auto', pg_read_file('postgresql.auto.conf', 0, 1048576, true), "
         "'settings', (select coalesce(json_agg(json_build_object('name', name, 'setting', setting, 'unit', unit, "
         "'context', context, 'vartype', vartype, 'min_val', min_val, 'max_val', max_val, 'enumvals', enumvals, "
         "'source', source, 'pending_restart', pending_restart)), '[]'::json) from pg_settings "
         "where lower(name) in ({})))")  # names are case-insensitive; pg_settings spells some TimeZone, DateStyle
_SEVERE = re.compile(r"\b(FATAL|PANIC|ERROR|HINT|DETAIL):")
_CONNINFO_SECRET = re.compile(r"(password\s*=\s*)('(?:[^']|'')*'|\S+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Target:
    """The server: how libpq reaches it and, read from the host, how it runs. No secret: it goes in the record."""

    host: str = ""
    port: str = ""
    user: str = ""
    database: str = "postgres"
    data: str = ""
    os_user: str = ""
    bin: str = ""  # the folder of pg_ctl (and psql when given)
    log: str = ""  # pg_ctl -l
    service: str = ""  # a systemd unit
    backup: str = ""  # planner's copy of the original postgresql.auto.conf on the host

    @classmethod
    def of(cls, v: Mapping[str, Any], database: str) -> Target:
        return cls(str(v.get("pg_host") or ""), str(v.get("pg_port") or ""), str(v.get("pg_user") or ""),
                   database, str(v.get("pg_data") or ""), str(v.get("pg_os_user") or ""),
                   str(v.get("pg_bin") or ""), str(v.get("pg_log") or ""), str(v.get("pg_service") or ""))

    def to_json(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Target:
        return cls(**{k: str(d.get(k) or "") for k in cls.__dataclass_fields__})

    def program(self, name: str) -> str:
        return posixpath.join(self.bin, name) if self.bin else name

    def auto_conf(self) -> str:
        return f"{self.data}/postgresql.auto.conf"

    def way(self) -> str:
        """How this server restarts, in the words the step's message uses."""
        if self.service:
            return f"systemctl restart {self.service}"
        return f"{self.program('pg_ctl')} -D {self.data} restart (log {self.log})"


@dataclass(frozen=True, slots=True)
class State:
    """What the server says before a change: its settings for the names asked and its postgresql.auto.conf."""

    version: int
    data: str
    auto: str | None  # the file's text; None when it does not exist
    settings: Mapping[str, Setting]


def password(ctx: StepContext) -> str:
    """pg_password from the step's variables, else the host's (a restore's context has no step variables)."""
    return str(ctx.vars.get(PASSWORD_VAR) or ctx.host.vars.get(PASSWORD_VAR) or "")


def psql(ctx: StepContext, t: Target, *sql: str, check: bool = True) -> CommandResult:
    """Each of ``sql`` as its own psql -c (ALTER SYSTEM cannot run in a transaction block); stops at the first
    error (ON_ERROR_STOP). A failure is a StepError with psql's own words."""
    server = Server(t.host, t.port, t.user)
    argv = [t.program("psql") if t.bin else "psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
            *server.options(), "-d", t.database]
    for statement in sql:
        argv += ["-c", statement]
    secret = password(ctx)
    if secret:
        line = passfile_line(server, t.database, secret)
        r = ctx.run(["sh", "-c", _PSQL, "sh", "-", *argv], check=False, become=False, stdin=line.encode())
    else:
        r = ctx.run(["sh", "-c", _PSQL, "sh", "+", *argv], check=False, become=False)
    if check and not r.ok:
        words = (r.stderr.strip() or r.stdout.strip())[-800:]
        hint = ("check pg_host/pg_port/pg_user, the password (pg_password or ~/.pgpass) and the database"
                if "connection to server" in words or "does not exist" in words else
                "pg_conf needs a superuser (ALTER SYSTEM, pg_read_file)" if "permission denied" in words else "")
        raise StepError(f"pg_conf: psql failed: {words}", hint=hint or None)
    return r


def read_state(ctx: StepContext, t: Target, names: Sequence[str]) -> State:
    """pg_settings for ``names`` (each name checked by the caller: pg_settings.NAME) and postgresql.auto.conf, in
    one query; a name the server does not know is refused, naming it."""
    quoted = ", ".join(f"'{n}'" for n in names)
    r = psql(ctx, t, _READ.format(quoted))
    try:
        d = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise StepError(f"pg_conf: psql answered what is not the settings asked: {r.stdout.strip()[-300:]!r}") from None
    version = int(d.get("version") or 0)
    settings = {str(row["name"]).lower(): Setting.of(row, version) for row in d.get("settings") or ()}
    unknown = [n for n in names if n not in settings]
    if unknown:
        raise StepError(f"pg_conf: unrecognized configuration parameter(s): {', '.join(unknown)} "
                        "(not in pg_settings)", hint="check the spelling against pg_settings (SHOW ALL)")
    return State(version, str(d.get("data") or ""), d.get("auto"), settings)


def _as_owner(ctx: StepContext, t: Target) -> dict[str, Any]:
    """ctx.run's keywords for a command as the data directory's owner (sudo only when that is another user)."""
    direct = bool(ctx.host.vars.get("planner_simulated") and ctx.host.vars.get("planner_become_direct"))
    other = bool(t.os_user) and t.os_user != login_user(ctx.host) and not direct
    return {"become": other, "become_user": t.os_user or None}


def locate(ctx: StepContext, t: Target, data: str) -> Target:
    """The target with what the host says: its data directory, its owner, the postmaster's programs and log."""
    t = replace(t, data=t.data or data)
    if not t.data.startswith("/"):
        raise StepError(f"pg_conf: the server's data directory is {t.data!r}, not an absolute path",
                        hint="set pg_data to the server's data directory")
    if not t.os_user:
        r = ctx.sh(_OWNER, t.data, check=False, become=False)
        owner = r.stdout.strip()
        if not r.ok or not owner:
            raise StepError(f"pg_conf: cannot see who owns the data directory {t.data}: {r.stderr.strip()[-300:]}",
                            hint="set pg_os_user to the OS user the server runs as")
        t = replace(t, os_user=owner)
    if t.service:
        _running_unit(ctx, t)
    if t.log and (t.service or t.bin):
        return t
    r = ctx.sh(_POSTMASTER, t.data, check=False, **_as_owner(ctx, t))
    exe, err = (r.stdout.strip().splitlines() + ["", ""])[:2] if r.ok else ("", "")
    to_file = err.startswith("/") and err != "/dev/null"
    if t.service:  # a unit whose server logs to the journal (a socket) has no log file to read
        return replace(t, log=err if to_file else "")
    log = err if to_file else f"{t.data}/pg_ctl.log"
    return replace(t, bin=t.bin or (posixpath.dirname(exe) if exe.startswith("/") else ""), log=t.log or log)


def _running_unit(ctx: StepContext, t: Target) -> None:
    """pg_service must be a unit systemd runs now, before anything changes: a restart of any other (a typo, an
    inactive one) would change the file and then fail, or restart something that is not this server."""
    r = ctx.sh(_IS_ACTIVE, t.service, check=False, become=False)
    if not r.ok:
        state = (r.stdout.strip().splitlines() or [f"exit code {r.exit_code}"])[-1][:80]
        raise StepError(f"pg_conf: pg_service {t.service} is not active (systemctl is-active: {state})",
                        hint="pg_service must name the systemd unit that runs this server "
                             "(systemctl list-units 'postgresql*')")


def take_backup(ctx: StepContext, t: Target) -> str:
    """Copy postgresql.auto.conf beside itself once per run; says whether it was taken now or kept."""
    r = ctx.sh(_BACKUP, t.auto_conf(), t.backup, check=False, **_as_owner(ctx, t))
    if not r.ok:
        raise StepError(f"pg_conf: cannot back up {t.auto_conf()} to {t.backup}: {r.stderr.strip()[-300:]}",
                        hint="the server's OS user (pg_os_user) must be reachable with sudo from the login")
    return r.stdout.strip()


def read_backup(ctx: StepContext, t: Target) -> str | None:
    """planner's copy of the original postgresql.auto.conf on the host (passwords and all); None when gone."""
    if not t.backup:
        return None
    r = ctx.sh(_READ_BACKUP, t.backup, check=False, **_as_owner(ctx, t))
    return r.stdout if r.ok else None


def drop_backup(ctx: StepContext, t: Target) -> None:
    if t.backup:
        ctx.sh(_DROP, t.backup, check=False, **_as_owner(ctx, t))


def _control(ctx: StepContext, t: Target, action: str) -> CommandResult:
    if t.service:
        return ctx.sh(_SYSTEMD, t.service, action, t.log, check=False, become=True, become_user="root",
                      timeout=START_TIMEOUT_S + 60)
    argv = [t.program("pg_ctl"), "-D", t.data, "-l", t.log, "-w", "-t", str(START_TIMEOUT_S), "-m", "fast", action]
    return ctx.sh(_PG_CTL, t.log, *argv, check=False, timeout=START_TIMEOUT_S + 60, **_as_owner(ctx, t))


def restart(ctx: StepContext, t: Target) -> str:
    """Restart the server; says how. A server that does not come back gets the original postgresql.auto.conf
    (planner's backup) and is started again, and the step fails with what the server's log said."""
    r = _control(ctx, t, "restart")
    if r.ok:
        return t.way()
    said = _log_words(r.stdout + r.stderr)
    if not t.backup:
        raise StepError(f"pg_conf: the server did not start ({t.way()}): {said}",
                        hint="no backup of postgresql.auto.conf was taken: put the parameters back by hand")
    put = ctx.sh(_PUT_BACK, t.auto_conf(), t.backup, check=False, **_as_owner(ctx, t))
    again = _control(ctx, t, "restart") if put.ok else None
    if again is None or not again.ok:
        more = _log_words((again.stdout + again.stderr) if again else put.stderr)
        raise StepError(f"pg_conf: the server did not start with the new parameters ({t.way()}): {said}; "
                        f"putting back {t.backup} and starting again failed too: {more}",
                        hint=f"the server is down: copy {t.backup} over {t.auto_conf()} and start it")
    raise StepError(f"pg_conf: the server did not start with the new parameters ({t.way()}); the server's log "
                    f"said: {said}; planner put the original postgresql.auto.conf back (from {t.backup}) and "
                    "started it again: it runs as before the change",
                    hint="lower the value (a memory size must fit this machine) and run again")


def _log_words(text: str) -> str:
    """What pg_ctl and the server's log said about a failed start: the lines of its severity words (FATAL, PANIC,
    ERROR, HINT, DETAIL) and pg_ctl's own, else the last lines; the shutdown before it is noise."""
    lines = [line.strip() for line in text.splitlines()]
    said = [line for line in lines if _SEVERE.search(line) or line.startswith("pg_ctl:")]
    return redact_conf("\n".join(said or lines)[-1500:])


def redact_conf(text: str) -> str:
    """A configuration text without the passwords a conninfo may hold (primary_conninfo = '... password=x')."""
    return _CONNINFO_SECRET.sub(lambda m: m.group(1) + MASK, text)
