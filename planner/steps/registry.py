"""The mapping behind planner.steps.REGISTRY: kind -> StepType class, a built-in kind's module imported the first
time the kind is looked up. A plan names a handful of the 23 kinds; importing every kind's file (and what it
imports: database access, parsers, kits) was a third of a one-host apply's start-up.

Kinds are known by name before any is imported (``in``, iteration and ``len`` import nothing); looking one up,
or asking for values or items, imports its module. Modules are named as text and resolved by importlib, so
this package imports none of its children at start-up and none of them can close an import loop through it.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from planner import kindspec

if TYPE_CHECKING:
    from planner.steps.base import StepType

# A workload kind's place in the registry before its spec is read: importing every kind's spec to name its step
# class was most of the kinds' cost before an apply's first host command
FROM_SPEC = "planner.kindspec:spec"


class KindRegistry(MutableMapping[str, "type[StepType]"]):
    """kind -> class, in registration order; ``where`` gives a built-in kind as ``"package.module:Class"``."""

    def __init__(self, where: Mapping[str, str]) -> None:
        self._where = dict(where)
        self._classes: dict[str, type[StepType]] = {}
        self._lock = threading.Lock()  # hosts look kinds up from many threads at once

    def __getitem__(self, kind: str) -> type[StepType]:
        cls = self._classes.get(kind)
        if cls is not None:
            return cls
        where = self._where[kind]  # KeyError: nobody provides the kind
        if where == FROM_SPEC:  # a workload kind: its spec (only this kind's) says where its step is
            found_spec = kindspec.spec(kind)
            if found_spec is None or not found_spec.step:
                raise KeyError(kind)
            where = found_spec.step
        module, _, name = where.partition(":")
        found = getattr(importlib.import_module(module), name)  # importlib's own locks: one import per module
        with self._lock:
            return self._classes.setdefault(kind, found)

    def name(self, kind: str, where: str) -> None:
        """Add a kind by where its class is, ``"package.module:Class"``: imported when first looked up."""
        with self._lock:
            self._where[kind] = where

    def __setitem__(self, kind: str, cls: type[StepType]) -> None:
        with self._lock:
            self._where[kind] = f"{cls.__module__}:{cls.__qualname__}"
            self._classes[kind] = cls

    def __delitem__(self, kind: str) -> None:
        with self._lock:
            del self._where[kind]
            self._classes.pop(kind, None)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._where))

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, kind: object) -> bool:
        return kind in self._where

    def loaded(self) -> frozenset[str]:
        """The kinds whose class has been imported so far."""
        return frozenset(self._classes)


class KindAttribute(MutableMapping[str, Any]):
    """kind -> one attribute of its class (``check_args``, ``writes_devices``), read when a kind is looked up;
    a value set here (a kind's own override) wins."""

    def __init__(self, registry: KindRegistry, attribute: str) -> None:
        self._registry = registry
        self._attribute = attribute
        self._set: dict[str, Callable[..., Any]] = {}

    def __getitem__(self, kind: str) -> Any:
        if kind in self._set:
            return self._set[kind]
        return getattr(self._registry[kind], self._attribute)

    def __setitem__(self, kind: str, value: Any) -> None:
        self._set[kind] = value

    def __delitem__(self, kind: str) -> None:
        del self._set[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self._registry, *self._set]))

    def __len__(self) -> int:
        return len(dict.fromkeys([*self._registry, *self._set]))

    def __contains__(self, kind: object) -> bool:
        return kind in self._set or kind in self._registry
