"""Issue 40 L5: a crafted store row holding both a file `inventory` and `inventory/inv.yaml` left a
half-written folder on `store pull` (exit 1), and the pull could not be repeated. Such a row is refused in
words before anything is written, and any failure while writing leaves no folder behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import InputError
from planner.store.record import StoredRun, write_folder

RUN = "20261207T010000Z-pulled"


def row(files: tuple[tuple[str, bytes], ...]) -> StoredRun:
    return StoredRun(RUN, "p", "p.yaml", None, None, None, None, "complete", False, (), "/x", "c", "", files,
                     (), (), (), (), "0" * 64)


def test_a_row_naming_a_file_and_a_folder_of_one_name_writes_nothing(tmp_path: Path) -> None:
    bad = row((("meta.json", b"{}"), ("inventory", b"x"), ("inventory/inv.yaml", b"y")))
    for _ in range(2):  # and again: nothing was left to block a second pull
        with pytest.raises(InputError, match="names a file and, under the same name, a folder"):
            write_folder(bad, tmp_path)
        assert list(tmp_path.iterdir()) == []


def test_a_failure_while_writing_leaves_no_folder_and_the_pull_can_be_repeated(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = row((("meta.json", b"{}"), ("results.json", b"[]")))
    import planner.files as files

    real = files.write_bytes

    def full(path: Path, data: bytes, mode: int | None = None) -> None:
        if path.name == "results.json":
            raise OSError(28, "No space left on device")
        real(path, data, mode)

    monkeypatch.setattr(files, "write_bytes", full)
    with pytest.raises(OSError):
        write_folder(good, tmp_path)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(files, "write_bytes", real)
    folder, _ = write_folder(good, tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == ["meta.json", "pulled.json", "results.json"]
