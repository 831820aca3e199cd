"""cProfile of one ``planner apply`` over every thread (the fan-out's workers included), cumulative time.

    python benchmarks/observer/profile_apply.py N [--sort tottime] [--clock cpu] [--dump FILE]
                                                -- apply PLAN -i INVENTORY [apply options]

bench.py leaves its sweep plans and inventory in its --work folder (sweep-os.yaml, sweep-awr.yaml,
inventory.yml). Prints the N functions with the most cumulative time, summed over the threads. With
--clock cpu each thread is timed by its own CPU (time.thread_time), so waits (locks, select, the pool's queue)
cost nothing and the figures are CPU, not wall; --dump writes the merged stats (pstats) for a later diff.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from planner.cli.main import main  # noqa: E402


def profiled(argv: list[str], top: int, sort: str = "cumulative", clock: str = "wall", dump: str = "") -> str:
    profiles: list[cProfile.Profile] = []
    thread_run = threading.Thread.run

    def new() -> cProfile.Profile:
        return cProfile.Profile(time.thread_time) if clock == "cpu" else cProfile.Profile()

    def run(self: threading.Thread) -> None:
        p = new()
        profiles.append(p)
        p.enable()
        try:
            thread_run(self)
        finally:
            p.disable()

    threading.Thread.run = run  # type: ignore[method-assign]
    main_profile = new()
    main_profile.enable()
    try:
        code = main(argv)
    finally:
        main_profile.disable()
        threading.Thread.run = thread_run  # type: ignore[method-assign]
    out = io.StringIO()
    stats = pstats.Stats(main_profile, stream=out)
    for p in profiles:
        stats.add(p)
    if dump:
        stats.dump_stats(dump)
    stats.sort_stats(sort).print_stats(top)
    return f"exit code {code}\n" + out.getvalue()


if __name__ == "__main__":
    n, rest = int(sys.argv[1]), sys.argv[sys.argv.index("--") + 1:]
    head = sys.argv[2:sys.argv.index("--")]
    order = head[head.index("--sort") + 1] if "--sort" in head else "cumulative"
    clock = head[head.index("--clock") + 1] if "--clock" in head else "wall"
    dump = head[head.index("--dump") + 1] if "--dump" in head else ""
    print(profiled(rest, n, order, clock, dump), file=sys.__stdout__)
