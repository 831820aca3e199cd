"""The client hosts a rehearsal simulates (docs/load-generator-host.md): a database host's ``load_generator_host``.

A rehearsal must never reach a real host, the client the inventory names included: the client gets a sandbox of
its own as every play host does, with the kit of the generator steps that run there and no database, and the
runner is handed that simulated host. What the client reaches over the lab's network (the database host's
listener) is the kind's to say, through its spec's ``Oltp.rehearse_client`` (planner.rehearsal.kitsite.ClientSite):
this module names no kind.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner import kindspec
from planner.host import Host
from planner.plan.model import Plan, Play, StepSpec
from planner.plan.templating import render, variables_for
from planner.rehearsal.kitsite import ClientSite
from planner.rehearsal.standins import STATE_REL
from planner.variables import LOAD_GENERATOR_HOST


@dataclass(frozen=True, slots=True)
class ClientUse:
    """One generator step of a database host that runs on its client host."""

    client: str  # the client host's name (the database host's load_generator_host)
    database: str  # the database host's name
    kind: str
    args: Mapping[str, Any]  # the step's arguments, rendered for the database host


def _generator_steps(play: Play) -> Iterator[StepSpec]:
    oltp = kindspec.oltp()
    for spec in (*play.prep, *play.workloads, *play.collect):
        if spec.kind in oltp and oltp[spec.kind].generator:
            yield spec


def client_uses(plan: Plan, play_hosts: Mapping[str, list[Host]], extra_vars: Mapping[str, Any]) -> list[ClientUse]:
    """Every generator step whose database host names another host as its load generator, as the runner reads the
    variable (planner.engine.runner ``_generators``: the step's variables on the database host)."""
    uses: list[ClientUse] = []
    for play in plan.plays:
        steps = list(_generator_steps(play))
        for host in play_hosts.get(play.name, ()) if steps else ():
            variables = variables_for(plan, play, host, extra_vars)
            name = str(variables.get(LOAD_GENERATOR_HOST.name) or "").strip()
            if name and name != host.name:
                uses += [ClientUse(name, host.name, s.kind, render(dict(s.args), variables)) for s in steps]
    return uses


def kits_where_run(uses: list[ClientUse], kits: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    """Host -> {kind: kit path}, a generator step's kit moved from its database host to the client that runs it:
    the step runs the program there, and a database host whose load is generated elsewhere needs no kit (a step
    that ran it there anyway would find none, as on the real host)."""
    out = {host: dict(k) for host, k in kits.items()}
    for use in uses:
        path = kits.get(use.database, {}).get(use.kind)
        if path:
            out.setdefault(use.client, {})[use.kind] = path
            out.get(use.database, {}).pop(use.kind, None)
    return out


def serve(uses: list[ClientUse], sims: Mapping[str, Host], roots: Mapping[str, Path]) -> None:
    """What each simulated client reaches over the lab's network, as its kind says (its listener file...)."""
    oltp = kindspec.oltp()
    for use in uses:
        hook = oltp[use.kind].rehearse_client
        if hook:
            kindspec.load(hook)(ClientSite(roots[use.client], sims[use.client], sims[use.database],
                                           roots[use.database], use.args))


def share_state(uses: list[ClientUse], sims: Mapping[str, Host], roots: Mapping[str, Path],
                ids: Callable[[str], tuple[int, int]]) -> list[Path]:
    """Open a database host's stand-in state folder to its client's login where that is another user (the lab
    hands each sandbox to its own login): the stand-in on the client does the database's work there, which a real
    database does for any client over the network, whoever the client's OS user is. The folder gets the client's
    group and group write (the state is replaced through a file beside it); the database's login keeps owning it.
    Returns the folders opened."""
    opened: list[Path] = []
    for use in uses:
        client, database = sims[use.client].user, sims[use.database].user
        folder = (roots[use.database] / STATE_REL).parent
        if client and database and client != database and folder.is_dir():
            os.chown(folder, -1, ids(str(client))[1])
            folder.chmod(0o775)
            opened.append(folder)
    return opened


def role(uses: list[ClientUse], name: str) -> str:
    """How the world record names a simulated client host ("" for a play host)."""
    dbs = sorted({u.database for u in uses if u.client == name})
    return f"a simulated client host, the load generator of {', '.join(dbs)}" if dbs else ""
