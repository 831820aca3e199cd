"""The rehearsal matrix (issue 41; docs/rehearsal-matrix.md): worlds built from real parts, a pairwise cover of
them, and CI's sample, which rehearses every shipped plan and every value of every dimension in some plan that
uses it. A world's rehearsal passes, or refuses with the message that is right for that world."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import types
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from planner import kindspec
from planner.errors import InputError
from planner.rehearsal import matrix
from planner.rehearsal.matrix import Dimension, Needs, Uses, Value, World

ROOT = Path(__file__).resolve().parents[3]
PLANS = sorted(p.stem for p in (ROOT / "plans").glob("*.yaml"))
# The cheap slice of each plan CI rehearses (-l one host of a two-host plan; the OLTP plan's Violin host has the
# become step, ASM and both kits); -e run_time=30 for all.
SLICES = {"violin_vs_exadata": ["-l", "exadatax2-8"], "oltp_violin_vs_exadata": ["-l", "oel57"]}
# Seconds one rehearsal of each slice took here (2 shared cores): the sample gives values to the cheapest plan.
COST = {"local_demo": 5, "swingbench_soe": 28, "pgbench_clients": 43, "slb_affinity": 45,
        "ssd_calibrate_orion_iozone": 98, "violin_vs_exadata": 60, "oltp_violin_vs_exadata": 51}
# (plan, dimension=value) -> what planner rightly says in that world instead of passing, the first that applies.
REFUSALS: dict[tuple[str, str], str] = {
    # RHEL/OL 5-7.2's sudoers: sudo without a terminal is refused; planner names the line to add (docs/become.md)
    ("oltp_violin_vs_exadata", "sudoers=rhel-old"): "Defaults:oracle !requiretty",
    ("violin_vs_exadata", "sudoers=rhel-old"): "Defaults:oracle !requiretty",
    # the plans size the KEEP pool with init_ora on the host; in a PDB that is no PDB-modifiable parameter
    # (ORA-65040), and planner says to run it on a host entry without oracle_pdb (CDB$ROOT)
    ("violin_vs_exadata", "topology=cdb"): "cannot be set in PDB SLOBPDB of a CDB",
    ("oltp_violin_vs_exadata", "topology=cdb"): "cannot be set in PDB SLOBPDB of a CDB",
}


def test_the_pairwise_cover_meets_every_allowed_pair_and_no_forbidden_one() -> None:
    dims = matrix.dimensions()
    worlds = matrix.pairwise(dims)
    assert worlds == matrix.pairwise(dims)  # deterministic: CI and the doc list the same worlds
    seen = {frozenset([(a, x.name), (b, y.name)]) for w in worlds
            for (a, x), (b, y) in itertools.combinations(w.chosen, 2)}
    for d, e in itertools.combinations(dims, 2):
        for x, y in itertools.product(d.values, e.values):
            pair = {d.key: x.name, e.key: y.name}
            assert (frozenset(pair.items()) in seen) == matrix.allowed(pair), pair
    assert len(worlds) < len(list(itertools.product(*(d.values for d in dims)))) // 100


def test_a_release_a_kind_stand_in_learns_joins_the_matrix(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("fake_kind_standin")
    module.RELEASES = ("1.0", "2.0")  # type: ignore[attr-defined]
    module.RELEASE_VAR = "fakebench_release"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_kind_standin", module)
    fake = kindspec.KindSpec("fakebench", standin="fake_kind_standin:install")
    monkeypatch.setattr(kindspec, "specs", lambda: (fake,))
    dim = next(d for d in matrix.dimensions() if d.key == "fakebench")
    assert [v.name for v in dim.values] == ["1.0", "2.0"] and dim.needs is Needs.KIT
    assert matrix.parse_world(["fakebench=2.0"]).extra_vars() == {"fakebench_release": "2.0"}


def test_a_world_misnamed_is_refused_with_every_problem_and_the_values_there_are() -> None:
    with pytest.raises(InputError) as e:
        matrix.parse_world(["sshd=5.4", "kernel=2.6"])
    said = " ".join(f"{p.message} {p.hint}" for p in e.value.problems)
    assert "5.3" in said and "no dimension 'kernel'" in said and "userland" in said, said


def test_the_sample_rehearses_every_plan_and_every_value_where_a_plan_uses_it() -> None:
    dims = matrix.dimensions()
    plans = [("generic", Uses(True, False, False)), ("db", Uses(True, True, True)),
             ("kit", Uses(True, True, True, frozenset({"slob"}))),
             ("oltp", Uses(True, True, True, frozenset({"hammerdb"})))]
    rows = matrix.sample(plans, dims)
    assert {p for p, _ in rows} == {"generic", "db", "kit", "oltp"}
    covered = {(k, v.name) for _, w in rows for k, v in w.chosen}
    assert covered == {(d.key, v.name) for d in dims for v in d.values}
    assert all(matrix.allowed({k: v.name for k, v in w.chosen}) for _, w in rows)
    assert all(w.value("oracle") is None for p, w in rows if p == "generic")  # not a dimension of its plan


@dataclass(frozen=True)
class Row:
    plan: str
    world: World


def _plan_uses(plan: str) -> Uses:
    from planner.cli.apply import load
    from planner.cli.rehearse import uses
    from planner.rehearsal import preflight

    loaded = load(ROOT / "plans" / f"{plan}.yaml", None, ["run_time=30"], (SLICES.get(plan) or [None, None])[1])
    return uses(loaded, preflight.check(loaded.plan, loaded.play_hosts, loaded.extra_vars))


def _rehearse(n: int, row: Row, top: Path) -> tuple[int, str, dict[str, object]]:
    runs = top / "runs" / f"{n:02d}-{row.plan}"
    argv = [sys.executable, "-m", "planner", "apply", "--rehearse", str(top / "plans" / f"{row.plan}.yaml"),
            "--runs-dir", str(runs), "--no-report", "-e", "run_time=30", *SLICES.get(row.plan, []),
            *row.world.args()]
    r = subprocess.run(argv, cwd=top, capture_output=True, text=True, timeout=900, check=False)
    metas = list(runs.glob("*/meta.json"))
    return r.returncode, r.stdout + r.stderr, json.loads(metas[0].read_text()) if metas else {}


def _refusal(row: Row) -> tuple[str, str] | None:
    return next(((key, said) for (plan, key), said in REFUSALS.items()
                 if plan == row.plan and key in [f"{k}={v.name}" for k, v in row.world.chosen]), None)


def _world_said(row: Row, meta: dict[str, object]) -> list[str]:
    """The dimensions this world set that meta.json's world does not say (as the banner says them)."""
    recorded = json.dumps(meta.get("world", []), ensure_ascii=False)
    said = {"nls": lambda v: dict(v.extra_vars).get("standin_nls_lang") or "NLS_LANG unset",
            "oracle": lambda v: v.name.split(".")[0] + ".",
            "topology": lambda v: {"single": '"cdb": false', "cdb": '"pdb": "SLOBPDB"', "rac": '"rac": true'}[v.name],
            "database": lambda v: f'"database": "{v.name}"', "slob": lambda v: f'"slob_release": "{v.name}"'}
    tools = {d.key for d in matrix.dimensions() if d.needs is Needs.KIT and d.key != "slob"}  # in "tools" pairs
    return [f"{k}={v.name}" for k, v in row.world.chosen if v.words != "this machine's" and
            str(said.get(k, (lambda v: f'"{v.name}"') if k in tools else (lambda v: v.words))(v)) not in recorded]


