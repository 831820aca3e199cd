"""Generic steps usable in any section: command, template, copy, fetch."""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.errors import StepError
from planner.status import Artifact, Status
from planner.steps.base import ANY_EXIT, Change, Outcome, Probe, Reversible, StepContext, StepType, check_host_path
from planner.transport.streams import FetchTooLarge, parse_size

if TYPE_CHECKING:
    from planner.safejinja import SandboxEnvironment


class Command(StepType):
    """Run a command from an argv list (or a string split like a shell would, but never run by one)."""

    kind = "command"
    args_schema = {
        "description": "run a program (argv list, or cmd split like a shell would, without a shell)",
        "type": "object",
        "properties": {
            "argv": {
                "type": "array",
                "items": {"type": ["string", "number"]},
                "minItems": 1,
                "description": "program and arguments",
            },
            "cmd": {
                "type": "string",
                "minLength": 1,
                "description": "command line, split with shlex (never run through a shell)",
            },
            "creates": {"type": "string", "description": "skip when this remote path exists"},
            "chdir": {"type": "string", "description": "remote working directory"},
            "changed_when": {"type": "boolean"},
        },
        "additionalProperties": False,
        "oneOf": [{"required": ["argv"]}, {"required": ["cmd"]}],
    }

    def validate(self) -> None:
        self.argv()

    def argv(self) -> list[str]:
        if "argv" in self.args:
            return [str(a) for a in self.args["argv"]]
        try:
            return shlex.split(str(self.args["cmd"]))
        except ValueError as e:  # an unclosed quote: a user mistake, not an engine bug
            raise StepError(f"cannot split cmd {self.args['cmd']!r}: {e}",
                            hint="close the quote, or give the program and its arguments as argv: [...]") from None

    def _creates(self, ctx: StepContext) -> bool:
        creates = self.args.get("creates")
        if not creates:
            return False
        return ctx.run(["test", "-e", ctx.path(str(creates))], check=False).exit_code == 0

    def probes(self, ctx: StepContext) -> Sequence[Probe]:
        # changed_when: false says the command only reads: its result is its answer, whatever the exit code.
        # Not in check mode (the command does not run then), nor with creates (a test comes first).
        if ctx.check_mode or self.args.get("changed_when", True) or self.args.get("creates"):
            return []
        chdir = self.args.get("chdir")
        return [Probe(tuple(self.argv()), ctx.become, ctx.become_user, ANY_EXIT,
                      cwd=ctx.path(str(chdir)) if chdir else "")]

    def check(self, ctx: StepContext) -> Change:
        if self._creates(ctx):
            return Change(False, f"{self.args['creates']} exists")
        chdir = self.args.get("chdir")  # under become, the line as sent: which commands run through sudo
        shown = ctx.command_text(self.argv(), cwd=ctx.path(str(chdir)) if chdir else None) if ctx.become else (
            shlex.join(self.argv()))
        return Change(bool(self.args.get("changed_when", True)), "would run " + shown)

    def apply(self, ctx: StepContext) -> Outcome:
        if self._creates(ctx):
            return Outcome(Status.OK, f"skipped: {self.args['creates']} exists")
        chdir = self.args.get("chdir")
        r = ctx.run(self.argv(), cwd=ctx.path(str(chdir)) if chdir else None, measured=True)
        status = Status.CHANGED if self.args.get("changed_when", True) else Status.OK
        from planner.extras import CommandRun  # here: the extras load when a step has run, not at start-up

        return Outcome(status, r.stdout.strip()[-500:], extra=CommandRun(r.exit_code, r.stdout[-4000:]))


def unified(before: str | None, after: str, name: str) -> str:
    import difflib  # here: only --diff shows one (difflib and heapq at every apply's start-up otherwise)

    lines = difflib.unified_diff((before or "").splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=f"before: {name}" if before is not None else "before: (absent)",
                                 tofile=f"after: {name}")
    return "".join(lines)


@dataclass(frozen=True, slots=True)
class _SavedRead:
    """save()'s read of the destination (None: no such file), handed to apply() through the StepContext, with
    what save() rendered for it (None: not rendered): a template is rendered once a host, not twice."""

    dest: str
    content: str | None
    want: str | None = None


