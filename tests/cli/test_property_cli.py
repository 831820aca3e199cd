"""Issue 14: the CLI, driven in-process with random bytes, YAML and Jinja in the plan, the inventory and ``-e``,
only ever exits 0 or 5; on 5 every problem is an ``ERROR!`` line (naming the file when a file is at fault),
never a traceback, never more than a few seconds per example, and no payload ever runs."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.cli.main import main

pytestmark = [pytest.mark.slow]

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
PER_EXAMPLE_S = 5.0

JINJA = st.sampled_from([
    "{{ x }}", "{{ 1/0 }}", '{{ "a" + 1 }}', "{{ n + 1 }}", "{{ undefined_var }}", "{{", "{% if %}",
    "{{ 9 ** 9 ** 9 }}", "{{ 'a' * 10 ** 9 }}", "{{ range(10 ** 8) | list }}",
    "{{ cycler.__init__.__globals__.os.popen('touch {M}') }}", "{{ lipsum.__globals__.os.system('touch {M}') }}",
    "{{ ((((((((((1)))))))))) }}", "{{ '%0999999999d' % 1 }}", "{{ [1][5] }}", "{{ {}.x.y }}",
    "{{ inventory_hostname ~ '-' ~ group_names | join(',') }}", "{% for i in x %}{{ i }}{% endfor %}",
    "{{ n | int + 1 }}", "{{ x | default('d') }}", "{{ '{{' }}", "{# c #}", "{{ x.__class__ }}",
    "{{ (1,) * 10 ** 9 }}"])
FRAG = st.one_of(JINJA, st.sampled_from([
    ":", "- ", "  ", "\t", "{", "}", "[", "]", "&a ", "*a", "<<: *a", "!!int x", "!!python/object:os.system ", "\x00",
    "\ufeff", "'", '"', "\n", "---\n", "plays:", "hosts: localhost", "name: p", "workloads:",
    "- command: {argv: [echo, x]}", "when: ", "vars:", "report: {output: ../x}", "= ", "[lab]",
    "localhost ansible_connection=local", "x=1", "#"]),
    st.text(max_size=8))
TEXT = st.lists(FRAG, max_size=12).map("".join)
VALUE = st.one_of(JINJA, st.text(max_size=10), st.integers(-5, 2**70), st.booleans(), st.none())


def _plan(when: object, arg: object, var: object) -> str:
    return json.dumps({"plan": "prop", "vars": {"x": var, "n": "10"},
                       "plays": [{"name": "p", "hosts": "localhost",
                                  "workloads": [{"command": {"argv": ["echo", arg]}, "when": when}]}]})


PLANS = st.one_of(TEXT, st.builds(_plan, VALUE, VALUE, VALUE),
                  st.builds(lambda a, t: _plan(True, "ok", "v").replace('"v"', json.dumps(t)) + a, TEXT, JINJA))
INVENTORIES = st.one_of(st.none(), TEXT, st.builds(
    lambda v: f"localhost ansible_connection=local extra={json.dumps(v)}\n", VALUE),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")))
EXTRA = st.lists(st.one_of(
    st.builds(lambda v: f"x={v}", VALUE), st.builds(lambda v: json.dumps({"x": v}), VALUE), TEXT,
    st.sampled_from(["@/dev/zero", "@nope.yml", "@", "{", "n=10", "=x", "x==", "@plan.yaml"])), max_size=3)


def _check(out: str, err: str, code: int, files: list[Path]) -> None:
    assert code in (0, 5), (code, err[-2000:])
    assert "Traceback" not in err + out, err[-2000:]
    if code == 5:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert lines and lines[-1].startswith("planner: ") and "nothing was run" in lines[-1], err[-2000:]
        assert any(ln.startswith("ERROR! ") for ln in lines), err[-2000:]


@pytest.mark.parametrize("command", ["validate", "check"])
@given(plan=PLANS, inventory=INVENTORIES, extra=EXTRA)
@SETTINGS
def test_cli_exits_0_or_5_with_errors_never_a_traceback(command: str, plan: str, inventory: str | None,
                                                        extra: list[str], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "pwned"
    monkeypatch.chdir(tmp_path)
    plan_file = tmp_path / "plan.yaml"
    plan_file.write_bytes(plan.replace("{M}", str(marker)).encode("utf-8", "surrogatepass"))
    argv = [command, str(plan_file)]
    files = [plan_file]
    if inventory is not None:
        inv = tmp_path / "hosts.ini"
        inv.write_bytes(inventory.replace("{M}", str(marker)).encode("utf-8", "surrogatepass"))
        argv += ["-i", str(inv)]
        files.append(inv)
    for e in extra:
        argv += ["-e", e.replace("{M}", str(marker))]
    if command == "check":
        argv += ["--runs-dir", str(tmp_path / "runs")]
    start = time.monotonic()
    code = main(argv)
    took = time.monotonic() - start
    out, err = capsys.readouterr()
    _check(out, err, code, files)
    assert took < PER_EXAMPLE_S, f"{took:.1f}s for {argv}"
    assert not marker.exists(), "a template payload ran"
