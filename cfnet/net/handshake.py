"""The link handshake, sans-IO: mutual Ed25519 authentication bound to the table, and join codes.

Both sides send a hello (version, identity key, fresh 32-byte nonce, ephemeral X25519 key, the
table id, whether a join code is in use). The initiator then sends its auth, the responder
checks it and answers with its own. An auth is an Ed25519 signature over a role label and the
hash of a transcript holding both hellos, so a recorded handshake never verifies again (the
other side's nonce is new) and one side's proof is never valid for the other role.

Join code: each side also sends HMAC(code_key, role || transcript || X25519 secret), where
code_key = scrypt(code, salt = label || table id). The code never crosses the wire; a passive
eavesdropper lacks the X25519 secret, so it cannot test guesses offline. The initiator proves
first and the responder only answers a correct proof, so a fake joiner learns one bit per
connection (online guessing, which the lobby host rate-limits per source address). A fake
host that the joiner dials does get the joiner's proof and can guess short codes offline
(one scrypt per guess): the inherent limit of a MAC without a PAKE (see .drafts/net-plan.md,
"join codes").
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import os
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeGuard

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from cfnet.codec import encode_canonical
from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.identity import (
    PUBLIC_KEY_BYTES,
    SIGNATURE_BYTES,
    Identity,
    fingerprint,
    verify_signature,
)

NET_VERSION = 1
NONCE_BYTES = 32
TABLE_ID_BYTES = 16
MAC_BYTES = 32
SCRYPT_N = 2**14
_LABEL = b"cfnet/v1/handshake"


class HandshakeError(PeerProtocolError):
    """The peer did not authenticate, or is not who we expected, or refused us."""


class WrongJoinCode(HandshakeError):
    """The peer's join-code proof is wrong (the lobby host counts these per address)."""


@lru_cache(maxsize=16)
def join_code_key(code: str, table_id: bytes) -> bytes:
    """The 32-byte key derived from a join code (slow: scrypt, salted by the table id)."""
    text = unicodedata.normalize("NFKC", code).strip().casefold()
    if not text:
        raise LocalProtocolError("an empty join code: choose a code of a few words or digits")
    return hashlib.scrypt(
        text.encode("utf-8"),
        salt=b"cfnet/v1/join-code\0" + table_id,
        n=SCRYPT_N,
        r=8,
        p=1,
        dklen=32,
    )


@dataclass(frozen=True, slots=True)
class Hello:
    """One side's opening message, as validated from the wire."""

    key: bytes
    nonce: bytes
    ephemeral: bytes
    table_id: bytes
    code: bool

    def to_message(self) -> dict[str, Any]:
        return {
            "t": "hello",
            "v": NET_VERSION,
            "key": self.key,
            "nonce": self.nonce,
            "eph": self.ephemeral,
            "table": self.table_id,
            "code": self.code,
        }

    @classmethod
    def from_message(cls, msg: dict[str, Any]) -> Hello:
        """The hello in `msg`; `HandshakeError` on a wrong version, type or size."""
        if msg.get("v") != NET_VERSION:
            raise HandshakeError(
                f"peer speaks network version {msg.get('v')!r}, we speak {NET_VERSION}"
            )
        key, nonce, eph = msg.get("key"), msg.get("nonce"), msg.get("eph")
        table, code = msg.get("table"), msg.get("code")
        if not (
            _is_bytes(key, PUBLIC_KEY_BYTES)
            and _is_bytes(nonce, NONCE_BYTES)
            and _is_bytes(eph, 32)
            and isinstance(table, bytes)
            and len(table) in (0, TABLE_ID_BYTES)
            and isinstance(code, bool)
        ):
            raise HandshakeError("malformed hello: wrong field types or sizes")
        return cls(key, nonce, eph, table, code)


@dataclass(frozen=True, slots=True)
class HandshakeResult:
    """An authenticated peer: its identity key, the table id and the transcript hash."""

    peer_key: bytes
    table_id: bytes
    transcript: bytes


def _is_bytes(value: object, size: int) -> TypeGuard[bytes]:
    return isinstance(value, bytes) and len(value) == size


class _State(enum.Enum):
    START = enum.auto()
    AWAIT_HELLO = enum.auto()
    AWAIT_AUTH = enum.auto()
    DONE = enum.auto()
    FAILED = enum.auto()


