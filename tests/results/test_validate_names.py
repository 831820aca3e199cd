"""validate resolves every name a plan uses before any host is touched: ``when:`` variables, ``reproduces:``
claim metrics (with a suggestion), the report template's keys and the destructive opt-in of device writes.
Every problem comes at once, each as file:line:col, with exit 5."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planner.cli.main import main

PLAN = """\
plan: names
vars: {depth: 4}
plays:
  - name: A
    hosts: localhost
    workloads:
      - command: {argv: [/bin/true]}
        when: "{{ run_extra }}"
      - fio: {target: /dev/sdq, rw: randwrite, bs: 8k, runtime: 5}
reproduces:
  - {source: "a blog", play: A, metric: physical_reads_per_sec, expected: 1000}
report: {template: mine.md.j2}
"""
TEMPLATE = """# {{ run.plan }}

{{ reslt.headline }}
"""


def _validate(tmp_path: Path, capsys: pytest.CaptureFixture[str], plan: str, template: str = TEMPLATE
              ) -> tuple[int, list[str]]:
    (tmp_path / "templates").mkdir(exist_ok=True)
    (tmp_path / "templates" / "mine.md.j2").write_text(template)
    (tmp_path / "p.yaml").write_text(textwrap.dedent(plan))
    code = main(["validate", str(tmp_path / "p.yaml")])
    err = capsys.readouterr().err
    return code, [line for line in err.splitlines() if ": " in line]


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_every_unresolved_name_is_reported_at_once_with_its_place(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _validate(tmp_path, capsys, PLAN)
    assert code == 5
    text = "\n".join(lines)
    when = _line_of(PLAN, "when:")
    assert f"p.yaml:{when}:" in text and "run_extra" in text and "is undefined" in text
    metric = _line_of(PLAN, "physical_reads_per_sec")
    assert f"p.yaml:{metric}:" in text and "claim metric 'physical_reads_per_sec'" in text
    assert "did you mean 'physical_reads_per_s'?" in text
    fio = _line_of(PLAN, "fio:")
    assert f"p.yaml:{fio}:" in text and "fio writes to block devices" in text and "destructive: true" in text
    assert "mine.md.j2:3:4: report.template: report template mine.md.j2: 'reslt' is undefined" in text
    assert "did you mean 'result'?" in text


def test_a_resolved_plan_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = (PLAN.replace("{{ run_extra }}", "{{ depth > 2 and (extra is defined) }}")
            .replace("bs: 8k, runtime: 5}", "bs: 8k, runtime: 5}\n        destructive: true")
            .replace("physical_reads_per_sec", "fio.iops"))  # play A has no AWR: its claim is on fio's
    code, lines = _validate(tmp_path, capsys, good, TEMPLATE.replace("reslt", "result"))
    assert code == 0, lines


def test_a_template_key_missing_at_render_time_is_exit_5_at_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A key validate cannot see (an attribute of a context value) still fails as a bad input at its line."""
    from planner.errors import InputError
    from planner.report.render import render
    from planner.results.measure import RunData
    from planner.results.runfolder import RunMeta

    (tmp_path / "t.md.j2").write_text("# x\n\n{{ run.no_such_key }}\n")
    data = RunData(run_dir=tmp_path, meta=RunMeta(), results=(), measurements=(), artifacts=(), facts={}, restore=())
    with pytest.raises(InputError) as exc:
        render(data, str(tmp_path / "t.md.j2"), tmp_path, charts=False)
    assert exc.value.exit_code == 5
    assert str(exc.value.problems[0]).startswith(f"{tmp_path / 't.md.j2'}:3:1: report template t.md.j2:")
