"""Issue 14 rows 2, 3, 12 (templates) and 14: user-written Jinja runs in one sandbox, a received run folder's
templates are not used unless asked for, template errors are exit 5 with file:line, and a plan's
``report: output:`` cannot write outside its folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_report_helpers import seed_study

from planner.cli.main import main

PLAN = """\
plan: p
plays:
  - name: one
    hosts: lab
    workloads:
      - command: {argv: [echo, "%s"]}
"""


def _payloads(marker: Path) -> list[str]:
    """The issue's payloads, and their relatives through other globals."""
    cmd = f"touch {marker}"
    return [f"{{{{ cycler.__init__.__globals__.os.popen('{cmd}').read() }}}}",
            f"{{{{ inventory_hostname ~ cycler.__init__.__globals__.os.popen('{cmd}').read() }}}}",
            f"{{{{ joiner.__init__.__globals__.os.system('{cmd}') }}}}",
            f"{{{{ namespace.__init__.__globals__.os.system('{cmd}') }}}}",
            "{{ ''.__class__.__mro__[1].__subclasses__() }}",
            f"{{{{ lipsum.__globals__['os'].popen('{cmd}').read() }}}}",
            "{% for x in ().__class__.__base__.__subclasses__() %}{{ x }}{% endfor %}"]


def _inventory(tmp_path: Path, evil: str = "") -> Path:
    inv = tmp_path / "hosts.yml"
    host: dict[str, object] = {"ansible_connection": "local", "planner_root": str(tmp_path / "root")}
    if evil:
        host["evil"] = evil
    inv.write_text(json.dumps({"all": {"children": {"lab": {"hosts": {"alpha": host}}}}}))
    return inv


