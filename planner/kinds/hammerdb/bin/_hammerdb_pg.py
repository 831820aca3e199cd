"""PLANNER STAND-IN for HammerDB's hammerdbcli on PostgreSQL (a script that says ``dbset db pg``). NOT HammerDB.

hammerdbcli (the Oracle stand-in beside it) hands a script over here when it says ``dbset db pg``. It prints what
HammerDB's PostgreSQL TPROC-C prints at the release the kit names (docs/oracle-behaviour.md, rows 44.h*: sources
TPC-Council/HammerDB at v3.3, v4.0, v4.5, v4.12: config/postgresql.xml, src/postgresql/pgoltp.tcl,
modules/tpcccommon-1.0.tm, src/generic/gencli.tcl), and it does the real thing against the real PostgreSQL the
script names, so that the server's figures are real:
- the build connects as pg_superuser to pg_defaultdbase with psql, creates pg_user and pg_dbase owned by it
  (pgoltp.tcl CreateUserDatabase; 3.3: CREATE DATABASE whatever exists, 4.x: an existing empty database is taken
  over, one with tables refused), then as pg_user creates the nine TPROC-C tables and loads pg_count_ware
  warehouses. The load is SMALLER than HammerDB's (1,000 items and stock rows per warehouse, 30 customers per
  district, not 100,000 and 3,000): a stand-in's build must take seconds;
- the timed driver runs ``vuset vu N`` sessions of real transactions (new-order and payment, one psql each,
  PL/pgSQL committing each transaction) through the ramp-up and the timed window, and counts as HammerDB does:
  ``sum(xact_commit + xact_rollback)`` of pg_stat_database and ``sum(d_next_o_id)`` of district at the window's
  two ends (pgoltp.tcl v3.3 lines 2296-2343, v4.12 lines 2919-2967). Minutes are scaled by
  PLANNER_STANDIN_TIME_SCALE (default 0.01); TPM and NOPM are per minute of the window as it really lasted;
- the TEST RESULT line is TPM first at 3.3 ("System achieved T PostgreSQL TPM at N NOPM") and NOPM first from 4.0
  ("System achieved N NOPM from T PostgreSQL TPM", tpcccommon's testresult with generic.xml's first_result NOPM);
- Pgtcl: each virtual user's ``package require Pgtcl`` fails with HammerDB's "Failed to load Pgtcl - " and Tcl's
  "can't find package Pgtcl" when PLANNER_STANDIN_HAMMERDB_PGTCL=missing or no libpq.so.5 is on this machine;
- pg_partition (4.1+) hash-partitions ORDER_LINE by 100 warehouses from 200; pg_sslmode (4.3+) is every
  connection's sslmode; pg_vacuum checkpoints and vacuums pg_defaultdbase after the result (rows 44.h9-44.h11);
- the dictionary per release: pg_tspace only from 4.0 (3.3 says the key does not exist and goes on), pg_driver
  test before 4.6, timed from 4.6; ``buildschema``/``vurun`` blocking from 4.6 only (the Oracle stand-in's rule).
Passwords go to psql through a private PGPASSFILE (0600, removed at exit), never their argv.
- a login the server refuses (pg_hba.conf, a password, no server at pg_host:pg_port, SSL) fails the virtual user as
  ConnectToPostgres does (pgoltp.tcl v4.12 lines 1586-1597): Pgtcl's pg_connect error "Connection to database
  failed" and, on the next line, libpq's own message (Pgtcl generic/pgtclCmds.c), here the real libpq's through
  psql (whose "psql: error: " prefix is dropped), printed by the user (``puts $message``) and as its error
  (docs/oracle-behaviour.md 43.h13).
"""

from __future__ import annotations

import ctypes.util
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

