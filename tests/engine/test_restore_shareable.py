"""Issue 40 L11: the shareable restore.json (pushed to the store, sent with the folder) held the full original
content of every file a prep step replaced. The originals are kept in the private log only; restore.json says
each one's size and sha256."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from planner.engine.restore import RestoreLog, private_restore_path, read_private
from planner.engine.runrecord import RunRecord
from planner.steps.saved_state import RestoreEntry

ORIGINAL = "# app.conf\napi_url=https://internal.example/\nlicence=ABCD-1234-EFGH\n"


def test_the_shareable_log_holds_no_original_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    rec = RunRecord(tmp_path / "runs", "p")
    rec.write_meta(run_id=rec.id, started="2026-12-07T01:00:00Z", hosts={}, plays=[])
    log = RestoreLog()
    log.attach(rec)
    log.add(RestoreEntry("plays[0]", "h1", "plays[0].prep[0]", "copy", "copy", {"dest": "/etc/app.conf"},
                         {"dest": "/etc/app.conf", "content": ORIGINAL}))
    shared = (rec.path / "restore.json").read_text()
    assert "licence" not in shared and "internal.example" not in shared
    digest = hashlib.sha256(ORIGINAL.encode()).hexdigest()
    assert json.loads(shared)[0]["saved"]["content"] == f"({len(ORIGINAL)} bytes, sha256 {digest}: in the " \
                                                         "private restore log only)"
    private = read_private(private_restore_path(rec.path), rec.path)
    assert private is not None and private[0]["saved"]["content"] == ORIGINAL
