"""Step kinds from other installed packages (docs/plugins.md): the example plugin exactly as the doc writes it,
installed as pip would leave it (the package beside a ``.dist-info`` holding its entry points) in a folder of its
own put on PYTHONPATH, so the test venv itself is never changed. Then planner, in a fresh process, must list
the kind in ``planner schema``, check its arguments at plan check (file:line:col, exit 5) and apply and restore
it over the local transport; a plugin hook returning the wrong thing fails its host, never the controller.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow]

DOC = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def doc_block(lang: str, first_line: str) -> str:
    """The fenced ``lang`` block of docs/plugins.md whose first line is ``first_line``, as the doc has it."""
    for body in re.findall(rf"^```{lang}\n(.*?)^```$", DOC.read_text(), flags=re.S | re.M):
        if body.startswith(first_line + "\n"):
            return body
    raise AssertionError(f"docs/plugins.md has no {lang} block starting {first_line!r}")


def install(site: Path, edit: tuple[str, str] | None = None) -> None:
    """What ``pip install`` of the doc's example leaves in site-packages: its package and its dist-info.
    ``edit``: (text, replacement) in the module, e.g. to make it broken."""
    project = tomllib.loads(doc_block("toml", "# pyproject.toml of your package"))["project"]
    code = doc_block("python", "# planner_motd/__init__.py")
    if edit is not None:
        assert edit[0] in code
        code = code.replace(*edit)
    (site / "planner_motd").mkdir(parents=True, exist_ok=True)
    (site / "planner_motd" / "__init__.py").write_text(code)
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    lines = [f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items())
             for group, eps in project["entry-points"].items()]
    (info / "entry_points.txt").write_text("\n".join(lines))


@pytest.fixture()
def plugin_env(tmp_path: Path) -> dict[str, str]:
    site = tmp_path / "site"
    site.mkdir()
    install(site)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}


def planner(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "planner", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)


PLAN = """\
plan: with_a_plugin
plays:
  - name: p
    hosts: lab
    prep:
      - motd: {{text: "benchmark running, hands off"}}
    workloads:
      - command: {{argv: [sh, -c, 'cp "$1/etc/motd" "$1/seen.txt"', sh, "{{{{ planner_root }}}}"]}}
{extra}"""


def project(tmp_path: Path, extra: str = "") -> tuple[Path, Path, Path]:
    root = tmp_path / "host"
    (root / "etc").mkdir(parents=True)
    (root / "etc/motd").write_text("welcome\n")
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root}\n")
    (tmp_path / "plan.yaml").write_text(PLAN.format(extra=extra))
    return root, tmp_path / "plan.yaml", tmp_path / "hosts.ini"


def test_a_plugin_kind_is_in_the_schema_and_applies_and_restores(tmp_path: Path, plugin_env: dict[str, str]) -> None:
    schema = planner(plugin_env, "schema")
    assert schema.returncode == 0, schema.stderr
    defs = json.loads(schema.stdout)["$defs"]
    assert defs["motd"]["x-section"] == "prep" and defs["motd"]["required"] == ["text"]
    assert defs["PrepStep"]["properties"]["motd"] == {"$ref": "#/$defs/motd"}
    assert "motd" not in defs["WorkloadStep"]["properties"]
    root, plan, inv = project(tmp_path)
    done = planner(plugin_env, "apply", str(plan), "-i", str(inv), "--runs-dir", str(tmp_path / "runs"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "seen.txt").read_text() == "benchmark running, hands off\n"  # set during the play
    assert (root / "etc/motd").read_text() == "welcome\n"  # and put back at its end
    [run] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    [entry] = json.loads((run / "restore.json").read_text())
    assert entry["kind"] == "motd" and entry["reverted"] and entry["saved"]["content"].startswith("(8 bytes, sha256 ")
    assert "motd '(8 bytes, sha256 " in (run / "report.md").read_text()  # the kind's own describe_saved


def test_plugin_arguments_are_checked_like_built_in_ones(tmp_path: Path, plugin_env: dict[str, str]) -> None:
    _root, plan, inv = project(tmp_path)
    plan.write_text(plan.read_text().replace('{text: "benchmark running, hands off"}', "{txt: hello}"))
    done = planner(plugin_env, "validate", str(plan), "-i", str(inv))
    assert done.returncode == 5, done.stdout + done.stderr
    assert f"{plan}:6:16: plays[0].prep[0].motd: unknown key 'txt' — did you mean 'text'?" in done.stderr, done.stderr
    assert "missing required key 'text'" in done.stderr
    plan.write_text(textwrap.dedent("""\
        plan: misplaced
        plays:
          - name: p
            hosts: lab
            workloads:
              - motd: {text: hi}
        """))
    done = planner(plugin_env, "validate", str(plan), "-i", str(inv))
    assert done.returncode == 5 and "'motd' is a prep step, not a workloads step" in done.stderr, done.stderr


def test_without_the_plugin_the_kind_is_unknown(tmp_path: Path) -> None:
    _root, plan, inv = project(tmp_path)
    done = planner(dict(os.environ), "validate", str(plan), "-i", str(inv))
    assert done.returncode == 5 and "unknown step type 'motd'" in done.stderr, done.stderr


BROKEN_REVERT = ('        ctx.conn.put(str(original).encode(), path)\n'
                 '        return Outcome(Status.CHANGED, f"restored {path}")',
                 '        ctx.conn.put(str(original).encode(), path)')


def test_a_plugin_revert_returning_none_fails_its_host_and_planner_restore_copes(
        tmp_path: Path, plugin_env: dict[str, str]) -> None:
    """Following the doc but forgetting revert's return used to crash the controller at the play's restore
    (AttributeError on None.status): the run stayed "running" and `planner restore` crashed the same way."""
    site = Path(plugin_env["PYTHONPATH"].split(os.pathsep)[0])
    install(site, BROKEN_REVERT)
    root, plan, inv = project(tmp_path)
    runs = tmp_path / "runs"
    done = planner(plugin_env, "apply", str(plan), "-i", str(inv), "--runs-dir", str(runs))
    said = done.stdout + done.stderr
    assert done.returncode == 2, said
    assert "plugin 'motd' is broken: revert() returned None, not an Outcome" in said, said
    assert "Traceback" not in said
    [run] = [p for p in runs.iterdir() if p.is_dir()]
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] != "running" and meta["exit_code"] == 2, meta
    [entry] = json.loads((run / "restore.json").read_text())
    assert not entry["reverted"]  # still pending: the broken revert is not taken for a restore
    again = planner(plugin_env, "restore", str(run))
    assert again.returncode == 2 and "plugin 'motd' is broken: revert() returned None" in again.stdout + again.stderr
    assert "Traceback" not in again.stdout + again.stderr
    install(site)  # the plugin fixed: the pending entry is put back
    fixed = planner(plugin_env, "restore", str(run))
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (root / "etc/motd").read_text() == "welcome\n"
    [entry] = json.loads((run / "restore.json").read_text())
    assert entry["reverted"]
