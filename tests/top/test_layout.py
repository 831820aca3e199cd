"""Issue 42: the tests mirror planner's packages, the sshd-lab tests in a tree of their own (tests/layout.py says
how a file's place is derived; `python tests/layout.py --apply` moves the files out of place)."""

from __future__ import annotations

from pathlib import Path

import layout


def test_every_test_file_is_where_what_it_tests_lives() -> None:
    wrong = [f"{src.relative_to(layout.TESTS.parent)} belongs in {dst.parent.relative_to(layout.TESTS.parent)}/ "
             f"(python tests/layout.py --apply)" for src, dst in layout.misplaced()]
    assert wrong == []


def test_a_new_flat_file_is_told_its_place(tmp_path: Path) -> None:
    flat = layout.TESTS / "test_zz_layout_probe.py"
    flat.write_text("import pytest\nfrom planner.store import open_store\nfrom planner.cli.main import main\n\n"
                    "pytestmark = [pytest.mark.slow, pytest.mark.ssh]\n")
    try:
        assert not layout.in_place(flat) and layout.place(flat) == ("lab", "store")
        assert (flat, layout.TESTS / "lab" / "store" / flat.name) in layout.misplaced()
    finally:
        flat.unlink()


def test_paths_from_the_file_reach_as_far_after_a_move() -> None:
    before = ('A = Path(__file__).parent / "data"\nB = Path(__file__).resolve().parents[1]\n'
              'C = Path(__file__).with_name("x")\n')
    assert layout.deepen(before, 2) == ('A = Path(__file__).parents[2] / "data"\n'
                                        "B = Path(__file__).resolve().parents[3]\n"
                                        'C = Path(__file__).parents[2].joinpath("x")\n')
