"""The results store on both backends with the same assertions (issue 19): schema, push/pull, filters,
compare across controllers, many writers (real processes) and a push killed half-way (a real SIGKILL).

``store_url`` (tests/pg_cluster.py) is a fresh store of each backend; the PostgreSQL one is a database on a
throwaway cluster, reached over loopback TCP with the password in PGPASSFILE.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_report_helpers import seed_study

from planner.cli.main import main
from planner.errors import InputError
from planner.results.measure import read_run
from planner.store import LATEST, open_store, parse_store_url

TABLES = {"planner_schema", "runs", "measurements", "run_hosts", "run_files", "artifacts", "findings", "verdicts"}


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def migrated(url: str) -> str:
    with open_store(parse_store_url(url, Path(".")), migrating=True) as st:
        st.migrate()
    return url


def tables(url: str) -> set[str]:
    with open_store(parse_store_url(url, Path("."))) as st:
        if st.backend.value == "sqlite":
            rows = st._exec("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        else:
            rows = st._exec("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
    return {r[0] for r in rows}


@pytest.mark.slow
def test_migrate_creates_the_same_schema_on_both_backends(store_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "store", "migrate", "--store", store_url)
    assert code == 0, err
    assert f"schema v{LATEST}" in out
    assert tables(store_url) >= TABLES
    code, out, _ = cli(capsys, "store", "migrate", "--store", store_url)
    assert code == 0 and "up to date" in out


@pytest.mark.slow
def test_a_newer_schema_is_refused_in_words(store_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    migrated(store_url)
    with open_store(parse_store_url(store_url, Path("."))) as st, st._tx():
        st._exec("INSERT INTO planner_schema VALUES (?, ?, ?)", (LATEST + 1, "2027-01-01", "9.9"))
    code, _, err = cli(capsys, "runs", "--store", store_url)
    assert code == 5
    assert f"schema v{LATEST + 1}, newer than this planner's (v{LATEST})" in err and "upgrade planner" in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_push_twice_is_one_run_and_pull_rebuilds_the_folder(store_url: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    migrated(store_url)
    run = seed_study(tmp_path / "a")
    results = json.loads((run / "results.json").read_text())  # a log planner does not parse: listed, not kept
    results[1]["artifacts"].append({"path": "artifacts/exa/exec001/slob.log", "kind": "", "sha256": ""})
    (run / "results.json").write_text(json.dumps(results))
    (run / "artifacts/exa/exec001/slob.log").write_text("kit output\n" * 1000)
    listed = {a["path"] for r in results for a in r["artifacts"]}
    code, out, err = cli(capsys, "store", "push", str(run), "--store", store_url)
    assert code == 0 and "pushed" in out, err
    code, out, _ = cli(capsys, "store", "push", str(run), "--store", store_url)
    assert code == 0 and "unchanged" in out
    data = read_run(run)
    with open_store(parse_store_url(store_url, Path("."))) as st:
        assert [r.id for r in st.runs()] == [data.run_id]
        assert st.measurements(data.run_id) == list(data.measurements)
        stored = st.stored_run(data.run_id)
    assert stored is not None and stored.hosts == ("exa", "vio") and stored.findings
    names = {a.path: a for a in stored.artifacts}
    assert set(names) == listed and all(a.size and len(a.sha256) == 64 for a in names.values())
    assert (names["artifacts/exa/exec001/slob.log"].size == 11_000
            and names["artifacts/exa/exec001/slob.log"].content is None)
    code, out, err = cli(capsys, "store", "pull", data.run_id, "--store", store_url, "--runs-dir", str(tmp_path / "b"))
    assert code == 0, err
    pulled = tmp_path / "b" / data.run_id
    for name in ("meta.json", "results.json", "plan.yaml", "restore.json", "facts/exa.json"):
        assert (pulled / name).read_bytes() == (run / name).read_bytes(), name
    for rel in listed - {"artifacts/exa/exec001/slob.log"}:  # every measured artifact comes back byte for byte
        assert (pulled / rel).read_bytes() == (run / rel).read_bytes()
    assert not (pulled / "artifacts/exa/exec001/slob.log").exists()
    assert json.loads((pulled / "pulled.json").read_text())["artifacts_not_kept"] == ["artifacts/exa/exec001/slob.log"]
    assert "1 artifact(s) not kept" in out
    assert read_run(pulled).measurements == data.measurements
    # pulling over an existing run folder is refused: the folder is the truth
    code, _, err = cli(capsys, "store", "pull", data.run_id, "--store", store_url, "--runs-dir", str(tmp_path / "b"))
    assert code == 5 and "already holds a run folder" in err


@pytest.mark.slow
def test_report_of_a_pulled_run_is_the_report_of_the_original(store_url: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    migrated(store_url)
    run = seed_study(tmp_path / "a")
    assert cli(capsys, "store", "push", str(run), "--store", store_url)[0] == 0
    # `report` of a run only the store has pulls it into --runs-dir, then renders it there
    code, _, err = cli(capsys, "report", run.name, "--store", store_url, "--runs-dir", str(tmp_path / "b"))
    assert code == 0, err
    assert cli(capsys, "report", str(run))[0] == 0
    original = (run / "report.md").read_text()
    again = (tmp_path / "b" / run.name / "report.md").read_text()
    assert "159,183.9" in again
    assert again.replace(str(tmp_path / "b"), str(tmp_path / "a")) == original


def _seed(root: Path, run_id: str, plan: str, hosts: list[str], started: str, iops: float = 159_183.9) -> Path:
    run = seed_study(root, run_id, violin_iops=iops)
    meta = json.loads((run / "meta.json").read_text())
    meta.update(plan=plan, started=started, hosts={h: {"address": "127.0.0.1"} for h in hosts},
                controller=root.name)
    (run / "meta.json").write_text(json.dumps(meta))
    return run


@pytest.mark.slow
def test_runs_filters_by_plan_host_and_date(store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    migrated(store_url)
    _seed(tmp_path / "labA", "r1-violin", "violin_study", ["vio"], "2026-01-05T09:00:00.000000Z")
    _seed(tmp_path / "labA", "r2-exa", "exa_study", ["exa"], "2026-02-01T09:00:00.000000Z")
    _seed(tmp_path / "labA", "r3-both", "violin_study", ["exa", "vio"], "2026-03-01T09:00:00.000000Z")
    assert cli(capsys, "index", "--runs-dir", str(tmp_path / "labA"), "--store", store_url)[0] == 0

    def ids(*flags: str) -> list[str]:
        code, out, err = cli(capsys, "runs", "--store", store_url, *flags)
        assert code == 0, err
        return [line.split()[0] for line in out.splitlines() if line.startswith("r")]

    assert ids() == ["r1-violin", "r2-exa", "r3-both"]
    assert ids("--plan", "violin_study") == ["r1-violin", "r3-both"]
    assert ids("--host", "exa") == ["r2-exa", "r3-both"]
    assert ids("--since", "2026-02-01") == ["r2-exa", "r3-both"]
    assert ids("--plan", "violin_study", "--host", "vio", "--since", "2026-01-06") == ["r3-both"]
    code, out, _ = cli(capsys, "runs", "--store", store_url, "--host", "nobody-here")
    assert code == 0 and "no runs on host nobody-here" in out
    code, _, err = cli(capsys, "runs", "--store", store_url, "--since", "last tuesday")
    assert code == 2 and "is not a date" in err  # an option argparse cannot read: 2, as `-f two` (and Ansible)


@pytest.mark.slow
def test_compare_runs_pushed_by_two_controllers(store_url: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    migrated(store_url)
    a = _seed(tmp_path / "labA", "20260101T100000Z-a", "slob", ["exa", "vio"], "2026-01-01T10:00:00Z")
    b = _seed(tmp_path / "labB", "20260301T100000Z-b", "slob", ["exa", "vio"], "2026-03-01T10:00:00Z", 200_000.0)
    for run in (a, b):  # each controller pushes its own folder
        assert cli(capsys, "store", "push", str(run), "--store", store_url, "--runs-dir", str(run.parent))[0] == 0
    code, out, err = cli(capsys, "compare", a.name, b.name, "--store", store_url, "--runs-dir", str(tmp_path / "c"))
    assert code == 0, err
    assert "20260301T100000Z-b (vs first)" in out and "159,183.9" in out and "+25.6%" in out
    # show and export read a store-only run too, leaving nothing behind
    code, out, _ = cli(capsys, "show", b.name, "--store", store_url, "--runs-dir", str(tmp_path / "c"))
    assert code == 0 and "200,000" in out
    code, out, _ = cli(capsys, "export", a.name, "--store", store_url, "--format", "json")
    assert code == 0 and any(r["value"] == 159_183.9 for r in json.loads(out))
    assert not (tmp_path / "c").exists()


# -- many writers: real processes, synchronised by pipes (never by sleeping) ----------------------------------
CHILD = r"""
import sys
from pathlib import Path
from planner.results.measure import read_run
from planner.store import open_store, parse_store_url

