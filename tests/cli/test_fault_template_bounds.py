"""The template sandbox bounds string size and loop work, not only ``*``, ``**`` and ``%`` (issue 24 row 7).

Each payload of the issue took gigabytes or tens of seconds during ``validate``; each is now an exit 5 naming the
plan's line. A hypothesis property test renders random templates built from the same pieces in a child process:
every one ends in exit 0 or 5 within seconds, and the child's own peak RSS (its VmHWM) stays under 300 MB.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jinja2
import pytest
from test_report_helpers import seed_study

from planner.cli.main import main
from planner.safejinja import MAX_LOOPS, SandboxEnvironment, template_errors_only

PLAN = """\
plan: p
plays:
  - name: one
    hosts: localhost
    workloads:
      - command: {argv: [echo, %s]}
"""

PAYLOADS = {
    "ljust": "{{ 'a'.ljust(2000000000) }}",
    "center": "{{ 'a'.center(2000000000) }}",
    "format": "{{ '{:>1999999999}'.format(1) }}",
    "nested-width": "{{ '{:{}}'.format(1, 1999999999) }}",
    "replace": "{{ ('a' * 1000000).replace('a', 'aa').replace('a', 'aa') }}",
    "join": "{{ ''.join(['a' * 900000, 'b' * 900000]) }}",
    "lipsum": "{{ lipsum(n=100000000) }}",
    "loops": "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
    "wordwrap": "{{ ('a ' * 500000) | wordwrap(1) }}",
    "center-filter": "{{ 'x' | center(2000000000) }}",
    "indent": "{{ 'x' | indent(2000000000) }}",
    "batch": "{{ [1] | batch(1000000000, 'x') | list }}",
    "concat": "{% set a = 'x' * 1000000 %}{{ a ~ a ~ a }}",
    "plus": "{{ ('a' * 600000) + ('a' * 600000) }}",
    "output": "{% for i in range(100000) %}{{ 'a' * 1000 }}{% endfor %}",
    "truncate": "{{ 'a' | truncate(1) }}",
}


@pytest.mark.slow
@pytest.mark.parametrize("name", PAYLOADS)
def test_each_payload_is_an_exit_5_at_its_line(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN % json.dumps(PAYLOADS[name]))
    assert main(["validate", str(plan)]) == 5
    err = capsys.readouterr().err
    assert f"{plan}:6:" in err and "Traceback" not in err, err


@pytest.mark.slow
def test_truncate_shorter_than_its_end_in_a_report_template(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = seed_study(tmp_path)
    tpl = tmp_path / "mine.md.j2"
    tpl.write_text("# title\n\n{{ run.plan | truncate(1) }}\n")
    code = main(["report", str(run), "--template", str(tpl), "-o", str(tmp_path / "out.md")])
    err = capsys.readouterr().err
    assert code == 5 and "mine.md.j2:3:" in err and "truncate" in err and "Traceback" not in err, err


def test_loops_are_counted_across_includes_and_the_ordinary_ones_pass(tmp_path: Path) -> None:
    (tmp_path / "inner.j2").write_text("{% for j in range(1000) %}{% endfor %}")
    env = SandboxEnvironment(loader=jinja2.FileSystemLoader(str(tmp_path)))
    (tmp_path / "outer.j2").write_text("{% for i in range(1000) %}{% include 'inner.j2' %}{% endfor %}")
    with pytest.raises(jinja2.sandbox.SecurityError, match=str(MAX_LOOPS)), template_errors_only():
        env.get_template("outer.j2").render()
    (tmp_path / "ok.j2").write_text("{% for i in range(200) %}{% for j in range(200) %}.{% endfor %}{% endfor %}")
    with template_errors_only():
        assert env.get_template("ok.j2").render() == "." * 40000
        assert env.from_string("{{ 'abc' | truncate(5) }} {{ 'a'.ljust(3) }}|{{ [1, 2] | join(',') }}").render() \
            == "abc a  |1,2"


CHILD = textwrap.dedent('''
    import contextlib, io, json, sys, tempfile, time
    from pathlib import Path
    from hypothesis import given, settings, strategies as st, HealthCheck
    from planner.cli.main import main

    N = st.sampled_from(["0", "1", "3", "255", "99999", "1000000", "1999999999"])
    ATOM = st.one_of(st.sampled_from(["'a'", "'ab '", "'{:>' ~ 9 ~ '}'", "lipsum(n=2)", "[1, 2]", "range(5)|list"]),
                     N.map(lambda n: f"('a' * {n})"), N.map(lambda n: f"lipsum(n={n})"), N.map(lambda n: f"range({n})|list"))
    STEP = st.sampled_from(["{x}.ljust({n})", "{x}.center({n})", "'{{:>{n}}}'.format({x})", "({x}|string).replace('a', 'aaa')",
                            "({x}|string)|wordwrap(1)", "{x}|truncate({n})", "({x}|string)|center({n})", "({x}|string)|indent({n})",
                            "{x}|batch({n}, 'x')|list", "({x}|string) ~ ({x}|string)", "{x} * {n}", "({x}|string) + ({x}|string)",
                            "({x}|string).join(['a' * {n}, 'b'])", "{x}|list|join(',')"])

    def expr(draw_steps, atom, ns):
        text = atom
        for step, n in zip(draw_steps, ns):
            text = "(" + step.format(x=text, n=n) + ")"
        return text

    EXPR = st.builds(expr, st.lists(STEP, max_size=4), ATOM, st.lists(N, min_size=4, max_size=4))
    TEMPLATE = st.recursive(EXPR.map(lambda e: "{{ " + e + " }}"),
                            lambda inner: st.tuples(N, inner).map(lambda t: "{% for i in range(" + t[0] + ") %}" + t[1] + "{% endfor %}")
                            | st.tuples(inner, inner).map("".join), max_leaves=4)
    folder = Path(tempfile.mkdtemp())
    slowest = [0.0]

    @settings(max_examples=int(sys.argv[1]), deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(TEMPLATE)
    def render(template):
        t = time.monotonic()
        plan = folder / "plan.yaml"
        plan.write_text("plan: p\\nplays:\\n  - name: one\\n    hosts: localhost\\n    workloads:\\n"
                        "      - command: {argv: [echo, " + json.dumps(template) + "]}\\n")
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["validate", str(plan)])
        took = time.monotonic() - t
        slowest[0] = max(slowest[0], took)
        assert code in (0, 5) and "Traceback" not in err.getvalue(), (template, code, err.getvalue())
        assert took < 15, (template, took)  # the loops' 5 s deadline, and a loaded machine

    render()
    # its own peak: VmHWM, not ru_maxrss, which Linux carries across exec from whoever forked this process
    hwm = [ln for ln in Path("/proc/self/status").read_text().splitlines() if ln.startswith("VmHWM:")]
    Path(sys.argv[2]).write_text(json.dumps({"slowest_s": slowest[0], "peak_mb": int(hwm[0].split()[1]) / 1024}))
''')  # noqa: E501 (child program source: its text is passed as is)


@pytest.mark.slow
def test_random_templates_end_in_exit_0_or_5_within_seconds_and_300_mb(tmp_path: Path) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    result = tmp_path / "result.json"
    code, err = _run_to_end(["timeout", "280", sys.executable, str(script), "30", str(result)], tmp_path)
    assert code == 0, err[-3000:]
    measured = json.loads(result.read_text())
    slowest, peak_mb = measured["slowest_s"], measured["peak_mb"]
    assert slowest < 15 and peak_mb < 300, (slowest, peak_mb)


def _run_to_end(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Run a child to its end: (exit code, stderr). The child reports its own peak memory (VmHWM)."""
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    return proc.returncode, proc.stderr.decode(errors="replace")
