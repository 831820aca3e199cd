"""Installed step plugins load lazily, only for the kinds a plan names, have their declarations checked, never
make planner fetch a schema, and are contained when broken (issue 24 row 8).

Each broken plugin is installed as pip would leave it (a package and its .dist-info on PYTHONPATH, as in
tests/test_plugins.py); its module writes a marker file when imported, so "never imported" is observable.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from test_report_helpers import seed_study

BODY = {
    "boom": "raise ImportError('no module named oracle_magic')",
    "quits": "import sys\nsys.exit(0)",
    "badsections": "class Step(StepType):\n    kind = 'badsections'\n    sections = {'prep'}\n",
    "badschema": "class Step(StepType):\n    kind = 'badschema'\n    sections = frozenset({Section.PREP})\n"
                 "    args_schema = {'type': 'objekt', 'properties': {'a': {'minLength': -1}}}\n",
    "remoteref": "class Step(StepType):\n    kind = 'remoteref'\n    sections = frozenset({Section.PREP})\n"
                 "    args_schema = {'$ref': 'http://127.0.0.1:%(port)d/schema.json'}\n",
}


def _install(site: Path, name: str, port: int, marker: Path) -> None:
    pkg = site / f"plug_{name}"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        f"from pathlib import Path\nPath({str(marker / name)!r}).touch()\n"
        "from planner.plan.model import Section\nfrom planner.steps.base import StepType\n"
        + BODY[name] % {"port": port} + ("\nStep = None\n" if "class Step" not in BODY[name] else ""))
    info = site / f"plug_{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: plug-{name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[planner.steps]\n{name} = plug_{name}:Step\n")


class _Counting(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        self.hits.append(self.path)
        body = b'{"type": "object"}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[http.server.HTTPServer]:
    srv = http.server.HTTPServer(("127.0.0.1", 0), _Counting)
    _Counting.hits = []
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture()
def broken(tmp_path: Path, server: http.server.HTTPServer) -> tuple[dict[str, str], Path]:
    """Every broken plugin installed; (environment, marker folder)."""
    site, marker = tmp_path / "site", tmp_path / "imported"
    marker.mkdir()
    for name in BODY:
        _install(site, name, server.server_address[1], marker)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    return env, marker


def planner(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "planner", *args], capture_output=True, text=True, env=env,
                          timeout=120, stdin=subprocess.DEVNULL)


PLAN = """\
plan: p
plays:
  - name: one
    hosts: localhost
    prep:
      - {kind}: {{a: x}}
    workloads:
      - command: {{argv: ["true"]}}
"""


@pytest.mark.slow
def test_verbs_that_name_no_plugin_kind_import_no_plugin(tmp_path: Path, broken: tuple[dict[str, str], Path]) -> None:
    env, marker = broken
    run = seed_study(tmp_path / "runs")
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN.format(kind="sysctl").replace("{a: x}", "{vm.swappiness: 10}"))
    plain = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    for args in (["show", str(run)], ["report", str(run), "-o", str(tmp_path / "r.md")], ["restore", str(run)],
                 ["runs", "--runs-dir", str(tmp_path / "runs")], ["validate", str(plan)]):
        got, want = planner(env, *args), planner(plain, *args)
        assert got.returncode == want.returncode, (args, got.stderr)
        assert "broken" not in got.stderr and "Traceback" not in got.stderr, (args, got.stderr)
    assert sorted(p.name for p in marker.iterdir()) == []


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "why"), [
    ("boom", "its import failed: ImportError: no module named oracle_magic"),
    ("quits", "its import called sys.exit(0)"),
    ("badsections", "sections {'prep'} is not a set of planner.plan.model.Section"),
    ("badschema", "args_schema is not a valid JSON Schema (2020-12)"),
    ("remoteref", "args_schema refers to 'http://127.0.0.1:"),
])
def test_a_plan_naming_a_broken_plugin_is_refused_in_words(kind: str, why: str, tmp_path: Path,
                                                           broken: tuple[dict[str, str], Path]) -> None:
    env, marker = broken
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN.format(kind=kind))
    done = planner(env, "validate", str(plan))
    assert done.returncode == 5, done.stdout + done.stderr
    assert f"plugin '{kind}' (plug_{kind}:Step, package plug-{kind}) is broken: {why}" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert [p.name for p in marker.iterdir()] == [kind]  # that plugin only
    assert _Counting.hits == []  # a remote $ref is never fetched


@pytest.mark.slow
def test_schema_prints_a_valid_schema_without_the_broken_kinds(broken: tuple[dict[str, str], Path]) -> None:
    env, _marker = broken
    done = planner(env, "schema")
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    Draft202012Validator.check_schema(schema)
    assert not set(BODY) & set(schema["$defs"])
    for kind in BODY:
        assert f"plugin '{kind}' (plug_{kind}:Step, package plug-{kind}) is broken:" in done.stderr
    assert _Counting.hits == [] and "Traceback" not in done.stderr


def test_the_validator_never_retrieves_a_remote_reference(server: http.server.HTTPServer) -> None:
    """Behind the declaration check: the plan validators' registry fetches nothing either."""
    from planner.plan import schema

    url = f"http://127.0.0.1:{server.server_address[1]}/schema.json"
    schema._ADDED["remote_probe"] = {"$ref": url, "x-section": "prep"}
    schema._raw.cache_clear()
    schema._validator.cache_clear()
    try:
        with pytest.raises(Exception, match="remote_probe|Unresolvable|schema.json"):
            list(schema._validator("remote_probe").iter_errors({}))
    finally:
        del schema._ADDED["remote_probe"]
        schema._raw.cache_clear()
        schema._validator.cache_clear()
    assert _Counting.hits == []


@pytest.mark.slow
def test_restore_imports_only_the_plugin_its_run_used(tmp_path: Path, server: http.server.HTTPServer) -> None:
    """`planner restore RUN` of a run whose prep was a plugin kind: that plugin is imported (its revert is
    needed), the broken one beside it is not, and the host is put back."""
    from test_plugins import install, project

    site, marker = tmp_path / "site", tmp_path / "imported"
    marker.mkdir()
    install(site)
    _install(site, "boom", server.server_address[1], marker)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    root, plan, inv = project(tmp_path)
    done = planner(env, "apply", str(plan), "-i", str(inv), "--runs-dir", str(tmp_path / "runs"), "--keep-prep")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "etc/motd").read_text() == "benchmark running, hands off\n"  # kept
    [run] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    done = planner(env, "restore", str(run), "--runs-dir", str(tmp_path / "runs"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "etc/motd").read_text() == "welcome\n"
    assert "broken" not in done.stderr and list(marker.iterdir()) == []
