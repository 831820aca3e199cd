"""planner.cli.early_imports: which modules an apply's end needs, and a failing import that changes nothing."""

from __future__ import annotations

import sys

from planner.cli import early_imports


def test_the_push_and_a_template_step_name_their_modules() -> None:
    assert early_imports.for_apply(["command"], push=False) == ()
    assert early_imports.for_apply(["command", "template"], push=False) == early_imports.TEMPLATE
    assert early_imports.for_apply(["template"], push=True) == (*early_imports.PUSH, *early_imports.TEMPLATE)


def test_a_module_that_cannot_be_imported_is_left_to_the_end_and_the_rest_go_on() -> None:
    missing = "planner_no_such_module_for_early_imports"
    early_imports.start([missing, "planner.results.measure"], kind_findings=True).join()
    assert missing not in sys.modules  # the end's own import meets the same error, where it always did
    assert "planner.results.measure" in sys.modules
    assert "planner.kinds.fio.findings" in sys.modules  # a kind's findings, as its spec names them
