"""Host names in lock and work folder paths are injective (issue 40 L7): ``a b`` and ``a_b`` once slugged to
one lock, so one host's run refused (or took over) the other's, and both wrote one work folder."""

from __future__ import annotations

from pathlib import Path

from planner.engine.hostlock import lock_path
from planner.engine.runrecord import RunRecord
from planner.files import host_slug
from planner.host import Host


def test_hosts_whose_names_slug_alike_get_different_locks() -> None:
    names = ["a b", "a_b", "a/b", "a:b", "_a_b_", "a\u00e9b"]
    locks = {lock_path("", Host(name=n, address="127.0.0.1")) for n in names}
    assert len(locks) == len(names)
    assert len({host_slug(n) for n in names}) == len(names)


def test_safe_names_keep_their_lock_and_folder() -> None:
    for name in ("db01", "exadata-x2.lab", "node_1"):
        assert host_slug(name) == name
        assert lock_path("", Host(name=name, address="127.0.0.1")) == f"/tmp/planner.lock.{name}"


def test_a_slugged_name_stays_one_path_segment_of_bounded_length() -> None:
    for name in ("../../etc", "x" * 500 + " y", " "):
        got = host_slug(name)
        assert "/" not in got and got != ".." and len(got) <= 60


def test_hosts_whose_names_slug_alike_get_different_artifact_folders(tmp_path: Path) -> None:
    """The run folder's artifacts are per host too: ``a b`` and ``a_b`` once wrote one folder (issue 40 L7)."""
    record = RunRecord(tmp_path, "p")
    folders = {record.artifact_dir("play", n, "workloads[0]") for n in ("a b", "a_b", "a/b")}
    assert len(folders) == 3
    assert record.artifact_dir("play", "db01", "workloads[0]").relative_to(record.path).parts[1:3] == ("play", "db01")
