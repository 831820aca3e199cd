"""`planner inventory`: ansible-inventory's verb and options (--list, --host, --graph [GROUP], --vars, --yaml,
--export, --limit, -e, --output, --playbook-dir), printing what ansible-inventory 2.19 prints."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planner.errors import InputError, Problem
from planner.files import write_output
from planner.inventory.graph import Inventory, load_inventory
from planner.inventory.views import ansible_graph, ansible_list, dump_json, dump_yaml, host_variables, yaml_list
from planner.plan.templating import parse_extra_vars
from planner.status import ExitCode


def inventory_command(args: argparse.Namespace) -> ExitCode:
    base = args.playbook_dir or Path.cwd()  # ansible-inventory's basedir: group_vars/ host_vars/ read there too
    inv = load_inventory(args.inventory, args.vault, vars_dirs=[base])
    for warning in inv.warnings:
        print(f"[WARNING]: {warning}", file=sys.stderr)
    extra = parse_extra_vars(list(args.extra_vars), Path.cwd())
    if args.host is not None:
        text = _dump(host_variables(inv, _one_host(inv, args.host), extra, args.export), args.yaml)
    else:
        if args.limit and args.graph is None:  # ansible-inventory's --graph shows every host, whatever --limit says
            inv = inv.limit(args.limit, allow_empty=True, lenient=True)
            if not inv.hosts:  # ansible-inventory's words; it then lists the groups without hosts
                print(f"[WARNING]: Could not match supplied host pattern, ignoring: {args.limit}", file=sys.stderr)
        if args.graph is not None:
            text = ansible_graph(inv, _graph_start(inv, args.graph or args.group or "all"), args.vars, extra)
        elif args.yaml:
            text = dump_yaml(yaml_list(inv, extra, args.export))
        else:
            text = dump_json(ansible_list(inv, extra, args.export))
    if args.output is not None:
        write_output(args.output, text.encode("utf-8"))
    else:
        print(text.rstrip("\n") if args.yaml else text)
    return ExitCode.OK


def _dump(value: object, as_yaml: bool) -> str:
    return dump_yaml(value) if as_yaml else dump_json(value)


def _one_host(inv: Inventory, pattern: str) -> str:
    hosts = inv.select(pattern, allow_empty=True)
    if len(hosts) != 1:
        raise InputError([Problem(None, "--host", f"'{pattern}' names {len(hosts)} hosts",
                                  "give the name of one host of the inventory")])
    return hosts[0].name


def _graph_start(inv: Inventory, group: str) -> str:
    if group not in inv.groups:
        raise InputError([Problem(None, "--graph", f"'{group}' is not a group of the inventory",
                                  "known groups: " + ", ".join(sorted(inv.groups)))])
    return group
