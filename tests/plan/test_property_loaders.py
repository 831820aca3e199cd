"""Property tests (issue 9, item 10): no input makes the plan, YAML, inventory or -e loaders raise anything
but InputError — arbitrary text, YAML-shaped noise, and valid plans and inventories with random key renames,
type swaps and deletions. Every InputError lists at least one problem that prints.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.errors import InputError
from planner.inventory.graph import load_inventory
from planner.plan.loader import load_plan
from planner.plan.source import load_yaml, load_yaml_text
from planner.plan.templating import parse_extra_vars

ROOT = Path(__file__).resolve().parents[2]
INVENTORIES = ROOT / "tests" / "data" / "inventory"
SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _base_plans() -> list[Any]:
    out = []
    for p in sorted((ROOT / "plans").glob("*.yaml")):
        data = load_yaml(p).data  # planner's own typing: on/off stay words
        data.pop("inventory", None)  # so the unmutated plan loads without the lab inventory
        out.append(data)
    return out


PLANS = _base_plans()
INVENTORY_FILES = sorted(p for p in INVENTORIES.rglob("*") if p.is_file() and p.name != "README.md"
                         and not {"group_vars", "host_vars"} & set(p.parts))
WORDS = ["plays", "prep", "workloads", "collect", "hosts", "name", "vars", "slob", "fio", "orion", "readers",
         "zip", "repeat", "warmup", "when", "tags", "timeout", "allow_destroy", "destructive", "report", "plan",
         "rated", "reproduces", "children", "all", "ansible_host", "ansible_port", "version", "sync_start"]
FRAGMENTS = [":", "- ", "  ", "\t", "{", "}", "[", "]", ",", "&a ", "*a", "!!python/object:os.system ", "? ",
             "|", ">", "'", '"', "\n", "%YAML 1.1\n", "---\n", "...\n", "<<: *a", "!!binary x", "\x00", "\ufeff",
             "{{ x }}", "{% if x %}", "#", "@", "`", "key: value\n", "[1:3]", "=", ";", "\\", "!!int x", "~"]
ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.sampled_from(["{{ x }}", "{{", "{% if %}", "on", "off", "1e999", "[1:3]", "a:b",
                                           "/dev/sd[a", "{{ undefined_var }}", "", "0o777", "1_000", ".inf"]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += paths(v, (*prefix, i))
    return out


def get(node: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        node = node[p]
    return node


@st.composite
def mutated(draw: st.DrawFn, bases: list[Any]) -> Any:
    """A valid document with 1-4 random key renames, type swaps, deletions or duplications."""
    doc = copy.deepcopy(draw(st.sampled_from(bases)))
    for _ in range(draw(st.integers(1, 4))):
        candidates = [p for p in paths(doc) if p]
        if not candidates:
            break
        path = draw(st.sampled_from(candidates))
        parent, key = get(doc, path[:-1]), path[-1]
        op = draw(st.sampled_from(["rename", "swap", "delete", "duplicate", "wrap"]))
        if op == "rename" and isinstance(parent, dict):
            parent[draw(st.one_of(st.sampled_from(WORDS), st.text(max_size=8), st.integers()))] = parent.pop(key)
        elif op == "swap":
            parent[key] = draw(ODD)
        elif op == "delete":
            del parent[key]
        elif op == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
        else:
            parent[key] = [parent[key]] if draw(st.booleans()) else {"x": parent[key]}
    return doc


yaml_noise = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.sampled_from(WORDS), st.text(max_size=6)),
                      max_size=40).map("".join)


def only_input_error(fn: Callable[[], Any]) -> None:
    try:
        fn()
    except InputError as e:
        assert e.problems and all(str(p) for p in e.problems)


@pytest.fixture
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("prop")


# -- YAML and plans ----------------------------------------------------------------------------------------
@pytest.mark.slow
@SETTINGS
@given(st.one_of(st.text(), yaml_noise))
def test_load_yaml_text_raises_only_input_error(text: str) -> None:
    only_input_error(lambda: load_yaml_text(text, "x.yaml"))


@pytest.mark.slow
@SETTINGS
@given(text=st.one_of(st.text(), yaml_noise))
def test_load_plan_on_arbitrary_text(workdir: Path, text: str) -> None:
    path = workdir / "plan.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    only_input_error(lambda: load_plan(path))


@pytest.mark.slow
@SETTINGS
@given(doc=mutated(PLANS))
def test_load_plan_on_mutated_valid_plans(workdir: Path, doc: Any) -> None:
    path = workdir / "plan.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    only_input_error(lambda: load_plan(path))


@pytest.mark.slow
@SETTINGS
@given(base=st.sampled_from(PLANS), cut=st.integers(0, 5000), junk=yaml_noise)
def test_load_plan_on_damaged_plan_text(workdir: Path, base: Any, cut: int, junk: str) -> None:
    text = yaml.safe_dump(base)
    path = workdir / "plan.yaml"
    path.write_text(text[:cut] + junk + text[cut:])
    only_input_error(lambda: load_plan(path))


@pytest.mark.slow
def test_unmutated_plans_load() -> None:
    """The mutation bases are valid, so the mutation tests start from plans that load."""
    assert PLANS
    for doc in PLANS:
        path = ROOT / "tests" / "_unused"  # never written: yaml text goes through load_yaml_text
        load_yaml_text(yaml.safe_dump(doc), str(path))


# -- inventories -------------------------------------------------------------------------------------------
@pytest.mark.slow
@SETTINGS
@given(text=st.one_of(st.text(), yaml_noise), name=st.sampled_from(["hosts.ini", "hosts.yml", "inventory",
                                                                      "hosts.cfg"]))
def test_load_inventory_on_arbitrary_text(workdir: Path, text: str, name: str) -> None:
    path = workdir / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    only_input_error(lambda: load_inventory(path))


@pytest.mark.slow
@SETTINGS
@given(src=st.sampled_from(INVENTORY_FILES), data=st.data())
def test_load_inventory_on_mutated_valid_inventories(workdir: Path, src: Path, data: st.DataObject) -> None:
    text = src.read_text()
    if src.suffix in (".yml", ".yaml") and "!vault" not in text and data.draw(st.booleans()):
        text = yaml.safe_dump(data.draw(mutated([yaml.safe_load(text)])))
    else:  # INI (or YAML as text): insert noise at a few places
        for _ in range(data.draw(st.integers(1, 4))):
            at = data.draw(st.integers(0, len(text)))
            text = text[:at] + data.draw(yaml_noise) + text[at + data.draw(st.integers(0, 5)):]
    path = workdir / src.name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    only_input_error(lambda: load_inventory(path))


@pytest.mark.slow
@SETTINGS
@given(content=st.one_of(st.text(), yaml_noise, mutated([{"a": 1, "b": [1, 2], "c": {"d": "x"}}]).map(yaml.safe_dump)),
       where=st.sampled_from(["group_vars/all", "group_vars/all.yml", "group_vars/web.json", "host_vars/web1",
                              "group_vars/web/main.yml", "host_vars/web1.yaml"]))
def test_group_and_host_vars_files(workdir: Path, content: str, where: str) -> None:
    (workdir / "hosts.ini").write_text("[web]\nweb1 ansible_host=127.0.0.1\n")
    target = workdir / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8", errors="surrogatepass")
    only_input_error(lambda: load_inventory(workdir / "hosts.ini"))


def test_inventory_bases_load() -> None:
    assert INVENTORY_FILES
    for p in INVENTORY_FILES:
        if "vault" in p.parts:  # without its password a vaulted inventory is refused in words, never half read
            with pytest.raises(InputError, match="Ansible Vault"):
                load_inventory(p)
        else:
            load_inventory(p)


# -- extra vars --------------------------------------------------------------------------------------------
@pytest.mark.slow
@SETTINGS
@given(items=st.lists(st.one_of(st.text(), yaml_noise, st.sampled_from(["a=1", "a='b c' d=e", '{"a": 1}', "[1]",
                                                                          "@vars.yml", "@missing.yml", "{a: [1,2]}",
                                                                          "x", "@", "=1", "a=", "'unclosed"])),
                      max_size=4),
       file_text=st.one_of(st.text(), yaml_noise))
def test_parse_extra_vars_raises_only_input_error(workdir: Path, items: list[str], file_text: str) -> None:
    (workdir / "vars.yml").write_text(file_text, encoding="utf-8", errors="surrogatepass")
    only_input_error(lambda: parse_extra_vars(items, workdir))
