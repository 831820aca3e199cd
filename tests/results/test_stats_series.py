"""Series over repeats (planner/results/stats.py series): labels that only restate the sweep point."""

from __future__ import annotations

from planner.metrics import Direction
from planner.results.measure import Measurement
from planner.results.stats import series


def _m(threads: int, procs: int, test: str, value: float, metric: str = "iozone.iops", repeat: int = 0,
       step: str = "plays[0].workloads[0]") -> Measurement:
    return Measurement(run_id="r", play="ssd", host="h", step=step, title="iozone", kind="iozone",
                       artifact="a", artifact_kind="iozone", params=(("threads", threads),), point=None,
                       repeat=repeat, warmup=False, metric=metric,
                       labels=(("view", "parent"), ("test", test), ("procs", str(procs))), value=value,
                       unit="IO/s", direction=Direction.HIGHER, simulated=False)


def test_a_label_restating_the_sweep_point_is_left_out_of_the_key() -> None:
    ms = [_m(4, 4, "random readers", 10_666.7), _m(4, 4, "random writers", 9_600.0),
          _m(16, 16, "random readers", 21_333.3), _m(16, 16, "random writers", 19_200.0),
          _m(16, 16, "random readers", 21_000.0, repeat=1)]
    ss = series(ms)
    readers = [s for s in ss if s.label("test") == "random readers"]
    # one key across the sweep, so the sweep table and chart show threads=4 and threads=16 side by side
    assert {s.key for s in readers} == {"iozone.iops{view=parent,test=random readers}"}
    assert [(s.point_label, s.values) for s in readers] == [("threads=4", (10_666.7,)),
                                                           ("threads=16", (21_333.3, 21_000.0))]
    assert all(s.label("procs") == "" for s in ss)


def test_labels_that_vary_inside_a_point_or_not_at_all_stay() -> None:
    # one point only: nothing restates a sweep
    assert series([_m(4, 4, "random readers", 1.0)])[0].key == \
        "iozone.iops{view=parent,test=random readers,procs=4}"
    # procs varies inside each point (iozone -l 1 -u 4 prints 1..4 procs in one run): it is data, kept
    ms = [_m(4, p, "random readers", float(p)) for p in (1, 2)] + [_m(8, p, "random readers", float(p)) for p in (1, 2)]
    assert {s.label("procs") for s in series(ms)} == {"1", "2"}
