"""The PostgreSQL findings of a pgbench study (issue 44), from the measurements of its points: the data set in
shared_buffers or the OS cache, a checkpoint or autovacuum inside a window, saturation across the client sweep."""

from __future__ import annotations

from pathlib import Path

from planner.kinds.pgbench.findings import run_findings
from planner.metrics import Direction
from planner.results.measure import Measurement, RunData
from planner.results.runfolder import RunMeta

GIB = 1 << 30


def _m(clients: int, kind: str, metric: str, value: float, **labels: str) -> Measurement:
    return Measurement("run1", "p", "db1", "plays[0].workloads[0]", "pgbench", "pgbench", f"{clients}/{kind}",
                       kind, (("clients", clients),), clients, 0, False, metric, tuple(labels.items()), value, "",
                       Direction.NEUTRAL, False)


def _point(clients: int, tps: float, latency_ms: float, **pg: float) -> list[Measurement]:
    out = [_m(clients, "pgbench", "pgbench.clients", clients), _m(clients, "pgbench", "pgbench.threads", clients),
           _m(clients, "pgbench", "pgbench.scale", 100), _m(clients, "pgbench", "pgbench.duration_s", 600),
           _m(clients, "pgbench", "pgbench.tps", tps), _m(clients, "pgbench", "pgbench.latency_ms", latency_ms,
                                                           stat="avg")]
    return out + [_m(clients, "pg_stat", f"pg_stat.{k}", v) for k, v in pg.items()]


def _run(tmp: Path, *points: list[Measurement], memory_gb: float = 0) -> RunData:
    return RunData(tmp, RunMeta.from_mapping({"plays": [{"name": "p"}]}), (), tuple(m for p in points for m in p),
                   (), {"db1": {"memory_gb": memory_gb}} if memory_gb else {}, ())


def _codes(data: RunData) -> list[tuple[str, str]]:
    return [(f.code, f.point) for f in run_findings(data)]


def test_a_data_set_in_shared_buffers_is_said_once_for_the_sweep(tmp_path: Path) -> None:
    big = {"shared_buffers_bytes": 8 * GIB, "database_bytes": 1.5 * GIB}
    found = run_findings(_run(tmp_path, _point(8, 1000, 8, **big), _point(16, 2000, 8, **big)))
    fits = [f for f in found if f.code == "pgbench_data_in_shared_buffers"]
    assert len(fits) == 1 and "1,536 MiB and shared_buffers is 8,192 MiB" in fits[0].message
    assert "Resource Consumption, shared_buffers" in fits[0].message


def test_a_data_set_in_the_os_cache_and_the_scale_estimate(tmp_path: Path) -> None:
    # no pg_stat record: pgbench's scale 100 at about 15 MiB a unit, against 32 GiB of memory
    found = run_findings(_run(tmp_path, _point(8, 1000, 8), memory_gb=32))
    (f,) = [f for f in found if f.code == "pgbench_data_in_os_cache"]
    assert "scale 100 at about 15 MiB a unit is 1,500 MiB" in f.message
    # a data set larger than memory: neither
    large = {"shared_buffers_bytes": 8 * GIB, "database_bytes": 64 * GIB}
    assert not [c for c in _codes(_run(tmp_path, _point(8, 1000, 8, **large), memory_gb=32)) if "data_in" in c[0]]


def test_a_checkpoint_and_autovacuum_inside_a_window_are_named_at_their_point(tmp_path: Path) -> None:
    quiet = {"checkpoints": 0, "autovacuum_runs": 0, "autovacuum_workers": 0}
    busy = {"checkpoints": 2, "checkpoints_requested": 1, "checkpoint_buffers": 12345, "autovacuum_runs": 0,
            "autovacuum_workers": 1}
    codes = _codes(_run(tmp_path, _point(8, 1000, 8, **quiet), _point(16, 2000, 8, **busy)))
    assert ("pgbench_checkpoint_in_window", "clients=16") in codes
    assert ("pgbench_autovacuum_in_window", "clients=16") in codes
    assert not [c for c in codes if c[1] == "clients=8"]


def test_saturation_is_where_tps_flattens_and_latency_grows(tmp_path: Path) -> None:
    sweep = [_point(4, 1000, 4.0), _point(8, 1900, 4.2), _point(16, 2000, 8.0), _point(32, 2010, 15.9)]
    (f,) = [f for f in run_findings(_run(tmp_path, *sweep)) if f.code == "pgbench_saturation"]
    assert f.point == "clients=16" and "saturated at about 8 clients" in f.message and "Little's law" in f.message
    # TPS that keeps growing with the clients is no saturation
    scaling = [_point(4, 1000, 4.0), _point(8, 1950, 4.1), _point(16, 3800, 4.2)]
    assert "pgbench_saturation" not in [c for c, _ in _codes(_run(tmp_path, *scaling))]
