"""The stand-in sqlplus's NLS: the client environment's language and number characters, as SQL*Plus honours them.

NOT Oracle. Sources (docs/oracle-behaviour.md, rows 41.n1-41.n4):
- NLS_LANG is ``language_territory.charset``; the language sets the messages, the territory the numeric
  conventions; unset, it is AMERICAN_AMERICA (Oracle Database Globalization Support Guide 19c, "Choosing a
  Locale with the NLS_LANG Environment Variable").
- NLS_NUMERIC_CHARACTERS, NLS_DATE_FORMAT... in the environment override what NLS_LANG implies, and are all
  ignored while NLS_LANG is unset (Oracle Database Platform Guide for Microsoft Windows 19c, "NLS_LANG and
  Other Globalization Parameters"; the same client library reads them on Linux).
- SQL*Plus prints a NUMBER with the session's decimal character (SQL*Plus User's Guide, "Formatting NUMBER
  Columns"; NLS_NUMERIC_CHARACTERS "specifies the characters to use as the decimal character and group
  separator", Globalization Support Guide).
- Under GERMAN, SQL*Plus heads an error with ``FEHLER in Zeile 1:`` and ORA- texts are German
  (``ORA-00942: Tabelle oder View nicht vorhanden``): public German SQL*Plus sessions, code index ids
  34170334843 and 34714321546.

State knob: ``login_env`` {NAME: value}: what the oracle user's login profile exports (inventory
``standin_nls_lang``, ``standin_nls_numeric_characters``); the process environment, set after the profile,
wins over it, as ``env NAME=value sqlplus`` does after a login shell.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# territory -> decimal character + group separator (the territories' defaults, Globalization Support Guide,
# Appendix A "Locale Data", Territories; only those the stand-in is asked for)
TERRITORY_NUMERIC = {"AMERICA": ".,", "UNITED KINGDOM": ".,", "GERMANY": ",.", "AUSTRIA": ",.",
                     "FRANCE": ", ", "ITALY": ",.", "SPAIN": ",.", "THE NETHERLANDS": ",.", "SWITZERLAND": ".'"}
LANGUAGE_TERRITORY = {"AMERICAN": "AMERICA", "ENGLISH": "UNITED KINGDOM", "GERMAN": "GERMANY",
                      "FRENCH": "FRANCE", "ITALIAN": "ITALY", "SPANISH": "SPAIN", "DUTCH": "THE NETHERLANDS"}
# (language) -> the error header and the ORA- texts the stand-in raises most, as that language prints them
ERROR_HEAD = {"GERMAN": "FEHLER in Zeile 1:"}
MESSAGES = {"GERMAN": {"ORA-00942": "Tabelle oder View nicht vorhanden"}}


@dataclass(frozen=True, slots=True)
class Nls:
    language: str = "AMERICAN"
    decimal: str = "."
    group: str = ","

    def number(self, value: Any) -> str:
        """A NUMBER as SQL*Plus prints it: the session's decimal character (no group separators by default)."""
        text = str(value)
        return text.replace(".", self.decimal) if self.decimal != "." else text

    def error_head(self) -> str:
        return ERROR_HEAD.get(self.language, "ERROR at line 1:")

    def message(self, line: str) -> str:
        code, sep, _text = line.partition(": ")
        local = MESSAGES.get(self.language, {}).get(code)
        return f"{code}{sep}{local}" if local and sep else line


def client_nls(state: Mapping[str, Any], environ: Mapping[str, str] = os.environ) -> Nls:
    """The session's NLS from the login profile's exports (state ``login_env``) overridden by the environment."""
    profile = state.get("login_env") if isinstance(state.get("login_env"), Mapping) else {}
    env = {**{str(k): str(v) for k, v in profile.items()}, **{k: v for k, v in environ.items() if k.startswith("NLS_")}}
    lang = env.get("NLS_LANG", "")
    if not lang:  # unset: AMERICAN_AMERICA, and every other NLS_* variable ignored
        return Nls()
    head = lang.split(".", 1)[0]
    language, _, territory = head.partition("_")
    language = language.strip().upper() or "AMERICAN"
    territory = territory.strip().upper() or LANGUAGE_TERRITORY.get(language, "AMERICA")
    chars = TERRITORY_NUMERIC.get(territory, ".,")
    given = env.get("NLS_NUMERIC_CHARACTERS", "")
    if len(given) == 2:
        chars = given
    return Nls(language, chars[0], chars[1])
