"""The early key login relies on three of paramiko's internal names: a release without them gets paramiko's own
handler, never a login that fails on a missing attribute."""

from __future__ import annotations

from planner.transport.ssh import early_auth


class _Handler:
    def _request_auth(self) -> None: ...

    def _parse_service_accept(self, m: object) -> None: ...

    def _get_key_type_and_bits(self, key: object) -> tuple[str, int]:
        return "ssh-ed25519", 256


class _Renamed:
    def _request_auth(self) -> None: ...


def test_a_paramiko_without_the_internals_keeps_its_own_handler() -> None:
    assert early_auth.handler_class(_Renamed) is _Renamed


def test_a_paramiko_with_them_gets_the_early_login() -> None:
    cls = early_auth.handler_class(_Handler)
    assert cls is not _Handler and issubclass(cls, _Handler)
