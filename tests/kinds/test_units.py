"""One size reader (planner.units), and each caller keeping its own tool's meaning of a size."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from planner.errors import StepError
from planner.units import GIB, KIB, MIB, parse_size


@pytest.mark.parametrize(("text", "kw", "want"), [
    ("8192", {}, 8192.0),
    ("512M", {}, 512.0 * MIB),
    ("512m", {}, 512.0 * MIB),
    ("512m", {"ignore_case": False}, None),
    ("1.5G", {}, None),
    ("1.5G", {"fraction": True}, 1.5 * GIB),
    ("64MB", {}, None),
    ("64MB", {"byte_suffix": True}, 64.0 * MIB),
    ("4 G", {}, None),
    ("4 G", {"space": True}, 4.0 * GIB),
    ("2P", {}, None),
    ("2P", {"suffixes": "KMGTP"}, 2.0 * (1 << 50)),
    ("8k", {}, 8.0 * KIB),
    ("", {}, None),
    (" 2G", {}, None),
    ("-1", {}, None),
    ("12", {"suffixes": ""}, 12.0),
    ("12K", {"suffixes": ""}, None),
])
def test_parse_size_reads_what_the_caller_allows(text: str, kw: dict[str, object], want: float | None) -> None:
    assert parse_size(text, **kw) == want  # type: ignore[arg-type]


# -- each caller, its tool's meaning ---------------------------------------------------------------------------

def test_fetch_max_size_is_whole_bytes_any_case_and_blanks_forgiven() -> None:
    from planner.transport.streams import fetch_cap
    from planner.transport.streams import parse_size as fetch_size

    assert fetch_size("512m") == 512 * MIB and fetch_size(" 2G ") == 2 * GIB and fetch_size(123) == 123
    assert fetch_cap(None, {"planner_fetch_max_size": "1T"}) == 1 << 40
    for bad in ("0", "1.5G", "64MB", "2P", "-5", ""):
        with pytest.raises(StepError, match="max_size must be a size"):
            fetch_size(bad)


def test_awr_cache_sizes_are_megabytes_with_thousands_and_upper_case_units() -> None:
    from planner.parsers.awr_common import parse_size_mb

    assert parse_size_mb("20,480M") == 20480.0
    assert parse_size_mb(" 288,028K ") == 288028 / 1024
    assert parse_size_mb("1G") == 1024.0
    assert parse_size_mb("1048576") == 1.0  # a bare cell is bytes
    assert parse_size_mb("1g") is None  # AWR prints upper case; anything else is not a Cache Sizes cell
    assert parse_size_mb("1,2M") is None  # not grouped by three: a decimal comma, not read as 12


def test_hugepages_size_is_binary_with_fraction_and_optional_b() -> None:
    from planner.steps.prep_os import Hugepages

    ctx = SimpleNamespace(conn=SimpleNamespace(read_text=lambda _p: "Hugepagesize:       2048 kB\n"),
                          path=lambda p: p)
    assert Hugepages({"size": "1.5g"}).wanted(ctx)["vm.nr_hugepages"] == "768"  # type: ignore[arg-type]
    assert Hugepages({"size": "8GB"}).wanted(ctx)["vm.nr_hugepages"] == "4096"  # type: ignore[arg-type]
    assert Hugepages({"size": "3M"}).wanted(ctx)["vm.nr_hugepages"] == "2"  # type: ignore[arg-type]
    for bad in ("8P", " 8G", "8 G", "G"):
        with pytest.raises(StepError, match="hugepages size must be"):
            Hugepages({"size": bad}).validate()


def test_init_ora_sizes_are_whole_with_k_to_p_any_case() -> None:
    from planner.steps.prep_db import Param, canon

    big = Param("db_cache_size", 6, "0", "IMMEDIATE")
    assert canon(big, "64m") == str(64 * MIB) and canon(big, "1P") == str(1 << 50) and canon(big, "'8K'") == "8192"
    assert canon(big, "1.5G") == "1.5G"  # not a size Oracle takes: compared as text


def test_slob_scale_counts_blocks_bare_and_bytes_with_a_suffix() -> None:
    from planner.kinds.slob.kit import scale_blocks

    assert scale_blocks("10000") == 10000 and scale_blocks("1G") == GIB // 8192 and scale_blocks("1 g") == GIB // 8192
    assert scale_blocks("64M", 16384) == 64 * MIB // 16384 and scale_blocks(None) == 10000
    assert scale_blocks("1.5G") == 10000 and scale_blocks("1P") == 10000  # SLOB refuses these: its default


def test_iozone_record_size_is_kib_bare_and_k() -> None:
    from planner.kinds.iozone.parse import _record_kb
    from planner.kinds.iozone.sizes import size_kb as record_kb

    assert record_kb("8") == 8.0 and record_kb("8k") == 8.0 and record_kb("1m") == 1024.0
    assert record_kb("1G") == 1024.0 ** 2
    assert record_kb(" 16K ") == 16.0 and record_kb("1t") is None and record_kb(None) is None
    assert _record_kb("\tCommand line used: iozone -t 4 -r 1m -s 1g\n") == 1024.0
    assert _record_kb("\tCommand line used: iozone -t 4 -r 64 -s 1g\n") == 64.0


def test_asm_au_size_is_whole_with_k_m_g_and_an_optional_b() -> None:
    from planner.steps.prep_asm import AsmDisk, AsmDiskgroup, AsmPlan

    plan = AsmPlan("SLOB", False, (AsmDisk("/dev/sdb", "CANDIDATE", 0, None),))
    sql = AsmDiskgroup({"name": "SLOB", "disks": ["/dev/sdb"], "au_size": "4mb"})._create_sql(plan)
    assert sql.endswith("attribute 'au_size'='4M'")
    for bad in ("4T", "1.5M", "4 M"):
        with pytest.raises(StepError, match="au_size must be a size"):
            AsmDiskgroup({"name": "SLOB", "disks": ["/dev/sdb"], "au_size": bad})._create_sql(plan)
