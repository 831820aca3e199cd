"""The SSH transport: the Connection interface over paramiko (the only module importing it).

OpenSSH behaviour users expect: ``~/.ssh/config`` (HostName, User, Port, IdentityFile, ProxyJump,
ProxyCommand, ConnectTimeout, ServerAliveInterval, UserKnownHostsFile, HostKeyAlias), ssh-agent,
and known_hosts checking that never trusts a key silently. Precedence is Fabric's: inventory >
ssh_config > defaults. ``ansible_password`` logs in as Ansible's paramiko connection does: keys are
still tried first, the agent is not, then the password.

Measured traps handled here:
- paramiko never sets TCP_NODELAY: we open the socket ourselves (planner/transport/ssh/sockets.py).
- ``recv_exit_status()`` before reading deadlocks on a full window (paramiko #448, #1778): see channel.py.
- paramiko's ``HostKeys.load`` drops a whole file for one bad line (pyinfra #1339): see known_hosts.py.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import errno
import functools
import hashlib
import logging
import os
import posixpath
import secrets
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import paramiko
from paramiko.kex_gex import KexGexSHA256
from paramiko.kex_group14 import KexGroup14SHA256

from planner.errors import ConnectError, StepError
from planner.host import Host
from planner.transport.become import PROMPT, BecomePassword, become_password, fresh_prompt, requiretty
from planner.transport.connection import Argv, CommandResult, Connection, captured, command_line
from planner.transport.ssh import algorithms as algos
from planner.transport.ssh import early_auth, noinvoke
from planner.transport.ssh import scripts as ssh_scripts
from planner.transport.ssh.channel import PGID_MARK, PeerWatch, ProcessGroup, Sink, drain, stays_active
from planner.transport.ssh.fileops import check, file_error, missing_setsid, refused
from planner.transport.ssh.known_hosts import (
    KnownKey,
    append_key,
    ca_only_error,
    changed_key_error,
    known_keys,
    revoked_error,
    unknown_key_error,
)
from planner.transport.ssh.sockets import tcp_socket
from planner.transport.ssh.target import ExecDeferred, SSHTarget, resolve
from planner.transport.streams import READ_BUF, LocalSink, OutputBuffer, Stamped, fetch_cap

noinvoke.restore()  # paramiko is imported: invoke may load again (only for ssh_config's Match exec)

# paramiko's transport thread logs its failures with tracebacks; with no handler, Python's last-resort one
# printed them on stderr. planner reports each failure itself, in words.
logging.getLogger("paramiko").addHandler(logging.NullHandler())
SFTP_CHUNK = 32768  # paramiko's largest SFTP read request
SFTP_WINDOW = 8 << 20


@functools.lru_cache(maxsize=8)
def _parse_config(path: str, _mtime_ns: int) -> paramiko.SSHConfig:
    return noinvoke.ssh_config(paramiko, path)


def config_lookup(host: Host, path: Path, *, run_exec: bool = True) -> dict[str, Any]:
    """paramiko's answer for ``host`` from the ssh_config file ``path``; unless ``run_exec``, ExecDeferred where a
    ``Match exec`` would run its command (none is run)."""
    try:
        with noinvoke.exec_allowed(run_exec):
            return dict(_parse_config(str(path), path.stat().st_mtime_ns).lookup(host.address))
    except ExecDeferred:
        raise
    except Exception as e:  # paramiko raises plain exceptions for unsupported Match keywords
        raise ConnectError(f"{host.name}: cannot read ssh config {path}: {e}") from e


# Every SSHConnection's target: inventory > ssh_config (read here) > defaults, as target.resolve merges them.
resolve_target = functools.partial(resolve, lookup=config_lookup)


def _fingerprint(key: paramiko.PKey) -> str:
    return f"{key.get_name()} {key.fingerprint}"


def _in_auth(transport: paramiko.Transport | None) -> bool:
    """The handshake is over (a session id) and the login not yet accepted: a failure now is the login's."""
    return (transport is not None and transport.is_active() and transport.session_id is not None
            and not transport.is_authenticated())


