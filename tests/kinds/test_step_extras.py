"""A kind's extra (planner.extras) is a typed record that results.json keeps in the shape planner wrote before:
each reads back as itself, and an old or damaged ``data`` object reads as Notes, never an error."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest

from planner.extras import (
    CagingSeen,
    ClusterSeen,
    CommandRun,
    ContainerSeen,
    FactsGathered,
    InitOraDone,
    Notes,
    SchedulersSet,
    StepExtra,
)
from planner.kinds.slob.extra import SlobCache, SlobPoint
from planner.results.runfolder import extra_from_json, result_from_json, result_to_json
from planner.status import Status, StepResult

SLOB = SlobPoint(4, 2, 2, 0, "2.5.0", "awr", "the kit's default",
                 SlobCache("KEEP", "KEEP", 64 << 20, 1 << 30, 6.2, MappingProxyType({"KEEP": 64 << 20}),
                           MappingProxyType({"owner": "USER1", "table": "CF1", "tablespace": "IOPS",
                                             "buffer_pool": "KEEP", "files": ["+DATA/x.dbf"]})),
                 ContainerSeen(True, "PDB1", True, "PDB PDB1 of a CDB"),
                 CagingSeen(True, 4, "caged: Resource Manager plan P limits the instance to CPU_COUNT=4 CPUs", "P",
                            ("W1",), "P"),
                 "", ClusterSeen(1, False, "v$instance"))
EXTRAS: list[StepExtra] = [
    SLOB, SlobPoint(**{**{f: getattr(SLOB, f) for f in SLOB.__slots__}, "rac": None, "cluster": None}),
    CommandRun(0, "hello\n"), InitOraDone(True), InitOraDone(False, MappingProxyType({"DEFAULT": 1 << 20})),
    SchedulersSet((("sdb", "none"), ("dm-0", "kyber")), ("dm-0",)),
    FactsGathered(MappingProxyType({"hostname": "h", "cpus": 4})), Notes(MappingProxyType({"luns": 2})),
]


@pytest.mark.parametrize("extra", EXTRAS, ids=lambda e: type(e).__name__)
def test_each_extra_reads_back_as_itself(extra: StepExtra) -> None:
    r = StepResult("plays[0].workloads[0]", "t", "h", Status.CHANGED, extra=extra)
    entry = json.loads(json.dumps(result_to_json(r)))
    assert entry["data"] == extra.to_json()
    assert result_from_json(entry).extra == extra


def test_the_json_is_tagged_with_its_type_and_version() -> None:
    assert SchedulersSet((("sdb", "none"),), ("sdb",)).to_json() == {
        "type": "schedulers_set", "v": 1, "devices": {"sdb": "none"}, "counts": ["sdb"]}
    assert InitOraDone(False).to_json() == {"type": "init_ora_done", "v": 1, "restarted": False}
    data = SLOB.to_json()
    assert data["type"] == "slob_point" and data["v"] == 1
    assert data["cache_pool"] == "KEEP" and data["caging"]["caged"] is True and data["container"]["pdb"] is True
    assert data["statistics"] == "awr" and data["rac"] == "" and data["cluster"]["why"] == "v$instance"


@pytest.mark.parametrize("extra", [e for e in EXTRAS if not isinstance(e, Notes)], ids=lambda e: type(e).__name__)
def test_a_folder_from_before_the_tags_still_reads(extra: StepExtra) -> None:
    """Folders written before the tags hold the same fields untagged: each type still knows its shape."""
    untagged = {k: v for k, v in json.loads(json.dumps(extra.to_json())).items() if k not in ("type", "v")}
    assert extra_from_json(untagged) == extra


def test_a_tag_nobody_knows_is_kept_as_notes() -> None:
    odd = {"type": "from_a_newer_planner", "v": 3, "x": 1}
    assert extra_from_json(odd) == Notes(MappingProxyType(odd))


def test_a_damaged_data_object_is_kept_as_notes() -> None:
    bad = {"statistics": "awr", "caging": "not a mapping"}
    assert extra_from_json(bad) == Notes(MappingProxyType(bad))
    assert extra_from_json({}) is None
