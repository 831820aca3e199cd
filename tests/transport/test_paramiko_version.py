"""paramiko's ``__version__`` (its client banner) read without importing importlib.metadata (issue 47, stop 53):
the stand-in answers what importlib.metadata answers, or lets it answer."""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

import pytest

from planner.transport.ssh import noinvoke


def _dist(folder: Path, dirname: str, version: str) -> None:
    (folder / dirname).mkdir(parents=True)
    (folder / dirname / "METADATA").write_text(f"Metadata-Version: 2.1\nName: x\nVersion: {version}\n\nVersion: no\n")


def test_the_first_distribution_on_the_path_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _dist(tmp_path / "a", "Pa.Ra_Miko-9.8.7.dist-info", "9.8.7")  # PEP 503 names, as importlib.metadata's
    _dist(tmp_path / "b", "pa_ra_miko-1.0.dist-info", "1.0")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(tmp_path / "a"), str(tmp_path / "b"), *sys.path])
    assert noinvoke._version("pa-ra-miko") == importlib.metadata.version("pa-ra-miko") == "9.8.7"
    assert noinvoke._version("paramiko") == importlib.metadata.version("paramiko")


def test_a_stand_in_left_in_place_hands_over_to_the_real_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "importlib.metadata", noinvoke._stand_in())
    from importlib.metadata import entry_points  # what the stand-in does not have: the real module's

    real = sys.modules["importlib.metadata"]
    assert entry_points.__module__ == "importlib.metadata" and real.__file__ and real.entry_points is entry_points


@pytest.mark.parametrize("layout", ["two", "egg", "zip"])
def test_any_other_layout_is_left_to_importlib_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         layout: str) -> None:
    first = tmp_path / "first"
    first.mkdir()
    if layout == "two":  # which one importlib.metadata takes is its listing's order: not guessed here
        _dist(first, "zz_dist-1.0.dist-info", "1.0")
        _dist(first, "zz.dist-2.0.dist-info", "2.0")
    elif layout == "egg":
        (first / "zz_dist-3.0.egg-info").write_text("Metadata-Version: 1.1\nName: zz-dist\nVersion: 3.0\n")
    else:
        first = tmp_path / "site.zip"
        first.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip archive
    monkeypatch.setattr(sys, "path", [str(first), *sys.path])
    assert noinvoke._plain_metadata("zz-dist") is None
    if layout != "zip":
        assert noinvoke._version("zz-dist") == importlib.metadata.version("zz-dist")
