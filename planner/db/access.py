"""Oracle database access for steps: one interface, two backends, and safe ALTER SYSTEM text.

Backends (inventory var ``oracle_access``):
- ``sqlplus`` (default): ``<oracle_home>/bin/sqlplus -S / as sysdba`` over the host connection, as the
  ``oracle_user`` (sudo login shell) when that var is set; ORACLE_HOME/ORACLE_SID passed as env; the SQL goes
  in on stdin, never on the command line. Binds are rendered as SQL literals (quotes doubled, control
  characters refused) since sqlplus has no bind API for a piped script.
- ``thin``: python-oracledb thin mode (planner.db.thin, the only module importing oracledb).

Query rows are tuples of text (``None`` for NULL) in both backends, as sqlplus would print them.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from planner.db.config import HINTS, NLS_ENV, DbConfig, Row
from planner.errors import OracleError, StepError

if TYPE_CHECKING:
    from planner.host import Host
    from planner.transport.connection import CommandResult


class StepContext(Protocol):
    """What the database backends need of a step's context (planner.steps.base.StepContext provides it):
    the host and its variables, its root-mapped paths and a logged command runner (``sh``: a fixed script, user
    values as its positional parameters)."""

    @property
    def host(self) -> Host: ...

    @property
    def vars(self) -> Mapping[str, Any]: ...

    def path(self, system_path: str) -> str: ...

    def run(self, argv: Sequence[str], *, check: bool = True, become: bool | None = None,
            become_user: str | None = None, login: bool = False, timeout: float | None = None,
            env: Mapping[str, str] | None = None, cwd: str | None = None,
            stdin: bytes | None = None) -> CommandResult: ...

    def sh(self, script: str, *args: str, **kw: Any) -> CommandResult: ...


SETTINGS = ("set heading off feedback off pagesize 0 linesize 32767 trimspool on trimout on tab off "
            "verify off echo off define off sqlblanklines on null '' colsep '|'\n"
            "whenever sqlerror exit failure\n")
_ORA_LINE = re.compile(r"^((?:ORA|SP2|PLS|TNS)-\d{4,5}):?\s*(.*)$")


class Database(Protocol):
    """What steps use. Rows are text; ``callproc`` returns its OUT values converted to ``out_types``."""

    def query(self, sql: str, binds: Mapping[str, Any] | None = None) -> list[Row]: ...

    def execute(self, sql: str, binds: Mapping[str, Any] | None = None) -> str: ...

    def callproc(self, name: str, args: Sequence[Any] = (), out_types: Sequence[type] = ()) -> list[Any]: ...

    def callfunc(self, name: str, return_type: type, args: Sequence[Any] = ()) -> Any: ...

    def close(self) -> None: ...


_VERSION_IN_HOME = re.compile(r"/(\d{2})\.(\d)(?:\.\d+)*(?:/|$)")


def database_version(v: Mapping[str, Any]) -> tuple[int, int] | None:
    """The database release the inventory knows: ``oracle_version`` (e.g. 11.2.0.3), else the release in the
    Oracle home's path (OFA: /u01/app/oracle/product/11.2.0.3/dbhome_1); None when neither says."""
    for text in (str(v.get("oracle_version") or ""), str(v.get("oracle_home") or "")):
        m = re.match(r"^(\d{2})\.(\d)", text) or _VERSION_IN_HOME.search(text)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def refuse_thin_before_12c(v: Mapping[str, Any]) -> None:
    """python-oracledb thin mode "connects to Oracle Database 12.1 or later" (python-oracledb documentation,
    Appendix A, "Oracle Database Features Supported by python-oracledb": thin mode supports Oracle Database
    12.1+; https://python-oracledb.readthedocs.io/en/latest/user_guide/appendix_a.html): an 11.2 host is refused
    at connect time, so it is refused at plan check."""
    if str(v.get("oracle_access") or "sqlplus") != "thin":
        return
    version = database_version(v)
    if version is not None and version < (12, 1):
        raise StepError(f"oracle_access: thin needs Oracle Database 12.1 or later; this host's database is "
                        f"{version[0]}.{version[1]} (python-oracledb thin mode cannot connect to it)",
                        hint="set oracle_access: sqlplus for this host (the default)")


