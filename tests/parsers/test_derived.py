"""Derived metrics: formulas in planner/parsers/derived.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.parsers import awr_html, awr_text, excerpt
from planner.parsers.derived import derive

DATA = Path(__file__).parents[1] / "data" / "awr"


def by_key(metrics: list) -> dict[str, float]:
    return {m.key: m.value for m in metrics}


def test_slob_122_html_iops_from_io_requests() -> None:
    d = derive(awr_html.parse((DATA / "awr_122_slob2.html").read_text()))
    assert all(m.derived for m in d)
    k = by_key(d)
    assert k["physical_read_iops{basis=requests}"] == 8047.3  # not the 64,077.9 blocks/s
    assert k["read_iops_per_core"] == pytest.approx(8047.3 / 48)
    assert k["redo_mb_per_s"] == pytest.approx(4567.7 / 1048576)
    assert k["logical_to_physical_ratio"] == pytest.approx(68115.4 / 64077.9)
    assert k["wait_class_share_pct{wait_class=User I/O}"] == pytest.approx(26400 / (1368.27 * 60) * 100)


def test_11201_blocks_basis_and_single_block_latency() -> None:
    k = by_key(derive(awr_text.parse((DATA / "awr_11201_orcl_fabioprado.txt").read_text())))
    assert k["physical_read_iops{basis=blocks}"] == 130.9
    assert k["single_block_read_latency_ms{event=db file sequential read}"] == pytest.approx(6575 / 35732 * 1000)
    assert k["wait_class_share_pct{wait_class=User I/O}"] == pytest.approx((6575 + 166 + 92) / 8484.3 * 100)


def test_seed_violin_20k_iops_per_core() -> None:
    p = excerpt.parse("Host Name Platform CPUs Cores Sockets Memory(GB) ---- oel57 Linux x86 64-bit 16 8 2 11.74\n"
                      "Load Profile Per Second\n~~~~~~~~~~~~ ---------------\nPhysical reads: 159,183.9")
    k = by_key(derive(p))
    assert k["read_iops_per_core"] == pytest.approx(19897.99, abs=0.01)  # "almost exactly 20k IOPS per core"


def test_exadata_cell_single_block_latency() -> None:
    p = excerpt.parse("Event Waits Time(s) (ms) time Wait Class\n"
                      "cell single block physical read 2,003,269 1,238 1 26.6 User I/O")
    k = by_key(derive(p))
    assert k["single_block_read_latency_ms{event=cell single block physical read}"] == \
        pytest.approx(1238 / 2003269 * 1000)


def test_rac_instance_without_io_requests_gets_no_iops() -> None:
    """11.2.0.3 prints only Physical reads (blocks): for one RAC instance that is no IOPS figure at all."""
    k = by_key(derive(awr_text.parse((DATA / "awr_11203_rac_askmaclean.txt").read_text())))
    assert not any("iops" in key for key in k)
    assert k["logical_to_physical_ratio{instance=1}"] == pytest.approx(196888.0 / 5076.7)


def test_rac_instance_report_gets_its_own_iops_from_io_requests() -> None:
    """The 18c RAC instance report (instance 1 of 2): Physical read IO requests 42.5/s in its Load Profile."""
    from planner.parsers import awr_html
    p = awr_html.parse((DATA / "awr_18c_rac_prdg_waits_activity.html").read_text())
    k = by_key(derive(p))
    assert k["physical_read_iops{basis=requests,instance=1}"] == p.value("physical_read_io_requests_per_s")
    assert "physical_read_iops{basis=requests}" not in k  # never headlined as a single instance's database
    assert k["single_block_read_latency_ms{event=cell single block physical read,instance=1}"] == \
        pytest.approx(452 / 1075359 * 1000, rel=0.01)
