"""The OS samplers' per-interval values kept as a point's series, from real iostat and mpstat output."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.engine.os_series import build

DATA = Path(__file__).parents[1] / "data" / "ostats"


def test_mpstat_busy_share_per_interval_without_the_average_rows() -> None:
    (s,) = build([(DATA / "mpstat-P-ALL.txt", "mpstat")], 1.0)
    assert (s.metric, s.label("cpu"), s.unit) == ("mpstat.busy_pct", "all", "%")
    assert s.t == (0.0, 1.0) and s.values == pytest.approx((1.49, 0.0))  # 100 - %idle; "Average:" is no interval


def test_iostat_per_device_skips_the_since_boot_report() -> None:
    got = {s.metric: s for s in build([(DATA / "iostat-x-t.txt", "iostat")], 2.0)}
    assert set(got) == {"iostat.iops", "iostat.mbs", "iostat.await_ms"}
    iops = got["iostat.iops"]
    assert iops.label("device") == "vda" and iops.t == (0.0,) and iops.values == (1.0,)  # 0 r/s + 1 w/s
    assert got["iostat.mbs"].values == pytest.approx((12 * 1024 / 1e6,))


def test_an_unreadable_sampler_file_gives_no_series(tmp_path: Path) -> None:
    bad = tmp_path / "iostat.txt"
    bad.write_text("Device r/s\nsda x\n")
    assert build([(bad, "iostat"), (tmp_path / "fio.json", "fio_json")], 1.0) == ()