VERSION = os.environ.get("PLANNER_STANDIN_HAMMERDB_VERSION") or "4.12"
RELEASE = tuple(int(x) for x in VERSION.split(".") if x.isdigit())
BLOCKING = RELEASE >= (4, 6)
ITEMS, CUSTOMERS = 1000, 30  # per warehouse and per district: a stand-in's build (HammerDB: 100000 and 3000)
DEFAULTS = {"pg_host": "localhost", "pg_port": "5432", "pg_count_ware": "1", "pg_num_vu": "1",
            "pg_superuser": "postgres", "pg_superuserpass": "postgres", "pg_defaultdbase": "postgres",
            "pg_user": "tpcc", "pg_pass": "tpcc", "pg_dbase": "tpcc", "pg_vacuum": "false",
            "pg_total_iterations": "10000000" if RELEASE >= (4, 5) else "1000000", "pg_raiseerror": "false",
            "pg_keyandthink": "false",
            "pg_storedprocs": "false", "pg_driver": "timed" if BLOCKING else "test", "pg_rampup": "2",
            "pg_duration": "5", "pg_allwarehouse": "false", "pg_timeprofile": "false",
            **({"pg_tspace": "pg_default"} if RELEASE >= (4, 0) else {}),
            **({"pg_partition": "false"} if RELEASE >= (4, 1) else {}),
            **({"pg_sslmode": "prefer"} if RELEASE >= (4, 3) else {})}
CONNECTION = ("pg_host", "pg_port", "pg_sslmode")
# One slice of a virtual user: new-order and payment transactions (half each) for a quarter of a second or to the
# deadline, each committed on its own (a DO block may COMMIT from PostgreSQL 11), as HammerDB's users call its
# stored functions; a deadlock or a serialization failure is dropped and the loop goes on (pg_raiseerror false).
# Slices, not one long block: a backend reports its transactions to pg_stat_database only between statements,
# and the monitor's counts must see them during the window. The users run until the monitor ends them (HammerDB's
# abort), at most MAX_S.
SLICE_S, MAX_S = 0.25, 3600
VIRTUAL_USER = """DO $vu$
DECLARE deadline timestamptz := clock_timestamp() + interval '{slice} seconds';
  w int; d int; c int; i int; o int;
BEGIN
  WHILE clock_timestamp() < deadline LOOP
    w := 1 + floor(random() * {ware})::int; d := 1 + floor(random() * 10)::int;
    c := 1 + floor(random() * 30)::int; i := 1 + floor(random() * 1000)::int;
    BEGIN
      IF random() < 0.5 THEN
        UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = w AND d_id = d
          RETURNING d_next_o_id - 1 INTO o;
        INSERT INTO orders (o_w_id, o_d_id, o_id, o_c_id, o_ol_cnt, o_all_local, o_entry_d)
          VALUES (w, d, o, c, 1, 1, now());
        INSERT INTO new_order (no_w_id, no_d_id, no_o_id) VALUES (w, d, o);
        UPDATE stock SET s_quantity = CASE WHEN s_quantity > 10 THEN s_quantity - 1 ELSE s_quantity + 91 END,
          s_ytd = s_ytd + 1, s_order_cnt = s_order_cnt + 1 WHERE s_w_id = w AND s_i_id = i;
      ELSE
        UPDATE warehouse SET w_ytd = w_ytd + 10 WHERE w_id = w;
        UPDATE district SET d_ytd = d_ytd + 10 WHERE d_w_id = w AND d_id = d;
        UPDATE customer SET c_balance = c_balance - 10, c_payment_cnt = c_payment_cnt + 1
          WHERE c_w_id = w AND c_d_id = d AND c_id = c;
        INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
          VALUES (c, d, w, d, w, now(), 10, 'stand-in');
      END IF;
    EXCEPTION WHEN deadlock_detected OR serialization_failure THEN NULL;
    END;
    COMMIT;
  END LOOP;
END $vu$;
"""
TABLES = """CREATE TABLE warehouse (w_id integer PRIMARY KEY, w_ytd numeric(16,2) NOT NULL, w_tax numeric(4,4) NOT NULL,
  w_name varchar(10) NOT NULL);
CREATE TABLE district (d_w_id integer NOT NULL, d_id smallint NOT NULL, d_next_o_id integer NOT NULL,
  d_ytd numeric(12,2) NOT NULL, d_tax numeric(4,4) NOT NULL, PRIMARY KEY (d_w_id, d_id));
CREATE TABLE customer (c_w_id integer NOT NULL, c_d_id smallint NOT NULL, c_id integer NOT NULL,
  c_last varchar(16) NOT NULL, c_balance numeric(12,2) NOT NULL, c_payment_cnt smallint NOT NULL,
  PRIMARY KEY (c_w_id, c_d_id, c_id));
CREATE TABLE history (h_c_id integer, h_c_d_id smallint, h_c_w_id integer, h_d_id smallint, h_w_id integer,
  h_date timestamptz NOT NULL, h_amount numeric(6,2) NOT NULL, h_data varchar(24) NOT NULL);
CREATE TABLE item (i_id integer PRIMARY KEY, i_name varchar(24) NOT NULL, i_price numeric(5,2) NOT NULL);
CREATE TABLE stock (s_w_id integer NOT NULL, s_i_id integer NOT NULL, s_quantity smallint NOT NULL,
  s_ytd numeric(8,0) NOT NULL, s_order_cnt smallint NOT NULL, PRIMARY KEY (s_w_id, s_i_id));
CREATE TABLE orders (o_w_id integer NOT NULL, o_d_id smallint NOT NULL, o_id integer NOT NULL,
  o_c_id integer NOT NULL, o_ol_cnt smallint, o_all_local smallint, o_entry_d timestamptz,
  PRIMARY KEY (o_w_id, o_d_id, o_id));
CREATE TABLE new_order (no_w_id integer NOT NULL, no_d_id smallint NOT NULL, no_o_id integer NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id));
CREATE TABLE order_line (ol_w_id integer NOT NULL, ol_d_id smallint NOT NULL, ol_o_id integer NOT NULL,
  ol_number smallint NOT NULL, ol_i_id integer NOT NULL, ol_amount numeric(6,2)){partitioned};
"""


