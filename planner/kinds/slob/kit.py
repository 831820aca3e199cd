"""The user's SLOB kit as planner reads and drives it: its version, its slob.conf, what runit.sh refuses and
writes, and the shell snippets that back slob.conf up and collect the reports (planner.kinds.slob.step).

Kit version (``detect_version``), from the kit's own files, first match wins:
- no ``slob.conf`` in the kit: SLOB 1 (``runit.sh <writers> <readers>``; it had no configuration file);
- a version banner ``SLOB 2.n`` in slob.conf's comments, README or misc/ files decides: 2.4 or later is SLOB 2.4+
  (``runit.sh <schemas>``, or ``runit.sh -s <schemas> -t <threads>`` when threads_per_schema is given), earlier
  is SLOB 2.0-2.3 (``runit.sh <sessions>``);
- without a banner, a runit.sh that parses options (``getopts``, or a usage text naming ``-s <...> -t <...>``):
  SLOB 2.4+; otherwise SLOB 2.0-2.3.
"""

from __future__ import annotations

import enum
import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence

from planner.errors import StepError
from planner.steps.base import StepContext
from planner.steps.rac import Cluster, statspack_note
from planner.units import suffix_bytes

# What SLOB 2.x writes on RAC beside awr.txt (runit.sh f_generate_awr_report, planner.steps.rac), with the parser
# kind of each.
GLOBAL_OUTPUTS = (("awr_rac.txt", "awr_rac_text"), ("awr_rac.html.gz", "awr_rac_html"),
                  ("awr_rac.html", "awr_rac_html"))
BACKUP_SUFFIX = ".planner-orig"
ERROR_LINE = re.compile(r"^.*\b(ORA-\d{5}|SP2-\d{4}|FATAL)\b.*$", re.M)
OUTPUTS = ("awr.txt", "awr.html", "awr.html.gz", *(n for n, _ in GLOBAL_OUTPUTS), "statspack.txt", "iostat.out",
           "vmstat.out", "mpstat.out", "db_stats.out", "tm.out", "sqlplus.out",
           "slob_debug.out")  # runit.sh writes them
# Before runit.sh, one round trip: back up slob.conf (unless a crashed run left its backup, the real original),
# and remove the kit's reports of any earlier run.
PREPARE = ('k=$1; b=$2; shift 2; cd -- "$k" || exit 1; '
           'if [ -n "$b" ] && [ ! -e "$b" ]; then cp -p -- slob.conf "$b" || exit 1; fi; rm -f -- "$@"')
# After it, one round trip: drop the backup, copy this run's reports into the point folder, list them. They stay
# in the kit too, where a SLOB user looks for awr.txt after a run; the next point's PREPARE removes them first.
COLLECT = ('k=$1; d=$2; b=$3; shift 3; cd -- "$k" || exit 1; [ -z "$b" ] || rm -f -- "$b"; '
           'for f; do [ -f "$f" ] && cp -p -- "$f" "$d/$f" && printf "%s\\n" "$f"; done; exit 0')
MAX_SESSIONS = 4096  # 2.4.0 runit.sh:1129-1132: "Maximum tested active database session count is 4096."


class KitVersion(enum.Enum):
    SLOB1 = "1"
    SLOB2 = "2.0-2.3"
    SLOB24 = "2.4+"


