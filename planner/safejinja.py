"""The one sandboxed Jinja2 environment for everything a user writes: plan and inventory variables, ``-e``,
step arguments, ``when:``, ``template`` steps and report templates.

Plans and run folders travel (the README invites sending a run folder to a colleague), so a template is
untrusted input: ``{{ cycler.__init__.__globals__.os.popen('id').read() }}`` must not run. jinja2.sandbox
refuses attributes that reach Python internals (``__init__``, ``__globals__``, ``mro`` ...) and, being the
immutable variant, methods that change a value in place. On top of that the arithmetic that can take the
controller's memory or CPU (``'a' * 10**10``, ``9 ** 9 ** 9``) is bounded, and so is every other way a value
grows (string methods such as ``ljust``/``center``/``format``/``replace``/``join``, the filters ``center``,
``indent``, ``wordwrap``, ``truncate``, ``format``, ``batch``, ``slice``, ``lipsum``, ``~`` and ``+``): each
intermediate value's size is checked, before it is built where its size can be told from the arguments, and
every value built counts towards a work budget; loop iterations are counted and a render's output is bounded.
Each bound raises SecurityError (a template error: exit 5 with the template's file and line). Python errors
raised while a
template runs (``1/0``, ``"a" + 1``) are turned into jinja2 template errors, which every caller already
reports as a user mistake with its location (exit 5), never as a traceback.

A foundation module (it imports only jinja2) so plan/, inventory/, steps/ and report/ share it.
"""

from __future__ import annotations

import functools
import operator
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.nativetypes import NativeCodeGenerator, NativeEnvironment, native_concat
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from jinja2.utils import generate_lorem_ipsum

from planner.redaction import derive

MAX_POWER_BITS = 4096  # `2 ** 4096` is plenty for a benchmark plan; `9 ** 9 ** 9` would never end
MAX_REPEAT = 1 << 20  # `'a' * n` / `[x] * n`: a megabyte of template output is already a mistake
MAX_SIZE = MAX_REPEAT  # any one value built in a template: characters of a string, items of a list
MAX_WORK = 1 << 26  # what one render builds in all: a character counts 1, a list or mapping item ITEM_WEIGHT
ITEM_WEIGHT = 64  # about the bytes of one item of a built list (`[1]|batch(1)` makes a list per item)
MAX_LOOPS = 100_000  # loop iterations of one render, nested loops and includes together
MAX_SECONDS = 5.0  # a render's loops stop after this long, whatever the bodies do (`'b' in big_string`)
MAX_OUTPUT = 1 << 23  # characters a report or template step renders
MAX_NATIVE_OUTPUT = 1 << 18  # a variable or argument (then parsed as a Python literal: its AST is ~100x that)
MAX_WRAP = 1 << 15  # wordwrap's input: textwrap takes seconds on a megabyte at width 1
MAX_LIPSUM_WORDS = 100_000

__all__ = ["MAX_POWER_BITS", "MAX_REPEAT", "MAX_SIZE", "MAX_WORK", "MAX_LOOPS", "MAX_OUTPUT", "SecurityError",
           "SandboxEnvironment", "NativeSandboxEnvironment", "template_errors_only", "template_position", "guarded"]

T = TypeVar("T")


def _power(left: Any, right: Any) -> Any:
    if isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1 \
            and right * abs(left).bit_length() > MAX_POWER_BITS:
        raise SecurityError(f"{left} ** {right} is too large to compute (over {MAX_POWER_BITS} bits)")
    return operator.pow(left, right)


def _times(left: Any, right: Any) -> Any:
    for seq, n in ((left, right), (right, left)):
        if isinstance(seq, str | bytes | list | tuple) and isinstance(n, int) and n > 0 \
                and len(seq) * n > MAX_REPEAT:
            raise SecurityError(f"repeating a value {n} times gives more than {MAX_REPEAT} items")
    return operator.mul(left, right)


_WIDTH = re.compile(r"%[-#0 +]*(\d*)(?:\.(\d+))?")


def _modulo(left: Any, right: Any) -> Any:
    # `"%0999999999d" % 1` builds a gigabyte string: a width or precision is bounded before formatting
    if isinstance(left, str):
        for m in _WIDTH.finditer(left):
            if any(g and len(g) > 7 or (g and int(g) > MAX_REPEAT) for g in m.groups()):
                raise SecurityError(f"a format width over {MAX_REPEAT} characters")
    result = operator.mod(left, right)
    if isinstance(result, str) and len(result) > MAX_REPEAT:
        raise SecurityError(f"a formatted string longer than {MAX_REPEAT} characters")
    return result


