"""Saved prep state said in words for reports (planner/steps/saved_state.py), on the shapes the steps save."""

from __future__ import annotations

from planner.steps.saved_state import describe_saved

DB = {"access": "sqlplus", "oracle_home": "/u01/app/oracle/product/19/dbhome_1", "password_env": "ORA_PW"}


def test_connection_settings_never_show() -> None:
    text = describe_saved("init_ora", {"db": DB, "params": {
        "db_cache_size": {"name": "db_cache_size", "memory": "0", "spfile": None, "specified": False},
        "cpu_count": {"name": "cpu_count", "memory": "128", "spfile": "128", "specified": True}}})
    assert text == "db_cache_size 0 (not in spfile); cpu_count 128 (spfile 128)"
    assert "oracle_home" not in describe_saved("some_future_step", {"db": DB, "mode": "x"})


def test_each_prep_kind() -> None:
    sched = {"devices": {"sdb": {"path": "/sys/block/sdb/queue/scheduler", "active": "mq-deadline"},
                         "sdc": {"path": "/sys/block/sdc/queue/scheduler", "active": "mq-deadline"},
                         "dm-0": {"path": "/sys/block/dm-0/queue/scheduler", "active": "none"}}}
    assert describe_saved("io_scheduler", sched) == "mq-deadline on sdb, sdc; none on dm-0"
    assert describe_saved("asm_diskgroup", {"db": DB, "name": "SLOB", "existed": False, "members": []}) == \
        "disk group SLOB did not exist"
    assert describe_saved("asm_diskgroup", {"name": "DATA", "existed": True, "members": ["a", "b"]}) == \
        "disk group DATA with 2 disk(s)"
    assert describe_saved("flashback", {"db": DB, "flashback_on": "YES"}) == "flashback YES"
    assert describe_saved("sysctl", {"values": {"vm.swappiness": "60"}, "paths": {"vm.swappiness": "/proc/x"}}) == \
        "vm.swappiness 60"


def test_an_odd_record_falls_back_to_plain_form() -> None:
    assert describe_saved("io_scheduler", {"devices": ["sdb"]}) == "devices=['sdb']"
