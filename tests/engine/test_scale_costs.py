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


def test_restore_json_text_is_redacted_and_compared_per_entry_not_per_save(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Each save rewrote restore.json redacting its whole text again (three login regexes over every entry so
    far) and JSON-encoding every entry to see whether it changed: ~8 ms of CPU per host in a warm 10-host
    fan-out (benchmarks/fanout/RESULTS.md). Now each entry's text is redacted once; the file is the same."""
    from planner.engine import restore
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    record = RunRecord(tmp_path / "runs", "scale", secrets=("s3cr3t-pw",))
    record.write_meta(run_id=record.id, started="2026-12-02T00:00:00", plan_file="plan.yaml", hosts=[], plays=[])
    log = RestoreLog()
    log.attach(record)
    masked = [0]
    real_mask = redaction.mask_logins

    def counted(text: str) -> str:
        masked[0] += len(text)
        return real_mask(text)

    monkeypatch.setattr(redaction, "mask_logins", counted)
    dumps = _counting(monkeypatch, restore.json, "dumps")
    for i in range(60):
        log.add(_entry(i))
    text = (record.path / runfolder.RESTORE).read_text()
    assert masked[0] <= 3 * len(text)  # before: about 30 times the file (every save redacted all of it)
    assert dumps[0] <= 5 * 60  # a few a save (the private log, its seal, the new entry); before: 2 100
    data = [e.to_json() for e in log.entries]
    assert text == json.dumps(record.redact_value(data), indent=2) + "\n"
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


def test_known_hosts_is_read_once_for_all_hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every host's connect read and matched the whole known_hosts: with one line per host, 200 hosts were
    40 000 lines decoded and glob-matched. The file is read once (again when it changes)."""
    from planner.transport.ssh import known_hosts as kh

    key = "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
    path = tmp_path / "known_hosts"
    path.write_text("".join(f"[127.0.0.{i // 250 + 2}]:{2000 + i} ssh-ed25519 {key}\n" for i in range(200))
                    + f"*.lab ssh-ed25519 {key}\n@revoked [127.0.0.2]:2007 ssh-ed25519 {key}\n")
    decoded = _counting(monkeypatch, kh.base64, "b64decode")
    got = [kh.known_keys([path], f"[127.0.0.2]:{2000 + i}") for i in range(200)]
    assert decoded[0] <= 210  # before: 200 lookups x 202 lines
    assert [k.line for k in got[7]] == [8, 202] and got[7][1].marker == "revoked"
    assert [k.line for k in kh.known_keys([path], "db1.lab")] == [201]
    with path.open("a") as f:  # an accepted key appended mid-run is seen
        f.write(f"newhost ssh-ed25519 {key}\n")
    assert [k.line for k in kh.known_keys([path], "newhost")] == [203]
