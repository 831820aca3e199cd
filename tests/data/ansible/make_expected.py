"""Build tests/data/ansible/ from an ansible/ansible checkout and pin what ansible-inventory prints.

Run by hand, never by CI:  python make_expected.py ANSIBLE_GIT_DIR COMMIT ANSIBLE_INVENTORY
(ANSIBLE_INVENTORY: the ansible-inventory of a throwaway venv with ansible-core 2.19.*; see README.md).
Each case copies the data files it names (inventories and the group_vars/host_vars beside them, never
ansible code) into cases/<id>/ under their path in the ansible repository, runs ansible-inventory on them
and writes cases.json: the case, its source paths, and ansible-inventory's exit code and --list output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

T = "test/integration/targets/"
# (id, files to copy, the -i given (relative to the case folder), extra ansible-inventory args)
CASES: list[tuple[str, list[str], list[str], list[str]]] = [
    ("complex_ini", [T + "ansible-inventory/files/complex.ini"], [T + "ansible-inventory/files/complex.ini"], []),
    ("invalid_sample_yml", [T + "ansible-inventory/files/invalid_sample.yml"],
     [T + "ansible-inventory/files/invalid_sample.yml"], []),
    ("unicode_yml", [T + "ansible-inventory/files/unicode.yml"], [T + "ansible-inventory/files/unicode.yml"], []),
    ("valid_sample_yml", [T + "ansible-inventory/files/valid_sample.yml"],
     [T + "ansible-inventory/files/valid_sample.yml"], []),
    ("valid_sample_yml_limit", [T + "ansible-inventory/files/valid_sample.yml"],
     [T + "ansible-inventory/files/valid_sample.yml"], ["--limit", "something"]),
    ("inv_with_int", [T + "inventory/inv_with_int.yml"], [T + "inventory/inv_with_int.yml"], []),
    ("inv_with_host_vars", [T + "inventory/inv_with_host_vars.yml"], [T + "inventory/inv_with_host_vars.yml"], []),
    ("test_empty_yml", [T + "inventory/test_empty.yml"], [T + "inventory/test_empty.yml"], []),
    ("invalid_group_ini", [T + "inventory-invalid-group/inventory.ini"],
     [T + "inventory-invalid-group/inventory.ini"], []),
    ("inventory_ini_become", [T + "inventory_ini/inventory.ini"], [T + "inventory_ini/inventory.ini"], []),
    ("yaml_int_hostname", [T + "inventory_yaml/test_int_hostname.yml"],
     [T + "inventory_yaml/test_int_hostname.yml"], []),
    ("limit_hosts_yml", [T + "limit_inventory/hosts.yml"], [T + "limit_inventory/hosts.yml"], []),
    ("limit_hosts_yml_l_host1", [T + "limit_inventory/hosts.yml"], [T + "limit_inventory/hosts.yml"],
     ["--limit", "host1"]),
    ("limit_hosts_yml_l_two", [T + "limit_inventory/hosts.yml"], [T + "limit_inventory/hosts.yml"],
     ["--limit", "host1,host2"]),
    ("limit_hosts_yml_l_not", [T + "limit_inventory/hosts.yml"], [T + "limit_inventory/hosts.yml"],
     ["--limit", "all:!host2"]),
    ("static_inventory_yml", [T + "inventory_constructed/static_inventory.yml"],
     [T + "inventory_constructed/static_inventory.yml"], []),
    ("tag_inventory_yml", [T + "inventory_constructed/tag_inventory.yml"],
     [T + "inventory_constructed/tag_inventory.yml"], []),
    ("constructed_invs_1", [T + "inventory_constructed/invs/1/one.yml",
                            T + "inventory_constructed/invs/1/group_vars/stuff.yml",
                            T + "inventory_constructed/invs/1/host_vars/testing.yml"],
     [T + "inventory_constructed/invs/1"], []),
    ("inventory_script_json", [T + "inventory_script/inventory.json"], [T + "inventory_script/inventory.json"], []),
    ("vaulted_inventory", [T + "ansible-vault/vaulted.inventory", T + "ansible-vault/vault-password"],
     [T + "ansible-vault/vaulted.inventory"],
     ["--vault-password-file", T + "ansible-vault/vault-password"]),
    ("vaulted_inventory_no_password", [T + "ansible-vault/vaulted.inventory"],
     [T + "ansible-vault/vaulted.inventory"], []),
    ("vault_invalid_format", [T + "ansible-vault/invalid_format/inventory",
                              T + "ansible-vault/invalid_format/group_vars/broken-group-vars.yml",
                              T + "ansible-vault/invalid_format/host_vars/broken-host-vars.example.com/vars",
                              T + "ansible-vault/invalid_format/vault-secret"],
     [T + "ansible-vault/invalid_format/inventory"],
     ["--vault-password-file", T + "ansible-vault/invalid_format/vault-secret"]),
    ("vault_host_vars_myhost", [T + "ansible-vault/host_vars/myhost.yml", T + "ansible-vault/host_vars/testhost.yml",
                                T + "ansible-vault/vault-password"], ["myhost,testhost,"],
     ["--vault-password-file", "vault-password"]),
    ("inline_host_list", [], ["host1,host2,"], []),
    ("inline_host_list_ports", [], ["db1:2222,[::1]:2200,db2,"], []),
    ("inline_single_host", [], ["localhost,"], []),
]
CI = T + "ansible-inventory/files/complex.ini"
VS = T + "ansible-inventory/files/valid_sample.yml"
LH = T + "limit_inventory/hosts.yml"
# the flags and words of ansible-inventory, on its own test inventories
CASES += [
    ("flag_host", [CI], [CI], ["--host", "test1"]),
    ("flag_host_e", [CI], [CI], ["--host", "test1", "-e", "q=1"]),
    ("flag_host_yaml", [CI], [CI], ["--host", "test1", "--yaml"]),
    ("flag_host_export", [CI], [CI], ["--host", "test1", "--export"]),
    ("flag_list_yaml", [CI], [CI], ["--yaml"]),
    ("flag_list_export", [CI], [CI], ["--export"]),
    ("flag_list_export_yaml", [CI], [CI], ["--export", "--yaml"]),
    ("flag_list_e", [VS], [VS], ["-e", "q=1"]),
    ("flag_graph", [CI], [CI], ["--graph"]),
    ("flag_graph_group", [CI], [CI], ["--graph", "test_group1"]),
    ("flag_graph_vars", [CI], [CI], ["--graph", "--vars"]),
    ("flag_graph_limit", [CI], [CI], ["--graph", "--limit", "test1"]),
    ("flag_limit_nothing", [LH], [LH], ["--limit", "nothing"]),
    ("flag_limit_retry_file", [LH], [LH], ["--limit", "@retry"]),
    ("flag_host_unknown", [CI], [CI], ["--host", "nothere"]),
    ("flag_graph_unknown", [CI], [CI], ["--graph", "nothere"]),
    ("flag_cwd_group_vars", [VS], [VS], []),
]
IC = T + "inventory_constructed/"
# ansible-core's own constructed-plugin cases (inventory_constructed/runme.sh), as --graph and as --list
for _name, _static in (("constructed", "static_inventory"), ("no_leading_separator_constructed", "static_inventory"),
                       ("keyed_group_default_value", "tag_inventory"),
                       ("keyed_group_list_default_value", "tag_inventory"),
                       ("keyed_group_str_default_value", "tag_inventory"),
                       ("keyed_group_trailing_separator", "tag_inventory")):
    for _mode in ("--graph", "--list"):
        CASES.append((f"constructed_{_name}_{_mode[2:]}", [IC + _static + ".yml", IC + _name + ".yml"],
                      [IC + _static + ".yml", IC + _name + ".yml"], [_mode] if _mode == "--graph" else []))
CASES += [
    ("constructed_invs_1_2_graph", [IC + "invs/1/one.yml", IC + "invs/1/group_vars/stuff.yml",
                                    IC + "invs/1/host_vars/testing.yml", IC + "invs/2/constructed.yml"],
     [IC + "invs/1/one.yml", IC + "invs/2/constructed.yml"], ["--graph"]),
    ("constructed_host_vars", [T + "inventory/inv_with_host_vars.yml", T + "inventory/host_vars_constructed.yml"],
     [T + "inventory/inv_with_host_vars.yml", T + "inventory/host_vars_constructed.yml"], ["--graph"]),
    ("constructed_host_vars_list", [T + "inventory/inv_with_host_vars.yml", T + "inventory/host_vars_constructed.yml"],
     [T + "inventory/inv_with_host_vars.yml", T + "inventory/host_vars_constructed.yml"], []),
]
CASES += [
    ("constructed_compose_groups", [T + "inventory/1/2/inventory.yml"], ["static.ini", T + "inventory/1/2/inventory.yml",
                                                                        "compose.yml"], []),
]
WRITE = {"flag_limit_retry_file": [("retry", "host1\nhost3\n")],  # ansible-playbook's .retry file: a host a line
         "flag_cwd_group_vars": [("group_vars/somegroup.yml", "from_cwd: 1\nfoo: cwd\n")],
         "constructed_compose_groups": [
             ("static.ini", "[dbs]\ndb1 role=primary size=10\nweb2 role=standby size=3\n[dbs:vars]\nsite=lab\n"),
             ("compose.yml", "plugin: constructed\ncompose:\n  big: size | int > 5\n  label: site ~ '-' ~ role\n"
                             "  broken: nowhere + 1\ngroups:\n  primaries: role == 'primary'\n"
                             "  big_ones: (size | int) > 5\nkeyed_groups:\n  - key: role\n    prefix: role\n")]}
CWD = {"vault_host_vars_myhost": T + "ansible-vault"}  # ansible-inventory reads the cwd's group_vars/host_vars
ENV = {"ANSIBLE_CONFIG": "/nonexistent.cfg", "ANSIBLE_NOCOLOR": "1", "ANSIBLE_INVENTORY_UNPARSED_FAILED": "1",
       "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": "1", "ANSIBLE_DEPRECATION_WARNINGS": "0"}


def main(repo: str, commit: str, tool: str) -> None:
    here = Path(__file__).parent
    out = []
    for case_id, files, sources, extra in CASES:
        folder = here / "cases" / case_id
        for f in files:
            data = subprocess.run(["git", "-C", repo, "show", f"{commit}:{f}"], check=True, capture_output=True).stdout
            (folder / f).parent.mkdir(parents=True, exist_ok=True)
            (folder / f).write_bytes(data)
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in WRITE.get(case_id, []):  # files the case adds beside ansible's data (named here)
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
        mode = [] if {"--host", "--graph"} & set(extra) else ["--list"]
        argv = [tool, *mode] + [a for s in sources for a in ("-i", s)] + extra
        done = subprocess.run(argv, cwd=folder / CWD.get(case_id, ""), capture_output=True, text=True, env={**os.environ, **ENV})
        listed = json.loads(done.stdout) if done.returncode == 0 and mode and "--yaml" not in extra else None
        out.append({"id": case_id, "source": [f"ansible/ansible@{commit}:{f}" for f in files], "inventory": sources,
                    "args": mode + extra, "cwd": CWD.get(case_id, ""), "rc": done.returncode, "list": listed,
                    "stdout": done.stdout if done.returncode == 0 and listed is None else None})
    (here / "cases.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
