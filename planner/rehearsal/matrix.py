"""The rehearsal matrix: the worlds a lab host can be (docs/rehearsal-matrix.md), as dimensions of named values.

A rehearsal runs in one world: ``planner apply --rehearse PLAN --world sshd=5.3 --world oracle=11.2.0.3``. Each
value says how the rehearsal builds it from real parts: programs covered in the sshds' mount namespace
(``Userland``), sshd restricted to an older release's algorithms (``SshdAlgorithms``), a distribution's
/etc/sudoers mounted over this machine's (``LabUser.sudoers``), or the stand-ins' variables (``-e``, below the
command line's own). A dimension left out keeps this machine's or the inventory's value, said as such.

Tool releases come from the kinds' stand-ins (a stand-in module's ``RELEASES`` and ``RELEASE_VAR``), so a release
a stand-in learns joins the matrix without a change here. ``pairwise`` is a deterministic pairwise cover of the
dimensions: every two values of two dimensions meet in some world, where the pair can exist at all.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planner import kindspec
from planner.errors import input_error
from planner.rehearsal.labworld import SshdAlgorithms, Userland
from planner.rehearsal.standins.profile import SlobRelease


class Needs(enum.Enum):
    """What a rehearsal must use for a dimension to matter (a PostgreSQL plan has no Oracle version)."""

    LAB = "the sshd lab"  # real sshd on loopback
    BECOME = "a become step as a non-root lab login"  # the inventory's ansible_user, real sudo, a step using it
    ORACLE = "an Oracle stand-in"
    KIT = "the kind's kit"  # Dimension.kind's stand-in kit on some host


@dataclass(frozen=True, slots=True)
class Value:
    """One value of a dimension: its name on the command line, its words in the banner, how it is built."""

    name: str
    words: str
    extra_vars: tuple[tuple[str, Any], ...] = ()  # stand-in variables, as -e sets them
    userland: tuple[Userland, ...] = ()
    sshd: SshdAlgorithms | None = None
    sudoers: str | None = None  # the /etc/sudoers text mounted over this machine's; None: this machine's
    ssh_args: str = ""  # ansible_ssh_common_args the world's inventory carries for its sshd
    shell: str = ""  # the login's shell (sshd hands it every command line); "": the lab's


@dataclass(frozen=True, slots=True)
class Dimension:
    key: str
    words: str
    needs: Needs
    values: tuple[Value, ...]
    kind: str = ""  # Needs.KIT: the workload kind whose kit it is


# The sudoers files distributions ship (docs/become.md has the table and its sources). The lab's admin rule
# (NOPASSWD for the login, in /etc/sudoers.d, which each of them includes) is the same in every world.
_RHEL_COMMON = ("Defaults   !visiblepw\nDefaults    always_set_home\nDefaults    env_reset\n"
                "Defaults    env_keep =  \"COLORS DISPLAY HOSTNAME HISTSIZE INPUTRC KDEDIR LS_COLORS\"\n"
                "Defaults    secure_path = /sbin:/bin:/usr/sbin:/usr/bin\nroot\tALL=(ALL) \tALL\n"
                "#includedir /etc/sudoers.d\n")
SUDOERS_RHEL_OLD = "Defaults    requiretty\n" + _RHEL_COMMON  # RHEL/OL 5, 6.0-6.7, 7.0-7.2
SUDOERS_RHEL = _RHEL_COMMON + "%wheel\tALL=(ALL)\tALL\n"  # RHEL/OL 6.8+, 7.3+, 8, 9
SUDOERS_SLES = ("Defaults always_set_home\nDefaults secure_path=\"/usr/sbin:/usr/bin:/sbin:/bin\"\n"
                "Defaults env_reset\nDefaults env_keep = \"LANG LC_ADDRESS LC_CTYPE LC_COLLATE LC_IDENTIFICATION "
                "LC_MEASUREMENT LC_MESSAGES LC_MONETARY LC_NAME LC_NUMERIC LC_PAPER LC_TELEPHONE LC_TIME LC_ALL "
                "LANGUAGE LINGUAS XDG_SESSION_COOKIE\"\nDefaults !insults\nDefaults targetpw\n"
                "ALL\tALL=(ALL) ALL\nroot ALL=(ALL) ALL\n#includedir /etc/sudoers.d\n")
SUDOERS_DEBIAN = ("Defaults\tenv_reset\nDefaults\tmail_badpass\nDefaults\tsecure_path=\"/usr/local/sbin:"
                  "/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\"\nDefaults\tuse_pty\nroot\tALL=(ALL:ALL) ALL\n"
                  "%sudo\tALL=(ALL:ALL) ALL\n@includedir /etc/sudoers.d\n")  # Debian 12's sudo package

# ansible_ssh_common_args a lab's inventory carries for an OpenSSH 5.3 host (OpenSSH's own client needs the same
# two lines in ~/.ssh/config: docs/userlands.md); without them planner refuses, naming them. The plain lists, not
# "+ssh-rsa": this machine's sshd, unlike 5.3, sends server-sig-algs (OpenSSH 7.2+), so a client appending ssh-rsa
# signs with rsa-sha2-512 first, which the restricted sshd refuses; a real 5.3 host would take "+ssh-rsa" too.
SSH_RSA_ARGS = "-o HostKeyAlgorithms=ssh-rsa -o PubkeyAcceptedAlgorithms=ssh-rsa"

_FIXED: tuple[Dimension, ...] = (
    Dimension("userland", "host userland", Needs.LAB, (
        Value("current", "this machine's"),
        Value("ol7", "OL7-like (setsid without -w)", userland=(Userland.SETSID_NO_WAIT,)),
        Value("ol6", "OL6-like (no realpath, setsid without -w)",
              userland=(Userland.NO_REALPATH, Userland.SETSID_NO_WAIT)))),
    Dimension("sshd", "sshd algorithm set", Needs.LAB, (
        Value("current", "this machine's"),
        Value("7.4", "OpenSSH 7.4p1's algorithms (RHEL/OL 7)", sshd=SshdAlgorithms.OPENSSH_7_4),
        Value("5.3", "OpenSSH 5.3p1's algorithms (RHEL/OL 6), the inventory adding " + SSH_RSA_ARGS,
              sshd=SshdAlgorithms.OPENSSH_5_3, ssh_args=SSH_RSA_ARGS))),
    Dimension("shell", "login shell", Needs.LAB, tuple(
        Value(name, f"login shell {path}", shell=path) for name, path in (
            ("bash", "/bin/bash"), ("ksh", "/bin/ksh"), ("csh", "/bin/csh")))),
    Dimension("sudoers", "default /etc/sudoers", Needs.BECOME, (
        Value("debian", "Debian 12's default /etc/sudoers", sudoers=SUDOERS_DEBIAN),
        Value("rhel-old", "RHEL/OL 5-7.2's default /etc/sudoers (requiretty)", sudoers=SUDOERS_RHEL_OLD),
        Value("rhel", "RHEL/OL 7.3-9's default /etc/sudoers", sudoers=SUDOERS_RHEL),
        Value("sles", "SLES's default /etc/sudoers (targetpw)", sudoers=SUDOERS_SLES))),
    Dimension("nls", "the oracle login's NLS", Needs.ORACLE, (
        Value("english", "NLS_LANG unset (AMERICAN_AMERICA)"),
        Value("german", "GERMAN_GERMANY.WE8ISO8859P1 with NLS_NUMERIC_CHARACTERS ',.' in the login profile",
              extra_vars=(("standin_nls_lang", "GERMAN_GERMANY.WE8ISO8859P1"),
                          ("standin_nls_numeric_characters", ",."))))),
    Dimension("oracle", "Oracle release", Needs.ORACLE, tuple(
        Value(v, f"Oracle {v}", extra_vars=(("oracle_version", v),))
        for v in ("11.2.0.3", "12.2.0.1", "19.3", "21.3"))),
    Dimension("topology", "Oracle topology", Needs.ORACLE, (
        Value("single", "non-CDB, single instance", extra_vars=(("oracle_cdb", False), ("oracle_rac", False))),
        # a lab's own PDB name, not the stand-in's old fixed PDB1: the stand-in CDB takes the inventory's oracle_pdb
        Value("cdb", "CDB with PDB SLOBPDB, single instance",
              extra_vars=(("oracle_cdb", True), ("oracle_pdb", "SLOBPDB"), ("oracle_rac", False))),
        Value("rac", "RAC node 1 of 2", extra_vars=(("oracle_rac", True),)))),
    Dimension("database", "database on the first day", Needs.ORACLE, (
        Value("fresh", "fresh (as DBCA leaves it)", extra_vars=(("standin_database", "fresh"),)),
        Value("loaded", "loaded (SLOB set up)", extra_vars=(("standin_database", "loaded"),)))),
    Dimension("slob", "SLOB kit release", Needs.KIT, tuple(
        Value(r.value, f"SLOB {r.value}", extra_vars=(("slob_release", r.value),)) for r in SlobRelease),
        kind="slob"),
)


def _tool_dimensions() -> tuple[Dimension, ...]:
    """A dimension per kind whose stand-in imitates several releases (its module's RELEASES, set by
    RELEASE_VAR); a stand-in of one release is no dimension (the world record still names it)."""
    out = []
    for spec in kindspec.specs():
        if not spec.standin:
            continue
        module = importlib.import_module(spec.standin.split(":")[0])
        releases, var = getattr(module, "RELEASES", ()), getattr(module, "RELEASE_VAR", "")
        if len(releases) > 1 and var:
            tool = spec.report.tool or spec.kind
            out.append(Dimension(spec.kind, f"{tool} release", Needs.KIT, tuple(
                Value(str(r), f"{tool} {r}", extra_vars=((var, str(r)),)) for r in releases), kind=spec.kind))
    return tuple(out)


def dimensions() -> tuple[Dimension, ...]:
    return _FIXED + _tool_dimensions()


@dataclass(frozen=True, slots=True)
class World:
    """The values a rehearsal builds, by dimension key; a dimension not named keeps this machine's/the inventory's."""

    chosen: tuple[tuple[str, Value], ...] = ()

    def value(self, key: str) -> Value | None:
        return next((v for k, v in self.chosen if k == key), None)

    def extra_vars(self) -> dict[str, Any]:
        return {k: v for _, value in self.chosen for k, v in value.extra_vars}

    @property
    def userland(self) -> tuple[Userland, ...]:
        return tuple(u for _, value in self.chosen for u in value.userland)

    @property
    def sshd(self) -> SshdAlgorithms | None:
        return next((v.sshd for _, v in self.chosen if v.sshd), None)

    @property
    def sudoers(self) -> str | None:
        return next((v.sudoers for _, v in self.chosen if v.sudoers), None)

    @property
    def shell(self) -> str:
        return next((v.shell for _, v in self.chosen if v.shell), "")

    @property
    def ssh_args(self) -> str:
        return " ".join(v.ssh_args for _, v in self.chosen if v.ssh_args)

    def words(self, key: str) -> str:
        v = self.value(key)
        return v.words if v else ""

    def args(self) -> list[str]:
        """``--world`` options rebuilding this world."""
        return [f"--world={k}={v.name}" for k, v in self.chosen]

    def key(self) -> str:
        return ",".join(f"{k}={v.name}" for k, v in self.chosen)


THIS_MACHINE = World()  # no dimension set: this machine's and the inventory's values


def parse_world(items: Sequence[str], where: str = "--world") -> World:
    """``KEY=VALUE`` items into a World; every unknown key or value at once, with the ones there are."""
    dims = {d.key: d for d in dimensions()}
    chosen: dict[str, Value] = {}
    errors = []
    for item in items:
        key, _, name = item.partition("=")
        dim = dims.get(key.strip())
        if dim is None:
            errors.append(input_error(f"{where} {item!r}: no dimension {key.strip()!r}",
                                      "use one of " + ", ".join(dims)))
            continue
        value = next((v for v in dim.values if v.name == name.strip()), None)
        if value is None:
            errors.append(input_error(f"{where} {item!r}: {dim.words} has no value {name.strip()!r}",
                                      f"use {key.strip()}=" + " | ".join(v.name for v in dim.values)))
            continue
        chosen[dim.key] = value
    if errors:
        raise errors[0] if len(errors) == 1 else _joined(errors)
    order = [d.key for d in dims.values()]
    return World(tuple(sorted(chosen.items(), key=lambda kv: order.index(kv[0]))))


def _joined(errors: list[Any]) -> Any:
    from planner.errors import InputError

    return InputError([p for e in errors for p in e.problems])


def allowed(world: Mapping[str, str]) -> bool:
    """Whether values (by dimension key) can exist together: a CDB needs 12.1+, and 21c is always one."""
    oracle, topology = world.get("oracle", ""), world.get("topology", "")
    if oracle and topology:
        major = int(oracle.split(".")[0])
        if topology == "cdb" and major < 12 or topology == "single" and major >= 21:
            return False
    return True


def pairwise(dims: Sequence[Dimension], ok: Callable[[Mapping[str, str]], bool] = allowed) -> list[World]:
    """A deterministic pairwise cover: every pair of values of two dimensions that ``ok`` allows is in some world.

    Greedy (as AETG): each world starts from the first pair still uncovered and takes, dimension by dimension,
    the value covering most uncovered pairs with the values already chosen (the first one on a tie)."""
    n = len(dims)
    uncovered = {(i, a, j, b) for i in range(n) for j in range(i + 1, n) for a in range(len(dims[i].values))
                 for b in range(len(dims[j].values)) if ok(_names(dims, {i: a, j: b}))}
    worlds: list[World] = []
    while uncovered:
        i, a, j, b = min(uncovered)
        row = {i: a, j: b}
        for k in range(n):
            if k in row:
                continue
            options = [c for c in range(len(dims[k].values)) if ok(_names(dims, {**row, k: c}))]
            if not options:
                raise ValueError(f"no value of {dims[k].key} fits {_names(dims, row)}")
            row[k] = max(options, key=lambda c: (sum(_pair(k, c, m, row[m]) in uncovered for m in row), -c))
        uncovered -= {_pair(p, row[p], q, row[q]) for p in row for q in row if p < q}
        worlds.append(World(tuple((dims[k].key, dims[k].values[row[k]]) for k in range(n))))
    return worlds


def _pair(p: int, a: int, q: int, b: int) -> tuple[int, int, int, int]:
    return (p, a, q, b) if p < q else (q, b, p, a)


def _names(dims: Sequence[Dimension], row: Mapping[int, int]) -> dict[str, str]:
    return {dims[k].key: dims[k].values[v].name for k, v in row.items()}


@dataclass(frozen=True, slots=True)
class Uses:
    """What one plan's rehearsal uses on this machine, which decides the dimensions that matter to it."""

    lab: bool  # reached over the sshd lab
    become: bool  # some step becomes root through real sudo, as a non-root lab login
    oracle: bool  # some host has the Oracle stand-ins
    kits: frozenset[str] = frozenset()  # the kinds whose kits some host gets

    def needs(self, dim: Dimension) -> bool:
        return {Needs.LAB: self.lab, Needs.BECOME: self.become, Needs.ORACLE: self.oracle,
                Needs.KIT: dim.kind in self.kits}[dim.needs]