@dataclass
class _Budget:
    """What one render (the outermost template_errors_only) has spent."""

    work: int = 0
    loops: int = 0
    deadline: float = field(default_factory=lambda: time.monotonic() + MAX_SECONDS)


_BUDGET: ContextVar[_Budget | None] = ContextVar("planner_template_budget", default=None)


def _budget() -> _Budget:
    # without template_errors_only around it (a library caller), each value and loop is bounded on its own
    return _BUDGET.get() or _Budget()


def _sized(value: Any) -> int | None:
    return len(value) if isinstance(value, str | bytes | bytearray | list | tuple | dict | set | frozenset) else None


def bounded(value: Any, what: str = "a value") -> Any:
    """``value`` if its size is within MAX_SIZE and the render's work within MAX_WORK; SecurityError if not."""
    n = _sized(value)
    if n is None:
        return value
    if n > MAX_SIZE:
        raise SecurityError(f"{what} would be {n} characters or items long, over the bound of {MAX_SIZE}")
    budget = _budget()
    budget.work += n if isinstance(value, str | bytes | bytearray) else n * ITEM_WEIGHT
    if budget.work > MAX_WORK:
        raise SecurityError(f"the template builds over {MAX_WORK >> 20} MB of values in all: it does too much work")
    return value


def _want(n: int, what: str) -> None:
    """Refuse, before it is built, a value that would be ``n`` long."""
    if n > MAX_SIZE:
        raise SecurityError(f"{what} would be {n} characters or items long, over the bound of {MAX_SIZE}")


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


_SPEC_NUMBER = re.compile(r"\d+")


def _check_format(fmt: str, args: Iterable[Any]) -> None:
    """``'{:>1999999999}'.format(1)``: every number in a format spec, and every int that may fill one (``{:{}}``)."""
    for spec in re.findall(r"\{[^{}]*:([^{}]*)\}", fmt):
        for number in _SPEC_NUMBER.findall(spec):
            if len(number) > 7 or int(number) > MAX_SIZE:
                raise SecurityError(f"a format width or precision of {number}, over the bound of {MAX_SIZE}")
    if "{" in fmt and any(_int(a) > MAX_SIZE for a in args):
        raise SecurityError(f"a format argument over {MAX_SIZE} with a nested width ({{:{{}}}}) is refused")


def _replaced(s: str | bytes, old: Any, new: Any, count: Any = -1) -> int:
    if not isinstance(old, str | bytes) or not isinstance(new, str | bytes) or len(new) <= len(old):
        return len(s)
    found = len(s) + 1 if not old else s.count(old)  # type: ignore[arg-type]
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    return len(s) + found * (len(new) - len(old))


