"""Swingbench's rehearsal stand-in: the folder a plan's ``home:`` names gets bin/charbench and bin/oewizard (the
programs in bin/ here, NOT Swingbench) and the SOE config charbench -c names (its <Connection> as Swingbench's
configs have it: UserName, Password, ConnectString, DriverType)."""

from __future__ import annotations

import re
from pathlib import Path

from planner.errors import StepError
from planner.kinds.swingbench.args import client_connect
from planner.rehearsal.kitsite import ClientSite, KitSite

BIN = Path(__file__).resolve().parent / "bin"
PROGRAMS = ("charbench", "oewizard")
SOE_CONFIG = "configs/SOE_Server_Side_V2.xml"


def install_home(root: Path, home: str) -> Path:
    """The stand-in folder at ``home`` in the sandbox ``root``: bin/charbench and bin/oewizard (linked, so they
    find their modules and the sandbox's state) and the SOE config. Returns the folder."""
    dest = Path(root) / home.lstrip("/")
    (dest / "bin").mkdir(parents=True, exist_ok=True)
    for prog in PROGRAMS:
        link = dest / "bin" / prog
        if not (link.is_symlink() or link.exists()):
            link.symlink_to(BIN / prog)
    config = dest / SOE_CONFIG
    if not config.exists():
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text('<?xml version = \'1.0\'?>\n<SwingBenchConfiguration xmlns="http://www.dominicgiles.com/'
                          'swingbench/config">\n   <Name>"Order Entry (PLSQL) V2"</Name>\n'
                          "   <Comment>PLANNER STAND-IN config</Comment>\n   <Connection>\n"
                          "      <UserName>soe</UserName>\n      <Password>soe</Password>\n"
                          "      <ConnectString>//localhost/soe</ConnectString>\n"
                          "      <DriverType>Oracle jdbc Driver</DriverType>\n   </Connection>\n"
                          "</SwingBenchConfiguration>\n")
    return dest


def install(site: KitSite) -> None:
    """The stand-in at the kit path the plan names (an absolute one: the step refuses any other)."""
    if site.absolute:
        install_home(site.root, site.path)


def serve_client(site: ClientSite) -> None:
    """A rehearsal's client host sees the lab's listener on the database host: the ``-cs`` the step gives oewizard
    and charbench there (a service name alone: //<oracle_host or the simulated address>:<oracle_port>/<service>;
    a string naming the database host: the user's) -> that host's stand-in state. The kit has no host line to make
    the database's: charbench takes no AWR snapshots (the engine takes them on the database host, whose state
    holds its inventory line), and its CPU model reads the database's state once the listener points it there."""
    given = str(site.args.get("connect") or "").strip()
    if not given:
        return  # none: the step's schema requires connect:, validate has refused the plan
    host, port = site.listener()
    try:
        connect = client_connect(given, (host, site.database.address, site.database.name), host, port)
    except StepError:
        return  # another host's database: the step refuses it (Swingbench.check_args), nothing to serve
    site.serve(connect)


def version() -> str:
    """The release the stand-in charbench prints (its ``VERSION``), for the rehearsal's world record."""
    m = re.search(r'^VERSION = "([^"]+)"', (BIN / "charbench").read_text(), re.M)
    return m.group(1) if m else "unknown"
