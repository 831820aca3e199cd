"""HammerDB on PostgreSQL with its load generator on a client host (issue 43, docs/load-generator-host.md item 2):
hammerdbcli runs on the host the database host's ``load_generator_host`` names, its scripts' ``pg_host`` is the
database host's address (its own ``pg_host`` is the local socket, meaningless elsewhere), both passwords only in
the 0600 scripts there, removed after the point; what reads the database (the schema, max(w_id), pg_stat) stays on
the database host. The stand-in hammerdbcli on the client reaches a real PostgreSQL over TCP with password (SCRAM)
logins, and a pg_hba.conf that does not admit the client fails the point with Pgtcl's and libpq's own words
(docs/oracle-behaviour.md 43.h13)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_cluster import PgCluster, own_cluster

from planner.cli.main import main
from planner.kinds.hammerdb import standin

HOME = "/opt/HammerDB-4.12"
PLAN = """\
plan: tproc_c_pg
plays:
  - name: oltp
    hosts: lab
    workloads:
      - name: tproc-c
        hammerdb: {db: pg, home: /opt/HammerDB-4.12, database: DBNAME, virtual_users: 2, warehouses: 2, rampup: 0,
                   duration: 1}
    collect: [pg_stat]
"""


@pytest.fixture(scope="module")
def cluster() -> Iterator[PgCluster]:
    """A server of this module's own: the refusal test rewrites its pg_hba.conf."""
    yield from own_cluster("HammerDB on PostgreSQL from a client host")


def project(tmp: Path, cluster: PgCluster, database: str) -> tuple[Path, Path]:
    """alpha: the database host, whose pg_host is the server's local socket (trust, as a DBA's own host often
    is); loadgen: the HammerDB kit, no server. The server's TCP logins (127.0.0.1, alpha's address) take
    passwords (SCRAM)."""
    db, client = tmp / "hosts" / "alpha", tmp / "hosts" / "loadgen"
    db.mkdir(parents=True)
    standin.write_kit(client / HOME.lstrip("/"), "4.12")
    (tmp / "hosts.ini").write_text(
        f"[lab]\nalpha ansible_connection=local ansible_host=127.0.0.1 planner_root={db} db_engine=postgresql "
        f"pg_host={cluster.root / 'sock'} pg_port={cluster.port} pg_user=planner load_generator_host=loadgen\n"
        f"[clients]\nloadgen ansible_connection=local planner_root={client}\n")
    (tmp / "vars.json").write_text(json.dumps({"pg_password": cluster.password,
                                               "hammerdb_tpcc_password": "Tpcc-pw-4-client"}))
    (tmp / "plan.yaml").write_text(PLAN.replace("DBNAME", database))
    return db, client


def apply(tmp: Path) -> tuple[int, Path, list[dict]]:
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini"), "--runs-dir", str(tmp / "runs"),
                 "--no-report", "-e", f"@{tmp / 'vars.json'}", "--limit", "alpha"])
    runs = [p for p in (tmp / "runs").iterdir() if p.is_dir()] if (tmp / "runs").exists() else []
    run = runs[0] if runs else tmp
    path = run / "results.json"
    return code, run, [r for r in json.loads(path.read_text()) if r["title"] == "tproc-c"] if path.exists() else []


def commands(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "commands.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_hammerdbcli_on_the_client_reaches_the_server_over_tcp(tmp_path: Path, cluster: PgCluster,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: validate refused a client host for db: pg (exit 5, "on the database host only, for now")."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    _db, client = project(tmp_path, cluster, "tpcc_client")
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results] or (run / "meta.json").read_text()[-3000:]
    assert [r["status"] for r in results] == ["changed"] and results[0]["host"] == "alpha"
    ran = commands(run)
    assert {c["host"] for c in ran if "/hammerdbcli auto " in str(c["command"])} == {"loadgen"}
    assert {c["host"] for c in ran if str(c["command"]).startswith("psql ") or " psql -X" in str(c["command"])} \
        <= {"alpha"}  # max(w_id) and the schema's presence: asked on the database host
    at = [i for i, c in enumerate(ran) if "/hammerdbcli auto " in str(c["command"])]  # build.tcl, run.tcl
    snaps = [i for i, c in enumerate(ran) if c["host"] == "alpha" and "pg_stat_database" in json.dumps(c)]
    assert len(at) == 2 and any(at[0] < i < at[1] for i in snaps), (at, snaps)  # pg_stat's begin: after the build
    kept = {Path(a["path"]).name: run / a["path"] for a in results[0]["artifacts"]}
    script = kept["run.tcl"].read_text()
    assert 'diset connection pg_host "127.0.0.1"' in script and str(cluster.root) not in script
    assert f'diset connection pg_port "{cluster.port}"' in script
    assert cluster.password not in script and "Tpcc-pw-4-client" not in script  # masked in the kept copy
    assert cluster.psql("select max(w_id) from warehouse", db="tpcc_client").strip() == "2"  # built from the client
    assert any(n == "pg_stat.json" for n in kept) or list(run.glob("artifacts/**/pg_stat.json"))
    assert not [p for p in client.rglob("*.tcl")]  # the scripts holding the passwords: gone from the client
    nopm = [m["value"] for m in results[0]["data"]["metrics"] if m["name"] == "hammerdb.nopm"]
    assert nopm and nopm[0] > 0
    everything = "".join(p.read_text(errors="replace") for p in run.rglob("*") if p.is_file())
    assert cluster.password not in everything and "Tpcc-pw-4-client" not in everything


def refused(cluster: PgCluster) -> None:
    """Until the server has read the new pg_hba.conf (a reload is a signal): a TCP login is refused."""
    for _ in range(200):
        r = subprocess.run(["psql", "-X", "-w", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "planner", "-d",
                            "postgres", "-c", "select 1"], capture_output=True, text=True, check=False,
                           env={"PATH": "/usr/bin:/bin", "PGPASSFILE": str(cluster.pgpass)})
        if "no pg_hba.conf entry" in r.stderr:
            return
    raise AssertionError("the server never refused a TCP login")


@pytest.mark.slow
def test_a_pg_hba_that_refuses_the_client_fails_the_point_in_libpqs_words(
        tmp_path: Path, cluster: PgCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server admits its local socket only: the database host's own questions are answered, the client's
    TCP login is refused by pg_hba.conf, and the point says so as Pgtcl and libpq do (not a bare "Connection to
    database failed")."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.001")
    hba = cluster.root / "data" / "pg_hba.conf"
    saved = hba.read_text()
    hba.write_text("".join(ln + "\n" for ln in saved.splitlines() if not ln.startswith("host")))
    reload = [*cluster.as_user, str(cluster.bin / "pg_ctl"), "-D", str(cluster.root / "data"), "reload"]
    subprocess.run(reload, capture_output=True, cwd=cluster.root, check=True)
    refused(cluster)
    try:
        project(tmp_path, cluster, "tpcc_refused")
        code, run, results = apply(tmp_path)
    finally:
        hba.write_text(saved)
        subprocess.run(reload, capture_output=True, cwd=cluster.root, check=True)
    assert code != 0 and [r["status"] for r in results] == ["failed"], results
    msg = results[0]["msg"]
    assert "Connection to database failed" in msg and "no pg_hba.conf entry for host" in msg, msg
    assert cluster.password not in msg