def cdb_root(cfg: DbConfig) -> DbConfig:
    """The instance as a whole (startup, shutdown, flashback): never inside the inventory's PDB."""
    return replace(cfg, pdb="")


def config_for(ctx: StepContext) -> DbConfig:
    return DbConfig.from_vars({**dict(ctx.host.vars), **dict(ctx.vars)}, ctx.host.address)


def open_database(ctx: StepContext, cfg: DbConfig, *, asm: bool = False) -> Database:
    """The ASM instance is always reached with sqlplus (as sysasm); the database by ``cfg.access``."""
    if asm or cfg.access == "sqlplus":
        return SqlplusDatabase(ctx, cfg, asm=asm)
    from planner.db import thin as oracle  # the only module importing oracledb

    return oracle.connect_thin(cfg)


# -- SQL text -------------------------------------------------------------------------------------------------
def sql_literal(value: Any) -> str:
    """A bind value as a SQL literal: numbers checked, strings quoted with '' doubled, control chars refused."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        raise StepError("a boolean cannot be bound in SQL; pass 'TRUE'/'FALSE' or 1/0")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise StepError(f"cannot bind {value!r}")
        return repr(value)
    text = str(value)
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise StepError(f"refused SQL value {text!r}: it holds a control character (newline, tab, ...)")
    return "'" + text.replace("'", "''") + "'"


_TOKENS = re.compile(r"'(?:[^']|'')*'|:([A-Za-z_][A-Za-z0-9_]*)")


def render_binds(sql: str, binds: Mapping[str, Any] | None) -> str:
    """Replace :name placeholders (outside quoted literals) with literals."""
    binds = binds or {}

    def sub(m: re.Match[str]) -> str:
        if m.group(1) is None:
            return m.group(0)
        if m.group(1) not in binds:
            raise StepError(f"bind variable :{m.group(1)} has no value")
        return sql_literal(binds[m.group(1)])

    return _TOKENS.sub(sub, sql)


def parse_rows(text: str) -> list[Row]:
    """sqlplus output under SETTINGS: one line per row, columns split on '|', padding stripped."""
    lines = text.splitlines()
    return [tuple((c.strip() or None) for c in line.split("|")) for line in lines]


def ora_error(text: str, what: str) -> OracleError | None:
    codes = [(m.group(1), m.group(2)) for line in text.splitlines() if (m := _ORA_LINE.match(line.strip()))]
    if not codes:
        return None
    msg = "; ".join(f"{c}: {t}".rstrip(": ") for c, t in codes)
    return OracleError(f"{what}: {msg}", hint=next((HINTS[c] for c, _ in codes if c in HINTS), None))


def _asm_error(err: OracleError, sid: str, user: str | None) -> OracleError:
    """The ASM connection's errors say which inventory var to set: ``/ as sysasm`` by an OS user outside the
    OSASM group is ORA-01031 (with role separation the Grid owner is not oracle); an ORACLE_SID with no ASM
    instance on this node connects to an idle instance, ORA-01034 / ORA-27101 (+ASM on a RAC node, whose ASM is
    +ASM1, +ASM2...)."""
    text = str(err)
    who = f"OS user {user}" if user else "the SSH user (no grid_user or oracle_user set)"
    if "ORA-01031" in text:
        return OracleError(f"{text} (connecting to {sid} / as sysasm as {who})",
                           hint="`/ as sysasm` needs the OSASM group (asmadmin): set grid_user to the Grid "
                                "Infrastructure owner (e.g. grid) and grid_home to its home")
    if "ORA-01034" in text or "ORA-27101" in text:
        return OracleError(f"{text} (no ASM instance {sid} on this node)",
                           hint="set asm_sid to this node's ASM instance (+ASM1, +ASM2... on RAC nodes), "
                                "or remove it so planner reads it from V$ASM_CLIENT")
    return err


@dataclass(frozen=True, slots=True)
class Part:
    """One statement of a script that runs several in one session (SqlplusDatabase.run_parts)."""

    body: str  # SQL*Plus text, each statement ended as SQL*Plus needs (";", "/")
    what: str  # named in its error
    may_fail: bool = False  # its ORA- error is kept in its output, not raised, and the next parts still run


@dataclass(frozen=True, slots=True)
class PartOutput:
    text: str  # what the part printed, raw (a report keeps its indentation)
    error: OracleError | None = None

    def rows(self) -> list[Row]:
        return parse_rows(self.text.strip("\n"))


def _split_at(out: str, markers: Sequence[str]) -> tuple[str, list[str]]:
    """sqlplus output cut at the marker lines (in order): what came before the first, and each part's text;
    a part whose marker never came (the script stopped) has none."""
    texts: list[list[str]] = [[]]
    for line in out.splitlines(keepends=True):
        if len(texts) <= len(markers) and line.rstrip("\r\n") == markers[len(texts) - 1]:
            texts.append([])
        else:
            texts[-1].append(line)
    return "".join(texts[0]), ["".join(t) for t in texts[1:]]


def framed(out: str, begin: str, end: str) -> str:
    """sqlplus's own output: after the ``begin`` marker line and before the ``end`` one. Without the begin line
    (sqlplus never read the script: a connect error) all of it, for the error; without the end line (the script
    stopped at an error) all that follows the begin line."""
    lines = out.splitlines(keepends=True)
    marks = [line.rstrip("\r\n") for line in lines]
    if begin not in marks:
        return out
    first = marks.index(begin) + 1
    last = marks.index(end, first) if end in marks[first:] else len(lines)
    return "".join(lines[first:last])


class SqlplusDatabase:
    """``sqlplus -S / as sysdba`` (or ``/ as sysasm``) per call, script on stdin."""

    def __init__(self, ctx: StepContext, cfg: DbConfig, *, asm: bool = False) -> None:
        self.ctx = ctx
        self.cfg = cfg
        self.asm = asm

    def _argv_env(self) -> tuple[list[str], dict[str, str], str | None]:
        home = self.cfg.grid_home if self.asm else self.cfg.oracle_home
        sid = self.cfg.asm_sid if self.asm else self.cfg.oracle_sid
        argv = [self.ctx.path(home) + "/bin/sqlplus", "-S", "/ as sysasm" if self.asm else "/ as sysdba"]
        env = {"ORACLE_HOME": home, "ORACLE_SID": sid, **NLS_ENV}  # NLS pinned: the profile's is not planner's
        return argv, env, self.cfg.grid_user if self.asm else self.cfg.oracle_user

    def _sqlplus(self, body: str, timeout: float | None) -> CommandResult:
        """One sqlplus session: SETTINGS prepended, exit appended. Its stdout is what sqlplus printed between two
        PROMPT markers: a login profile (``sudo -i``) or .bashrc that echoes, or a trap that prints when the login
        shell exits, writes to the same stream, before and after sqlplus (framed)."""
        argv, env, user = self._argv_env()
        into = f"alter session set container = {self.cfg.pdb};\n" if self.cfg.pdb and not self.asm else ""
        nonce = secrets.token_hex(8)
        begin, end = f"planner-begin-{nonce}", f"planner-end-{nonce}"
        script = SETTINGS + f"prompt {begin}\n" + into + body.rstrip("\n") + f"\nprompt {end}\nexit\n"
        r = self.ctx.run(argv, check=False, become=True if user else None, become_user=user, login=bool(user),
                         env=env, stdin=script.encode(), timeout=timeout)
        return replace(r, stdout=framed(r.stdout, begin, end))

    def _raise(self, err: OracleError) -> None:
        _argv, env, user = self._argv_env()
        if self.asm:
            raise _asm_error(err, env["ORACLE_SID"], user)
        if "ORA-01031" in str(err):  # refused at connect: `/ as sysdba` by an OS user outside OSDBA
            who = f"OS user {user}" if user else "the SSH user (no oracle_user set)"
            raise OracleError(f"{err} (connecting to {env['ORACLE_SID']} / as sysdba as {who})",
                              hint="`/ as sysdba` needs the OSDBA group (dba): set oracle_user to the Oracle "
                                   "software owner (e.g. oracle), or add the SSH user to that group")
        raise err

    @staticmethod
    def _exit_error(r: CommandResult, what: str) -> OracleError:
        return OracleError(f"{what}: sqlplus exit code {r.exit_code}: {(r.stderr or r.stdout).strip()[-500:]}",
                           hint="check oracle_home, oracle_sid and oracle_user in the inventory")

    def run_script(self, body: str, what: str, *, timeout: float | None = None) -> str:
        """Run a SQL*Plus script (SETTINGS prepended, exit appended); raise OracleError on ORA-/SP2- lines."""
        r = self._sqlplus(body, timeout)
        err = ora_error(r.stdout, what) or ora_error(r.stderr, what)
        if err:
            self._raise(err)
        if not r.ok:
            raise self._exit_error(r, what)
        return r.stdout

    def run_parts(self, parts: Sequence[Part], *, timeout: float | None = None) -> tuple[PartOutput, ...]:
        """Run several statements in ONE sqlplus session (one process start and connect, where a call each is
        one per statement) and give each its own output, split at a PROMPT line before each part. The marker
        holds a fresh random word, so no output of the statements (a report's text) can be taken for one.

        A part's ORA-/SP2- lines raise OracleError naming that part (``whenever sqlerror exit`` stops the
        script there); a part with ``may_fail`` keeps its error as its output's and the script goes on."""
        nonce = secrets.token_hex(8)
        markers = [f"planner-part-{nonce}-{i}" for i in range(len(parts))]
        lines: list[str] = []
        strict = True  # SETTINGS says whenever sqlerror exit
        for part, marker in zip(parts, markers, strict=True):
            if part.may_fail == strict:
                strict = not part.may_fail
                lines.append("whenever sqlerror exit failure" if strict else "whenever sqlerror continue")
            lines += [f"prompt {marker}", part.body.rstrip("\n")]
        r = self._sqlplus("\n".join(lines), timeout)
        head, texts = _split_at(r.stdout, markers)
        if err := ora_error(head, parts[0].what) or ora_error(r.stderr, "; ".join(p.what for p in parts)):
            self._raise(err)
        out = []
        for part, text in zip(parts, texts, strict=False):
            err = ora_error(text, part.what)
            if err and not part.may_fail:
                self._raise(err)
            out.append(PartOutput(text, err))
        if not r.ok or len(out) < len(parts):  # stopped before its last part, with no ORA- line to say why
            raise self._exit_error(r, parts[len(out) - 1 if out else 0].what)
        return tuple(out)

    def query(self, sql: str, binds: Mapping[str, Any] | None = None) -> list[Row]:
        text = render_binds(sql, binds)
        return parse_rows(self.run_script(text + ";", text[:120]))

    def execute(self, sql: str, binds: Mapping[str, Any] | None = None) -> str:
        text = render_binds(sql, binds)
        return self.run_script(text + ";", text[:120])

    def callproc(self, name: str, args: Sequence[Any] = (), out_types: Sequence[type] = ()) -> list[Any]:
        return self._call(name, args, out_types, None)

    def callfunc(self, name: str, return_type: type, args: Sequence[Any] = ()) -> Any:
        return self._call(name, args, (), return_type)[0]

    def _call(self, name: str, args: Sequence[Any], out_types: Sequence[type], ret: type | None) -> list[Any]:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$#]*(\.[A-Za-z_][A-Za-z0-9_$#]*){0,2}", name):
            raise StepError(f"refused procedure name {name!r}")
        kinds = ([ret] if ret else []) + list(out_types)
        decl = "".join(f"variable o{i} {'number' if t in (int, float) else 'varchar2(4000)'}\n"
                       for i, t in enumerate(kinds))
        params = [sql_literal(a) for a in args] + [f":o{i}" for i in range(1 if ret else 0, len(kinds))]
        call = f"{name}({', '.join(params)})" if params else name
        body = f":o0 := {call}" if ret else call
        outs = ", ".join(f":o{i}" for i in range(len(kinds))) or "null"
        text = self.run_script(f"{decl}begin\n  {body};\nend;\n/\nselect {outs} from dual;", name)
        rows = [r for r in parse_rows(text) if any(v is not None for v in r)]
        values = rows[-1] if rows else ()
        return [None if v is None else t(float(v)) if t is int else t(v) for t, v in zip(kinds, values, strict=False)]

    def close(self) -> None:
        pass
