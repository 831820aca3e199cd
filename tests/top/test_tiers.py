"""The two test tiers are checked, not trusted (tests/conftest.py): run on small test files of their own."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ("pytester",)
pytestmark = pytest.mark.slow  # each runs pytest again in-process: seconds, not milliseconds

CONFTEST = Path(__file__).parents[1].joinpath("conftest.py")


@pytest.fixture
def tiers(pytester: pytest.Pytester) -> pytest.Pytester:
    """A folder whose conftest is this suite's own (its lab fixtures, its tier checks)."""
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n    ssh: ssh\n")
    pytester.makeconftest(f"import sys\nsys.path.insert(0, {str(CONFTEST.parent)!r})\n"
                          f"exec(compile(open({str(CONFTEST)!r}).read(), {str(CONFTEST)!r}, 'exec'))\n")
    return pytester


def test_a_lab_test_without_its_markers_fails_collection(tiers: pytest.Pytester) -> None:
    tiers.makepyfile(test_lab="def test_uses_the_lab(lab):\n    pass\n\n"
                              "def helper(make_lab):\n    pass\n")
    result = tiers.runpytest_inprocess("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "test_lab.py::test_uses_the_lab: mark it slow, ssh" in result.stderr.str()


def test_a_fixture_reaching_the_lab_counts_and_marked_tests_collect(tiers: pytest.Pytester) -> None:
    tiers.makepyfile(test_lab="import pytest\n\n@pytest.fixture\ndef mine(pg_cluster):\n    return 1\n\n"
                              "def test_through_a_fixture(mine):\n    pass\n\n"
                              "@pytest.mark.slow\n@pytest.mark.ssh\ndef test_marked(lab):\n    pass\n")
    result = tiers.runpytest_inprocess("--collect-only", "-q")
    err = result.stderr.str()
    assert "test_through_a_fixture: mark it slow" in err and "test_marked" not in err


def test_a_fast_tier_test_that_starts_a_process_fails_saying_so(tiers: pytest.Pytester) -> None:
    tiers.makepyfile(test_proc="import subprocess\n\n"
                               "def test_shell():\n    subprocess.run(['true'])\n\n"
                               "def test_hides_it():\n    try:\n        subprocess.run(['true'])\n"
                               "    except BaseException:\n        pass\n\n"
                               "def test_pure():\n    assert 1 + 1 == 2\n")
    result = tiers.runpytest_inprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    assert "FAILED test_proc.py::test_hides_it" in out and "FAILED test_proc.py::test_shell" in out
    assert "this test starts a process (['true']): mark it slow" in out


def test_a_module_fixture_that_starts_a_process_counts(tiers: pytest.Pytester) -> None:
    tiers.makepyfile(test_mod="import subprocess, pytest\n\n@pytest.fixture(scope='module')\n"
                              "def tool():\n    return subprocess.run(['true']).returncode\n\n"
                              "def test_uses_it(tool):\n    assert tool == 0\n")
    result = tiers.runpytest_inprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    assert "this test starts a process (['true'])" in result.stdout.str()
