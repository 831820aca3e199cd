"""Hostile inputs, round 3 (issue 24): what ``-o PATH`` finds there, and the verbs that ended in a traceback
(a folder, /proc, a full device, a file as --runs-dir, a meta.json that is a JSON list)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from test_report_helpers import seed_study
from test_store_backends import cli

DATA = Path(__file__).parents[1] / "data"
FIO = DATA / "fio" / "fio-3.33-randread.json"


def writers(tmp_path: Path) -> dict[str, list[str]]:
    run = seed_study(tmp_path / "runs")
    return {"analyze": ["analyze", str(FIO)], "report-md": ["report", str(run)],
            "report-html": ["report", str(run), "--format", "html"], "export": ["export", str(run)]}


VERBS = ("analyze", "report-md", "report-html", "export")


@pytest.mark.slow
@pytest.mark.parametrize("verb", VERBS)
def test_o_writes_into_a_character_device_and_leaves_it_one(verb: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    null = tmp_path / "null"  # a second /dev/null (1, 3): the real one must not be put at risk by a test
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    code, _, err = cli(capsys, *writers(tmp_path)[verb], "-o", str(null))
    assert code in (0, 2), err  # analyze exits 2 when a claim fails; none is given here
    assert stat.S_ISCHR(os.lstat(null).st_mode)


@pytest.mark.slow
@pytest.mark.parametrize("verb", VERBS)
def test_o_refuses_a_symlink_a_folder_and_a_block_device(verb: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    argv = writers(tmp_path)[verb]
    target = tmp_path / "precious"
    target.write_text("keep me\n")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    block = tmp_path / "disk"
    os.mknod(block, stat.S_IFBLK | 0o600, os.makedev(7, 250))
    folder = tmp_path / "adir"
    folder.mkdir()
    for path, words in ((link, "is a symbolic link"), (block, "is a block device"), (folder, "is a folder")):
        code, _, err = cli(capsys, *argv, "-o", str(path))
        assert code == 5 and words in err and "Traceback" not in err, err
    assert link.is_symlink() and target.read_text() == "keep me\n"
    assert stat.S_ISBLK(os.lstat(block).st_mode) and folder.is_dir() and not list(folder.iterdir())


@pytest.mark.slow
@pytest.mark.parametrize("verb", VERBS)
def test_o_into_proc_or_a_full_device_is_said_in_words(verb: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    argv = writers(tmp_path)[verb]
    code, _, err = cli(capsys, *argv, "-o", "/proc/self/x.md")
    assert code == 5 and "/proc/self/x.md cannot be written" in err and "Traceback" not in err
    code, _, err = cli(capsys, *argv, "-o", "/dev/full")
    assert code == 5 and "full" in err and "Traceback" not in err
    assert stat.S_ISCHR(os.lstat("/dev/full").st_mode)


@pytest.mark.parametrize("argv", [["runs"], ["index"], ["store", "push", "x"], ["store", "pull", "x"],
                                  ["show", "x"]])
def test_a_file_as_runs_dir_is_said_in_words(argv: list[str], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "runs"
    afile.write_text("not a folder\n")
    code, _, err = cli(capsys, *argv, "--runs-dir", str(afile))
    assert code == 5 and f"{afile} is not a folder" in err and "Traceback" not in err, err
    assert afile.read_text() == "not a folder\n"


@pytest.mark.parametrize("argv", [["restore"], ["apply", "--resume"], ["show"], ["report"], ["store", "push"]])
def test_a_meta_json_that_is_a_list_is_refused_in_words(argv: list[str], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    run = seed_study(tmp_path / "runs")
    (run / "meta.json").write_text(json.dumps([{"run_id": run.name}]))
    code, _, err = cli(capsys, *argv, str(run), *(["--store", f"sqlite:///{tmp_path}/s.sqlite"]
                                                  if argv[0] == "store" else []))
    assert code == 5 and "not a run record (a JSON list" in err and "Traceback" not in err, err
