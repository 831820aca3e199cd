"""Swingbench's load generator on a client host (issue 43, docs/load-generator-host.md): the database host's
``load_generator_host`` names another host of the inventory; oewizard and charbench run there, over that host's own
connection, with an EZConnect string to the database host's listener built from the inventory; the schema checks
and the AWR around the run stay on the database host. The stand-ins on the client reach the database host's
stand-in state only through the lab's listener stand-in, and a service no listener serves fails as ORA-12514."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.kinds.swingbench.args import client_connect
from planner.kinds.swingbench.standin import SOE_CONFIG, install_home
from planner.rehearsal.standins import DEFAULT_HOME, install_standins, load_state, update_state, write_listener
from planner.results.evaluate import evaluate
from planner.results.measure import read_run

HOME = "/opt/swingbench"
SECRET = "s0e-Cl1ent-pw"
PLAN = """\
plan: soe
plays:
  - name: oltp
    hosts: lab
    workloads:
      - name: soe
        swingbench:
          home: /opt/swingbench
          config: configs/SOE_Server_Side_V2.xml
          connect: {connect}
          users: 2
          run_time: 60
          build: {{scale: 1}}
    collect:
      - awr
      - iostat: {{interval: 1}}
"""


def project(tmp: Path, connect: str = "orcl", served: str = "//127.0.0.1:1521/orcl") -> tuple[Path, Path]:
    """alpha: the database (stand-in state, no Swingbench); loadgen: the Swingbench install, no database, and the
    lab's listener stand-in naming alpha's listener."""
    db, client = tmp / "hosts" / "alpha", tmp / "hosts" / "loadgen"
    install_standins(db)
    # the inventory's host line of every AWR report the database host's stand-in writes, as a lab's sandbox sets it
    update_state(db, lambda s: s.__setitem__("host_line", {"PLANNER_STANDIN_HOSTNAME": "alpha"}))
    install_home(client, HOME)
    write_listener(client, {served: db / "var/lib/planner-standin/db.json"})
    (tmp / "hosts.ini").write_text(
        f"[lab]\nalpha ansible_connection=local ansible_host=127.0.0.1 planner_root={db} oracle_home={DEFAULT_HOME}"
        f" oracle_sid=orcl oracle_access=sqlplus oracle_poll_interval_s=0 oracle_diagnostics_pack=true"
        f" load_generator_host=loadgen swingbench_password={SECRET} swingbench_dba_password=Dba-pw-1\n"
        f"[clients]\nloadgen ansible_connection=local planner_root={client}\n")
    (tmp / "plan.yaml").write_text(PLAN.format(connect=connect))
    return db, client


def apply(tmp: Path, *flags: str) -> tuple[int, Path | None, list[dict]]:
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini"), "--runs-dir", str(tmp / "runs"),
                 "--no-report", *flags])
    runs = [p for p in (tmp / "runs").iterdir() if p.is_dir()] if (tmp / "runs").exists() else []
    path = runs[0] / "results.json" if runs else None
    if path is None or not path.exists():
        return code, None, []
    return code, runs[0], [r for r in json.loads(path.read_text()) if r["title"].startswith("soe")]


@pytest.mark.slow
def test_charbench_runs_on_the_client_and_reaches_the_database_host(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: validate refused a client host (exit 5, "running charbench on another host than the database's is
    not built yet"): charbench could only run on the database host."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.05")  # 3 s of run, 1 s samples
    db, client = project(tmp_path)
    code, run, results = apply(tmp_path, "--limit", "alpha")  # a limit to the database host keeps its client
    assert code == 0 and run is not None, [r["msg"] for r in results]
    assert [r["status"] for r in results] == ["changed"] and results[0]["host"] == "alpha"
    commands = [json.loads(x) for x in (run / "commands.jsonl").read_text().splitlines()]
    ran = {prog: {c["host"] for c in commands if f"/bin/{prog} " in str(c["command"])}
           for prog in ("oewizard", "charbench")}
    assert ran == {"oewizard": {"loadgen"}, "charbench": {"loadgen"}}, ran
    said = " ".join(str(c["command"]) for c in commands if "/bin/charbench " in str(c["command"]))
    assert "//127.0.0.1:1521/orcl" in said and SECRET not in said  # built from the inventory: address, port
    assert "SOE.ORDERS" in load_state(db)["segments"]  # the build on the client made the database host's schema
    assert not (client / "var/lib/planner-standin/db.json").exists()
    assert not list(client.rglob("swingbench-config.xml"))  # the client's copy holding the password: removed
    assert not [f for f in run.rglob("*") if f.is_file() and SECRET in f.read_text(errors="replace")]
    names = [Path(a["path"]).name for a in results[0]["artifacts"]]
    awr = next(run / a["path"] for a in results[0]["artifacts"] if Path(a["path"]).name.startswith("awr_"))
    host_line = awr.read_text().split("Host Name", 1)[1].splitlines()[2]  # the AWR around it: the database host's
    assert "results.xml" in names and host_line.split()[0] == "alpha", host_line
    data = read_run(run)
    samples = next(m for m in data.measurements if m.metric == "os.samples" and m.label("tool") == "iostat")
    assert samples.host == "alpha" and samples.label("window") == "cut to charbench's run with every user logged on"
    codes = {f.code: f for f in evaluate(data).findings}
    assert "generator_on_db_host" not in codes and "charbench ran on loadgen" in codes["generator_on_client"].message


@pytest.mark.slow
def test_the_stand_in_refuses_a_service_no_listener_serves(tmp_path: Path) -> None:
    """As the thin driver's listener answer (docs/oracle-behaviour.md 43.s8): a client's connect string that
    reaches no database must not find one."""
    db, client = project(tmp_path, served="//127.0.0.1:1521/OTHER")
    bin_ = client / HOME.lstrip("/") / "bin"
    out = subprocess.run([str(bin_ / "charbench"), "-c", str(client / HOME.lstrip("/") / SOE_CONFIG), "-cs",
                          "//127.0.0.1:1521/orcl", "-u", "soe", "-p", "x", "-uc", "1", "-rt", "0:01", "-a"],
                         capture_output=True, text=True, check=False, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "PLANNER_STANDIN_TIME_SCALE": "0.001"})
    assert out.returncode != 0 and "ORA-12514" in out.stdout and "Listener refused" in out.stdout, out.stdout
    wiz = subprocess.run([str(bin_ / "oewizard"), "-cl", "-create", "-cs", "//127.0.0.1/ORCL", "-u", "soe", "-p",
                          "x", "-scale", "1"], capture_output=True, text=True, check=False, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "PLANNER_STANDIN_TIME_SCALE": "0.001"})
    assert wiz.returncode != 0 and "ORA-12514" in wiz.stdout, wiz.stdout
    assert "SOE.ORDERS" not in load_state(db).get("segments", {})


def test_a_connect_naming_another_host_than_the_database_is_refused_at_validate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: no check: charbench on the client would have driven whatever database the string named."""
    project(tmp_path, connect="//otherdb:1521/orcl")
    code, run, _ = apply(tmp_path, "--check")
    err = capsys.readouterr().err
    assert code == 5 and run is None, err
    assert "plan.yaml:8:" in err and "'otherdb'" in err and "not the database host" in err, err