class _FileStep(Reversible):
    """Shared by template and copy: compare, write atomically, restore the original on revert."""


    def content(self, ctx: StepContext) -> str:
        raise NotImplementedError

    def validate(self) -> None:
        check_host_path(str(self.args["dest"]), "dest")

    def dest(self, ctx: StepContext) -> str:
        return ctx.path(str(self.args["dest"]))

    def _mode(self) -> int | None:
        mode = self.args.get("mode")
        return int(str(mode), 8) if mode is not None else None

    def _current(self, ctx: StepContext) -> tuple[str | None, str]:
        """(the destination's content, the content wanted there). save() runs right before apply() in this same
        context: its read is reused (one round trip less), and its rendering (the same template and variables)."""
        memo, dest = ctx.take_save_read(), self.dest(ctx)
        if isinstance(memo, _SavedRead) and memo.dest == dest:
            return memo.content, memo.want if memo.want is not None else self.content(ctx)
        want = self.content(ctx)
        return ctx.conn.read_text(dest), want

    def probes(self, ctx: StepContext) -> Sequence[Probe]:
        return [ctx.read_probe(self.dest(ctx))]

    def check(self, ctx: StepContext) -> Change:
        have, want = self._current(ctx)
        if have == want:
            return Change(False, f"{self.args['dest']} up to date")
        return Change(True, f"{self.args['dest']} would change",
                      unified(have, want, str(self.args["dest"])) if ctx.diff_mode else None)

    def apply(self, ctx: StepContext) -> Outcome:
        change = self.check(ctx)
        if not change.changed:
            return Outcome(Status.OK, change.msg)
        ctx.conn.put(self.content(ctx).encode(), self.dest(ctx), mode=self._mode())
        return Outcome(Status.CHANGED, f"wrote {self.args['dest']}", change.diff)

    def save(self, ctx: StepContext) -> Mapping[str, Any]:
        content = ctx.conn.read_text(self.dest(ctx))
        want = self.content(ctx) if content is not None else None
        ctx.save_read = _SavedRead(self.dest(ctx), content, want)
        saved: dict[str, Any] = {"dest": self.dest(ctx), "content": content}
        # the write replaces the file (a new inode): its mode and owner go with it. Asked only when it will be
        # replaced: an unchanged file (every warm run) costs no round trip.
        if content is not None and content != want:
            r = ctx.run(["sh", "-c", _SAVE_ATTRS_SCRIPT, "sh", self.dest(ctx)], check=False)
            if r.ok:
                saved.update(_saved_attrs(r.stdout))
        return saved

    def revert(self, ctx: StepContext, saved: Mapping[str, Any]) -> Outcome:
        dest, original = self.dest(ctx), saved["content"]
        if saved.get("dest") != dest:  # the log's path is never used as given: the step's own is
            raise StepError(f"the restore log names {saved.get('dest')!r} where this step writes {dest}: not "
                            "restored", hint=f"put {dest} back by hand if it needs it")
        current = ctx.conn.read_text(dest)
        if current == original:
            fixed = _put_back_attrs(ctx, dest, saved)
            return Outcome(Status.CHANGED if fixed else Status.OK,
                           f"{dest}: {fixed} put back" if fixed else f"{dest} already as it was")
        if original is None:
            ctx.run(["rm", "-f", "--", dest])
            return Outcome(Status.CHANGED, f"removed {dest} (it did not exist before)")
        ctx.conn.put(original.encode(), dest)
        fixed = _put_back_attrs(ctx, dest, saved)
        return Outcome(Status.CHANGED, f"restored {dest}" + (f" ({fixed})" if fixed else ""))


_ATTRS = re.compile(r"[0-7]{3,4} \d+:\d+")  # stat -c '%a %u:%g'
# chown first: it clears set-id bits that the chmod after it puts back. Prints what it changed, if anything.
_ATTRS_SCRIPT = ('f=$1; have=$(stat -c "%a %u:%g" -- "$f") || exit 1; set -- $have "$2" "$3"; out=""; '
                 '[ "$2" = "$4" ] || { chown -- "$4" "$f" && out="owner $4"; }; '
                 '[ "$1" = "$3" ] && [ -z "$out" ] || { chmod -- "$3" "$f" && out="${out:+$out, }mode $3"; }; '
                 'printf %s "$out"')


