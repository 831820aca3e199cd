"""A kit's tablespace that exists on other storage is refused with a hint naming the option that chose its name:
the shared helper once told every kit (HammerDB's tpcc_tablespace too) to rename ``slob_tablespace``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from planner.db.access import Row
from planner.db.segments import ensure_tablespace
from planner.errors import StepError


class _Dictionary:
    """The two dictionary views ensure_tablespace reads (the planner.db.access.Database protocol): tablespace
    ``SOE`` exists, its one file on /u02."""

    def query(self, sql: str, binds: Mapping[str, Any] | None = None) -> list[Row]:
        if "dba_tablespaces" in sql:
            return [("SOE",)]
        return [("/u02/oradata/soe01.dbf",)]

    def execute(self, sql: str, binds: Mapping[str, Any] | None = None) -> str:
        raise AssertionError(f"nothing is created when the tablespace exists: {sql}")

    def callproc(self, name: str, args: Sequence[Any] = (), out_types: Sequence[type] = ()) -> list[Any]:
        raise AssertionError(name)

    def callfunc(self, name: str, return_type: type, args: Sequence[Any] = ()) -> Any:
        raise AssertionError(name)

    def close(self) -> None:
        pass


def test_an_existing_tablespace_elsewhere_is_refused_naming_the_option_that_chose_it() -> None:
    with pytest.raises(StepError) as told:
        ensure_tablespace(_Dictionary(), "soe", "+DATA", "10G", option="tpcc_tablespace")
    assert "tablespace SOE exists on /u02/oradata/soe01.dbf, not on +DATA" in str(told.value)
    assert told.value.hint.startswith("give tpcc_tablespace a new name")


def test_without_an_option_the_hint_names_no_other_kits_variable() -> None:
    with pytest.raises(StepError) as told:
        ensure_tablespace(_Dictionary(), "soe", "+DATA", "10G")
    assert told.value.hint == "give the tablespace a new name, or drop that tablespace yourself"