def sample(plans: Sequence[tuple[str, Uses]], dims: Sequence[Dimension],
           ok: Callable[[Mapping[str, str]], bool] = allowed) -> list[tuple[str, World]]:
    """CI's sample: every plan once, then more rehearsals until every value of every dimension has been in one
    whose plan uses it. ``plans`` cheapest first: a value goes to the cheapest plan that can take it."""
    todo = {(d.key, v.name) for d in dims for v in d.values if any(u.needs(d) for _, u in plans)}
    out: list[tuple[str, World]] = []
    for plan, uses in plans:  # every plan once, each taking values not yet covered
        world = _next_world(uses, dims, todo, ok)
        out.append((plan, world))
        todo -= {(k, v.name) for k, v in world.chosen}
    while todo:
        plan, uses = next(((p, u) for p, u in plans if any(u.needs(d) and (d.key, v.name) in todo
                                                           for d in dims for v in d.values)))
        world = _next_world(uses, dims, todo, ok)
        out.append((plan, world))
        todo -= {(k, v.name) for k, v in world.chosen}
    return out


def _next_world(uses: Uses, dims: Sequence[Dimension], todo: set[tuple[str, str]],
                ok: Callable[[Mapping[str, str]], bool]) -> World:
    """For each dimension the plan uses, the first value not yet covered that fits the others, else the first
    value that fits."""
    chosen: dict[str, Value] = {}
    for d in dims:
        if not uses.needs(d):
            continue
        fits = [v for v in d.values if ok({**{k: c.name for k, c in chosen.items()}, d.key: v.name})]
        chosen[d.key] = next((v for v in fits if (d.key, v.name) in todo), fits[0])
    return World(tuple(chosen.items()))


def markdown() -> str:
    """The dimensions and the pairwise cover as docs/rehearsal-matrix.md lists them
    (``python -m planner.rehearsal.matrix``)."""
    dims = dimensions()
    lines = ["| dimension | needs | values (`--world KEY=VALUE`) |", "|---|---|---|"]
    lines += [f"| `{d.key}` ({d.words}) | {d.needs.value} | " + "; ".join(f"`{v.name}`: {v.words}" for v in d.values)
              + " |" for d in dims]
    lines += ["", "| # | " + " | ".join(d.key for d in dims) + " |", "|---" * (len(dims) + 1) + "|"]
    lines += [f"| {n} | " + " | ".join(w.words(d.key) and (w.value(d.key) or Value("", "")).name for d in dims) + " |"
              for n, w in enumerate(pairwise(dims), 1)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