def _auth_error(where: str, t: SSHTarget, e: paramiko.AuthenticationException) -> ConnectError:
    """The login was refused, in words naming what was tried (never the password itself)."""
    if t.password is None:
        return ConnectError(f"{where}: authentication failed ({e})",
                            hint="check ansible_user / ansible_ssh_private_key_file, ssh-agent and "
                                 "authorized_keys; `ssh -v` shows what the server accepts")
    if isinstance(e, paramiko.BadAuthenticationType):
        offered = ", ".join(e.allowed_types) or "nothing"
        return ConnectError(f"{where}: the server does not accept password authentication (it offers {offered})",
                            hint="log in with a key (ansible_ssh_private_key_file), or allow "
                                 "PasswordAuthentication for this user in the host's sshd_config")
    return ConnectError(f"{where}: password authentication failed",
                        hint="check ansible_user and ansible_password (or the Vault value it comes from)")


# paramiko 5 dropped RSA signatures over SHA-1 ("ssh-rsa") and the SHA-1 key exchanges; OpenSSH before 7.2 (RHEL/OL
# 5 and 6) has no other RSA signature, for host keys and logins alike, and 4.3p2 (RHEL/OL 5) no other key exchange.
# OpenSSH's client still uses them for a host whose ssh_config names them; so does planner, for that host only (its
# Transport's lists): no other connection ever offers them.
SHA1_RSA = "ssh-rsa"


class _KexGroup14SHA1(KexGroup14SHA256):
    name = "diffie-hellman-group14-sha1"
    hash_algo = hashlib.sha1


class _KexGexSHA1(KexGexSHA256):
    name = "diffie-hellman-group-exchange-sha1"
    hash_algo = hashlib.sha1


SHA1_KEX = {k.name: k for k in (_KexGexSHA1, _KexGroup14SHA1)}
_LISTS = {algos.Kind.KEX: "kex", algos.Kind.HOSTKEY: "keys", algos.Kind.PUBKEY: "pubkeys",
          algos.Kind.CIPHER: "ciphers", algos.Kind.MAC: "macs"}
# paramiko's "Incompatible ssh peer/server (no acceptable ...)" -> the list that did not match, and the offer's key
_MISMATCH = {"kex algorithm": (algos.Kind.KEX, "kex_algo_list"), "host key": (algos.Kind.HOSTKEY,
             "server_key_algo_list"), "ciphers": (algos.Kind.CIPHER, "server_encrypt_algo_list"),
             "macs": (algos.Kind.MAC, "server_mac_algo_list")}


def _supported(kind: algos.Kind) -> list[str]:
    """Every name of ``kind`` planner can use (paramiko's, and ssh-rsa for keys)."""
    t = paramiko.Transport
    if kind in (algos.Kind.HOSTKEY, algos.Kind.PUBKEY):
        return [k for k in t._key_info if "-cert-" not in k] + [SHA1_RSA]  # type: ignore[attr-defined]
    if kind is algos.Kind.KEX:
        return [*t._kex_info, *SHA1_KEX]  # type: ignore[attr-defined]
    return list(getattr(t, "_cipher_info" if kind is algos.Kind.CIPHER else "_mac_info"))


def _algorithm_lists(t: SSHTarget, name: str) -> dict[str, tuple[str, ...]]:
    """The host's ssh_config algorithm keywords as paramiko's preferred lists (ConnectError when unusable)."""
    lists = {_LISTS[w.kind]: algos.resolve(w, getattr(paramiko.Transport, f"_preferred_{_LISTS[w.kind]}"),
                                           _supported(w.kind), name) for w in t.algorithms}
    keys = lists.get("keys", ())
    if SHA1_RSA in keys and not any(k.startswith("rsa-sha2-") for k in keys):
        # SSHClient.connect raises a bare Exception for a known ssh-rsa host key when no SHA-2 RSA signature is
        # listed; listed after ssh-rsa they change nothing against a server that has only ssh-rsa.
        lists["keys"] = (*keys, "rsa-sha2-512", "rsa-sha2-256")
    return lists