@pytest.mark.slow
@pytest.mark.ssh
def test_ci_sample_every_shipped_plan_in_worlds_covering_every_value(tmp_path_factory: pytest.TempPathFactory
                                                                     ) -> None:
    top = tmp_path_factory.mktemp("matrix")
    for d in ("plans", "inventory"):
        shutil.copytree(ROOT / d, top / d, ignore=shutil.ignore_patterns("reports"))
    plans = sorted(((p, _plan_uses(p)) for p in PLANS), key=lambda pu: COST.get(pu[0], 100))
    rows = [Row(p, w) for p, w in matrix.sample(plans, matrix.dimensions())]
    with ThreadPoolExecutor(max_workers=2) as pool:  # each rehearsal: its own sshds, sandboxes and runs folder
        results = list(pool.map(lambda nr: _rehearse(*nr, top), enumerate(rows)))
    wrong = []
    for row, (code, out, meta) in zip(rows, results, strict=True):
        expected = _refusal(row)
        if expected is None and code != 0:
            wrong.append(f"{row.plan} [{row.world.key()}] exit {code}:\n{out[-2500:]}")
        elif expected is not None and (code == 0 or expected[1] not in out):
            wrong.append(f"{row.plan} [{row.world.key()}] should refuse ({expected}), exit {code}:\n{out[-1500:]}")
        elif meta and _world_said(row, meta):
            wrong.append(f"{row.plan} [{row.world.key()}] meta.json world lacks {_world_said(row, meta)}")
    (top / "outcomes.txt").write_text("".join(f"{r.plan} [{r.world.key()}] exit {c}\n" for r, (c, _, _) in
                                              zip(rows, results, strict=True)))
    assert not wrong, "\n\n".join(wrong)