class Handshake:
    """One side of a handshake: `start()`, then `receive(msg)` per message until `result` is set.

    Both return the messages to send. The responder must know `table_id`; the initiator may
    pass None to accept the responder's table. `accept` limits the peer's key (None: anyone).
    Any failure raises `HandshakeError` and leaves the handshake failed.
    """

    def __init__(
        self,
        identity: Identity,
        *,
        initiator: bool,
        table_id: bytes | None,
        join_code: str | None = None,
        accept: Collection[bytes] | None = None,
    ) -> None:
        if table_id is not None and len(table_id) != TABLE_ID_BYTES:
            raise LocalProtocolError(f"a table id has {TABLE_ID_BYTES} bytes")
        if not initiator and table_id is None:
            raise LocalProtocolError("the responder of a handshake must know its table id")
        self._identity = identity
        self._initiator = initiator
        self._table_id = table_id
        self._code = join_code
        self._accept = None if accept is None else frozenset(accept)
        self._ephemeral = X25519PrivateKey.generate()
        self._mine = Hello(
            key=identity.public,
            nonce=os.urandom(NONCE_BYTES),
            ephemeral=self._ephemeral.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw),
            table_id=table_id or b"",
            code=join_code is not None,
        )
        self._state = _State.START
        self._theirs: Hello | None = None
        self._transcript = b""
        self._shared = b""
        self.result: HandshakeResult | None = None

    def start(self) -> list[dict[str, Any]]:
        """The opening message(s)."""
        if self._state is not _State.START:
            raise LocalProtocolError("handshake already started")
        self._state = _State.AWAIT_HELLO
        return [self._mine.to_message()]

    def receive(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        """Feed one message from the peer; returns what to send next."""
        try:
            return self._receive(msg)
        except Exception:
            self._state = _State.FAILED
            raise

    def _receive(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        kind = msg["t"]
        if self._state is _State.AWAIT_HELLO and kind == "hello":
            self._on_hello(Hello.from_message(msg))
            return [self._auth()] if self._initiator else []
        if self._state is _State.AWAIT_AUTH and kind == "auth":
            self._check_auth(msg)
            self._state = _State.DONE
            assert self._theirs is not None
            table_id = self._table_id
            assert table_id is not None
            self.result = HandshakeResult(self._theirs.key, table_id, self._transcript)
            return [] if self._initiator else [self._auth()]
        raise HandshakeError(
            f"unexpected {kind!r} message during the handshake ({self._state.name})"
        )

    def _on_hello(self, theirs: Hello) -> None:
        if self._accept is not None and theirs.key not in self._accept:
            raise HandshakeError(f"peer key {fingerprint(theirs.key)} is not one we accept here")
        if self._initiator:
            if len(theirs.table_id) != TABLE_ID_BYTES:
                raise HandshakeError("the responder named no table")
            if self._table_id is not None and theirs.table_id != self._table_id:
                raise HandshakeError(
                    f"peer hosts table {theirs.table_id.hex()}, we want {self._table_id.hex()}"
                )
            self._table_id = theirs.table_id
        elif theirs.table_id and theirs.table_id != self._table_id:
            assert self._table_id is not None
            raise HandshakeError(
                f"peer wants table {theirs.table_id.hex()}, this is {self._table_id.hex()}"
            )
        if theirs.code != self._mine.code:
            table_has_code = theirs.code if self._initiator else self._mine.code
            raise HandshakeError(
                "the table needs a join code (give it with --code)"
                if table_has_code
                else "a join code was given but the table uses none"
            )
        try:
            self._shared = self._ephemeral.exchange(
                X25519PublicKey.from_public_bytes(theirs.ephemeral)
            )
        except ValueError:
            raise HandshakeError("peer sent a degenerate ephemeral key") from None
        self._theirs = theirs
        first, second = (self._mine, theirs) if self._initiator else (theirs, self._mine)
        assert self._table_id is not None
        self._transcript = hashlib.sha256(
            encode_canonical(
                [
                    _LABEL,
                    NET_VERSION,
                    self._table_id,
                    [first.key, first.nonce, first.ephemeral],
                    [second.key, second.nonce, second.ephemeral],
                    self._mine.code,
                ],
            )
        ).digest()
        self._state = _State.AWAIT_AUTH

    def _role_data(self, initiator: bool) -> bytes:
        return _LABEL + (b"/initiator" if initiator else b"/responder") + self._transcript

    def _mac(self, initiator: bool) -> bytes:
        assert self._code is not None and self._table_id is not None
        key = join_code_key(self._code, self._table_id)
        return hmac.digest(key, self._role_data(initiator) + self._shared, "sha256")

    def _auth(self) -> dict[str, Any]:
        data = self._role_data(self._initiator)
        mac = self._mac(self._initiator) if self._code is not None else None
        return {"t": "auth", "sig": self._identity.sign(data), "mac": mac}

    def _check_auth(self, msg: dict[str, Any]) -> None:
        assert self._theirs is not None
        sig, mac = msg.get("sig"), msg.get("mac")
        if not _is_bytes(sig, SIGNATURE_BYTES):
            raise HandshakeError("malformed auth: no 64-byte signature")
        theirs_initiator = not self._initiator
        if not verify_signature(self._theirs.key, self._role_data(theirs_initiator), sig):
            raise HandshakeError("the peer's handshake signature does not verify")
        if self._code is None:
            if mac is not None:
                raise HandshakeError("malformed auth: a join code proof on a table without one")
            return
        if not _is_bytes(mac, MAC_BYTES) or not hmac.compare_digest(
            mac, self._mac(theirs_initiator)
        ):
            raise WrongJoinCode("wrong join code")
