"""What a run's controller does per host must not grow with the number of hosts: the record files rewritten at
every save encode each entry once, and secrets are prepared once, not per string redacted. Not timing tests:
they count the work (calls), which is what the time per host rests on."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest

from planner import redaction
from planner.engine.restore import RestoreLog
from planner.engine.runrecord import RunRecord
from planner.results import runfolder
from planner.steps.saved_state import RestoreEntry


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    calls = [0]
    real = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_secret_forms_are_made_once_per_set_of_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each string redacted used to JSON-encode every secret twice: 48 000 encodings in a 30-host warm apply."""
    secret = f"pw-{secrets.token_hex(8)}"  # a set of secrets never seen before in this process
    dumps = _counting(monkeypatch, redaction.json, "dumps")
    value = {"hosts": [{"name": f"h{i}", "note": f"login {secret} on h{i}"} for i in range(500)]}
    out = redaction.redact_value(value, (secret,))
    assert out["hosts"][7]["note"] == f"login {redaction.MASK} on h7"
    assert dumps[0] <= 2


def _entry(i: int) -> RestoreEntry:
    return RestoreEntry(play="plays[0]", host=f"lab{i:03d}", step="plays[0].prep[0]", title="scheduler",
                        kind="io_scheduler", args={"devices": ["/dev/sdb"], "scheduler": "none"},
                        saved={"sdb": "mq-deadline", "login": "s3cr3t-pw"}, play_index=0, index=0)


def test_restore_json_encodes_each_entry_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """restore.json is rewritten at every save with all entries so far: redacting and encoding all of them each
    time made a warm play's cost per host grow with the hosts. Same file, each entry redacted once."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    record = RunRecord(tmp_path / "runs", "scale", secrets=("s3cr3t-pw",))
    record.write_meta(run_id=record.id, started="2026-12-02T00:00:00", plan_file="plan.yaml", hosts=[], plays=[])
    log = RestoreLog()
    log.attach(record)
    nodes = _counting(monkeypatch, redaction, "redact_value")  # every value visited, nested ones included
    log.add(_entry(0))
    one = nodes[0]
    for i in range(1, 60):
        log.add(_entry(i))
    assert nodes[0] <= 2 * 60 * one  # before: about 60 * 61 / 2 * one
    data = [e.to_json() for e in log.entries]
    text = (record.path / runfolder.RESTORE).read_text()
    assert text == json.dumps(record.redact_value(data), indent=2) + "\n"  # the layout record.write gives
    assert "s3cr3t-pw" not in text and text.count(redaction.MASK) == 60


def test_restore_json_follows_a_reverted_mark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    record = RunRecord(tmp_path / "runs", "scale", secrets=("s3cr3t-pw",))
    record.write_meta(run_id=record.id, started="2026-12-02T00:00:00", plan_file="plan.yaml", hosts=[], plays=[])
    log = RestoreLog()
    log.attach(record)
    for i in range(3):
        log.add(_entry(i))
    log.mark(log.entries[1], True)
    shared = json.loads((record.path / runfolder.RESTORE).read_text())
    assert [d["reverted"] for d in shared] == [False, True, False]
