"""Ansible Vault: the `$ANSIBLE_VAULT;1.1;AES256` / `;1.2;AES256;<vault id>` envelope, decrypted as ansible-vault
writes it.

The payload (ansible-core's documented "Vault Payload Format 1.1 - 1.2"): after the header line, hex text
(wrapped at 80 columns) of ``hex(salt) \\n hex(hmac) \\n hex(ciphertext)``. PBKDF2-HMAC-SHA256 of the password
with the 32-byte salt, 10000 iterations, gives 80 bytes: the AES-256 key, the HMAC-SHA256 key and the CTR
counter block. The HMAC (over the ciphertext) is checked before anything is decrypted; the plaintext is
PKCS#7-padded to the AES block. The crypto is the `cryptography` package's, never hand-written.

A decrypted inline value is a `VaultText`: a string (steps and templates use it as the plaintext) that keeps
its ciphertext for `planner inventory --list` and is a `SecretText`, so planner.redaction masks it everywhere.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass
from typing import Any

from planner.redaction import SecretText

HEADER = "$ANSIBLE_VAULT"
DEFAULT_ID = "default"
_ITERATIONS = 10000
_KEY_BYTES = 32
_IV_BYTES = 16


class VaultError(ValueError):
    """A vault that cannot be opened: malformed, or no password given opens it (message says which)."""


@dataclass(frozen=True, slots=True)
class VaultPassword:
    """One password and the vault id (label) it was given for: `--vault-id prod@file` -> ("prod", ...)."""

    label: str
    password: bytes
    source: str  # where it came from, for messages: a file name, "prompt", ANSIBLE_VAULT_PASSWORD_FILE


@dataclass(frozen=True, slots=True)
class VaultKeys:
    """Every vault password the command line gave, in the order given."""

    passwords: tuple[VaultPassword, ...] = ()
    id_match: bool = False  # ANSIBLE_VAULT_ID_MATCH: only the password labelled with the vault's own id

    def candidates(self, vault_id: str | None) -> list[VaultPassword]:
        # the password labelled with the envelope's vault id first, then every other one, as Ansible tries them;
        # with id_match only that one (a 1.1 vault, which names no id, then matches none, as in ansible-core)
        first = [p for p in self.passwords if vault_id is not None and p.label == vault_id]
        return first if self.id_match else first + [p for p in self.passwords if p not in first]


NO_KEYS = VaultKeys()


@dataclass(frozen=True, slots=True)
class Envelope:
    """A vault's header fields and its hex body, parsed, not yet decrypted."""

    version: str
    cipher: str
    vault_id: str | None
    payload: bytes  # the hex text of the body, newlines removed


@dataclass(frozen=True, slots=True)
class VaultCipher:
    """An inline `!vault |` value as read, before it is decrypted (the reader decrypts it with the keys)."""

    ciphertext: str


class VaultText(SecretText):
    """A decrypted inline vault value: the plaintext as a string, its ciphertext kept for listing."""

    ciphertext: str

    def __new__(cls, plaintext: str, ciphertext: str) -> VaultText:
        self = super().__new__(cls, plaintext)
        self.ciphertext = ciphertext
        return self

    def __reduce__(self) -> tuple[type[VaultText], tuple[str, str]]:
        return VaultText, (str(self), self.ciphertext)


def is_vaulted(text: str) -> bool:
    return text.lstrip().startswith(HEADER + ";")


def parse_envelope(text: str) -> Envelope:
    lines = [line.strip() for line in text.strip().splitlines()]
    fields = lines[0].split(";") if lines else []
    if len(fields) < 3 or fields[0] != HEADER or fields[1] not in ("1.1", "1.2"):
        raise VaultError(f"not an Ansible Vault 1.1 or 1.2 envelope (header {lines[0][:40]!r})" if lines
                         else "an empty vault")
    if fields[2] != "AES256":
        raise VaultError(f"vault cipher {fields[2]!r} is not supported (ansible-vault writes AES256)")
    vault_id = fields[3] if fields[1] == "1.2" and len(fields) > 3 else None
    return Envelope(fields[1], fields[2], vault_id, "".join(lines[1:]).encode("ascii", "replace"))


def _split_payload(payload: bytes) -> tuple[bytes, bytes, bytes]:
    try:
        salt_hex, mac_hex, data_hex = binascii.unhexlify(payload).split(b"\n", 2)
        return binascii.unhexlify(salt_hex), binascii.unhexlify(mac_hex), binascii.unhexlify(data_hex)
    except (binascii.Error, ValueError):
        raise VaultError("the vault's body is not ansible-vault's hex payload (damaged or cut short)") from None


def _keys(password: bytes, salt: bytes) -> tuple[bytes, bytes, bytes]:
    # cryptography is imported when a vault is opened: every apply reads an inventory, few have a vault
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

    kdf = PBKDF2HMAC(algorithm=hashes.SHA256(), length=2 * _KEY_BYTES + _IV_BYTES, salt=salt,
                     iterations=_ITERATIONS)
    derived = kdf.derive(password)
    return derived[:_KEY_BYTES], derived[_KEY_BYTES:2 * _KEY_BYTES], derived[2 * _KEY_BYTES:]


def decrypt_with(envelope: Envelope, password: bytes) -> bytes | None:
    """The plaintext, or None when this password does not open the vault (its HMAC does not match)."""
    salt, mac, data = _split_payload(envelope.payload)
    aes_key, mac_key, counter = _keys(password, salt)
    import hmac  # here: hmac loads hashlib and OpenSSL, and most runs open no vault

    expected = hmac.new(mac_key, data, "sha256").digest()
    if not hmac.compare_digest(expected, mac):
        return None
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    decryptor = Cipher(algorithms.AES(aes_key), modes.CTR(counter)).decryptor()
    padded = decryptor.update(data) + decryptor.finalize()
    unpadder = padding.PKCS7(algorithms.AES.block_size).unpadder()
    try:
        return unpadder.update(padded) + unpadder.finalize()
    except ValueError:
        raise VaultError("the vault opened but its padding is wrong (the file is damaged)") from None


def decrypt(text: str, keys: VaultKeys) -> str:
    """The plaintext of a vault (a whole file or one inline value); VaultError says why it cannot be opened."""
    envelope = parse_envelope(text)
    named = f" (vault id '{envelope.vault_id}')" if envelope.vault_id else ""
    if not keys.passwords:
        raise VaultError(f"it is encrypted with Ansible Vault{named} and no vault password was given")
    candidates = keys.candidates(envelope.vault_id)
    if not candidates:
        raise VaultError(f"ANSIBLE_VAULT_ID_MATCH is set and no password was given for this vault's id{named}"
                         if envelope.vault_id else "ANSIBLE_VAULT_ID_MATCH is set and this vault (format 1.1) names "
                         "no vault id to match")
    for candidate in candidates:
        plain = decrypt_with(envelope, candidate.password)
        if plain is not None:
            try:
                return plain.decode("utf-8")
            except UnicodeDecodeError:
                raise VaultError("the vault's plaintext is not UTF-8 text") from None
    tried = ", ".join(dict.fromkeys(p.source for p in keys.passwords))
    raise VaultError(f"no vault password given opens this Ansible Vault{named} (tried: {tried})")


def mark_secret(value: Any) -> Any:
    """The same value with every string in it a SecretText: what a vaulted file holds is secret throughout."""
    if isinstance(value, SecretText):
        return value
    if isinstance(value, str):
        return SecretText(value)
    if isinstance(value, dict):
        return {k: mark_secret(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mark_secret(v) for v in value]
    return value