def _str_method(obj: Any, name: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """The size a str/bytes method would build, refused before it is built when over the bound."""
    what = f"{name}()"
    if name in ("ljust", "rjust", "center", "zfill"):
        _want(_int(args[0] if args else kwargs.get("width")), what)
    elif name == "expandtabs":
        size = _int(args[0] if args else kwargs.get("tabsize", 8))
        _want(len(obj) + obj.count("\t" if isinstance(obj, str) else b"\t") * size, what)
    elif name in ("format", "format_map") and isinstance(obj, str):
        _check_format(obj, [*args, *kwargs.values(), *(args[0].values() if name == "format_map" and args
                                                       and isinstance(args[0], Mapping) else ())])
    elif name == "replace" and len(args) >= 2:
        _want(_replaced(obj, *args[:3]), what)
    elif name == "join" and args:
        items = args[0] if isinstance(args[0], list | tuple) else None
        if items is not None:
            _want(sum(len(i) for i in items if isinstance(i, str | bytes)) + len(obj) * max(len(items) - 1, 0), what)
    elif name == "translate" and args and isinstance(args[0], Mapping):
        longest = max((len(v) for v in args[0].values() if isinstance(v, str | bytes)), default=1)
        _want(len(obj) * max(longest, 1), what)


def _lipsum(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    n = _int(args[0] if args else kwargs.get("n", 5))
    longest = _int(args[3] if len(args) > 3 else kwargs.get("max", 100))
    if n * max(longest, 1) > MAX_LIPSUM_WORDS:
        raise SecurityError(f"lipsum of {n} paragraphs of up to {longest} words, over {MAX_LIPSUM_WORDS} words")


def _filter_args(name: str, value: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """What a built-in filter would build, refused before it is built when over the bound."""
    text = value if isinstance(value, str) else None
    if name == "center" and text is not None:
        _want(_int(args[0] if args else kwargs.get("width", 80)), "center")
    elif name == "indent" and text is not None:
        width = args[0] if args else kwargs.get("width", 4)
        _want(len(text) + (text.count("\n") + 1) * (len(width) if isinstance(width, str) else _int(width)), "indent")
    elif name == "wordwrap" and text is not None and len(text) > MAX_WRAP:
        raise SecurityError(f"wordwrap of {len(text)} characters, over the bound of {MAX_WRAP}")
    elif name == "truncate":
        length = _int(args[0] if args else kwargs.get("length", 255))
        end = args[2] if len(args) > 2 else kwargs.get("end", "...")
        if isinstance(end, str) and length < len(end):
            raise jinja2.TemplateRuntimeError(f"truncate: a length of {length} is shorter than the end {end!r}; "
                                              f"give at least {len(end)}")
    elif name == "replace" and text is not None and len(args) >= 2:
        _want(_replaced(text, *args[:3]), "replace")
    elif name == "format" and isinstance(value, str):
        _modulo(value, args or kwargs)  # what the filter does is `value % args`: bounded like the operator
    elif name in ("batch", "slice"):
        _want(_int(args[0] if args else kwargs.get("linecount" if name == "batch" else "slices")), name)


def _bounded_filter(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    passes = getattr(fn, "jinja_pass_arg", None)

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        given = args[1:] if passes is not None else args
        if given:
            _filter_args(name, given[0], tuple(given[1:]), kwargs)
        result = fn(*args, **kwargs)
        if isinstance(result, Iterator) and not isinstance(result, str):  # reverse of a list: keep it a value
            result = list(result)
        return bounded(derive(result, *given, *kwargs.values()), f"the {name} filter's result")

    if passes is not None:
        run.jinja_pass_arg = passes  # type: ignore[attr-defined]
    return run


class _BoundedFilters(dict[str, Any]):
    """The environment's filters, each wrapped by _bounded_filter, those added later (report filters) too."""

    def __setitem__(self, name: str, fn: Callable[..., Any]) -> None:
        super().__setitem__(name, fn if getattr(fn, "_planner_bounded", False) else _mark(_bounded_filter(name, fn)))

    def update(self, *others: Any, **more: Any) -> None:
        for k, v in dict(*others, **more).items():
            self[k] = v


def _mark(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn._planner_bounded = True  # type: ignore[attr-defined]
    return fn


def _counted(limit: int) -> Callable[[Iterable[Any]], Iterator[Any]]:
    def count(values: Iterable[Any]) -> Iterator[Any]:
        total = 0
        for v in values:
            total += len(v) if isinstance(v, str) else 1
            if total > limit:
                raise SecurityError(f"the template renders over {limit} characters")
            yield v
    return count


class _LoopsCounted:
    """Code generation: the iterable of every ``{% for %}`` goes through ``environment.planner_loop``."""

    def visit_For(self, node: nodes.For, frame: Frame) -> None:
        node.iter = nodes.Call(nodes.EnvironmentAttribute("planner_loop"), [node.iter], [], None, None,
                               lineno=node.lineno)
        super().visit_For(node, frame)  # type: ignore[misc]

    def visit_Getitem(self, node: nodes.Getitem, frame: Frame) -> None:
        """A slice (``pw[1:]``) bypasses the environment's getitem in Jinja's code: routed through it here, so
        what it derives from a secret is known (planner.redaction.derived_secrets)."""
        if not isinstance(node.arg, nodes.Slice):
            super().visit_Getitem(node, frame)  # type: ignore[misc]
            return
        self.write("environment.planner_sliced(")  # type: ignore[attr-defined]
        self.visit(node.node, frame)  # type: ignore[attr-defined]
        self.write(", slice(")  # type: ignore[attr-defined]
        for i, part in enumerate((node.arg.start, node.arg.stop, node.arg.step)):
            self.write(", " if i else "")  # type: ignore[attr-defined]
            if part is None:
                self.write("None")  # type: ignore[attr-defined]
            else:
                self.visit(part, frame)  # type: ignore[attr-defined]
        self.write("))")  # type: ignore[attr-defined]

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.planner_bounded(")  # type: ignore[attr-defined]
        super().visit_Concat(node, frame)  # type: ignore[misc]
        self.write(")")  # type: ignore[attr-defined]


class _Generator(_LoopsCounted, CodeGenerator):
    pass


class _NativeGenerator(_LoopsCounted, NativeCodeGenerator):
    pass


def _loop(values: Iterable[Any]) -> Iterator[Any]:
    budget = _budget()
    for v in values:
        budget.loops += 1
        if budget.loops > MAX_LOOPS:
            raise SecurityError(f"the template's loops run over {MAX_LOOPS} iterations in all")
        if budget.loops % 64 == 0 and time.monotonic() > budget.deadline:
            raise SecurityError(f"the template's loops ran for over {MAX_SECONDS:g} seconds")
        yield v


class SandboxEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox with bounded values, work, loops and output; text output (reports, ``template`` steps)."""

    intercepted_binops = frozenset({"*", "**", "%", "+"})
    _BINOPS: Mapping[str, Callable[[Any, Any], Any]] = {"*": _times, "**": _power, "%": _modulo}
    code_generator_class: type[CodeGenerator] = _Generator
    concat = staticmethod(lambda values: "".join(_counted(MAX_OUTPUT)(values)))
    planner_bounded = staticmethod(bounded)
    planner_loop = staticmethod(_loop)
    planner_sliced = staticmethod(lambda obj, part: bounded(derive(obj[part], obj), "a slice"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        filters: MutableMapping[str, Any] = _BoundedFilters()
        filters.update(self.filters)
        self.filters = filters  # type: ignore[assignment]

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        op = self._BINOPS.get(operator)
        result = op(left, right) if op else super().call_binop(context, operator, left, right)
        return bounded(derive(result, left, right), f"the result of {operator}")

    def getitem(self, obj: Any, argument: Any) -> Any:
        return derive(super().getitem(obj, argument), obj)  # pw[1:], pw[::-1]

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        target = getattr(__obj, "__wrapped__", __obj)  # str.format comes wrapped by the sandbox's formatter
        owner = getattr(target, "__self__", None)
        if isinstance(owner, str | bytes) and isinstance(getattr(target, "__name__", None), str):
            _str_method(owner, target.__name__, args, kwargs)
        elif target is generate_lorem_ipsum:
            _lipsum(args, kwargs)
        name = getattr(target, "__name__", "a call")
        result = super().call(__context, __obj, *args, **kwargs)
        return bounded(derive(result, owner, *args, *kwargs.values()), f"the result of {name}()")


class NativeSandboxEnvironment(SandboxEnvironment, NativeEnvironment):
    """The same sandbox keeping native types (``"{{ 300 }}"`` -> 300): variables, step arguments, ``when``."""

    code_generator_class = _NativeGenerator
    concat = staticmethod(lambda values: native_concat(_counted(MAX_NATIVE_OUTPUT)(values)))  # type: ignore[assignment]


@contextmanager
def template_errors_only(what: str = "") -> Iterator[None]:
    """Turn a Python error raised inside a template (``1/0``, ``"a" + 1``, a recursion) into a jinja2
    TemplateRuntimeError, so the caller's ``except jinja2.TemplateError`` reports it with its location."""
    token = _BUDGET.set(_Budget()) if _BUDGET.get() is None else None  # the outermost one opens the budget
    try:
        yield
    except jinja2.TemplateError:
        raise
    except (ArithmeticError, TypeError, ValueError, LookupError, AttributeError, RecursionError,
            MemoryError, UnicodeError, AssertionError) as exc:
        prefix = f"{what}: " if what else ""
        err = jinja2.TemplateRuntimeError(f"{prefix}{type(exc).__name__}: {exc}")
        err.template_position = template_position(exc)  # type: ignore[attr-defined]
        raise err from None
    finally:
        if token is not None:
            _BUDGET.reset(token)


def template_position(exc: BaseException) -> tuple[str, int] | None:
    """(template file, line) an error was raised at: Jinja rewrites a template's traceback frames to point
    into the template source, whose "file name" does not end in .py; the innermost one wins."""
    given = getattr(exc, "template_position", None)
    if given:
        return (str(given[0]), int(given[1]))
    found, tb = None, exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name and not name.endswith(".py") and not name.startswith("<frozen"):
            found = (name, tb.tb_lineno)
        tb = tb.tb_next
    return found


def guarded(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` under template_errors_only."""
    with template_errors_only():
        return fn(*args, **kwargs)