@pytest.mark.parametrize("where", ["inventory", "extra_json", "extra_kv", "plan_vars", "step_arg", "when"])
@pytest.mark.parametrize("payload", range(7))
def test_payloads_never_run_and_are_refused(where: str, payload: int, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pwned"
    evil = _payloads(marker)[payload]
    plan = tmp_path / "plan.yaml"
    extra: list[str] = []
    text = PLAN % "hello"
    inv = _inventory(tmp_path, evil) if where == "inventory" else _inventory(tmp_path)
    if where == "extra_json":
        extra = ["-e", json.dumps({"v": evil})]
    elif where == "extra_kv":
        extra = ["-e", f'v="{evil}"']
    elif where == "plan_vars":
        text = text.replace("plays:", f"vars:\n  v: {json.dumps(evil)}\nplays:")
    elif where == "step_arg":
        text = PLAN % evil.replace('"', '\\"')
    elif where == "when":
        text += f"        when: {json.dumps(evil)}\n"
    plan.write_text(text)
    for command in (["validate", str(plan), "-i", str(inv)], ["apply", str(plan), "-i", str(inv), "--list-hosts"],
                    ["apply", str(plan), "-i", str(inv), "--runs-dir", str(tmp_path / "runs")]):
        code = main([*command, *extra])
        err = capsys.readouterr().err
        assert not marker.exists(), f"{where}: the payload ran"
        if where in ("extra_kv", "extra_json") and command[-1] == "--list-hosts":
            continue  # -e values are not rendered to list hosts: nothing runs, nothing to refuse
        if where in ("extra_kv", "extra_json", "plan_vars"):
            # an unused variable: refused all the same, with where it was written
            assert code == 5, (where, command, err)
            assert "refused by the template sandbox" in err and "Traceback" not in err
            if where == "plan_vars":
                assert f"{plan}:3:6: vars.v:" in err
        elif where == "inventory":
            assert code in (0, 5) if command[-1] == "--list-hosts" else code == 5, (command, err)
            if code == 5:
                assert f"{inv}:1:1: inventory variable 'evil'" in err
        else:
            assert code == 5, (where, command, err)
            assert f"{plan}:" in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def _received_run(tmp_path: Path, marker: Path) -> Path:
    """A run folder as a colleague might send it: its plan names a template it carries."""
    run = seed_study(tmp_path)
    (run / "templates").mkdir()
    (run / "templates" / "evil.md.j2").write_text(_payloads(marker)[0] + "\n")
    plan = run / "plan.yaml"
    plan.write_text(plan.read_text() + "report: {template: evil.md.j2}\n")
    return run


@pytest.mark.slow
def test_a_received_run_folder_never_runs_its_own_template(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pwned"
    run = _received_run(tmp_path, marker)
    assert main(["report", str(run)]) == 0
    out, err = capsys.readouterr()
    assert not marker.exists()
    assert "evil.md.j2" in err and "not used" in err and "--template evil.md.j2" in err
    assert (run / "report.md").read_text().startswith("# ")  # the default report, rendered


@pytest.mark.slow
def test_a_run_folder_template_named_on_the_command_line_is_sandboxed(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pwned"
    run = _received_run(tmp_path, marker)
    code = main(["report", str(run), "--template", "evil.md.j2"])
    err = capsys.readouterr().err
    assert not marker.exists()
    assert code == 5, err
    assert "evil.md.j2:1:" in err and "unsafe" in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize("body", ["{{ 1/0 }}", '{{ "a" + 1 }}', "{{ run.plan.no_such + 1 }}\n{{ [1][5] }}"])
def test_report_template_runtime_errors_are_exit_5_with_the_line(body: str, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    run = seed_study(tmp_path)
    tpl = tmp_path / "mine.md.j2"
    tpl.write_text("# title\n\n" + body + "\n")
    code = main(["report", str(run), "--template", str(tpl), "-o", str(tmp_path / "out.md")])
    err = capsys.readouterr().err
    assert code in (1, 5) and "Traceback" not in err
    if "no_such" not in body:
        assert code == 5 and "mine.md.j2:3:" in err, err


NUMERIC = """\
plan: numbers
vars:
  bad: "{{ 1/0 }}"
plays:
  - name: one
    hosts: localhost
    workloads:
      - command: {argv: [echo, "{{ n + 1 }}"]}
      - command: {argv: [echo, '{{ "a" + 1 }}']}
        when: "{{ 1/0 }}"
      - command: {argv: [echo, "{{ bad }}"]}
      - command: {argv: [echo, ok]}
        when: "n + 1 > 3"
"""


def test_template_runtime_errors_are_exit_5_with_file_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(NUMERIC)
    for command in (["validate", str(plan)], ["check", str(plan)],
                    ["apply", str(plan), "--runs-dir", str(tmp_path / "r")]):
        code = main([*command, "-e", "n=10"])
        err = capsys.readouterr().err
        assert code == 5, err
        assert "Traceback" not in err
        assert f"{plan}:8:25: plays[0].workloads[0].command.argv: template error: TypeError" in err
        assert f"{plan}:9:25:" in err and f"{plan}:10:15: plays[0].workloads[1].when:" in err
        assert "ZeroDivisionError" in err
        assert f"{plan}:11:25:" in err and "variable 'bad'" in err
        assert f"{plan}:13:15:" in err
    assert not (tmp_path / "r").exists() or not list((tmp_path / "r").iterdir())


@pytest.mark.slow
def test_constant_templates_in_vars_are_rendered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`vars: {x: "{{ 2 * 3 }}"}` was kept as the literal text (only variables naming others were rendered)."""
    plan = tmp_path / "plan.yaml"
    plan.write_text("plan: c\nvars: {x: '{{ 2 * 3 }}'}\nplays:\n  - name: one\n    hosts: localhost\n"
                    "    workloads:\n      - command: {argv: [echo, '{{ x }}']}\n")
    assert main(["apply", str(plan), "--runs-dir", str(tmp_path / "runs")]) == 0
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())  # not planner.sqlite beside it
    assert json.loads((run / "results.json").read_text())[-1]["data"]["stdout"] == "6\n"


@pytest.mark.parametrize("expr", ["{{ 9 ** (9 ** 9) }}", "{{ 'a' * 10 ** 10 }}", "{{ '%0999999999d' % 1 }}",
                                  "{{ range(10 ** 9) | list }}"])
def test_templates_that_would_eat_the_controller_are_refused(expr: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN.replace("hosts: lab", "hosts: localhost") % expr.replace('"', '\\"'))
    assert main(["validate", str(plan)]) == 5
    err = capsys.readouterr().err
    assert f"{plan}:6:25:" in err and "Traceback" not in err


# -- row 14: report: output ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("output", ["../outside.md", "ABS/abs-outside.md", "~/outside.md", "."])
def test_report_output_outside_the_plans_folder_is_refused(output: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "study"
    folder.mkdir()
    plan = folder / "plan.yaml"
    output = output.replace("ABS", str(tmp_path))
    plan.write_text(PLAN.replace("hosts: lab", "hosts: localhost") % "hi" + f"report: {{output: '{output}'}}\n")
    assert main(["apply", str(plan), "--runs-dir", str(tmp_path / "runs")]) == 5
    err = capsys.readouterr().err
    assert f"{plan}:7:" in err and "report.output" in err and "-o PATH" in err
    assert not (tmp_path / "outside.md").exists() and not (tmp_path / "abs-outside.md").exists()
    assert not (tmp_path / "runs").exists()


@pytest.mark.slow
def test_report_output_inside_the_plans_folder_and_o_anywhere(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "study"
    folder.mkdir()
    plan = folder / "plan.yaml"
    plan.write_text(PLAN.replace("hosts: lab", "hosts: localhost") % "hi" + "report: {output: reports/latest.md}\n")
    assert main(["apply", str(plan), "--runs-dir", str(tmp_path / "runs")]) == 0
    assert (folder / "reports" / "latest.md").is_file()
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())  # not planner.sqlite beside it
    elsewhere = tmp_path / "elsewhere" / "r.md"
    elsewhere.parent.mkdir()
    assert main(["report", str(run), "-o", str(elsewhere)]) == 0  # asked for on the command line
    assert elsewhere.is_file()
    shutil.rmtree(tmp_path / "runs")
    capsys.readouterr()


def test_a_recorded_plan_cannot_aim_its_report_output_outside(tmp_path: Path) -> None:
    from dataclasses import replace

    from planner.errors import InputError
    from planner.plan.model import ReportSpec
    from planner.report.render import plan_report_copy
    from planner.results.measure import load_run_plan

    run = seed_study(tmp_path)
    plan = load_run_plan(run)
    assert plan is not None
    with pytest.raises(InputError, match="leads outside"):
        plan_report_copy(replace(plan, report=ReportSpec("default.md.j2", "../../x.md")), run)
    assert (plan_report_copy(replace(plan, report=ReportSpec("default.md.j2", "r/x.md")), run)
            == [run.resolve() / "r/x.md"])