url, folder, mode = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
run = read_run(folder)
with open_store(parse_store_url(url, Path("."))) as store:
    if mode == "pause":
        write = store._write_children
        def paused(s):
            write(s)
            print("written", flush=True)  # every row of the run is in, nothing committed
            sys.stdin.readline()  # the parent SIGKILLs us here
        store._write_children = paused
    print("ready", flush=True)
    sys.stdin.readline()  # the barrier: the parent releases every writer at once
    print("pushed" if store.put_run(run, replace="replace" in sys.argv[4:]) else "unchanged", flush=True)
"""


def _writer(url: str, folder: Path, mode: str = "push", *flags: str) -> subprocess.Popen[str]:
    p = subprocess.Popen([sys.executable, "-c", CHILD, url, str(folder), mode, *flags], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None
    assert p.stdout.readline().strip() == "ready", p.stderr.read() if p.stderr else ""
    return p


def _release(procs: list[subprocess.Popen[str]]) -> list[str]:
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        outs.append(out.strip())
    return outs


@pytest.mark.slow
def test_two_controllers_pushing_at_once_both_land(store_url: str, tmp_path: Path) -> None:
    migrated(store_url)
    a = seed_study(tmp_path / "labA", "20260101T100000Z-a")
    b = seed_study(tmp_path / "labB", "20260102T100000Z-b", violin_iops=1.0)
    assert _release([_writer(store_url, a), _writer(store_url, b)]) == ["pushed", "pushed"]
    with open_store(parse_store_url(store_url, Path("."))) as st:
        assert [r.id for r in st.runs()] == [a.name, b.name]
        assert len(st.measurements(a.name)) == len(read_run(a).measurements)
        assert len(st.measurements(b.name)) == len(read_run(b).measurements)


@pytest.mark.slow
def test_the_same_run_pushed_at_once_is_one_run(store_url: str, tmp_path: Path) -> None:
    migrated(store_url)
    run = seed_study(tmp_path / "labA")
    outs = _release([_writer(store_url, run), _writer(store_url, run), _writer(store_url, run)])
    assert sorted(outs) == ["pushed", "unchanged", "unchanged"]
    with open_store(parse_store_url(store_url, Path("."))) as st:
        assert [r.id for r in st.runs()] == [run.name]
        assert st.measurements(run.name) == list(read_run(run).measurements)


def _kill_mid_push(url: str, folder: Path, *flags: str) -> None:
    p = _writer(url, folder, "pause", *flags)
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write("go\n")
    p.stdin.flush()
    assert p.stdout.readline().strip() == "written"
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    assert p.returncode == -signal.SIGKILL


@pytest.mark.slow
def test_a_push_killed_half_way_leaves_no_half_written_run(store_url: str, tmp_path: Path) -> None:
    migrated(store_url)
    v1 = seed_study(tmp_path / "labA")
    _kill_mid_push(store_url, v1)
    with open_store(parse_store_url(store_url, Path("."))) as st:
        assert st.runs() == [] and st.measurements(v1.name) == [] and st.stored_run(v1.name) is None
    # the run pushed whole; then a changed copy of it (same id, --replace) killed while replacing it: the
    # first stays
    assert _release([_writer(store_url, v1)]) == ["pushed"]
    v2 = seed_study(tmp_path / "labB", violin_iops=1.0)
    _kill_mid_push(store_url, v2, "replace")
    with open_store(parse_store_url(store_url, Path("."))) as st:
        stored = st.stored_run(v1.name)
        assert stored is not None and stored.measurements == read_run(v1).measurements
        assert [r.id for r in st.runs()] == [v1.name]
    assert _release([_writer(store_url, v2, "push", "replace")]) == ["pushed"]  # nothing was left locked


@pytest.mark.slow
def test_store_failure_at_the_end_of_apply_keeps_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from test_engine_local import PLAN, TEMPLATE

    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "init.ora.j2").write_text(TEMPLATE)
    (tmp_path / "hosts" / "alpha" / "etc").mkdir(parents=True)
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={tmp_path}/hosts/alpha\n")
    (tmp_path / "plan.yaml").write_text(PLAN.format(extra=""))
    bad = tmp_path / "not-a-folder"
    bad.write_text("a file where the store's folder would be")
    monkeypatch.setenv("PLANNER_STORE", f"sqlite:///{bad}/planner.sqlite")
    code, out, err = cli(capsys, "apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
                         "--runs-dir", str(tmp_path / "runs"), "--no-report")
    assert code == 0, err
    run = next(p for p in (tmp_path / "runs").iterdir() if (p / "meta.json").is_file())
    said = out + err
    assert "run not saved in the results store" in said and f"planner store push {run}" in said
    assert json.loads((run / "meta.json").read_text())["status"] == "complete"
    assert read_run(run).results  # the folder is whole: push it later


def test_a_legacy_sqlite_index_keeps_working(tmp_path: Path) -> None:
    import sqlite3

    from planner.store import SqliteStore
    from planner.store.schema import statements
    from planner.store.url import Backend

    db = tmp_path / "planner.sqlite"
    con = sqlite3.connect(db)
    for stmt in statements(1, Backend.SQLITE):  # the index planner 0.1 wrote (user_version 1, no version table)
        con.execute(stmt)
    con.execute("INSERT INTO runs (id, plan, path) VALUES ('old-run', 'p', '/runs/old-run')")
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    with SqliteStore(db) as st:
        assert st.version == LATEST and [r.id for r in st.runs()] == ["old-run"]
        versions = [r[0] for r in st._exec("SELECT version FROM planner_schema ORDER BY version")]
        assert versions == list(range(1, LATEST + 1))
        assert st._exec("PRAGMA user_version").fetchone()[0] == LATEST  # planner 0.1 refuses it by its own check


def test_store_urls_refuse_passwords_and_bad_schemes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "runs", "--store", "postgresql://me:s3cr3t-pw@db.lab:5432/planner")
    assert code == 5 and "holds a password" in err and "~/.pgpass" in err and "s3cr3t-pw" not in err
    code, _, err = cli(capsys, "runs", "--store", "postgresql://me@db.lab/planner?password=s3cr3t-pw")
    assert code == 5 and "s3cr3t-pw" not in err
    code, _, err = cli(capsys, "runs", "--store", "mysql://me@db/planner")
    assert code == 5 and "unknown scheme 'mysql'" in err
    code, _, err = cli(capsys, "runs", "--store", "sqlite://relative.db")
    assert code == 5 and "three slashes" in err
    with pytest.raises(InputError, match="holds a password"):
        parse_store_url(None, tmp_path, env={"PLANNER_STORE": "postgres://u:pw@h/db"})


def test_apply_refuses_a_password_in_the_store_url_before_any_host(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from test_engine_local import PLAN

    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={tmp_path}/h\n")
    (tmp_path / "plan.yaml").write_text(PLAN.format(extra=""))
    code, out, err = cli(capsys, "apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
                         "--runs-dir", str(tmp_path / "runs"), "--store", "postgresql://me:hunter2@db/planner")
    assert code == 5 and "holds a password" in err and "hunter2" not in out + err
    assert not any((tmp_path / "runs").glob("*/meta.json"))  # no run started, no host touched


@pytest.mark.slow
def test_pull_writes_nothing_outside_the_run_folder(store_url: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    migrated(store_url)
    run = seed_study(tmp_path / "a")
    assert cli(capsys, "store", "push", str(run), "--store", store_url)[0] == 0
    with open_store(parse_store_url(store_url, Path("."))) as st, st._tx():  # a tampered store row
        st._exec("INSERT INTO run_files VALUES (?, ?, ?)", (run.name, "../../escaped.txt", b"owned"))
        st._exec("INSERT INTO run_files VALUES (?, ?, ?)", (run.name, str(tmp_path / "abs.txt"), b"owned"))
    assert cli(capsys, "store", "pull", run.name, "--store", store_url, "--runs-dir", str(tmp_path / "b" / "c"))[0] == 0
    assert (tmp_path / "b" / "c" / run.name / "meta.json").is_file()
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "b" / "escaped.txt").exists()
    assert not (tmp_path / "abs.txt").exists()


def test_runs_of_a_legacy_index_are_reindexed_for_host_filters(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    from planner.store.schema import statements
    from planner.store.url import Backend

    run = seed_study(tmp_path)
    con = sqlite3.connect(tmp_path / "planner.sqlite")  # planner 0.1's index of that folder: no host rows
    for stmt in statements(1, Backend.SQLITE):
        con.execute(stmt)
    con.execute("INSERT INTO runs (id, plan, status, hosts, path) VALUES (?, 'p', 'complete', '[]', ?)",
                (run.name, str(run)))
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    code, out, _ = cli(capsys, "runs", "--runs-dir", str(tmp_path), "--host", "vio")
    assert code == 0 and run.name in out and "slob_violin_vs_exadata" in out
