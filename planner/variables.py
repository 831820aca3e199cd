"""The host variables planner reads beyond Ansible's connection variables, declared with types and defaults (as
pyinfra's connectors declare theirs): docs/step-kinds.md lists them, with each workload kind's own (its spec's
``host_vars``). A test checks that every variable the code reads is declared here or by a kind.

Ansible's own connection and become variables (ansible_host, ansible_user, ansible_port,
ansible_ssh_private_key_file, ansible_become, …) mean what they mean to Ansible: docs/ansible-inventories.md.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HostVar:
    """A host variable a kind reads (as pyinfra's connectors declare theirs): docs/step-kinds.md lists them."""

    name: str
    # "path", "text", "integer", "seconds", "bytes", "boolean", "choice", "list", "number", or "host": an inventory
    # host's name (planner.plan.check refuses a name the inventory does not hold, exit 5)
    type: str
    default: str  # as a user would write it; "" when there is none
    doc: str


PLANNER = "planner's own behaviour on the host"
ORACLE = "the host's Oracle database and how planner reaches it"
POSTGRES = "the host's PostgreSQL server: how planner's clients reach it and how pg_conf restarts it"
ENGINE = "the host's database engine"
GENERATOR = "where the load generator of a transactional kind (one whose KindSpec.oltp names it) runs"
STANDIN = "the rehearsal's simulated world (stand-ins only; a real lab ignores them)"

# Read by planner.plan.check for the database host of every step whose kind names a load generator, and by the
# runner, which connects and locks that host and gives the step its context (docs/load-generator-host.md); a kind
# whose generator cannot run there yet is refused at validate rather than ignore what the inventory says.
LOAD_GENERATOR_HOST = HostVar(
    "load_generator_host", "host", "this host",
    "the inventory host that runs a transactional kind's load generator (locked for the run, it takes no steps of "
    "its own); a kind or engine whose generator cannot run there yet is refused at validate, by name "
    "(docs/load-generator-host.md)")


COMMON_VARS: tuple[tuple[str, tuple[HostVar, ...]], ...] = (
    (PLANNER, (
        HostVar("planner_workdir", "path", "/tmp/planner",
                "the folder on the host for the steps' work folders and the runs' files"),
        HostVar("planner_lock_dir", "path", "/tmp",
                "where the host lock file is made (one run per host at a time)"),
        HostVar("planner_lock", "path", "<planner_lock_dir>/planner.lock.<host>", "the host lock file itself"),
        HostVar("planner_default_timeout_s", "seconds", "3600",
                "each command's timeout when neither the plan nor the kind's expected run time gives one"),
        HostVar("planner_fetch_max_size", "bytes", "1G",
                "the largest file planner fetches from the host (K, M, G suffixes)"),
        HostVar("planner_known_hosts", "path", "",
                "a known_hosts file for this host, checked as OpenSSH checks it (beside ~/.ssh/known_hosts)"),
        HostVar("planner_keepalive_s", "seconds", "ServerAliveInterval, else 15",
                "SSH keepalive interval: a silent connection is probed this often"),
        HostVar("planner_keepalive_count", "integer", "ServerAliveCountMax, else 3",
                "unanswered keepalives before the connection is called dead"),
        HostVar("planner_root", "path", "",
                "a folder that plays the host's / (set by the rehearsal for its sandboxes; not for real hosts)"),
        HostVar("planner_simulated", "boolean", "false", "set by the rehearsal: the host is a sandbox"),
        HostVar("planner_become_direct", "boolean", "false",
                "set by the rehearsal for a sandbox host whose login is the sandbox's owner: no sudo"),
    )),
    (ORACLE, (
        HostVar("oracle_home", "path", "", "ORACLE_HOME of the database"),
        HostVar("oracle_sid", "text", "", "ORACLE_SID of the local instance"),
        HostVar("oracle_user", "text", "",
                "the OS user that owns the Oracle software: sqlplus and the kits run as it through sudo"),
        HostVar("oracle_pdb", "text", "", "the PDB a study runs in (a CDB's root is refused for workloads)"),
        HostVar("oracle_cdb", "boolean", "read from the database", "whether the database is a CDB"),
        HostVar("oracle_version", "text", "read from the database", "the database release, e.g. 11.2.0.3"),
        HostVar("oracle_access", "choice", "sqlplus", "sqlplus (on the host) or thin (python-oracledb, 12c+)"),
        HostVar("oracle_host", "text", "the host's address", "the listener's host for thin access"),
        HostVar("oracle_port", "integer", "1521", "the listener's port for thin access"),
        HostVar("oracle_service", "text", "", "the service name for thin access"),
        HostVar("oracle_db_name", "text", "", "DB_NAME, when it differs from the SID"),
        HostVar("oracle_password_env", "text", "", "an environment variable holding the thin access password"),
        HostVar("oracle_password_file", "path", "", "a file holding the thin access password"),
        HostVar("oracle_poll_interval_s", "seconds", "2", "how often a starting database is polled"),
        HostVar("oracle_open_timeout_s", "seconds", "600", "how long a restarted database may take to open"),
        HostVar("oracle_diagnostics_pack", "boolean", "", "whether the Diagnostics Pack is licensed: AWR is refused "
                "without it (Statspack instead); it must be stated where AWR would be read"),
        HostVar("oracle_parameter_file", "choice", "spfile", "spfile or pfile: how init.ora changes are written"),
        HostVar("oracle_resource_manager_plan", "text", "", "the Resource Manager plan the stand-in database shows"),
        HostVar("oracle_rac", "boolean", "false", "the stand-in database is node 1 of a two-node RAC"),
        HostVar("grid_home", "path", "", "the Grid Infrastructure home (ASM)"),
        HostVar("grid_user", "text", "the login", "the OS user that owns ASM"),
        HostVar("asm_sid", "text", "read from the host", "the ASM instance's SID"),
        HostVar("asm_rebalance_timeout_s", "seconds", "3600", "how long an ASM rebalance may take"),
    )),
    (POSTGRES, (
        # how every PostgreSQL client planner runs reaches the server (planner.db.libpq): the PostgreSQL
        # workload kinds, pg_conf and pg_stat alike
        HostVar("pg_host", "text", "libpq's default (the local socket)", "the PostgreSQL server's host"),
        HostVar("pg_port", "integer", "libpq's default (5432)", "the server's port"),
        HostVar("pg_user", "text", "libpq's default (the OS user)", "the PostgreSQL user planner's clients connect as"),
        HostVar("pg_password", "secret", "", "the user's password, handed to libpq through a private "
                "PGPASSFILE (else ~/.pgpass or the server's trust/peer rules)"),
        HostVar("pg_data", "path", "read from the server (data_directory)", "the server's data directory"),
        HostVar("pg_os_user", "text", "the data directory's owner", "the OS user the server runs as: pg_conf's "
                "backup of postgresql.auto.conf and pg_ctl run as it (sudo when the login is another user)"),
        HostVar("pg_service", "text", "", "a systemd unit that runs the server: pg_conf restarts it with systemctl "
                "(as root) instead of pg_ctl"),
        HostVar("pg_bin", "path", "the running postmaster's folder (/proc/PID/exe)", "the folder of pg_ctl"),
        HostVar("pg_log", "path", "where the postmaster's stderr goes, else <pg_data>/pg_ctl.log",
                "the log file pg_ctl -l appends to at a restart (its last lines are read when a start fails)"),
    )),
    (ENGINE, (
        HostVar("db_engine", "choice", "oracle", "oracle or postgresql: the database the host runs; validate "
                "refuses a step of the other engine on it (an Oracle step on a PostgreSQL host, and the reverse)"),
        HostVar("pg_database", "text", "postgres", "the database collect pg_stat connects to when the workload "
                "names none"),
    )),
    (GENERATOR, (LOAD_GENERATOR_HOST,)),
    (STANDIN, (
        HostVar("standin_database", "choice", "fresh",
                "fresh (as DBCA leaves it: no benchmark schemas) or loaded (SLOB's, TPC-C's and SOE's schemas "
                "already there)"),
        HostVar("standin_nls_lang", "text", "", "NLS_LANG the stand-in sqlplus honours (e.g. GERMAN_GERMANY)"),
        HostVar("standin_nls_numeric_characters", "text", "", "the stand-in's NLS_NUMERIC_CHARACTERS, e.g. ',.'"),
        HostVar("standin_refused_parameters", "list", "", "init.ora parameters the stand-in database refuses"),
        HostVar("standin_instance_stays_down", "boolean", "false", "the stand-in's startup fails (rehearse it)"),
        HostVar("slob_release", "text", "2.5.3", "the stand-in SLOB kit's release"),
        HostVar("cpus", "integer", "", "the host's CPUs as the stand-ins' AWR host line prints them"),
        HostVar("cores", "integer", "", "the host's cores for the AWR host line"),
        HostVar("sockets", "integer", "", "the host's sockets for the AWR host line"),
        HostVar("memory_gb", "number", "", "the host's memory for the AWR host line"),
    )),
)


def declared() -> frozenset[str]:
    """Every variable declared here."""
    return frozenset(v.name for _, group in COMMON_VARS for v in group)
