"""The world a rehearsal simulated, per host: recorded in meta.json (``world``) and said in the report's banner.

A rehearsal passes or fails against the world it builds: a fresh or a loaded database, the login and how
become was reached, the Oracle release and topology, the kits' releases, this machine's userland, sshd and
sudoers. A reader of a rehearsal's report must know which world it was, in a DBA's words, not as keys.
The userland, sshd algorithm set and sudoers policy are the world's (``--world``, planner.rehearsal.matrix) or
this machine's, each said as such in its own text; NLS is what the oracle login's profile exports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from planner import kindspec


@dataclass(frozen=True, slots=True)
class HostWorld:
    """One simulated host's world. Empty text: not part of this host's rehearsal (no database, no such kit)."""

    host: str
    database: str = ""  # fresh | loaded | "" (no database stand-in on this host)
    server: str = ""  # a real server the rehearsal started for this host's clients, in words ("" for none)
    login_user: str = ""
    become: str = ""  # how become was reached, in words ("become through real sudo", "become was not exercised")
    oracle_version: str = ""
    cdb: bool = False
    pdb: str = ""
    rac: bool = False
    slob_release: str = ""
    # (tool, release) of each workload kind's stand-in installed on this host, as its spec's standin_version says
    tools: tuple[tuple[str, str], ...] = ()
    nls: str = ""
    userland: str = ""
    sshd: str = ""
    sudoers: str = ""
    shell: str = ""  # the login's shell, in words ("login shell /bin/ksh")
    # a host no play targets, simulated for a database host ("a simulated client host, the load generator of
    # alpha"); "" for a play host
    role: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "tools": [list(t) for t in self.tools]}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> HostWorld | None:
        """A record's entry; None when it is not one (an older or hand-edited meta.json)."""
        if not isinstance(raw, Mapping) or not isinstance(raw.get("host"), str):
            return None
        kw: dict[str, Any] = {}
        for f in fields(cls):
            value = raw.get(f.name)
            if f.name == "tools":
                kw[f.name] = _tools(raw)
            elif f.type in ("bool", bool):
                kw[f.name] = value is True
            elif isinstance(value, str):
                kw[f.name] = value[:200]
        return cls(**kw)

    def database_words(self) -> str:
        if not self.database:
            return self.server or "no database"
        what = ("a fresh database (as DBCA leaves it: no SLOB, TPC-C or SOE schema)" if self.database == "fresh"
                else "a loaded database (SLOB's, TPC-C's and SOE's schemas already built)")
        topology = "RAC (node 1 of 2)" if self.rac else "single instance"
        container = (f"a CDB with PDB {self.pdb}" if self.cdb and self.pdb else
                     "a CDB with no PDB named" if self.cdb else "non-CDB")
        return f"{what}, Oracle {self.oracle_version} {container}, {topology}"

    def describe(self) -> str:
        """One line a DBA reads: ``exadatax2-8: a fresh database ..., SLOB 2.5.3.0 kit; logged in as oracle ...``."""
        parts = [f"{self.role}, {self.database_words()}" if self.role else self.database_words()]
        kits = [f"SLOB {self.slob_release} kit" if self.slob_release else "",
                *(f"{tool} {release}" for tool, release in self.tools)]
        if any(kits):
            parts.append(", ".join(k for k in kits if k) + " (stand-ins)")
        login = f"logged in as {self.login_user}" if self.login_user else "logged in as the rehearsal's user"
        parts.append(f"{login}, {self.become}" if self.become else login)
        # each says whose it is: the world's (a matrix value) or "this machine's ..."
        lab = [f"NLS {self.nls}" if self.nls else "", f"userland {self.userland}" if self.userland else "",
               f"sshd {self.sshd}" if self.sshd else "", f"sudoers {self.sudoers}" if self.sudoers else "",
               self.shell]
        if any(lab):
            parts.append(", ".join(m for m in lab if m))
        return f"{self.host}: " + "; ".join(parts)


def _tools(raw: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The stand-ins' releases: ``tools`` as pairs, or, in a meta.json written before it, one field per kind
    named by the kind ({"<kind>": "4.12"}), spelt as its spec spells the tool."""
    listed = raw.get("tools")
    if isinstance(listed, list):
        return tuple((t[0][:200], t[1][:200]) for t in listed[:100]
                     if isinstance(t, list) and len(t) == 2 and all(isinstance(x, str) for x in t))
    old = [(s.report.tool or s.kind, raw[s.kind]) for s in kindspec.specs() if s.standin_version]
    return tuple((tool, value[:200]) for tool, value in old if isinstance(value, str) and value)


def worlds_from_json(raw: Any) -> tuple[HostWorld, ...]:
    if not isinstance(raw, list):
        return ()
    return tuple(w for w in (HostWorld.from_json(r) for r in raw[:1000]) if w is not None)
