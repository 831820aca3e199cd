"""A result's extra of planner's own prep and generic kinds is read without importing every workload kind's
extra module (issue 47: the store push after a prep-only apply imported nine). Exact only while every tag names
one type: tested here."""

from __future__ import annotations

from planner.extras import OWN_TYPES, CommandRun, SchedulersSet, decode
from planner.kindspec import load, specs
from planner.results.runfolder import extra_from_json, extra_types


def test_every_extra_tag_names_one_type() -> None:
    every = [*OWN_TYPES, *(load(w) for s in specs() for w in s.extras)]
    assert len({t.TYPE for t in every}) == len(every) == len(extra_types())


def test_own_extras_read_as_with_every_type() -> None:
    for extra in (CommandRun(0, "Linux lab01"), SchedulersSet((("sdb", "none"),), ("sdb",))):
        data = extra.to_json()
        assert extra_from_json(data) == decode(data, extra_types()) == extra
    damaged = {**CommandRun(0, "x").to_json(), "rc": "not a number"}
    assert type(extra_from_json(damaged)).__name__ == "Notes"  # kept as notes, as with every type