def partitions(d: dict[str, str]) -> int:
    """ORDER_LINE's hash partitions: pg_partition true and 200 warehouses or more, one per 100 (pgoltp.tcl v4.12
    do_tpcc lines 2113-2121: ``round($count_ware/100)``, an integer division in Tcl's expr)."""
    ware = int(d["pg_count_ware"])
    return ware // 100 if d.get("pg_partition") == "true" and ware >= 200 else 0


def tables_sql(parts: int) -> str:
    """The tables, ORDER_LINE ``PARTITION BY HASH (OL_W_ID)`` into ol_0.. as CreateTables makes it (v4.12 1667-1696)."""
    sql = TABLES.format(partitioned=" PARTITION BY HASH (ol_w_id)" if parts else "")
    return sql + "".join(f"CREATE TABLE ol_{i} PARTITION OF order_line FOR VALUES WITH (MODULUS {parts}, "
                         f"REMAINDER {i});\n" for i in range(parts))


def load_sql(ware: int) -> str:
    return (f"INSERT INTO item SELECT i, 'item ' || i, 1 + i % 100 FROM generate_series(1, {ITEMS}) i;\n"
            f"INSERT INTO warehouse SELECT w, 300000, 0.1, 'w' || w FROM generate_series(1, {ware}) w;\n"
            f"INSERT INTO district SELECT w, d, 3001, 30000, 0.1 FROM generate_series(1, {ware}) w, "
            "generate_series(1, 10) d;\n"
            f"INSERT INTO customer SELECT w, d, c, 'BARBARBAR', -10, 1 FROM generate_series(1, {ware}) w, "
            f"generate_series(1, 10) d, generate_series(1, {CUSTOMERS}) c;\n"
            f"INSERT INTO stock SELECT w, i, 50, 0, 0 FROM generate_series(1, {ware}) w, "
            f"generate_series(1, {ITEMS}) i;\nANALYZE;\n")


def pause(minutes: float) -> float:
    seconds = max(0.0, minutes * 60 * float(os.environ.get("PLANNER_STANDIN_TIME_SCALE", "0.01")))
    time.sleep(seconds)
    return seconds


