"""Start-up (issue 20 item 4): heavy libraries load only for the verbs that need them. Not a timing test: it
asserts which modules a fresh interpreter has loaded, which is what the start-up time rests on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow]


def loaded_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_building_the_parser_loads_no_heavy_library() -> None:
    """Every verb builds the whole parser (``--help`` included): it must not import what one verb needs."""
    mods = loaded_after("from planner.cli.parser import build_parser; build_parser()")
    assert not mods & {"paramiko", "jsonschema", "jinja2", "matplotlib", "rich", "planner.results.analyze"}


def test_the_step_registry_does_not_load_jsonschema() -> None:
    """`planner inventory`, `results`... register the step kinds; only a plan's validation needs jsonschema."""
    assert "jsonschema" not in loaded_after("import planner.steps")


def test_paramiko_loads_without_invoke() -> None:
    mods = loaded_after("import planner.transport.ssh.client")
    assert "paramiko" in mods and "invoke" not in mods and "unittest.mock" not in mods


def test_paramiko_loads_without_importlib_metadata_and_names_its_own_version() -> None:
    """paramiko's __init__ imported importlib.metadata (email, zipfile, csv: ~20 ms of CPU at every SSH run) for
    its __version__, the client banner's: now read from the same METADATA file, and the real module is there
    for whoever imports it next."""
    code = ("import sys\nimport planner.transport.ssh.client, paramiko\nprint('importlib.metadata' in sys.modules)\n"
            "import importlib.metadata as m\nprint(paramiko.__version__ == m.version('paramiko'), "
            "m.__file__.endswith('__init__.py'), "
            "paramiko.transport.Transport._CLIENT_ID.endswith(paramiko.__version__))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True", "True", "True"], out


