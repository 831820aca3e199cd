"""The stand-ins' AWR host line is the inventory's host, stated as planner's host variables or as Ansible's
processor facts (never the rehearsal machine's CPUs): issue 43."""

from __future__ import annotations

from planner.host import Host
from planner.rehearsal.kitsite import host_line

FACTS = {"ansible_processor_vcpus": 16, "ansible_processor_cores": 4, "ansible_processor_count": 2,
         "ansible_memtotal_mb": 12032}


def _host(**host_vars: object) -> Host:
    return Host(name="oel57", address="192.0.2.20", user="oracle", vars=dict(host_vars))


def test_ansible_processor_facts_give_the_host_line() -> None:
    line = host_line(_host(**FACTS))
    assert line == {"PLANNER_STANDIN_HOSTNAME": "oel57", "PLANNER_STANDIN_CPUS": "16", "PLANNER_STANDIN_CORES": "8",
                    "PLANNER_STANDIN_SOCKETS": "2", "PLANNER_STANDIN_MEMORY_GB": "11.75"}


def test_the_inventorys_own_words_win_over_facts() -> None:
    line = host_line(_host(**FACTS, cpus=128, cores=64, sockets=8))
    assert (line["PLANNER_STANDIN_CPUS"], line["PLANNER_STANDIN_CORES"], line["PLANNER_STANDIN_SOCKETS"]) == (
        "128", "64", "8")


def test_nothing_stated_leaves_the_line_to_the_name() -> None:
    assert host_line(_host(cpus=True, ansible_processor_vcpus=0)) == {"PLANNER_STANDIN_HOSTNAME": "oel57"}
