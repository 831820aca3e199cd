"""Ansible-style inventories: INI and YAML files, directories, group_vars/host_vars, host patterns."""