# One round trip: mode and owner; the ACL entries beyond the base ones, where getfacl is installed (-s prints
# nothing for a file with none); the SELinux context, where the kernel has one ("?" or an error elsewhere).
_SAVE_ATTRS_SCRIPT = ('f=$1; stat -c "%a %u:%g" -- "$f" || exit 1; '
                      'if command -v getfacl >/dev/null 2>&1; then getfacl -s -c -p -- "$f" 2>/dev/null; fi '
                      '| tr "\\n" ","; echo; stat -c "%C" -- "$f" 2>/dev/null; exit 0')
_ACL_ENTRY = re.compile(r"(user|group|mask|other):[A-Za-z0-9_.@-]*:[rwx-]{3}")
_SELINUX = re.compile(r"[A-Za-z0-9_]+:[A-Za-z0-9_]+:[A-Za-z0-9_]+(:[A-Za-z0-9_.,:-]+)?")


def _saved_attrs(out: str) -> dict[str, str]:
    """What the save script printed, each part kept only when it has the shape its program prints (the
    host's output is data: it becomes arguments of setfacl and chcon at restore)."""
    lines = out.splitlines()
    if not lines or not _ATTRS.fullmatch(lines[0].strip()):
        return {}  # not what stat prints: nothing after it is trusted either
    attrs: dict[str, str] = dict(zip(("mode", "owner"), lines[0].split(), strict=True))
    entries = [e.split("#", 1)[0].strip() for e in (lines[1] if len(lines) > 1 else "").split(",")]
    entries = [e for e in entries if e]
    if entries and len(entries) <= 256 and all(_ACL_ENTRY.fullmatch(e) for e in entries):
        attrs["acl"] = ",".join(entries)
    if len(lines) > 2 and _SELINUX.fullmatch(lines[2].strip()):
        attrs["selinux"] = lines[2].strip()
    return attrs


def _put_back_attrs(ctx: StepContext, dest: str, saved: Mapping[str, Any]) -> str:
    """The saved mode and owner (uid:gid), then its ACL and SELinux context, back on ``dest``; what was
    changed, "" when nothing was (or none was saved: a log from an older planner)."""
    mode, owner = str(saved.get("mode", "")), str(saved.get("owner", ""))
    if not _ATTRS.fullmatch(f"{mode} {owner}"):
        return ""
    done = [ctx.run(["sh", "-c", _ATTRS_SCRIPT, "sh", dest, mode, owner]).stdout.strip()]
    acl, label = str(saved.get("acl", "")), str(saved.get("selinux", ""))
    acl_ok = bool(acl) and all(_ACL_ENTRY.fullmatch(e) for e in acl.split(","))
    label_ok = bool(label) and _SELINUX.fullmatch(label) is not None
    if acl_ok or label_ok:  # a round trip only for a file that had either: most have neither
        now = _saved_attrs(ctx.run(["sh", "-c", _SAVE_ATTRS_SCRIPT, "sh", dest], check=False).stdout)
        if acl_ok and now.get("acl") != acl:
            # after chmod: the ACL's mask is the group bits, so it is set last to come back exactly
            ctx.run(["setfacl", "--set", acl, "--", dest])
            done.append(f"ACL {acl}")
        if label_ok and now.get("selinux") != label:
            ctx.run(["chcon", "--", label, dest])
            done.append(f"SELinux context {label}")
    return ", ".join(d for d in done if d)


def _local_file(ctx: StepContext, src: str) -> Path:
    path = Path(src) if Path(src).is_absolute() else ctx.plan_dir / src
    if not path.is_file():
        raise StepError(f"source file not found: {path}", hint="paths are relative to the plan file")
    return path


