"""The rehearsal's world record names the stand-in kits' releases by the kinds' specs: a meta.json written before
(one field per kind, ``"hammerdb": "4.12"``) still reads, and says the same words."""

from __future__ import annotations

from planner.kinds.hammerdb import standin
from planner.results.runfolder import RunMeta
from planner.results.world import HostWorld


def test_a_world_written_before_the_kinds_moved_still_reads() -> None:
    old = {"host": "oel57", "database": "fresh", "hammerdb": "4.12", "swingbench": "", "slob_release": ""}
    w = HostWorld.from_json(old)
    assert w is not None and w.tools == (("HammerDB", "4.12"),)
    assert "; HammerDB 4.12 (stand-ins);" in w.describe()


def test_the_tools_round_trip_through_meta_json() -> None:
    w = HostWorld(host="oel57", database="fresh", tools=(("HammerDB", standin.version()),))
    assert standin.version() == "4.12"  # what the stand-in hammerdbcli prints (its VERSION)
    assert RunMeta.from_mapping({"world": [w.to_json()]}).world == (w,)


def test_the_world_names_the_release_the_inventory_gives_the_standin_kit() -> None:
    """The stand-in kit imitates the host's ``hammerdb_release``: the world record says that release."""
    from planner.cli.rehearse import _standin_release

    assert _standin_release("planner.kinds.hammerdb.standin:version", {"hammerdb_release": "v4.5"}) == "4.5"
    assert _standin_release("planner.kinds.hammerdb.standin:version", {}) == "4.12"
