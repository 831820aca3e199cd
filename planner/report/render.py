"""Markdown reports from run folders, rendered with Jinja2 templates (StrictUndefined: no silent blanks).

Templates are looked up in: the directory of a template given as a path, ``<plan dir>/templates``, then the
copy shipped in the package (planner/report/templates). The context is documented in
docs/report-context.md and built by planner.report.context.
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2

from planner.errors import InputError, PlannerError, Problem
from planner.files import write_bytes
from planner.plan.model import Plan
from planner.report.context import build_context
from planner.results.measure import RunData, read_run

DEFAULT_TEMPLATE = "default.md.j2"
_PACKAGE_TEMPLATES = Path(__file__).resolve().parent / "templates"


def template_dirs(template: str, plan_file: Path | None) -> tuple[str, list[Path]]:
    """(template name, search path) for a template given by name or by path."""
    dirs: list[Path] = []
    name = template
    given = Path(template)
    if given.is_file():
        dirs.append(given.resolve().parent)
        name = given.name
    if plan_file is not None:
        dirs.append(plan_file.resolve().parent / "templates")
    dirs.append(_PACKAGE_TEMPLATES)
    return name, [d for d in dict.fromkeys(dirs) if d.is_dir()]


def environment(dirs: list[Path]) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader([str(d) for d in dirs]),
                              undefined=jinja2.StrictUndefined, autoescape=False, trim_blocks=True,
                              lstrip_blocks=True, keep_trailing_newline=True)


def render(data: RunData, template: str, report_dir: Path, charts: bool = True) -> str:
    plan_file = data.plan.source if data.plan else None
    name, dirs = template_dirs(template, plan_file)
    env = environment(dirs)
    try:
        tpl = env.get_template(name)
    except jinja2.TemplateNotFound:
        raise InputError([Problem(None, "", f"report template {template!r} not found",
                                  f"looked in {', '.join(str(d) for d in dirs) or 'no template folder'}")]) from None
    ctx = build_context(data, report_dir, set(env.list_templates()), charts)
    try:
        # templates stay readable with blank lines around blocks; the report gets at most one in a row
        return re.sub(r"\n{3,}", "\n\n", tpl.render(**ctx))
    except jinja2.UndefinedError as e:
        raise PlannerError(f"report template {name}: {e.message}",
                           hint="the template uses a key the report context does not have; "
                                "see docs/report-context.md") from None
    except jinja2.TemplateError as e:
        raise PlannerError(f"report template {name}: {e}", hint="fix the template") from None


def plan_report_copy(plan: Plan) -> list[Path]:
    """The plan's own report path (``report: output:``, relative to the plan file), if it names one."""
    if plan.report is None or not plan.report.output:
        return []
    return [plan.source.resolve().parent / plan.report.output]


FORMATS = ("md", "html")


def render_run_report(run_dir: Path, plan: Plan | None = None, template: str | None = None,
                      output: Path | None = None, fmt: str = "md") -> Path:
    """Render ``<run_dir>/report.md`` (or ``output``), and the plan's ``report.output`` too when set.

    ``fmt="html"``: one self-contained page, ``<run_dir>/report.html`` (or ``output``), charts inline.
    Returns the main report's path. Parse problems do not fail the report: they are listed in it.
    """
    run_dir = Path(run_dir)
    given = plan is not None  # report.output is relative to the plan file the user ran, not the recorded copy
    data = read_run(run_dir, plan)
    plan = data.plan
    spec = plan.report if plan else None
    name = template or (spec.template if spec else DEFAULT_TEMPLATE)
    if fmt == "html":
        from planner.report.html import markdown_to_html

        main = Path(output) if output else run_dir / "report.html"
        base = main.resolve().parent
        text = render(data, name, base)
        title = next((ln[2:] for ln in text.splitlines() if ln.startswith("# ")), data.run_id)
        write_bytes(main, markdown_to_html(text, base, title).encode())
        return main
    main = Path(output) if output else run_dir / "report.md"
    targets = [main]
    if output is None and given and plan is not None:
        targets += plan_report_copy(plan)
    for target in targets:
        text = render(data, name, target.resolve().parent)
        write_bytes(target, text.encode())
    return main