class Template(_FileStep):
    kind = "template"
    args_schema = {
        "description": "render a Jinja2 file from the controller to a remote path",
        "type": "object",
        "properties": {
            "src": {"type": "string", "minLength": 1},
            "dest": {"type": "string", "minLength": 1},
            "mode": {"type": ["string", "integer"]},
        },
        "additionalProperties": False,
        "required": ["src", "dest"],
    }

    def content(self, ctx: StepContext) -> str:
        import jinja2  # here, not at the top: a plan without a template step never loads Jinja2 (start-up)

        from planner.safejinja import template_errors_only
        src = _local_file(ctx, str(self.args["src"]))
        try:
            with template_errors_only():
                return _environment(str(src.parent)).get_template(src.name).render(dict(ctx.vars))
        except jinja2.TemplateError as e:
            raise StepError(f"template {src}: {e}", hint="define the variable in vars:, the inventory or -e") from e


@functools.lru_cache(maxsize=16)
def _environment(folder: str) -> SandboxEnvironment:
    """One sandbox per template folder: a template is compiled once for all hosts, not once per host (jinja2
    still reloads a file that changed)."""
    import jinja2

    from planner.safejinja import SandboxEnvironment
    return SandboxEnvironment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                              loader=jinja2.FileSystemLoader(folder))


class Copy(_FileStep):
    kind = "copy"
    args_schema = {
        "description": "copy a controller file (or literal content) to a remote path",
        "type": "object",
        "properties": {
            "src": {"type": "string", "minLength": 1},
            "content": {"type": "string"},
            "dest": {"type": "string", "minLength": 1},
            "mode": {"type": ["string", "integer"]},
        },
        "additionalProperties": False,
        "required": ["dest"],
        "oneOf": [{"required": ["src"]}, {"required": ["content"]}],
    }

    def content(self, ctx: StepContext) -> str:
        if "content" in self.args:
            return str(self.args["content"])
        return _local_file(ctx, str(self.args["src"])).read_text()


class Fetch(StepType):
    """Copy a host file into the run record. The host is not changed, so the result is ok."""

    kind = "fetch"
    args_schema = {
        "description": "fetch a remote file into the run's artifacts (dest relative to the host's artifact folder)",
        "type": "object",
        "properties": {
            "src": {"type": "string", "minLength": 1},
            "dest": {"type": "string", "minLength": 1},
            "max_size": {
                "description": "refuse a file larger than this (bytes, or with K/M/G/T: 2G); "
                               "default: the host's planner_fetch_max_size, else 1G",
                "anyOf": [
                    {"type": "integer", "minimum": 1},
                    {"type": "string", "pattern": "^[0-9]+[KMGT]?$"},
                ],
            },
        },
        "additionalProperties": False,
        "required": ["src"],
    }

    def validate(self) -> None:
        check_host_path(str(self.args["src"]), "src")
        self._cap()

    def _cap(self) -> int | None:
        given = self.args.get("max_size")
        return parse_size(given) if given is not None else None

    def probes(self, ctx: StepContext) -> Sequence[Probe]:
        return [] if ctx.check_mode else [Probe((ctx.path(str(self.args["src"])),), fetch=True, fetch_max=self._cap())]

    def check(self, ctx: StepContext) -> Change:
        return Change(False, f"would fetch {self.args['src']}")

    def apply(self, ctx: StepContext) -> Outcome:
        src = ctx.path(str(self.args["src"]))
        name = Path(str(self.args.get("dest") or Path(src).name)).name
        try:
            # Streamed to a 0600 file and hashed as it arrives; refused past max_size, or when src resolves
            # out of the host's planner_root (planner/transport/streams.py).
            local = ctx.artifacts / name
            ctx.conn.get(src, local, max_bytes=self._cap())
            art = Artifact(str(local.relative_to(ctx.run_dir)), simulated=ctx.simulated)
        except FetchTooLarge:
            raise
        except (StepError, OSError):  # not ConnectError: an unreachable host stays unreachable
            # Asked only when the copy failed (one round trip less per host when it works): say plainly that
            # the file is missing, or give the copy's own error.
            if ctx.run(["test", "-f", src], check=False).exit_code != 0:
                raise StepError(f"{self.args['src']} does not exist on {ctx.host.name}") from None
            raise
        return Outcome(Status.OK, f"fetched {self.args['src']} -> {art.path}", artifacts=(art,))
