"""Shared fixtures. The SSH lab: real OpenSSH servers on loopback (planner/lab.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from planner.lab import Lab, build_lab, sshd_available


def _require_sshd() -> None:
    reason = sshd_available()
    if reason:
        pytest.skip(f"SSH lab unavailable: {reason}")


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """Three lab hosts shared by the whole session; tests must not break them (use make_lab for that)."""
    _require_sshd()
    with build_lab(tmp_path_factory.mktemp("lab"), 3) as the_lab:
        yield the_lab


@pytest.fixture
def make_lab(tmp_path: Path) -> Iterator[Callable[..., Lab]]:
    """A factory of private labs, stopped after the test: for tests that kill hosts or swap keys."""
    _require_sshd()
    labs: list[Lab] = []

    def make(n_hosts: int = 1, **kw: object) -> Lab:
        new = build_lab(tmp_path / f"lab{len(labs)}", n_hosts, **kw)  # type: ignore[arg-type]
        labs.append(new)
        return new

    yield make
    for one in labs:
        one.stop()
