"""NLS (issue 41): the oracle user's login profile commonly exports NLS_LANG (GERMAN_GERMANY.WE8ISO8859P1),
NLS_NUMERIC_CHARACTERS...; the stand-in sqlplus honours them as SQL*Plus does (bin/_standin_nls.py) and every
session planner opens pins its own (planner.db.config.NLS_ENV). docs/oracle-behaviour.md rows 41.n1-41.n4."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from prep_helpers import context

from planner.db.access import config_for, open_database
from planner.errors import OracleError
from planner.rehearsal.standins import DEFAULT_HOME, install_standins
from planner.rehearsal.standins.profile import HostProfile, profile_for

GERMAN = "GERMAN_GERMANY.WE8ISO8859P1"


def test_the_login_profiles_nls_is_an_inventory_knob() -> None:
    p = profile_for({"standin_nls_lang": GERMAN, "standin_nls_numeric_characters": ",."})
    assert (p.nls_lang, p.nls_numeric_characters) == (GERMAN, ",.")
    assert profile_for({}).nls_lang == ""


def _standin_sqlplus(root: Path, script: str, **env: str) -> str:
    """The stand-in sqlplus started as a session that planner did not pin: only ``env`` and the profile."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("NLS_")}
    base.update(ORACLE_HOME=DEFAULT_HOME, ORACLE_SID="orcl", **env)
    r = subprocess.run([str(root) + DEFAULT_HOME + "/bin/sqlplus", "-S", "/ as sysdba"], input=script, text=True,
                       capture_output=True, env=base, check=False)
    return r.stdout


@pytest.mark.slow
def test_the_standin_sqlplus_prints_by_the_profiles_nls_unless_the_environment_says_otherwise(tmp_path: Path) -> None:
    install_standins(tmp_path, profile=HostProfile(nls_lang=GERMAN))
    script = "select 1234.5 from dual;\nselect x from nosuch;\nexit\n"
    german = _standin_sqlplus(tmp_path, script)
    assert "1234,5" in german and "FEHLER in Zeile 1:" in german
    assert "ORA-00942: Tabelle oder View nicht vorhanden" in german
    american = _standin_sqlplus(tmp_path, script, NLS_LANG="AMERICAN_AMERICA.AL32UTF8")
    assert "1234.5" in american and "ERROR at line 1:" in american and "table or view does not exist" in american
    # NLS_NUMERIC_CHARACTERS alone is ignored while NLS_LANG is unset (the profile here exports none)
    install_standins(tmp_path / "plain", profile=HostProfile())
    assert "1234.5" in _standin_sqlplus(tmp_path / "plain", script, NLS_NUMERIC_CHARACTERS=",.")
    assert "1234,5" in _standin_sqlplus(tmp_path / "plain", script, NLS_LANG="AMERICAN_AMERICA",
                                        NLS_NUMERIC_CHARACTERS=",.")


@pytest.mark.slow
def test_planners_sessions_pin_nls_whatever_the_login_profile_exports(tmp_path: Path) -> None:
    install_standins(tmp_path, profile=HostProfile(nls_lang=GERMAN, nls_numeric_characters=",."))
    ctx = context(tmp_path)
    db = open_database(ctx, config_for(ctx))
    assert db.query("select 1234.5 from dual") == [("1234.5",)]
    with pytest.raises(OracleError, match="ORA-00942: table or view does not exist"):
        db.query("select x from nosuch")


def _german(text: str) -> str:
    """A real report's numbers as SQL*Plus prints them under NLS_NUMERIC_CHARACTERS=',.' (41.n3)."""
    import re

    return re.sub(r"\d[\d,]*\.\d+|\d{1,3}(?:,\d{3})+",
                  lambda m: m.group().replace(",", "\0").replace(".", ",").replace("\0", "."), text)


@pytest.mark.parametrize("name", ["awr/awr_11201_orcl_fabioprado.txt", "statspack/sp_11204_igt.txt"])
def test_a_report_written_with_decimal_commas_is_refused_by_name_never_misread(name: str) -> None:
    from planner.errors import ParseError
    from planner.parsers import parse_text

    data = Path(__file__).parents[1] / "data" / name
    german = _german(data.read_text())
    with pytest.raises(ParseError, match=r"decimal comma.*NLS_NUMERIC_CHARACTERS") as e:
        parse_text(german, name)
    assert e.value.line is not None
    parse_text(data.read_text(), name)  # the report as written under '.,' reads as before