def scale_blocks(scale: str | None, block_size: int = 8192) -> int:
    """slob.conf SCALE in blocks: a block count, or a size with K/M/G/T (SLOB 2.4+ f_fix_scale)."""
    text = (scale or "10000").strip().upper()
    m = re.fullmatch(r"(\d+)\s*([KMGT]?)", text)
    if not m:
        return 10000
    n = int(m.group(1))
    return (n if not m.group(2)
            else n * suffix_bytes(m.group(2)) // block_size)


def detect_version(runit: str | None, conf: str | None, notes: str = "") -> KitVersion:
    """See the module docstring. ``notes``: README / misc text that may carry a version banner. A banner states
    the release, so it decides both ways (a 2.3 banner is 2.0-2.3 whatever runit.sh's text mentions); only a kit
    without one is judged by its runit.sh."""
    if conf is None:
        return KitVersion.SLOB1
    m = re.search(r"SLOB\s+(\d+)\.(\d+)", (conf or "") + "\n" + notes)
    if m and int(m.group(1)) == 2:
        return KitVersion.SLOB24 if int(m.group(2)) >= 4 else KitVersion.SLOB2
    text = runit or ""
    if "getopts" in text or re.search(r"-s\s*<[^>]+>\s*-t\s*<", text):
        return KitVersion.SLOB24
    return KitVersion.SLOB2


def conf_value(conf: str, key: str) -> str | None:
    """A ``KEY=value`` from slob.conf text (quotes and trailing comments removed)."""
    found = None
    for line in conf.splitlines():
        m = re.match(rf"^\s*{key}\s*=\s*(.*)$", line)
        if m:
            raw = re.sub(r"\s+#.*$", "", m.group(1)).strip()
            found = raw.strip("\"'")
    return found


def render_conf(original: str, values: Mapping[str, str]) -> str:
    """The original slob.conf with ``values`` replacing their keys' lines (the rest appended), shell-quoted."""
    done: set[str] = set()
    out = []
    for line in original.splitlines():
        m = re.match(r"^\s*([A-Z_][A-Z0-9_]*)\s*=", line)
        if m and m.group(1) in values:
            key = m.group(1)
            if key not in done:
                out.append(f"{key}={shlex.quote(values[key])}   # set by planner")
                done.add(key)
            continue
        out.append(line)
    rest = [k for k in values if k not in done]
    if rest:
        out.append("# set by planner")
        out += [f"{k}={shlex.quote(values[k])}" for k in rest]
    return "\n".join(out) + "\n"


def capped(schemas: int, threads: int, source: str) -> int:
    """The sessions runit.sh connects (schemas x threads), refused above its MAX_SESSIONS."""
    if schemas * threads > MAX_SESSIONS:
        raise StepError(f"slob: {schemas} schemas x {threads} threads per schema ({source}) = {schemas * threads} "
                        f"sessions; runit.sh refuses more than {MAX_SESSIONS}",
                        hint="fewer readers/writers or a smaller THREADS_PER_SCHEMA")
    return schemas * threads


def sessions_words(schemas: int, sessions: int) -> str:
    """'4 sessions', or '64 schemas x 4 threads = 256 sessions' when THREADS_PER_SCHEMA multiplies them."""
    if sessions == schemas or schemas < 1:
        return f"{sessions} sessions"
    return f"{schemas} schemas x {sessions // schemas} threads = {sessions} sessions"


def data_bytes(conf: Mapping[str, str], original: str | None, schemas: int) -> int:
    """The data set the kit loads and reads: schemas x SCALE blocks of BLOCK_SZ (the point's slob.conf values)."""
    block = int(conf.get("BLOCK_SZ") or conf_value(original or "", "BLOCK_SZ") or 8192)
    return schemas * scale_blocks(conf.get("SCALE") or conf_value(original or "", "SCALE"), block) * block


# SLOB's users live in the PDB, but runit.sh and setup.sh connect by bequeath (ORACLE_SID), which lands in CDB$ROOT:
# in a PDB they must go over SQL*Net. SLOB 2.4.2 README, "SQL*Net Related Parameters": ADMIN_SQLNET_SERVICE is used by
# setup.sh and runit.sh for the admin connections, SQLNET_SERVICE_BASE by runit.sh for the SLOB sessions
# (docs/oracle-behaviour.md 25.11c).
PDB_SERVICES = ("ADMIN_SQLNET_SERVICE", "SQLNET_SERVICE_BASE")
PDB_HINT = ("set slob_sqlnet_service to a SQL*Net service of the PDB in the inventory (planner writes it as slob.conf "
            "ADMIN_SQLNET_SERVICE and SQLNET_SERVICE_BASE), or give both in the step's conf:")


def pdb_refusal(ctx: StepContext, original: str | None, values: Mapping[str, str]) -> str | None:
    """Why this point cannot run in the inventory's PDB (oracle_pdb), or None."""
    pdb = str(ctx.vars.get("oracle_pdb") or "")
    if not pdb or original is None:
        return None  # SLOB 1 has no slob.conf, nor SQL*Net settings: its run stays as it was
    missing = [k for k in PDB_SERVICES if not (values.get(k) or conf_value(original, k))]
    if not missing:
        return None
    return (f"oracle_pdb {pdb}: runit.sh and setup.sh connect by bequeath to CDB$ROOT, where SLOB's users are not, "
            f"unless slob.conf sets {' and '.join(missing)}")


def read_kit(ctx: StepContext, kit: str) -> tuple[str, str | None, KitVersion]:
    """(runit.sh, slob.conf or its planner backup, version) of the kit folder ``kit`` (root-mapped)."""
    runit = ctx.conn.read_text(posixpath.join(kit, "runit.sh"))
    if runit is None:
        raise StepError(f"slob: no runit.sh in {kit}", hint="kit is the SLOB folder holding runit.sh")
    backup = ctx.conn.read_text(posixpath.join(kit, "slob.conf" + BACKUP_SUFFIX))
    conf = backup if backup is not None else ctx.conn.read_text(posixpath.join(kit, "slob.conf"))
    notes = "\n".join(t[:4000] for t in (ctx.conn.read_text(posixpath.join(kit, n))
                                         for n in ("README", "README.md", "misc/README")) if t)
    return runit, conf, detect_version(runit, conf, notes)


def rac_note(c: Cluster, stats: str, fetched: Sequence[str]) -> str:
    """What the SLOB outcome says about the cluster: '' on a single instance without a global report."""
    kept = [n for n, _ in GLOBAL_OUTPUTS if n in fetched]
    if not c.rac:
        return (f"single instance ({c.why}): the kit's {', '.join(kept)} kept but not read as a cluster's "
                "figures (SLOB 2.4+ writes it on every AWR run, RAC or not)") if kept else ""
    if kept:
        return f"RAC: cluster totals from the kit's global report ({', '.join(kept)}), as {c.why}"
    if stats == "statspack":
        return statspack_note(c)
    return (f"RAC ({c.why}) but the kit wrote no awr_rac.txt / awr_rac.html.gz (awrgrpt): the figures are one "
            "instance's awr.txt, not the cluster's")
