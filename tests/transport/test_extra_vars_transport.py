"""``-e planner_keepalive_s=2`` did not reach the transport (issue 40 L10): the SSH target read the inventory's
value only. -e wins for the variables planner reads from the host itself, as Ansible's extra vars do."""

from __future__ import annotations

from pathlib import Path

from planner.cli.apply import load
from planner.transport.ssh.target import merge_target


def _load(tmp_path: Path, *extra: str) -> dict[str, float]:
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_host=127.0.0.1 planner_keepalive_s=30\n"
                                        "beta ansible_host=127.0.0.2\n")
    (tmp_path / "plan.yaml").write_text("plan: k\nplays:\n  - name: p\n    hosts: lab\n    prep:\n"
                                        "      - command: {argv: ['true']}\n")
    loaded = load(tmp_path / "plan.yaml", tmp_path / "hosts.ini", list(extra))
    return {h.name: merge_target(h, {}).keepalive_s for h in loaded.inventory.hosts.values()}


def test_extra_vars_keepalive_reaches_the_ssh_target(tmp_path: Path) -> None:
    assert _load(tmp_path, "planner_keepalive_s=2") == {"alpha": 2.0, "beta": 2.0}


def test_without_it_the_inventory_value_stands(tmp_path: Path) -> None:
    assert _load(tmp_path)["alpha"] == 30.0