def test_value_words_name_whose_value_it_is() -> None:
    """A dimension's own value says what it is; "this machine's" only for the unset one (current)."""
    for d in matrix.dimensions():
        assert isinstance(d, Dimension) and all(isinstance(v, Value) and v.words for v in d.values)


@pytest.mark.slow
@pytest.mark.ssh
def test_an_rsa_key_the_host_refuses_is_said_as_a_refused_login(make_lab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The 5.3 world found it: a refused RSA login read "SSH handshake failed: Invalid key — is an SSH server
    listening there?" (paramiko re-raised its last try, reading the RSA key file as an Ed25519 key)."""
    from dataclasses import replace

    from planner.errors import ConnectError
    from planner.rehearsal.labworld import SshdAlgorithms
    from planner.transport.ssh.client import SSHConnection

    lab = make_lab(1, sshd=SshdAlgorithms.OPENSSH_7_4)  # RSA keys, as RHEL/OL 7 hosts had
    other = tmp_path / "not_authorized"
    subprocess.run(["ssh-keygen", "-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", str(other)], check=True)
    conn = SSHConnection(replace(lab.hosts[0], key_file=other))
    with pytest.raises(ConnectError) as e:
        conn.connect()
    said = f"{e.value} {e.value.hint}"
    assert "authentication failed" in said and "Invalid key" not in said and "listening" not in said, said


@pytest.mark.slow
@pytest.mark.ssh
@pytest.mark.parametrize("shell", ["/bin/csh", "/bin/tcsh"])
def test_a_csh_login_keeps_every_commands_exit_status(make_lab, shell: str) -> None:  # type: ignore[no-untyped-def]
    """The shell=csh world found it: under a csh or tcsh login every command exited 0 (csh's bare ``exit`` is
    not the last status), so a missing file read as empty and swingbench skipped its oewizard build."""
    if not Path(shell).exists():
        pytest.skip(f"{shell} is not installed (apt-get install csh tcsh: .ci/run does)")
    from planner.transport.ssh.client import SSHConnection

    lab = make_lab(1, login_shell=shell)
    conn = SSHConnection(lab.hosts[0])
    try:
        conn.connect()
        assert [conn.run(argv).exit_code for argv in (["false"], ["sh", "-c", "exit 3"], ["true"])] == [1, 3, 0]
        assert conn.read_text(str(lab.sandbox(lab.hosts[0].name) / "missing")) is None
    finally:
        conn.close()


def test_the_doc_lists_the_dimensions_and_the_cover_as_the_code_has_them() -> None:
    doc = (ROOT / "docs" / "rehearsal-matrix.md").read_text()
    dims, cover = matrix.markdown().split("\n\n")
    assert dims in doc and cover.rstrip("\n") in doc, "run python -m planner.rehearsal.matrix and paste its tables"


def test_world_on_the_command_line_is_refused_before_any_host_when_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    from planner.cli.main import main

    plan = str(ROOT / "plans" / "local_demo.yaml")
    assert main(["apply", "--rehearse", plan, "--world", "sshd=9", "--world", "foo=bar"]) == 5
    said = capsys.readouterr().err
    assert "sshd=current | 7.4 | 5.3" in said and "no dimension 'foo'" in said and "Traceback" not in said, said
    assert main(["apply", plan, "--world", "sshd=5.3"]) == 5
    assert "--world is for a rehearsal" in capsys.readouterr().err