def test_the_connect_string_from_a_client_host() -> None:
    names, built = ("alpha", "127.0.0.1"), ("127.0.0.1", 1521)
    assert client_connect("orcl", names, *built) == "//127.0.0.1:1521/orcl"  # a service name alone
    assert client_connect("//alpha/soe", names, *built) == "//alpha/soe"  # the user's, naming alpha
    assert client_connect("127.0.0.1:1522/soe", names, *built) == "127.0.0.1:1522/soe"
    for other in ("//localhost/orcl", "db2:1521/orcl", "(DESCRIPTION=(ADDRESS=(HOST=db2)(PORT=1521)))"):
        with pytest.raises(Exception, match="not the database host"):
            client_connect(other, names, *built)


SOE_DESCRIPTOR = "(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST={host})(PORT=1521))(CONNECT_DATA=(SERVICE_NAME=orcl)))"


@pytest.mark.slow
def test_charbench_on_the_client_reaches_the_database_through_a_descriptor(tmp_path: Path) -> None:
    """Before: a ``connect:`` written as a full descriptor (which JDBC thin takes, docs/oracle-behaviour.md 53.d1)
    was refused with ORA-12514 by the lab's listener stand-in that served the database host's service."""
    db, client = project(tmp_path)
    home = client / HOME.lstrip("/")
    out = subprocess.run([str(home / "bin/oewizard"), "-cl", "-create", "-cs", SOE_DESCRIPTOR.format(host="127.0.0.1"),
                          "-u", "soe", "-p", "x", "-scale", "1"], capture_output=True, text=True, check=False,
                         timeout=60, env={"PATH": "/usr/bin:/bin", "PLANNER_STANDIN_TIME_SCALE": "0.001"})
    assert out.returncode == 0 and "ORA-" not in out.stdout, out.stdout
    assert "SOE.ORDERS" in load_state(db)["segments"]  # the database host's schema, reached through the listener


def test_a_descriptor_naming_another_host_than_the_database_is_refused_at_validate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, connect=SOE_DESCRIPTOR.format(host="otherdb"))
    code, run, _ = apply(tmp_path, "--check")
    err = capsys.readouterr().err
    assert code == 5 and run is None, err
    assert "plan.yaml:8:" in err and "'otherdb'" in err and "not the database host" in err, err