def pgtcl_error() -> str:
    """Why ``package require Pgtcl`` fails here ("" when it loads): HammerDB's words, then Tcl's."""
    if os.environ.get("PLANNER_STANDIN_HAMMERDB_PGTCL") == "missing" or not ctypes.util.find_library("pq"):
        return "Failed to load Pgtcl - can't find package Pgtcl"
    return ""


CONNECT_FAILED = "Connection to database failed"  # Pgtcl's pg_connect, before PQerrorMessage


class ConnectFailed(Exception):
    """A login the server refused: the message Pgtcl's pg_connect raises (its words, then libpq's)."""


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


class Server:
    """psql against the script's server, each login's password in a private PGPASSFILE."""

    def __init__(self, d: dict[str, str]) -> None:
        self.d = d
        self.folder = tempfile.mkdtemp(prefix="hammerdb-pg-")  # 0700
        self.passfile = os.path.join(self.folder, "pgpass")
        fd = os.open(self.passfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            for user, password in ((d["pg_superuser"], d["pg_superuserpass"]), (d["pg_user"], d["pg_pass"])):
                esc = [x.replace("\\", "\\\\").replace(":", "\\:") for x in (user, password)]
                f.write(f"*:*:*:{esc[0]}:{esc[1]}\n")

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def env(self) -> dict[str, str]:
        # pg_sslmode goes to every pg_connect -conninfo (pgoltp.tcl v4.3+ ConnectToPostgres); before 4.3 libpq's own
        ssl = {"PGSSLMODE": self.d["pg_sslmode"]} if "pg_sslmode" in self.d else {}
        return {**os.environ, "PGPASSFILE": self.passfile, "PGCONNECT_TIMEOUT": "10", **ssl}

    def conn(self, user: str, db: str) -> list[str]:
        return ["-h", self.d["pg_host"], "-p", self.d["pg_port"], "-U", user, "-d", db]

    def sql(self, user: str, db: str, text: str) -> tuple[bool, str]:
        """(ok, psql's answer or its error's first line)."""
        r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-w", "-v", "ON_ERROR_STOP=1", *self.conn(user, db)],
                           input=text, capture_output=True, text=True, env=self.env(), timeout=600, check=False)
        if r.returncode == 2 and r.stderr.startswith("psql: error: "):  # psql's exit for a connection that failed
            raise ConnectFailed(f"{CONNECT_FAILED}\n{r.stderr.removeprefix('psql: error: ').rstrip()}")
        if r.returncode != 0:
            err = next((ln.strip() for ln in r.stderr.splitlines() if "ERROR" in ln or "FATAL" in ln),
                       r.stderr.strip()[:300])
            return False, err.split(":  ", 1)[-1] if err.startswith("psql:") else err
        return True, r.stdout.strip()

    def counts(self) -> tuple[int, int]:
        """The monitor's two counts: the server's transactions and the new orders (pgoltp.tcl's two queries)."""
        d = self.d
        ok, text = self.sql(d["pg_user"], d["pg_dbase"], "select sum(xact_commit + xact_rollback) from "
                                                          "pg_stat_database;\nselect sum(d_next_o_id) from district;")
        if not ok:
            raise RuntimeError(text)
        trans, orders = text.split()
        return int(trans), int(orders)

    def load(self, users: int, ware: int) -> list[subprocess.Popen[str]]:
        """``users`` sessions of real new-order and payment transactions, one psql each, until ended."""
        with open(os.path.join(self.folder, "slice.sql"), "w") as f:
            f.write(VIRTUAL_USER.format(slice=SLICE_S, ware=ware))
        with open(os.path.join(self.folder, "user.sql"), "w") as f:
            f.write(f"\\i {self.folder}/slice.sql\n" * math.ceil(MAX_S / SLICE_S))
        d = self.d
        return [subprocess.Popen(["psql", "-X", "-q", "-w", "-v", "ON_ERROR_STOP=1", "-f", f"{self.folder}/user.sql",
                                  *self.conn(d["pg_user"], d["pg_dbase"])], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=self.env())
                for _ in range(users)]

    @staticmethod
    def end(load: list[subprocess.Popen[str]]) -> str:
        """End the users (their sessions end after the slice they are in); the first error one of them met."""
        outs = []
        for p in load:
            if p.poll() is None:
                p.terminate()
            outs.append(p.communicate(timeout=120)[0])
        return next((ln.split("ERROR:", 1)[-1].strip() for out in outs for ln in out.splitlines()
                     if "ERROR:" in ln or "FATAL:" in ln), "")


