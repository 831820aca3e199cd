"""A step plugin whose import never returns hung `validate` and `planner schema` (issue 40 L9). The import now
has a bound: past it the plugin is broken, said by name, and the rest goes on. The plugin is installed as pip
leaves one (a package and its .dist-info on sys.path, as in tests/test_fault_plugins.py); its import waits on
a gate this test opens at the end, so no thread outlives the test."""

from __future__ import annotations

import builtins
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner import steps

GATE = "_planner_test_plugin_gate"


@pytest.fixture()
def hanging_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    site = tmp_path / "site"
    (site / "plug_hangs").mkdir(parents=True)
    (site / "plug_hangs" / "__init__.py").write_text(f"import builtins\nbuiltins.{GATE}.wait()\nStep = None\n")
    info = site / "plug_hangs-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plug-hangs\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[planner.steps]\nhangs = plug_hangs:Step\n")
    gate = threading.Event()
    setattr(builtins, GATE, gate)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(steps, "PLUGIN_IMPORT_S", 0.5, raising=False)
    steps._entry_points.cache_clear()
    try:
        yield "hangs"
    finally:
        gate.set()
        for t in threading.enumerate():
            if t.name == "plugin-import-hangs":
                t.join()
        steps._broken.pop("hangs", None)
        sys.modules.pop("plug_hangs", None)
        delattr(builtins, GATE)
        steps._entry_points.cache_clear()


def test_a_plugin_import_that_never_returns_is_broken_at_the_bound(hanging_plugin: str) -> None:
    with pytest.raises(steps.PluginError, match=r"plugin 'hangs' .* is broken: its import did not finish within"):
        steps.load_plugins([hanging_plugin])


def test_schema_goes_on_without_it_and_says_so(hanging_plugin: str) -> None:
    errors: list[str] = []
    steps.load_plugins(errors=errors)
    assert any("'hangs'" in e and "did not finish within 0.5 s" in e for e in errors), errors
