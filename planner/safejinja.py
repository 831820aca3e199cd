"""The one sandboxed Jinja2 environment for everything a user writes: plan and inventory variables, ``-e``,
step arguments, ``when:``, ``template`` steps and report templates.

Plans and run folders travel (the README invites sending a run folder to a colleague), so a template is
untrusted input: ``{{ cycler.__init__.__globals__.os.popen('id').read() }}`` must not run. jinja2.sandbox
refuses attributes that reach Python internals (``__init__``, ``__globals__``, ``mro`` ...) and, being the
immutable variant, methods that change a value in place. On top of that the arithmetic that can take the
controller's memory or CPU (``'a' * 10**10``, ``9 ** 9 ** 9``) is bounded, and Python errors raised while a
template runs (``1/0``, ``"a" + 1``) are turned into jinja2 template errors, which every caller already
reports as a user mistake with its location (exit 5), never as a traceback.

A foundation module (it imports only jinja2) so plan/, inventory/, steps/ and report/ share it.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import jinja2
from jinja2.nativetypes import NativeEnvironment
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

MAX_POWER_BITS = 4096  # `2 ** 4096` is plenty for a benchmark plan; `9 ** 9 ** 9` would never end
MAX_REPEAT = 1 << 20  # `'a' * n` / `[x] * n`: a megabyte of template output is already a mistake

__all__ = ["MAX_POWER_BITS", "MAX_REPEAT", "SecurityError", "SandboxEnvironment", "NativeSandboxEnvironment",
           "template_errors_only", "template_position", "guarded"]

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


class SandboxEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox with bounded ``*``, ``**`` and ``%``; text output (reports, ``template`` steps)."""

    intercepted_binops = frozenset({"*", "**", "%"})
    _BINOPS: Mapping[str, Callable[[Any, Any], Any]] = {"*": _times, "**": _power, "%": _modulo}

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        op = self._BINOPS.get(operator)
        return op(left, right) if op else super().call_binop(context, operator, left, right)


class NativeSandboxEnvironment(SandboxEnvironment, NativeEnvironment):
    """The same sandbox keeping native types (``"{{ 300 }}"`` -> 300): variables, step arguments, ``when``."""


@contextmanager
def template_errors_only(what: str = "") -> Iterator[None]:
    """Turn a Python error raised inside a template (``1/0``, ``"a" + 1``, a recursion) into a jinja2
    TemplateRuntimeError, so the caller's ``except jinja2.TemplateError`` reports it with its location."""
    try:
        yield
    except jinja2.TemplateError:
        raise
    except (ArithmeticError, TypeError, ValueError, LookupError, AttributeError, RecursionError,
            MemoryError, UnicodeError) as exc:
        prefix = f"{what}: " if what else ""
        err = jinja2.TemplateRuntimeError(f"{prefix}{type(exc).__name__}: {exc}")
        err.template_position = template_position(exc)  # type: ignore[attr-defined]
        raise err from None


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