class PgCli:
    """The commands of a PostgreSQL script, as hammerdbcli runs them at VERSION."""

    def __init__(self) -> None:
        self.d = dict(DEFAULTS)
        self.vu = 1
        self.pending: Callable[[], None] | None = None

    def diset(self, section: str, key: str, value: str) -> None:
        if key not in self.d or (section == "connection") != (key in CONNECTION):
            print(f'Dictionary "{section}" for PostgreSQL exists but key "{key}" doesn\'t')  # gencli v3.3 line 461
            return
        old = self.d[key]
        if old == value:
            print(f"Value {value} for {section}:{key} is the same as existing value {old}, no change made")
        else:
            print(f"Changed {section}:{key} from {old} to {value} for PostgreSQL")
        self.d[key] = value

    def start(self, work: Callable[[], None]) -> None:
        if BLOCKING:
            work()
        else:
            self.pending = work

    def wait(self) -> None:
        work, self.pending = self.pending, None
        if work is not None:
            work()

    def all_fail(self, users: int, why: str, running: bool = True, said: bool = False) -> None:
        """Every user fails with ``why`` (``said``: each printed it first, as ConnectToPostgres's puts)."""
        for n in range(1, users + 1):
            print((f"Vuser {n}:RUNNING\n" if running else "") + (f"Vuser {n}:{why}\n" if said else "") +
                  f"Error in Virtual User {n}: {why}\nVuser {n}:FINISHED FAILED")
        print("ALL VIRTUAL USERS COMPLETE")

    def build(self) -> None:
        ware = int(self.d["pg_count_ware"])
        ssl = f" sslmode {self.d['pg_sslmode'].upper()}" if "pg_sslmode" in self.d else ""
        vus = int(self.d["pg_num_vu"])  # as HammerDB 4.12 prints it (a run of its source, docs/oracle-behaviour.md)
        print(f"Script cleared\nBuilding {ware} Warehouses(s) with {vus} Virtual User{'s' if vus > 1 else ''}\n"
              f"Ready to create a {ware} Warehouse PostgreSQL TPROC-C schema\nin host "
              f"{self.d['pg_host'].upper()}:{self.d['pg_port']}{ssl} under user {self.d['pg_user'].upper()} in "
              f"database {self.d['pg_dbase'].upper()}?\nEnter yes or no: replied yes\nVuser 1 created - WAIT IDLE")
        self.start(lambda: self._load(ware))

    def _load(self, ware: int) -> None:
        if why := pgtcl_error():
            self.all_fail(1, why)
            return
        d, server = self.d, Server(self.d)
        try:
            print(f"Vuser 1:RUNNING\nVuser 1:CREATING {d['pg_user'].upper()} SCHEMA")
            self._create(server)
        except ConnectFailed as exc:  # ConnectToPostgres: puts $message, then error $message
            self.all_fail(1, str(exc), running=False, said=True)
        finally:
            server.close()

    def _create(self, server: Server) -> None:
        """The user, the database, the tables and their rows (ConnectFailed: a login refused)."""
        d, ware = self.d, int(self.d["pg_count_ware"])
        print(f"Vuser 1:CREATING DATABASE {d['pg_dbase']} under OWNER {d['pg_user']}")
        ok, why = server.sql(d["pg_superuser"], d["pg_defaultdbase"], self._user_database_sql(server))
        if ok:
            print("Vuser 1:CREATING TPCC TABLES")
            ok, why = server.sql(d["pg_user"], d["pg_dbase"], tables_sql(partitions(d)) + load_sql(ware))
        if not ok:
            print(f"Error in Virtual User 1: {why}\nVuser 1:FINISHED FAILED\nALL VIRTUAL USERS COMPLETE")
            return
        print(f"Vuser 1:CREATING TPCC INDEXES\nVuser 1:CREATING TPCC FUNCTIONS\nVuser 1:GATHERING SCHEMA "
              f"STATISTICS\nVuser 1:{d['pg_user'].upper()} SCHEMA COMPLETE\nVuser 1:FINISHED SUCCESS\n"
              "ALL VIRTUAL USERS COMPLETE")

    def _user_database_sql(self, server: Server) -> str:
        """CreateUserDatabase at this release (pgoltp.tcl v3.3 line 1353, v4.12 line 1599)."""
        d = self.d
        user, db = _ident(d["pg_user"]), _ident(d["pg_dbase"])
        if RELEASE < (4, 0):
            return (f"CREATE USER {user} PASSWORD {_lit(d['pg_pass'])};\nGRANT {user} TO "
                    f"{_ident(d['pg_superuser'])};\nCREATE DATABASE {db} OWNER {user};\n")
        _, roles = server.sql(d["pg_superuser"], d["pg_defaultdbase"],
                              f"SELECT 1 FROM pg_roles WHERE rolname = {_lit(d['pg_user'])}")
        sql = (f"ALTER USER {user} PASSWORD {_lit(d['pg_pass'])};\n" if roles == "1" else
               f"CREATE USER {user} PASSWORD {_lit(d['pg_pass'])};\nGRANT {user} TO {_ident(d['pg_superuser'])};\n")
        _, dbs = server.sql(d["pg_superuser"], d["pg_defaultdbase"],
                            f"SELECT 1 FROM pg_database WHERE datname = {_lit(d['pg_dbase'])}")
        if dbs != "1":
            sql += f"CREATE DATABASE {db} OWNER {user};\n"
        else:
            _, tables = server.sql(d["pg_superuser"], d["pg_dbase"],
                                   "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
            if tables != "0":
                return f"DO $$ BEGIN RAISE EXCEPTION 'Database {d['pg_dbase']} exists but is not empty, specify a " \
                       "new or empty database name'; END $$;\n"
            print(f"Vuser 1:Using existing empty Database {d['pg_dbase']} for Schema build")
            sql += f"ALTER DATABASE {db} OWNER TO {user};\n"
        if d.get("pg_tspace", "pg_default") != "pg_default":
            sql += f"ALTER DATABASE {db} SET TABLESPACE {_ident(d['pg_tspace'])};\n"
        return sql

    def run(self) -> None:
        n = self.vu
        print("Vuser 1 created MONITOR - WAIT IDLE")
        for i in range(2, n + 2):
            print(f"Vuser {i} created - WAIT IDLE")
        print(f"{n + 1} Virtual Users Created with Monitor VU")
        self.start(lambda: self._drive(n))

    def _drive(self, n: int) -> None:
        if why := pgtcl_error():
            self.all_fail(n + 1, why)
            return
        server = Server(self.d)
        try:
            ok, ware = server.sql(self.d["pg_user"], self.d["pg_dbase"], "select max(w_id) from warehouse")
            if not ok or not ware.isdigit():
                self.all_fail(n + 1, ware or "no warehouse")
                return
            self._timed(server, n, int(ware))
        except ConnectFailed as exc:  # the monitor's and each user's own login, refused alike
            self.all_fail(n + 1, str(exc), said=True)
        finally:
            server.close()

    def _timed(self, server: Server, n: int, ware: int) -> None:
        d, timed = self.d, self.d["pg_driver"] == "timed"
        rampup, duration = float(d["pg_rampup"]), float(d["pg_duration"])
        _, version = server.sql(d["pg_user"], d["pg_dbase"], "show server_version")
        print(f"Vuser 1:RUNNING\nVuser 1:DBVersion:{version}")  # pgoltp.tcl v4.12 CheckDBVersion
        if timed:
            print(f"Vuser 1:Beginning rampup time of {d['pg_rampup']} minutes")
        for i in range(2, n + 2):
            print(f"Vuser {i}:RUNNING\nVuser {i}:Processing 10000000 transactions with output suppressed...")
        load = server.load(n, ware)
        pause(rampup)
        if timed:
            for minute in range(1, int(rampup) + 1):  # printed each minute of the ramp-up
                print(f"Vuser 1:Rampup {minute} minutes complete ...")
            print("Vuser 1:Rampup complete, Taking start Transaction Count.")
            trans0, orders0, t0 = *server.counts(), time.monotonic()
            print(f"Vuser 1:Timing test period of {d['pg_duration']} in minutes")
            pause(duration)
            print("Vuser 1:" + "".join(f"{minute} ...," for minute in range(1, int(duration) + 1)))
            print("Vuser 1:Test complete, Taking end Transaction Count.")
            trans1, orders1 = server.counts()
            minutes = max(1e-6, (time.monotonic() - t0) / 60)
        else:
            pause(duration)
        why = server.end(load)
        if why:
            self.all_fail(n + 1, why)
            return
        if timed:
            tpm, nopm = int((trans1 - trans0) / minutes), int((orders1 - orders0) / minutes)
            result = (f"System achieved {tpm} PostgreSQL TPM at {nopm} NOPM" if RELEASE < (4, 0) else
                      f"System achieved {nopm} NOPM from {tpm} PostgreSQL TPM")
            print(f"Vuser 1:{n} Active Virtual Users configured\nVuser 1:TEST RESULT : {result}")
            if d["pg_vacuum"] == "true" and not self._vacuum(server):
                return
        for i in range(1, n + 2):
            print(f"Vuser {i}:FINISHED SUCCESS")
        print("ALL VIRTUAL USERS COMPLETE")

    def _vacuum(self, server: Server) -> bool:
        """pg_vacuum: CHECKPOINT, then VACUUM, on the monitor's superuser connection to pg_defaultdbase (pgoltp.tcl
        v3.3 lines 2256, 2347; v4.12 lines 2878, 2970-2993): the default database is vacuumed, not pg_dbase. An
        error is raised (RAISEERROR is set true there): the monitor fails."""
        d = self.d
        print("Vuser 1:Checkpoint and Vacuum")
        for sql in ("checkpoint", "vacuum"):
            ok, why = server.sql(d["pg_superuser"], d["pg_defaultdbase"], sql)
            if not ok:
                print(f"Error in Virtual User 1: {why}\nVuser 1:FINISHED FAILED")
                for i in range(2, self.vu + 2):
                    print(f"Vuser {i}:FINISHED SUCCESS")
                print("ALL VIRTUAL USERS COMPLETE")
                return False
        print("Vuser 1:Checkpoint and Vacuum Complete")
        return True

    def print_dict(self) -> None:
        print("Dictionary Settings for PostgreSQL\nconnection {")
        for key in (k for k in CONNECTION if k in self.d):  # pg_sslmode only from 4.3
            print(f" {key:<16} = {self.d[key]}")
        print("}\ntpcc       {")
        for key, value in self.d.items():
            if key not in CONNECTION:
                print(f" {key:<16} = {value}")
        print("}")

    def command(self, w: list[str], line: str) -> int | None:
        """One command (None: not one of PostgreSQL's, the caller's common handling)."""
        head = w[0]
        if head == "dbset" and w[1:2] == ["db"]:
            print("Database set to PostgreSQL")
        elif head == "dbset":
            print("Benchmark set to TPC-C for PostgreSQL")
        elif head == "diset" and len(w) == 4:
            self.diset(w[1], w[2], w[3])
        elif head == "vuset" and len(w) == 3:
            self.vu = int(w[2]) if w[1] == "vu" else self.vu
        elif head == "print" and w[1:] == ["dict"]:
            self.print_dict()
        elif head == "buildschema":
            self.build()
        elif head == "vurun":
            self.run()
        elif head == "vudestroy":
            self.pending = None
            print("vudestroy success")
        elif head == "while" and "vucomplete" in line:
            self.wait()
        elif head == "loadscript":
            print('Script loaded, Type "print script" to view')
        elif head != "vucreate":
            return None
        return 0


def missing_tools() -> str:
    return "" if shutil.which("psql") else "stand-in: psql not found (the PostgreSQL stand-in drives a real server)"


if __name__ == "__main__":
    sys.exit("run by hammerdbcli, not on its own")