def test_an_ssh_config_with_match_exec_still_works(tmp_path: Path) -> None:
    """invoke is what paramiko runs `Match exec` with: loaded when a config uses it."""
    config = tmp_path / "ssh_config"
    config.write_text('Match exec "test -d /"\n  User from_exec\n')
    out = subprocess.run([sys.executable, "-c", "import sys; from planner.transport.ssh import client; "
                          f"print(client._parse_config({str(config)!r}, 0).lookup('lab01').get('user'))"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "from_exec"


def test_the_step_registry_imports_no_step_kind() -> None:
    """Kinds are named, not imported: looking one up imports its file (and only that)."""
    mods = loaded_after("import planner.steps")
    kinds = {m for m in mods if m.startswith("planner.steps.") and m not in {
        "planner.steps.base", "planner.steps.registry", "planner.steps.saved_state", "planner.steps.guard"}}
    assert kinds == set() and "planner.db.access" not in mods and "importlib.metadata" not in mods


def test_looking_up_a_kind_imports_its_own_file() -> None:
    mods = loaded_after("from planner.steps import REGISTRY; assert REGISTRY['io_scheduler'].__name__ == 'IoScheduler'")
    assert "planner.steps.prep_os" in mods
    assert not mods & {"planner.kinds.slob.step", "planner.steps.dbreport", "planner.kinds.fio.step",
                       "planner.db.access"}


def test_a_plan_check_imports_only_the_kinds_the_plan_names() -> None:
    """The fan-out plan (io_scheduler, template, command, fetch): no workload, database or AWR code, and no
    metric names (they are for `reproduces:` claims, which it has none of). A valid plan is shown valid without
    jsonschema (planner.plan.fastcheck), and naming only built-in kinds it reads no package's plugin metadata."""
    plan = Path(__file__).resolve().parents[2] / "benchmarks" / "fanout" / "plan.yaml"
    mods = loaded_after("from pathlib import Path; from planner.cli.apply import load; "
                        f"load(Path({str(plan)!r}), None, [])")
    assert {"planner.steps.prep_os", "planner.steps.generic"} <= mods
    assert not mods & {"jsonschema", "importlib.metadata"}
    assert not mods & {"planner.kinds.slob.step", "planner.kinds.fio.step", "planner.steps.dbreport",
                       "planner.db.access", "planner.parsers.awr_common"}


# signals: a counter, no imports (main installs its handlers first)
VERSION_MODULES = {"planner", "planner.cli", "planner.cli.main", "planner.cli.parser", "planner.errors",
                   "planner.status", "planner.signals"}
HELP_MODULES = VERSION_MODULES | {"planner.cli.results", "planner.cli.store", "planner.cli.analyze"}


def test_version_and_help_load_only_the_parser_and_the_exit_codes() -> None:
    """`planner --version` loaded the results store, the run reader and the findings (the parser's --store help
    named planner.store.url.ENV), and the exit codes' module loaded every step kind's extras and the metrics
    model for its annotations: 0.4 s of imports, for every verb. Module sets, not times (issue 47). --version
    builds no verb's options (stop 53), --help every verb's."""
    for argv, expected in ((["--version"], VERSION_MODULES), (["--help"], HELP_MODULES)):
        mods = loaded_after("import contextlib, io\nfrom planner.cli.main import main\n"
                            f"with contextlib.redirect_stdout(io.StringIO()): main({argv!r})")
        assert {m for m in mods if m.startswith("planner")} == expected, argv
        assert not mods & {"sqlite3", "tempfile", "csv", "hashlib", "yaml", "jinja2", "secrets"}, argv


def test_the_vault_variables_are_the_vault_ids_modules() -> None:
    """main reads no vault password (nor imports planner.inventory.vault_ids) when no flag and none of these is
    set: the two lists must stay one."""
    from planner.cli.main import VAULT_ENV
    from planner.inventory import vault_ids

    assert VAULT_ENV == (vault_ids.ENV_FILE, vault_ids.ENV_IDS, vault_ids.ENV_MATCH)


def test_the_store_option_names_the_store_variable() -> None:
    from planner.cli import store as cli_store
    from planner.store import url

    assert cli_store.ENV == url.ENV


FIRST_COMMAND_PROBE = """
import os, sys
from planner.transport.connection import LocalConnection

def first(self, *args, **kwargs):  # the apply's first host command: what it imported so far, then stop
    print(" ".join(sorted(sys.modules)))
    sys.stdout.flush()
    os._exit(0)

LocalConnection.run = first
# the tail's imports run in a thread once the hosts are connected (cli/early_imports, tested on its own): what is
# measured here is the start's own path, which that thread would race
import planner.cli.early_imports as early
early.start = lambda names, kind_findings: None
from planner.cli.main import main
main(["apply", {plan!r}, "-i", {inventory!r}, "--runs-dir", {runs!r}, "--no-report"])
"""


def test_an_apply_imports_no_store_findings_vault_or_report_before_its_first_host_command(tmp_path: Path) -> None:
    """A local one-host command plan, up to its first host command: the results store (and the run reader and
    findings it stores), the vault's cryptography, the report, paramiko (local transport), rich and psycopg
    are for later or for other runs. Before: the --store URL's parse imported the store package, and it its
    backends, the run reader and the findings; opening no vault imported cryptography (issue 47)."""
    (tmp_path / "plan.yaml").write_text("plan: one\nplays:\n  - name: one\n    hosts: lab\n    workloads:\n"
                                        "      - name: say\n        command: {argv: [\"true\"]}\n")
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_connection=local\n")
    code = FIRST_COMMAND_PROBE.format(plan=str(tmp_path / "plan.yaml"), inventory=str(tmp_path / "hosts.ini"),
                                      runs=str(tmp_path / "runs"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    mods = set(out.split())
    assert "planner.engine.runner" in mods  # the probe reached the run
    later = {m for m in mods if m.startswith(("planner.store.", "planner.results.", "planner.report", "paramiko",
                                              "cryptography", "rich", "psycopg", "oracledb", "matplotlib"))}
    assert later <= {"planner.store.url", "planner.results.runfolder", "planner.results.world"}, sorted(later)
    assert not mods & {"sqlite3", "jsonschema", "planner.transport.ssh.client"}
    # the host lock's controller name and meta.json's libc are os.uname() and glibc's confstr: `platform`
    # compiled 9 regexes at every apply's head, before the first connect (issue 47, stop 53)
    assert "platform" not in mods


def test_an_apply_imports_no_parser_and_no_kind_it_does_not_run_before_its_first_host_command(tmp_path: Path) -> None:
    """The same one-host `command` plan: before, the parse memo's scope imported the parsers' package (every
    parser, the metrics' words and every kind's spec), the step registry read every kind's spec to name its step
    class, the window imported the parsers for the OS samplers' names and the plan check read every kind's spec
    for one kind's load generator, the plan's loader the series module for a timeout's bound, and the run folder's
    module and the plan check the metrics model. Now no parser, kind, metric or series before the first command."""
    (tmp_path / "plan.yaml").write_text("plan: one\nplays:\n  - name: one\n    hosts: lab\n    workloads:\n"
                                        "      - name: say\n        command: {argv: [\"true\"]}\n")
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_connection=local\n")
    code = FIRST_COMMAND_PROBE.format(plan=str(tmp_path / "plan.yaml"), inventory=str(tmp_path / "hosts.ini"),
                                      runs=str(tmp_path / "runs"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    mods = set(out.split())
    assert "planner.engine.runner" in mods and "planner.memo" in mods
    early = {m for m in mods if m.startswith(("planner.parsers", "planner.kinds.", "planner.timeseries",
                                              "planner.metrics", "planner.engine.os_series",
                                              # the classes a kind's spec is made of (stop 54)
                                              "planner.kindparts"))}
    assert early == set(), sorted(early)


def test_a_kinds_spec_is_read_alone_and_the_registry_names_every_kind_unread() -> None:
    mods = loaded_after("from planner import kindspec; from planner.steps import REGISTRY\n"
                        "assert kindspec.spec('fio').kind == 'fio' and set(kindspec.KINDS) <= set(REGISTRY)")
    assert {m for m in mods if m.startswith("planner.kinds.")} == {"planner.kinds.fio", "planner.kinds.fio.spec"}


def test_the_window_names_the_os_samplers_the_parsers_read() -> None:
    """The window names them without importing the parsers: a new OS sampler is named in both."""
    from planner.engine import window
    from planner.parsers import OS_TOOLS

    assert window.OS_TOOLS == OS_TOOLS


def test_an_apply_of_a_plan_without_a_template_imports_no_jinja2_before_its_first_host_command(tmp_path: Path) -> None:
    """The same one-host `command` plan: no `{{`/`{%` in the plan, inventory or -e, no template step, no
    `when:`, no constructed source. Before, the plan loader, the plan check, the templating module, the
    inventory's constructed plugin, the host-variable rendering, the generic steps and the apply's derived-secret
    taint each imported Jinja2 and planner.safejinja at the top (~50 ms of start-up)."""
    (tmp_path / "plan.yaml").write_text("plan: one\nvars: {size: 8}\nplays:\n  - name: one\n    hosts: lab\n"
                                        "    workloads:\n      - name: say\n        command: {argv: [\"true\"]}\n")
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_connection=local planner_workdir=/tmp/w\n")
    code = FIRST_COMMAND_PROBE.format(plan=str(tmp_path / "plan.yaml"), inventory=str(tmp_path / "hosts.ini"),
                                      runs=str(tmp_path / "runs"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    mods = set(out.split())
    assert "planner.engine.runner" in mods  # the probe reached the run
    assert not mods & {"jinja2", "markupsafe", "planner.safejinja", "planner.plan.jinja_env"}


def test_an_apply_imports_no_statistics_getpass_or_zipfile_before_its_first_host_command(tmp_path: Path) -> None:
    """The progress line's mean imported the statistics module (and fractions, decimal, numbers: ~10 ms of
    start-up) and -K's and --ask-vault-pass' prompts getpass and termios, for every apply; the plan schema's
    files were read through importlib.resources, which imports zipfile and its readers."""
    (tmp_path / "plan.yaml").write_text("plan: one\nplays:\n  - name: one\n    hosts: lab\n    workloads:\n"
                                        "      - name: say\n        command: {argv: [\"true\"]}\n")
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_connection=local\n")
    code = FIRST_COMMAND_PROBE.format(plan=str(tmp_path / "plan.yaml"), inventory=str(tmp_path / "hosts.ini"),
                                      runs=str(tmp_path / "runs"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    mods = set(out.split())
    assert "planner.engine.progress" in mods  # the probe reached the run, its progress line imported
    assert not mods & {"statistics", "fractions", "decimal", "getpass", "termios", "zipfile", "importlib.resources"}


def test_a_template_still_loads_jinja2_and_its_problems_are_reported(tmp_path: Path) -> None:
    """The other side of the cut: a `{{ }}` in a step's arguments still goes through Jinja2 at the plan check,
    whose `except jinja2.…` clauses now sit behind the template scan: an undefined variable is bad input
    (exit 5, file:line:col), and nothing runs."""
    (tmp_path / "plan.yaml").write_text("plan: one\nvars: {word: hello}\nplays:\n  - name: one\n    hosts: lab\n"
                                        "    workloads:\n      - name: say\n"
                                        "        command: {argv: [echo, \"{{ word | upper }}\", \"{{ nosuch }}\"]}\n")
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_connection=local\n")
    done = subprocess.run([sys.executable, "-m", "planner", "apply", "plan.yaml", "-i", "hosts.ini", "--runs-dir",
                           "runs", "--no-report"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 5, done.stderr
    assert "plan.yaml:8:" in done.stderr and "undefined variable 'nosuch'" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "runs").exists()


def test_an_apply_imports_no_other_verb_vault_reader_tempfile_or_secrets_before_its_first_host_command(
        tmp_path: Path) -> None:
    """Stop 53 (issue 47): the parser built every verb's options (and imported the results and analyze verbs'
    modules), a command line naming no vault imported the vault password reader, and tempfile (shutil's bz2,
    lzma; random), secrets (hmac, hashlib: OpenSSL), difflib and traceback were imported at the top of modules
    that use them for a temp file name, a random word, a changed plan's diff or a step's bug; the steps' extras
    (9 dataclasses) were imported for annotations, before any step had one, and concurrent.futures (and logging,
    ~7 ms) before anything ran on a worker thread."""
    (tmp_path / "plan.yaml").write_text("plan: one\nplays:\n  - name: one\n    hosts: lab\n    workloads:\n"
                                        "      - name: say\n        command: {argv: [\"true\"]}\n")
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_connection=local\n")
    code = FIRST_COMMAND_PROBE.format(plan=str(tmp_path / "plan.yaml"), inventory=str(tmp_path / "hosts.ini"),
                                      runs=str(tmp_path / "runs"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_VAULT")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path,
                         env=env).stdout
    mods = set(out.split())
    assert "planner.engine.runner" in mods  # the probe reached the run
    assert not mods & {"planner.inventory.vault_ids", "planner.cli.results", "planner.cli.analyze", "tempfile",
                       "secrets", "random", "difflib", "planner.extras",  # extras: when a step has run
                       "concurrent.futures", "logging",  # when hosts first run at once (the lock: main thread)
                       "shutil", "bz2", "lzma"}  # argparse's help formatter asked shutil for the width


FIRST_CONNECT_PROBE = """
import os, socket, sys, threading

lock = threading.Lock()

def first(*args, **kwargs):  # the apply's first TCP connect (of any host's thread): what it imported, then stop
    lock.acquire()
    print(" ".join(sorted(sys.modules)))
    sys.stdout.flush()
    os._exit(0)

socket.create_connection = first
from planner.cli.main import main
main(["apply", {plan!r}, "-i", {inventory!r}, "--runs-dir", {runs!r}, "--no-report", "--keep-prep", "-f", "5"])
"""

# The play asking its hosts' connections of the pool (stop 54's early connects begin before the runner is even
# imported, so the first TCP connect no longer marks the end of the run's set-up): what was imported, then stop.
PLAY_CONNECT_PROBE = """
import os, sys, threading
import planner.transport.connect as connect

lock = threading.Lock()
made = connect.connector

def connector(*args, **kwargs):
    def first(hosts):
        lock.acquire()
        print(" ".join(sorted(sys.modules)))
        sys.stdout.flush()
        os._exit(0)
    made(*args, **kwargs)
    return first

connect.connector = connector
from planner.cli.main import main
main(["apply", {plan!r}, "-i", {inventory!r}, "--runs-dir", {runs!r}, "--no-report", "--keep-prep", "-f", "5"])
"""


def test_the_fan_out_plan_imports_no_kind_spec_class_extra_or_workload_loop_before_its_first_connect(
        tmp_path: Path) -> None:
    """The fan-out benchmark's prep plan (io_scheduler, template, command, fetch) over SSH to a YAML inventory, up
    to the play asking the pool for its hosts' connections (nothing listens: none is needed; the early connects
    import paramiko meanwhile). Stop 54 (issue 47): the kinds' spec classes (7
    dataclasses and an enum, for specs no head reads), the steps' extras (9 dataclasses, imported by io_scheduler
    for one it makes when it changes something), the workload loop and its synchronised start (5 dataclasses, for a
    plan without workloads), the INI and script inventory readers (a YAML inventory) and getpass (termios: the
    inventory names the user) were all imported before it."""
    plan = Path(__file__).resolve().parents[2] / "benchmarks" / "fanout" / "plan.yaml"
    key = tmp_path / "id_ed25519"
    key.write_text("not read before the connect\n")
    known = tmp_path / "known_hosts"
    known.write_text("")
    (tmp_path / "inventory.yml").write_text(
        "all:\n  hosts:\n    lab01:\n      ansible_host: 127.0.0.1\n      ansible_port: 9\n      ansible_user: oracle\n"
        f"      ansible_ssh_private_key_file: {key}\n      planner_known_hosts: {known}\n"
        f"      planner_root: {tmp_path / 'sandbox'}\n")
    code = PLAY_CONNECT_PROBE.format(plan=str(plan), inventory=str(tmp_path / "inventory.yml"),
                                     runs=str(tmp_path / "runs"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    mods = set(out.split())
    assert {"planner.engine.runner", "planner.steps.prep_os", "planner.transport.ssh.target"} <= mods  # reached
    early = {"planner.kindparts", "planner.extras", "planner.engine.workload", "planner.engine.syncstart",
             "planner.engine.preview", "planner.inventory.ini", "planner.inventory.script"}  # getpass: paramiko's
    assert not mods & early, sorted(mods & early)
