"""A key login sent right behind its service request: one round trip less per connection (no paramiko import here).

paramiko, like OpenSSH's client, sends SSH_MSG_SERVICE_REQUEST "ssh-userauth", waits for SERVICE_ACCEPT, and only
then sends the signed USERAUTH_REQUEST. sshd reads a connection's packets in order, and its handler of the service
request installs the handler of USERAUTH_REQUEST before it answers (auth2.c, input_service_request), so the request
may follow the service request without waiting: the server receives the same packets in the same order as before,
one round trip (at 50 ms RTT, 50 ms of every connect) sooner (docs/oracle-behaviour.md, "SSH login").

Only the signed publickey request is sent early, and only once everything it is made of is final: the signature
algorithm of an RSA key comes from the server's EXT_INFO (server-sig-algs), which a server that sends one sends right
behind its NEWKEYS (RFC 8308 2.4) and paramiko's transport thread may not have read yet. Then the request leaves when
the EXT_INFO is read, or, when the SERVICE_ACCEPT comes first (a server without EXT_INFO: OpenSSH < 7.2), when the
accept is read, as paramiko always did. Anything the early send raises is left to that path, which raises it as before.
"""

from __future__ import annotations

import threading
from typing import Any


class _ServiceAccepted:
    """What paramiko's handler reads of the server's SERVICE_ACCEPT of "ssh-userauth"."""

    @staticmethod
    def get_text() -> str:
        return "ssh-userauth"


_NEEDED = ("_request_auth", "_parse_service_accept", "_get_key_type_and_bits")  # paramiko 3.x's own names


def handler_class(base: type) -> type:
    """paramiko's AuthHandler (``base``) sending a publickey login without waiting for the service's acceptance;
    ``base`` itself (paramiko's order) when a paramiko release no longer has the internals this relies on."""
    if not all(hasattr(base, name) for name in _NEEDED):
        return base

    class EarlyAuth(base):
        def __init__(self, transport: Any) -> None:
            super().__init__(transport)
            self._early_lock = threading.Lock()
            self.early = False  # the request is sent: the server's SERVICE_ACCEPT needs no answer
            self.pending = False  # waiting for the EXT_INFO that decides an RSA key's signature algorithm

        def _request_auth(self) -> None:
            with self._early_lock:
                super()._request_auth()
                if self.auth_method != "publickey":
                    return
                try:
                    key_type = self._get_key_type_and_bits(self.private_key)[0]
                    extensions = self.transport.server_extensions
                except Exception:  # noqa: BLE001  anything unexpected: the accept's path, as paramiko does it
                    return
                if "rsa" in key_type and not extensions:
                    self.pending = True
                else:
                    self._send_early()

        def _send_early(self) -> None:
            try:
                super()._parse_service_accept(_ServiceAccepted())  # builds, signs and sends the request
            except Exception:  # noqa: BLE001  the accept's path raises it, as paramiko did
                return
            self.early = True

        def ext_info_read(self) -> None:
            """Called by the transport thread once the server's EXT_INFO is read."""
            with self._early_lock:
                if self.pending:
                    self.pending = False
                    self._send_early()

        def _parse_service_accept(self, m: Any) -> None:
            with self._early_lock:
                self.pending = False
                if not self.early:
                    super()._parse_service_accept(m)

    return EarlyAuth


class EarlyAuthTransport:
    """Mixed into paramiko's Transport (before it): ``auth_publickey`` with ``early_auth`` as its handler."""

    early_auth: type  # handler_class(paramiko's AuthHandler), set by the class mixing this in

    def auth_publickey(self, username: str, key: Any, event: threading.Event | None = None) -> list[str]:
        # paramiko's Transport.auth_publickey with the handler swapped (it names its AuthHandler class directly)
        if not (self.active and self.initial_kex_done):  # type: ignore[attr-defined]
            return super().auth_publickey(username, key, event)  # type: ignore[misc]  # paramiko's own error
        done = event or threading.Event()
        self.auth_handler = self.early_auth(self)
        self.auth_handler.auth_publickey(username, key, done)
        return [] if event is not None else self.auth_handler.wait_for_response(done)

    def _parse_ext_info(self, msg: Any) -> None:
        super()._parse_ext_info(msg)  # type: ignore[misc]
        handler = getattr(self, "auth_handler", None)
        if handler is not None and hasattr(handler, "ext_info_read"):
            handler.ext_info_read()
