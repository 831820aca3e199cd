"""``python -m planner.rehearsal.standins.awrgen_cli slob --sessions 4 --out-dir DIR ...``: the stand-in SLOB
kit's report writer (planner/kinds/slob/bin/runit.sh). It writes awr.txt + awr.html (or statspack.txt),
and awr_rac.txt where SLOB does, from the model in awrgen and the layouts in awrgen_render and awrgen_rac.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

from planner.rehearsal.standins import awrgen_rac as rac
from planner.rehearsal.standins import awrgen_render as render
from planner.rehearsal.standins.awrgen import (
    MARKER,
    Instance,
    Interval,
    Workload,
    discover_host,
    load_db,
    load_instances,
    next_snap_id,
    simulate,
    slob_pool,
    state_dir,
)


def cli(argv: Sequence[str] | None = None) -> int:
    """``awrgen slob --out-dir DIR --sessions N [...]``: the stand-in kit's report writer; ``awrgen snap --out-dir
    DIR`` takes a snapshot id (prints it), so the kit's log says the ids its report then shows."""
    p = argparse.ArgumentParser(prog="awrgen", description=f"{MARKER}: write simulated AWR/Statspack reports")
    p.add_argument("what", choices=["slob", "snap"])
    p.add_argument("--out-dir", required=True)
    p.add_argument("--root", default=os.environ.get("PLANNER_ROOT", ""))
    p.add_argument("--sessions", type=int, default=0)
    p.add_argument("--begin-snap", type=int, default=0, help="the kit's begin snapshot id (default: take one)")
    p.add_argument("--end-snap", type=int, default=0, help="the kit's end snapshot id (default: take one)")
    p.add_argument("--update-pct", type=int, default=0)
    p.add_argument("--run-time", type=float, default=300.0)
    p.add_argument("--work-unit", type=int, default=64)
    p.add_argument("--redo-stress", default="LITE")
    p.add_argument("--scale-blocks", type=int, default=10000)
    p.add_argument("--schemas", type=int, default=1)
    p.add_argument("--stats", choices=["awr", "statspack"], default="awr")
    p.add_argument("--buffer-pool", default="", help="the BUFFER_POOL the workload's tables were created in "
                                                     "(default: USER1.CF1's in the stand-in database)")
    p.add_argument("--global-report", choices=["yes", "no"], default="no",
                   help="write awr_rac.txt (awrgrpt) on a single instance too, as SLOB 2.4+ runit.sh does")
    p.add_argument("--begin", help="ISO time of the begin snapshot (default: now - run time)")
    a = p.parse_args(argv)
    if a.what == "snap":
        print(next_snap_id(state_dir(a.root, Path(a.out_dir) / ".standin_state")))
        return 0
    w = Workload(a.sessions, a.update_pct, a.run_time, a.work_unit, a.redo_stress, a.scale_blocks, a.schemas)
    out = Path(a.out_dir)
    state = state_dir(a.root, out / ".standin_state")
    host, db = discover_host(), load_db(state, a.buffer_pool or slob_pool(state))
    begin = datetime.fromisoformat(a.begin) if a.begin else datetime.now() - timedelta(seconds=a.run_time)
    b = a.begin_snap or next_snap_id(state)
    iv = Interval(b, a.end_snap or next_snap_id(state), begin, a.run_time)
    fig = simulate(w, host, db)
    insts = load_instances(state)
    # On RAC the kit's awr.txt / statspack.txt is the instance it connected to (awrrpti: instance 1), with that
    # instance's share only; awr_rac.txt (awrgrpt) has the cluster (SLOB 2.x runit.sh f_generate_awr_report).
    mine = rac.per_instance(fig, insts)[0][1] if insts else fig
    if a.stats == "statspack":  # Statspack has no global report: per instance only, on RAC too
        (out / "statspack.txt").write_text(render.statspack(mine, host, db, iv, w.sessions))
    else:
        (out / "awr.txt").write_text(render.awr_text(mine, host, db, iv, w.sessions))
        (out / "awr.html").write_text(render.awr_html(mine, host, db, iv, w.sessions))
        if insts or a.global_report == "yes":  # SLOB 2.4+ runs awrgrpt.sql on every AWR run, RAC or not
            one = (Instance(db.inst_num, db.instance, host.name),)
            (out / "awr_rac.txt").write_text(rac.global_text(fig, host, db, iv, insts or one))
    return 0


if __name__ == "__main__":
    raise SystemExit(cli())