def _allow_sha1_rsa() -> None:
    """RSAKey signs and verifies "ssh-rsa" again (class-wide, but only a Transport whose lists name it asks)."""
    from cryptography.hazmat.primitives import hashes  # paramiko's own dependency

    paramiko.RSAKey.HASHES.setdefault(SHA1_RSA, hashes.SHA1)


class _Transport(early_auth.EarlyAuthTransport, paramiko.Transport):
    """paramiko's Transport with this host's algorithm lists; keeps the server's offer for the error; a key login
    without waiting for the service's acceptance (early_auth)."""

    early_auth = early_auth.handler_class(paramiko.auth_handler.AuthHandler)

    def __init__(self, *args: Any, lists: Mapping[str, tuple[str, ...]] | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.offer: dict[str, list[str]] = {}
        for name, names in (lists or {}).items():
            setattr(self, f"_preferred_{name}", names)
        sha1_kex = [k for k in (lists or {}).get("kex", ()) if k in SHA1_KEX]
        if sha1_kex:
            self._kex_info = {**self._kex_info, **{k: SHA1_KEX[k] for k in sha1_kex}}  # type: ignore[has-type]
        if any(SHA1_RSA in (lists or {}).get(n, ()) for n in ("keys", "pubkeys")):
            _allow_sha1_rsa()
            self._key_info = {**self._key_info, SHA1_RSA: paramiko.RSAKey}  # type: ignore[has-type]

    @property
    def preferred_pubkeys(self) -> tuple[str, ...]:
        found = tuple(super().preferred_pubkeys)
        if SHA1_RSA in found and not getattr(self, "server_extensions", {}).get("server-sig-algs"):
            # As OpenSSH's client: a server that names no signature algorithms (OpenSSH < 7.2) verifies RSA
            # logins as ssh-rsa only.
            return (SHA1_RSA, *(a for a in found if a != SHA1_RSA))
        return found

    def _parse_kex_init(self, m: paramiko.Message) -> Any:
        # A copy read from the start of the packet (m itself, unread yet, also carries its sequence number).
        self.offer = self._really_parse_kex_init(paramiko.Message(m.asbytes()))  # type: ignore[attr-defined]
        return super()._parse_kex_init(m)  # type: ignore[misc]


def _mismatch(where: str, transport: Any, e: Exception) -> ConnectError | None:
    """OpenSSH's words for a negotiation that found nothing in common, or None for any other failure."""
    hit = next((v for k, v in _MISMATCH.items() if f"(no acceptable {k})" in str(e)), None)
    if hit is None or not isinstance(transport, _Transport) or not transport.offer:
        return None
    kind, key = hit
    offer = transport.offer.get(key, [])
    usable = [a for a in offer if a in _supported(kind)]
    also = "PubkeyAcceptedAlgorithms +ssh-rsa" if usable[:1] == [SHA1_RSA] else ""
    return algos.mismatch(where, kind, offer, usable, also)

# sudo's refusal under Defaults requiretty (sudo 1.7-1.9: "sorry, you must have a tty to run sudo")
_REQUIRETTY = "you must have a tty to run sudo"

class _UnknownKeyPolicy(paramiko.MissingHostKeyPolicy):
    """Called only when known_hosts has no key for the host: refuse, or accept-new and append."""

    def __init__(self, conn: SSHConnection) -> None:
        self.conn = conn

    def missing_host_key(self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey) -> None:
        t = self.conn.target
        files = ", ".join(str(f) for f in t.known_hosts)
        self.conn.refuse_revoked(key)  # before accept-new: a revoked key is never recorded
        cas = [k for k in self.conn.known if k.marker == "cert-authority"]
        if cas and not any(not k.marker for k in self.conn.known):
            raise ca_only_error(self.conn.host.name, hostname, cas, _fingerprint(key))
        if not t.accept_new:
            raise unknown_key_error(self.conn.host.name, hostname, _fingerprint(key), files)
        append_key(t.known_hosts[0], hostname, key.get_name(), key.get_base64())


class SSHConnection(Connection):
    """One SSH connection to one host, reused by every step; reconnects if the transport dropped."""

    def __init__(self, host: Host, *, known_hosts: Path | None = None, accept_new_host_keys: bool = False,
                 ssh_config: Path | None = None, connect_timeout: float | None = None,
                 keepalive_s: float | None = None, allow_agent: bool = True, tcp_nodelay: bool = True,
                 target: SSHTarget | None = None) -> None:
        self.host = host
        # target: resolved already from these options (connect.py's early connects), never a second time
        self.target = target or resolve_target(host, ssh_config=ssh_config, known_hosts=known_hosts,
                                               accept_new_host_keys=accept_new_host_keys,
                                               connect_timeout=connect_timeout, keepalive_s=keepalive_s)
        self._opts: dict[str, Any] = {"known_hosts": known_hosts, "accept_new_host_keys": accept_new_host_keys,
                      "ssh_config": ssh_config, "connect_timeout": connect_timeout,
                      "keepalive_s": keepalive_s, "allow_agent": allow_agent, "tcp_nodelay": tcp_nodelay}
        self._allow_agent = allow_agent
        self._tcp_nodelay = tcp_nodelay
        self._client: paramiko.SSHClient | None = None
        self._sftp: paramiko.SFTPClient | None = None
        self._jump: SSHConnection | None = None
        # (pgid, become, become_user) of commands whose connection died under them: killed by recover()
        self._lost: list[tuple[int, bool, str]] = []
        self._watch: PeerWatch | None = None
        self.known: list[KnownKey] = []  # known_hosts lines for this host, markers included (set by connect)
        self._frozen: str | None = None  # why the last connection was declared dead (PeerWatch), for recover()
        self.first_socket: Any = None  # a TCP socket already connected to the target, or its error (connect.py)

    # -- connecting ---------------------------------------------------------------------------------

    @property
    def transport(self) -> paramiko.Transport | None:
        return self._client.get_transport() if self._client else None

    def connect(self) -> None:
        """Open the connection; raises ConnectError / HostKeyError with a hint."""
        self.close()
        t = self.target
        where = f"{self.host.name}: {t.user}@{t.hostname}:{t.port}"
        client = paramiko.SSHClient()
        known = self.known = known_keys([*t.known_hosts, Path("/etc/ssh/ssh_known_hosts")], t.key_name)
        revoked = {(k.key_type, k.key_base64) for k in known if k.marker == "revoked"}
        # Only plain host keys are trusted, and a revoked one never, even when also listed plainly (OpenSSH).
        for k in (k for k in known if not k.marker and (k.key_type, k.key_base64) not in revoked):
            with contextlib.suppress(Exception):  # a key type paramiko cannot load: skipped, as OpenSSH would
                client.get_host_keys().add(t.key_name, k.key_type, paramiko.PKey.from_type_string(
                    k.key_type, base64.b64decode(k.key_base64)))
        client.set_missing_host_key_policy(_UnknownKeyPolicy(self))
        lists = _algorithm_lists(t, self.host.name)
        try:
            sock = self._open_socket(where)
            # With sock= given, hostname/port only name the known_hosts entry to check.
            client.connect(t.key_host, t.port, username=t.user, key_filename=list(t.key_files) or None,  # type: ignore[arg-type]  # paramiko takes a list too
                           timeout=t.connect_timeout, banner_timeout=t.connect_timeout,
                           auth_timeout=t.connect_timeout, look_for_keys=not t.key_files, sock=sock,
                           # As Ansible's paramiko connection: a password turns the agent off; keys first
                           allow_agent=self._allow_agent and t.password is None, password=t.password,
                           transport_factory=functools.partial(_Transport, lists=lists))
        except paramiko.BadHostKeyException as e:
            client.close()
            self.refuse_revoked(e.key)
            raise changed_key_error(where, _fingerprint(e.key), _fingerprint(e.expected_key), known,
                                    t.key_name) from e
        except ConnectError:
            client.close()
            raise
        except paramiko.AuthenticationException as e:
            client.close()
            raise _auth_error(where, t, e) from e
        except (OSError, EOFError, paramiko.SSHException) as e:
            unmatched = _mismatch(where, client.get_transport(), e)
            in_auth = _in_auth(client.get_transport())
            client.close()
            if unmatched is not None:
                raise unmatched from e
            if str(e) == "No authentication methods available":  # paramiko's words: nothing was offered at all
                raise ConnectError(f"{where}: nothing to log in with: no key file, ssh-agent key or password",
                                   hint="set ansible_ssh_private_key_file or ansible_password in the inventory, "
                                        "or add a key to ssh-agent") from e
            if in_auth and isinstance(e, paramiko.SSHException):
                # the key exchange was done, so the login was refused: paramiko re-raises its last try, which
                # for an RSA key file is reading it as an Ed25519 key ("Invalid key")
                raise _auth_error(where, t, paramiko.AuthenticationException(
                    "the server refused every key offered")) from e
            silent = "banner" in str(e) or str(e) == "No existing session"  # paramiko's words for a mute peer
            why = "no SSH banner: the port accepts but does not speak SSH" if silent else f"SSH handshake failed: {e}"
            raise ConnectError(f"{where}: {why}", hint="is an SSH server listening there?") from e
        transport = client.get_transport()
        if transport is not None and t.keepalive_s > 0:
            # Not paramiko's set_keepalive: its requests want no reply, so a frozen host would go unnoticed.
            self._watch = PeerWatch(transport, t.keepalive_s, t.keepalive_count)
        self._client = client

    def refuse_revoked(self, key: paramiko.PKey) -> None:
        """HostKeyError when known_hosts marks the server's key @revoked: refused always, never appended."""
        hit = [k for k in self.known if k.marker == "revoked" and (k.key_type, k.key_base64) ==
               (key.get_name(), key.get_base64())]
        if hit:
            t = self.target
            raise revoked_error(f"{self.host.name}: {t.user}@{t.hostname}:{t.port}", _fingerprint(key), hit[0])

    def _open_socket(self, where: str) -> Any:
        t, early, self.first_socket = self.target, self.first_socket, None
        if isinstance(early, ConnectError):
            raise early
        if early is not None:
            return early
        if t.proxy_command:
            return paramiko.ProxyCommand(t.proxy_command)
        if t.proxy_jump:
            return self._jump_channel(where)
        return tcp_socket(t, where, nodelay=self._tcp_nodelay)

    def _jump_channel(self, where: str) -> paramiko.Channel:
        """ProxyJump a,b: reach b through a (recursively), then open a direct-tcpip channel to us."""
        t = self.target
        hops = [h.strip() for h in str(t.proxy_jump).split(",")]
        user, _, hostport = hops[-1].rpartition("@")
        name, _, port = hostport.partition(":")
        opts = dict(self._opts, known_hosts=self._opts["known_hosts"] or t.known_hosts[0])
        jump = SSHConnection(Host(name, name, port=int(port) if port else None, user=user or None), **opts)
        if len(hops) > 1:
            jump.target = dataclasses.replace(jump.target, proxy_jump=",".join(hops[:-1]), proxy_command=None)
        jump.connect()
        self._jump = jump
        transport = jump.transport
        assert transport is not None
        try:
            return transport.open_channel("direct-tcpip", (t.hostname, t.port), ("127.0.0.1", 0),
                                          timeout=t.connect_timeout)
        except (paramiko.SSHException, OSError) as e:
            raise ConnectError(f"{where}: jump host {hops[-1]} cannot reach the host: {e}") from e

    def ensure_connected(self) -> paramiko.Transport:
        """The live transport, reconnecting first if it dropped (between steps, never mid-command)."""
        transport = self.transport
        if transport is None or not transport.is_active():
            self.connect()
            transport = self.transport
            assert transport is not None
        return transport

    def recover(self) -> list[int]:
        """After a dropped connection: reconnect, then kill the process groups of the commands that were
        running when it dropped (they outlive their session). Returns the pgids killed; raises ConnectError
        when the host cannot be reached again (those groups then stay listed for a later attempt)."""
        frozen, self._frozen = self._frozen, None
        self.connect()  # always afresh: a transport can look active for a moment after its peer is gone
        transport = self.ensure_connected()
        killed = []
        while self._lost:
            pgid, become, buser = self._lost[0]
            try:
                self._kill_group(transport, pgid, become, buser)
            except (paramiko.SSHException, OSError, EOFError, ConnectError) as e:
                raise ConnectError(f"{self.host.name}: reconnected, but could not stop the interrupted "
                                   f"command (process group {pgid}): {e}") from e
            self._lost.pop(0)
            killed.append(pgid)
        if frozen:  # reachable again, but a host that froze mid-command is not trusted with a measurement
            raise ConnectError(f"{self.host.name}: not retried: the host froze mid-command (reconnected since, "
                               f"stopped process groups {killed or 'none left'})",
                               hint="check the host (load, swap, a hung disk or NFS mount) before running again")
        return killed

    def close(self) -> None:
        if self._watch is not None:
            self._watch.stop()
            self._watch = None
        for closable in (self._sftp, self._client, self._jump):
            if closable is not None:
                # Closing a dead connection must not mask the real error.
                with contextlib.suppress(Exception):
                    closable.close()
        self._sftp = self._client = self._jump = None

    # -- commands -----------------------------------------------------------------------------------

    def run(self, argv: Argv, *, become: bool = False, become_user: str | None = None, login: bool = False,
            timeout: float | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None,
            stdin: bytes | None = None) -> CommandResult:
        out, err = OutputBuffer(), OutputBuffer()
        started = time.monotonic()
        shown, code, timed_out = self._exec(argv, out, err, become=become, become_user=become_user, login=login,
                                            timeout=timeout, env=env, cwd=cwd, stdin=stdin)
        r = captured(shown, code, out, err, time.monotonic() - started, timed_out)
        if become and code == 1 and _REQUIRETTY in r.stderr:  # sudo's own words, before any command ran
            raise requiretty(self.host.name, self.host.user)
        if (no_setsid := missing_setsid(self.host.name, r)) is not None:
            raise no_setsid
        return r

    def first_output(self, argv: Argv, *, timeout: float) -> tuple[str, int | None]:
        out = Stamped()
        _, code, timed_out = self._exec(argv, out, OutputBuffer(), timeout=timeout)
        return (out.text(), out.first_ns) if code == 0 and not timed_out else ("", None)

    def _exec(self, argv: Argv, out: Sink, err: Sink, *, become: bool = False, become_user: str | None = None,
              login: bool = False, timeout: float | None = None, env: Mapping[str, str] | None = None,
              cwd: str | None = None, stdin: bytes | None = None) -> tuple[str, int, bool]:
        """Run one command, its output streamed into ``out`` / ``err``; (line shown, exit code, timed out)."""
        buser = become_user or self.host.become_user
        secret = become_password(self.host) if become else None
        ask = secret is not None
        shown = command_line(argv, become=become, become_user=buser, login=login, env=env, cwd=cwd, ask_password=ask)
        prompt = fresh_prompt()
        wrapped = ssh_scripts.in_process_group(argv, become=become, become_user=buser, login=login, env=env,
                                               cwd=cwd, mark=PGID_MARK.decode(), ask_password=ask, prompt=prompt)
        transport = self.ensure_connected()
        started = time.monotonic()
        for fresh in (False, True):
            try:
                chan = transport.open_session(timeout=self.target.connect_timeout)
                chan.exec_command(wrapped)
                break
            except (paramiko.SSHException, OSError, EOFError) as e:
                if fresh:  # nothing ran yet, so one reconnect is safe: the transport may have died unnoticed
                    raise ConnectError(f"{self.host.name}: cannot start a command: {e or type(e).__name__}",
                                       hint="the SSH connection failed; the host is unreachable") from e
                self.connect()
                transport = self.ensure_connected()
        deadline = started + timeout if timeout else None
        group = ProcessGroup()  # its pgid once the marker is read: what a lost channel or a Ctrl-C must kill
        try:
            timed_out = self._drain(chan, stdin, deadline, out, err, group, secret=secret, prompt=prompt)
            if timed_out and group.pgid is not None:
                self._kill_group(transport, group.pgid, become, buser)
                self._drain(chan, None, time.monotonic() + 5.0, out, err, group)  # what it wrote while dying
            code = 124 if timed_out else chan.recv_exit_status()
            if code == -1 and not stays_active(transport):
                # -1 is paramiko's "no exit status": with the transport gone it means the session died
                # before reporting it, not that the command failed (a signal-killed command keeps it alive).
                raise ConnectError("the SSH connection closed before the exit status arrived")
        except (ConnectError, EOFError, OSError, paramiko.SSHException) as e:
            # paramiko reports a transport dying mid-command in several ways (EOFError from a closed
            # transport, socket errors, SSHException): all mean the same to a run, the host went away.
            if group.pgid is not None:  # still running there, orphaned: recover() kills it
                self._lost.append((group.pgid, become, buser))
            why = e.message if isinstance(e, ConnectError) else (str(e) or type(e).__name__)
            if self._watch is not None and self._watch.dead:
                why = self._frozen = self._watch.dead
            raise ConnectError(f"{self.host.name}: connection lost while running: {shown}: {why}",
                               hint="the host or its sshd went away; the command may still be running "
                                    "there") from e
        except BaseException:
            # Ctrl-C (or anything else): a workload left running on a lab host is a real harm.
            if group.pgid is not None:
                with contextlib.suppress(Exception):
                    self._kill_group(transport, group.pgid, become, buser, wait_s=5.0)
            raise
        finally:
            # Closing a channel on a transport that just died raises (EOFError); the outcome is already
            # known, so it must not replace it (the next command reconnects).
            with contextlib.suppress(Exception):
                chan.close()
        return shown, code, timed_out

    def _drain(self, chan: paramiko.Channel, stdin: bytes | None, deadline: float | None, out: Sink, err: Sink,
               group: ProcessGroup, secret: BecomePassword | None = None, prompt: str = PROMPT) -> bool:
        return drain(chan, stdin, deadline, group, self.cancelled, self.host.name, out, err, secret, prompt.encode())

    def _kill_group(self, transport: paramiko.Transport, pgid: int, become: bool, buser: str,
                    wait_s: float = 10.0) -> None:
        argv = ["sh", "-c", ssh_scripts.KILL_SCRIPT, "sh", str(pgid)]
        secret = become_password(self.host) if become else None
        line = command_line(argv, become=become, become_user=buser)
        prompt = fresh_prompt()
        if secret is not None:  # sudo -S answers its prompt before the marker line, as any command's
            line = ssh_scripts.in_process_group(argv, become=True, become_user=buser, login=False, env=None,
                                                cwd=None, mark=PGID_MARK.decode(), ask_password=True, prompt=prompt)
        chan = transport.open_session(timeout=self.target.connect_timeout)
        try:
            chan.exec_command(line)
            if secret is None:
                chan.shutdown_write()
            self._drain(chan, None, time.monotonic() + wait_s, OutputBuffer(), OutputBuffer(),
                        ProcessGroup(-1 if secret is None else None), secret=secret, prompt=prompt)
        finally:
            # Closing a channel on a transport that just died raises (EOFError); the outcome is already
            # known, so it must not replace it (the next command reconnects).
            with contextlib.suppress(Exception):
                chan.close()

    # -- files --------------------------------------------------------------------------------------

    def _sftp_client(self) -> paramiko.SFTPClient:
        transport = self.ensure_connected()
        channel = self._sftp.get_channel() if self._sftp is not None else None
        if self._sftp is None or channel is None or channel.closed:
            self._sftp = paramiko.SFTPClient.from_transport(transport)
        if self._sftp is None:  # paramiko returns None only when the channel cannot be opened
            raise ConnectError(f"{self.host.name}: cannot open an SFTP channel")
        return self._sftp

    def put(self, data: bytes | Path, remote: str, *, mode: int | None = None) -> None:
        payload = data.read_bytes() if isinstance(data, Path) else data
        digest = hashlib.sha256(payload).hexdigest()
        directory, name = posixpath.split(remote)
        tmp = posixpath.join(directory, f".{name}.planner-{secrets.token_hex(4)}.tmp")
        try:
            try:
                self._write(tmp, payload)
            except FileNotFoundError:
                check(self.host.name, self.run(["mkdir", "-p", "--", directory or "."]), f"create {directory}")
                self._write(tmp, payload)
        except (OSError, paramiko.SSHException, EOFError) as e:
            raise file_error(self.host.name, self.transport, e, f"upload {remote}") from e
        mode_arg = f"{mode:04o}" if mode is not None else ""
        r = self.run(["sh", "-c", ssh_scripts.FINISH_PUT, "sh", tmp, digest, remote, mode_arg])
        if r.exit_code == 9:
            raise StepError(f"{self.host.name}: upload of {remote} arrived corrupted ({r.stderr.strip()}, "
                            f"sent {digest})", hint="retry; check the host's disk and network")
        check(self.host.name, r, f"install {remote}")

    def _write(self, path: str, payload: bytes) -> None:
        with self._sftp_client().open(path, "wb") as f:
            f.set_pipelined(True)
            f.write(payload)

    def get(self, remote: str, local: Path, *, max_bytes: int | None = None) -> None:
        root = str(self.host.vars.get("planner_root") or "")
        max_bytes = fetch_cap(max_bytes, self.host.vars)
        header, err = OutputBuffer(head=2 * ssh_scripts.GET_INLINE_MAX, tail=0), OutputBuffer()
        try:
            with LocalSink(local, max_bytes, self.host.name, remote) as sink:
                started = time.monotonic()
                argv = ["sh", "-c", ssh_scripts.GET, "sh", remote, str(ssh_scripts.GET_INLINE_MAX), root,
                        "" if max_bytes is None else str(max_bytes)]
                r = captured(*self._exec(argv, header, err)[:2], header, err, time.monotonic() - started)
                refused(self.host.name, r, remote, root, max_bytes)
                head, _, body = r.stdout.partition("\n")
                words = head.split()
                if words[:1] == ["inline"] and len(words) == 3 and not r.truncated:  # small: came in this exec
                    data = base64.b64decode(body)
                    for i in range(0, len(data), READ_BUF):
                        sink.write(data[i:i + READ_BUF])
                    remote_sha = words[2]
                elif words[:1] == ["sftp"] and body:  # large: SFTP from the resolved path, then its checksum
                    body = body.removesuffix("\n")  # the path's line ends the reply
                    self._sftp_stream(body, sink)
                    r = self.run(["sh", "-c", 'sha256sum < "$1"', "sh", body])
                    check(self.host.name, r, f"checksum {remote}")
                    remote_sha = r.stdout.split()[0]
                else:
                    raise StepError(f"{self.host.name}: cannot fetch {remote}: unexpected answer {head[:80]!r}")
                if remote_sha != sink.hexdigest():
                    raise StepError(f"{self.host.name}: {remote} changed or was corrupted while copying "
                                    f"(local {sink.hexdigest()}, remote {remote_sha})", hint="retry when it is stable")
                sink.commit()
        except (OSError, paramiko.SSHException, EOFError) as e:
            if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT):  # only local writes say so
                raise StepError(f"{self.host.name}: cannot fetch {remote} to {local}: {os.strerror(e.errno)} "
                                f"on the controller (free space in {local.parent} first)") from e
            raise file_error(self.host.name, self.transport, e, f"fetch {remote}") from e

    def _sftp_stream(self, path: str, sink: LocalSink) -> None:
        """Read ``path`` over SFTP into ``sink`` a window at a time. paramiko's getfo() prefetches the whole file
        and keeps what arrives faster than it is consumed (a 2 GB fetch peaked at 1.8 GB of RSS); readv() over
        one window of requests at a time keeps at most SFTP_WINDOW bytes in hand, still pipelined."""
        with self._sftp_client().open(path, "rb") as f:
            size = f.stat().st_size or 0
            for start in range(0, size, SFTP_WINDOW):
                end = min(size, start + SFTP_WINDOW)
                chunks = [(o, min(SFTP_CHUNK, end - o)) for o in range(start, end, SFTP_CHUNK)]
                for data in f.readv(chunks, max_concurrent_prefetch_requests=64):
                    sink.write(data)

