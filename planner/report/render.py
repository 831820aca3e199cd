"""Markdown reports from run folders, rendered with Jinja2 templates (StrictUndefined: no silent blanks).

Templates are looked up in: the directory of a template given as a path, ``<plan dir>/templates``, then the
copy shipped in the package (planner/report/templates, and a kind's own reports in its folder). The context is
documented in docs/report-context.md and built by planner.report.context.

A run folder is something people send each other, so what it carries is untrusted: `planner report RUN`
uses the template its plan.yaml names only when that is one shipped in the package, never the run folder's
own templates/, unless ``--template`` names it on the command line. Every template, trusted or not, runs in
the sandbox of planner.safejinja. Likewise the plan's ``report: output:`` may only write inside the plan's
folder or the run folder; anywhere else needs ``-o`` on the command line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jinja2
import jinja2.meta

from planner import kindspec, signals
from planner.errors import InputError, Location, Problem
from planner.files import write_bytes, write_output
from planner.plan.model import Plan
from planner.plan.schema import did_you_mean
from planner.report import escape
from planner.report.context import build_context, relocated
from planner.report.context_types import CONTEXT_KEYS
from planner.results import runfolder
from planner.results.measure import RunData, read_run
from planner.safejinja import SandboxEnvironment, template_errors_only, template_position

DEFAULT_TEMPLATE = "default.md.j2"
_PACKAGE_TEMPLATES = Path(__file__).resolve().parent / "templates"


def template_dirs(template: str, plan_file: Path | None, trusted: bool = True) -> tuple[str, list[Path]]:
    """(template name, search path) for a template given by name or by path; untrusted (named by a received
    run folder's plan.yaml): only the package's own templates."""
    dirs: list[Path] = []
    name = template
    given = Path(template)
    if not trusted:
        return given.name, [_PACKAGE_TEMPLATES]
    if given.is_file():
        dirs.append(given.resolve().parent)
        name = given.name
    if plan_file is not None:
        dirs.append(plan_file.resolve().parent / "templates")
    dirs.append(_PACKAGE_TEMPLATES)
    return name, [d for d in dict.fromkeys(dirs) if d.is_dir()]


class KindPartials(jinja2.BaseLoader):
    """A workload kind's report partial, ``<kind>.md.j2``, kept in the kind's folder as ``report.md.j2``
    (planner.kindspec), and a whole report a kind ships beside it (``<name>.md.j2`` in its folder, chosen by
    name with --template or the plan's report:): found after the templates of the search path, so a plan's own
    still overrides them."""

    @staticmethod
    def whole(name: str) -> Path | None:
        """A whole report a kind ships (not its partial), by bare file name; None when no kind ships it."""
        if not name.endswith(".md.j2") or Path(name).name != name or name == "report.md.j2":
            return None  # a bare file name only: never a path out of a kind's folder
        return next((f / name for s in kindspec.specs() if (f := kindspec.folder(s.kind)) and (f / name).is_file()),
                    None)

    @classmethod
    def _path(cls, name: str) -> Path | None:
        folder = kindspec.folder(name.removesuffix(".md.j2")) if name.endswith(".md.j2") else None
        if folder is not None and (folder / "report.md.j2").is_file():
            return folder / "report.md.j2"
        return cls.whole(name)

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        path = self._path(template)
        if path is None:
            raise jinja2.TemplateNotFound(template)
        mtime = path.stat().st_mtime
        return path.read_text(encoding="utf-8"), str(path), lambda: path.stat().st_mtime == mtime

    def list_templates(self) -> list[str]:
        return sorted(f"{s.kind}.md.j2" for s in kindspec.specs() if self._path(f"{s.kind}.md.j2"))


def environment(dirs: list[Path]) -> jinja2.Environment:
    """Autoescaping with the Markdown escape (planner.report.escape): no template prints outside text raw."""
    loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader([str(d) for d in dirs]), KindPartials()])
    env = SandboxEnvironment(loader=loader,
                             undefined=jinja2.StrictUndefined, autoescape=True, finalize=escape.finalize,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(escape.FILTERS)
    return env


def render(data: RunData, template: str, report_dir: Path, charts: bool = True, trusted: bool = True) -> str:
    tpl, env = _template(data, template, trusted)
    return _render(tpl, build_context(data, report_dir, set(env.list_templates()), charts,
                                      over_time=_reads(env, tpl, "inside")))


def _reads(env: jinja2.Environment, tpl: jinja2.Template, key: str) -> bool:
    """Whether the template reads ``key`` at its top level: charts over time are drawn only for one that shows
    them (a chart nobody shows is time spent after the last point, and a file the report does not name)."""
    try:
        source = env.loader.get_source(env, tpl.name or "")[0] if env.loader else ""
        return key in jinja2.meta.find_undeclared_variables(env.parse(source))
    except jinja2.TemplateError:
        return True  # unreadable here: draw them, as before


def _template(data: RunData, template: str, trusted: bool) -> tuple[jinja2.Template, jinja2.Environment]:
    plan_file = data.plan.source if data.plan else None
    name, dirs = template_dirs(template, plan_file, trusted)
    env = environment(dirs)
    try:
        return env.get_template(name), env
    except jinja2.TemplateNotFound:
        raise InputError([Problem(None, "", f"report template {template!r} not found",
                                  f"looked in {', '.join(str(d) for d in dirs) or 'no template folder'}")]) from None
    except jinja2.TemplateSyntaxError as e:
        raise InputError([Problem(Location(e.filename or name, e.lineno or 1, 1), "",
                                  f"report template syntax error: {e.message}", "fix the template")]) from None


def _render(tpl: jinja2.Template, context: Mapping[str, Any]) -> str:
    name = tpl.name or ""
    ctx = escape.outside(context)
    try:
        with template_errors_only():
            # templates stay readable with blank lines around blocks; the report gets at most one in a row
            return re.sub(r"\n{3,}", "\n\n", tpl.render(**ctx))
    except jinja2.UndefinedError as e:  # a user's template: a bad input at its line, as a plan problem is
        raise InputError([Problem(_error_line(e, name), "", f"report template {name}: {e.message}",
                                  "the template uses a key the report context does not have; "
                                  "see docs/report-context.md")]) from None
    except jinja2.TemplateError as e:
        raise InputError([Problem(_error_line(e, name), "", f"report template {name}: {e}",
                                  "fix the template")]) from None


def template_problems(template: str, plan_file: Path) -> list[Problem]:
    """A plan's report template checked before any host: it must exist and parse, and every top-level name it
    reads must be a key of the report context (CONTEXT_KEYS), each unknown one at its file:line:col."""
    name, dirs = template_dirs(template, plan_file)
    env = environment(dirs)
    try:
        source, filename, _ = env.loader.get_source(env, name) if env.loader else ("", None, None)
        tree = env.parse(source, name, filename)
    except jinja2.TemplateNotFound:
        return [Problem(None, "report.template", f"report template {template!r} not found",
                        f"looked in {', '.join(str(d) for d in dirs) or 'no template folder'}")]
    except jinja2.TemplateSyntaxError as e:
        return [Problem(Location(e.filename or name, e.lineno or 1, 1), "report.template",
                        f"report template syntax error: {e.message}", "fix the template")]
    unknown = sorted(jinja2.meta.find_undeclared_variables(tree) - CONTEXT_KEYS - set(env.globals))
    lines = source.splitlines()
    return [Problem(_first_use(lines, key, filename or name), "report.template",
                    f"report template {name}: '{key}' is undefined",
                    did_you_mean(key, sorted(CONTEXT_KEYS))
                    or "the report context's keys are in docs/report-context.md")
            for key in unknown]


def _first_use(lines: list[str], key: str, filename: str) -> Location:
    word = re.compile(rf"(?<![\w.]){re.escape(key)}\b")
    for number, line in enumerate(lines, 1):
        m = word.search(line)
        if m:
            return Location(filename, number, m.start() + 1)
    return Location(filename, 1, 1)


def _error_line(exc: BaseException, name: str) -> Location:
    at = template_position(exc)
    return Location(at[0], at[1], 1) if at else Location(name, 1, 1)


def plan_report_copy(plan: Plan, run_dir: Path | None = None) -> list[Path]:
    """The plan's own report path (``report: output:``, relative to the plan file), if it names one.

    InputError when it leads outside the plan's folder and the run folder: a plan (perhaps one received)
    must not overwrite any file anywhere; a report elsewhere is asked for with ``-o`` on the command line."""
    if plan.report is None or not plan.report.output:
        return []
    base = plan.source.resolve().parent
    target = (base / plan.report.output).resolve()
    roots = [base] + ([Path(run_dir).resolve()] if run_dir is not None else [])
    if not any(target.is_relative_to(r) and target != r for r in roots):
        raise InputError([Problem(None, "report.output",
                                  f"{plan.report.output!r} leads outside the plan's folder ({base}) and the run folder",
                                  "write it below the plan's folder, or ask for it: planner report RUN -o PATH")])
    return [target]


FORMATS = ("md", "html")


def render_run_report(run_dir: Path, plan: Plan | None = None, template: str | None = None,
                      output: Path | None = None, fmt: str = "md", notes: list[str] | None = None,
                      data: RunData | None = None) -> Path:
    """Render ``<run_dir>/report.md`` (or ``output``), and the plan's ``report.output`` too when set.

    ``fmt="html"``: one self-contained page, ``<run_dir>/report.html`` (or ``output``), charts inline.
    ``plan`` is the plan the user ran (trusted: its templates/ folder is searched); without it the run
    folder's recorded plan is read and its template honoured only when the package ships it (see the module
    docstring); ``notes`` receives what was not honoured; ``data``: the run as the caller measured it already
    (an apply), else its folder is read. Returns the main report's path. Parse problems do not fail the
    report: they are listed in it.
    """
    run_dir = Path(run_dir)
    given = plan is not None  # report.output is relative to the plan file the user ran, not the recorded copy
    data = data if data is not None else read_run(run_dir, plan)
    plan = data.plan
    spec = plan.report if plan else None
    trusted = given or template is not None
    name = template or (spec.template if spec else DEFAULT_TEMPLATE)
    shipped = (_PACKAGE_TEMPLATES / Path(name).name).is_file() or KindPartials.whole(Path(name).name) is not None
    if not trusted and not shipped:
        if notes is not None:
            notes.append(f"the run's plan.yaml names report template {name!r}, which is not one planner ships: "
                         f"not used (a run folder's templates are not trusted); {DEFAULT_TEMPLATE} used instead. "
                         f"To use it: planner report RUN --template {name}")
        name = DEFAULT_TEMPLATE
    if fmt == "html":
        from planner.report.html import markdown_to_html

        main = Path(output) if output else run_dir / "report.html"
        base = main.resolve().parent
        text = render(data, name, base)
        _write(main, markdown_to_html(text, base, run_dir / runfolder.CHARTS, data.run_id).encode(),
               given_path=output is not None)
        return main
    main = Path(output) if output else run_dir / "report.md"
    targets = [main]
    if output is None and given and plan is not None:
        targets += plan_report_copy(plan, run_dir)
    tpl, env = _template(data, name, trusted)
    first = build_context(data, main.resolve().parent, set(env.list_templates()),  # charts drawn here, once
                          over_time=_reads(env, tpl, "inside"))
    for target in targets:
        text = _render(tpl, relocated(first, data, target.resolve().parent) if target != main else first)
        _write(target, text.encode(), given_path=target == output)
    return main


def _write(target: Path, data: bytes, *, given_path: bool) -> None:
    """A report in the run folder is a record file; one the user sent with ``-o`` goes where it points."""
    signals.raise_pending()  # a Ctrl-C swallowed while rendering (planner.signals): no report, as if obeyed
    if given_path:
        write_output(target, data)
    else:
        write_bytes(target, data)
