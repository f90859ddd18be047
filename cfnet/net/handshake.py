"""The link handshake, sans-IO: mutual Ed25519 authentication bound to the table, a CPace key
exchange keyed by the join code, and the keys of the link's frames.

Both sides send a hello (version, identity key, the table id, whether a join code is in use, a
CPace share: CPACE-X25519-SHA512, `cfnet.net.cpace`, with the normalised join code as the
password, or the empty password on a table without one). Each side hashes both hellos into a
transcript and derives, with HKDF from the CPace key (ISK) salted by the transcript, one
confirmation value per role and one frame key per direction. The initiator then sends its auth
(its confirmation value and an Ed25519 signature over role label, transcript and that value);
the responder checks it and only then answers with its own.

A recorded handshake never verifies again (the other side's share is new); one side's proof is
never valid for the other role. The join code never crosses the wire, and no message lets
anyone test guesses offline: a fake joiner or a fake host learns, per connection, whether the
one code it put into its own share was right (that is CPace's guarantee). The lobby host
counts those online guesses (`WrongJoinCode`).
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import os
import unicodedata
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.lang import N_, Sentence
from cfnet.net import NET_VERSION, cpace, reasons
from cfnet.record.codec import encode_canonical
from cfnet.record.entry import TABLE_ID_BYTES
from cfnet.record.identity import (
    PUBLIC_KEY_BYTES,
    SIGNATURE_BYTES,
    Identity,
    fingerprint,
    verify_signature,
)

CONFIRM_BYTES = 32
FRAME_KEY_BYTES = 32
LABEL = b"cfnet/v2/handshake"  # also CPace's channel identifier CI

Entropy = Callable[[int], bytes]
"""Returns that many uniformly random bytes (os.urandom; fixed bytes for test vectors)."""


class HandshakeError(PeerProtocolError):
    """The peer did not authenticate, or is not who we expected, or refused us."""


class WrongJoinCode(HandshakeError):
    """The peer's proof shows another join code than ours (the lobby host counts these)."""


class CodeMismatch(HandshakeError):
    """One side uses a join code and the other does not (its hello says so)."""


def join_code_password(code: str) -> bytes:
    """CPace's password for a join code: UTF-8 of casefold(strip(NFKC(code)))."""
    text = unicodedata.normalize("NFKC", code).strip().casefold()
    if not text:
        raise LocalProtocolError(
            Sentence(N_("an empty join code: choose a code of a few words or digits"))
        )
    return text.encode("utf-8")


@dataclass(frozen=True, slots=True)
class Hello:
    """One side's opening message, as validated from the wire."""

    key: bytes
    table_id: bytes
    code: bool
    share: bytes

    def to_message(self) -> dict[str, Any]:
        return {
            "t": "hello",
            "v": NET_VERSION,
            "key": self.key,
            "table": self.table_id,
            "code": self.code,
            "share": self.share,
        }

    @classmethod
    def from_message(cls, msg: dict[str, Any]) -> Hello:
        """The hello in `msg`; `HandshakeError` on a wrong version, type or size."""
        if msg.get("v") != NET_VERSION:
            raise HandshakeError(
                Sentence(reasons.OTHER_VERSION, theirs=repr(msg.get("v")), ours=NET_VERSION)
            )
        key, table = msg.get("key"), msg.get("table")
        code, share = msg.get("code"), msg.get("share")
        if not (
            _is_bytes(key, PUBLIC_KEY_BYTES)
            and isinstance(table, bytes)
            and len(table) in (0, TABLE_ID_BYTES)
            and isinstance(code, bool)
            and _is_bytes(share, cpace.FIELD_BYTES)
        ):
            raise HandshakeError(Sentence(reasons.BAD_HELLO))
        return cls(key, table, code, share)


@dataclass(frozen=True, slots=True)
class HandshakeResult:
    """An authenticated peer: its identity key, the table id, the transcript hash, and the
    ChaCha20-Poly1305 keys of the frames we send and of those we receive."""

    peer_key: bytes
    table_id: bytes
    transcript: bytes
    send_key: bytes = field(repr=False)
    receive_key: bytes = field(repr=False)


def _is_bytes(value: object, size: int) -> TypeGuard[bytes]:
    return isinstance(value, bytes) and len(value) == size


def _role(initiator: bool) -> bytes:
    return b"initiator" if initiator else b"responder"


def _expand(prk: bytes, info: bytes, length: int) -> bytes:
    return HKDFExpand(hashes.SHA256(), length, info).derive(prk)


@dataclass(frozen=True, slots=True)
class _Secrets:
    """What both hellos and the CPace key give: the transcript and the key schedule's prk."""

    transcript: bytes
    prk: bytes

    def confirm(self, initiator: bool) -> bytes:
        """The key confirmation value of the given role."""
        return _expand(self.prk, b"cfnet/v2/confirm/" + _role(initiator), CONFIRM_BYTES)

    def frame_key(self, initiator: bool) -> bytes:
        """The key of the frames the given role sends."""
        return _expand(self.prk, b"cfnet/v2/frames/" + _role(initiator), FRAME_KEY_BYTES)

    def signed(self, initiator: bool, confirm: bytes) -> bytes:
        """What the given role signs: role label, transcript, its confirmation value."""
        return LABEL + b"/" + _role(initiator) + self.transcript + confirm


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
    `entropy` draws the CPace scalar. Any failure raises `HandshakeError` and leaves the
    handshake failed.
    """

    def __init__(
        self,
        identity: Identity,
        *,
        initiator: bool,
        table_id: bytes | None,
        join_code: str | None = None,
        accept: Collection[bytes] | None = None,
        entropy: Entropy = os.urandom,
    ) -> None:
        if table_id is not None and len(table_id) != TABLE_ID_BYTES:
            raise LocalProtocolError(f"a table id has {TABLE_ID_BYTES} bytes")  # untranslated: bug
        if not initiator and table_id is None:
            raise LocalProtocolError(  # untranslated: a caller's bug
                "the responder of a handshake must know its table id"
            )
        self._identity = identity
        self._initiator = initiator
        self._table_id = table_id
        self._accept = None if accept is None else frozenset(accept)
        password = b"" if join_code is None else join_code_password(join_code)
        self._scalar = entropy(cpace.FIELD_BYTES)
        generator = cpace.calculate_generator(password, LABEL, b"")
        self._mine = Hello(
            key=identity.public,
            table_id=table_id or b"",
            code=join_code is not None,
            share=cpace.scalar_mult(self._scalar, generator),
        )
        self._state = _State.START
        self._theirs: Hello | None = None
        self._secrets: _Secrets | None = None
        self.result: HandshakeResult | None = None

    def start(self) -> list[dict[str, Any]]:
        """The opening message(s)."""
        if self._state is not _State.START:
            raise LocalProtocolError("handshake already started")  # untranslated: a bug
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
            self._secrets = self._on_hello(Hello.from_message(msg))
            self._state = _State.AWAIT_AUTH
            return [self._auth(self._secrets)] if self._initiator else []
        if self._state is _State.AWAIT_AUTH and kind == "auth":
            assert self._theirs is not None and self._secrets is not None
            self._check_auth(msg, self._secrets)
            self._state = _State.DONE
            table_id = self._table_id
            assert table_id is not None
            self.result = HandshakeResult(
                self._theirs.key,
                table_id,
                self._secrets.transcript,
                send_key=self._secrets.frame_key(self._initiator),
                receive_key=self._secrets.frame_key(not self._initiator),
            )
            return [] if self._initiator else [self._auth(self._secrets)]
        raise HandshakeError(Sentence(reasons.OUT_OF_TURN, kind=repr(kind), state=self._state.name))

    def _on_hello(self, theirs: Hello) -> _Secrets:
        if self._accept is not None and theirs.key not in self._accept:
            raise HandshakeError(Sentence(reasons.KEY_REFUSED, key=fingerprint(theirs.key)))
        if self._initiator:
            if len(theirs.table_id) != TABLE_ID_BYTES:
                raise HandshakeError(Sentence(reasons.NO_TABLE_NAMED))
            if self._table_id is not None and theirs.table_id != self._table_id:
                raise HandshakeError(
                    Sentence(
                        reasons.HOSTS_OTHER,
                        theirs=theirs.table_id.hex(),
                        ours=self._table_id.hex(),
                    )
                )
            self._table_id = theirs.table_id
        elif theirs.table_id and theirs.table_id != self._table_id:
            assert self._table_id is not None
            raise HandshakeError(
                Sentence(
                    reasons.WANTS_OTHER, theirs=theirs.table_id.hex(), ours=self._table_id.hex()
                )
            )
        if theirs.code != self._mine.code:
            table_has_code = theirs.code if self._initiator else self._mine.code
            raise CodeMismatch(
                Sentence(reasons.CODE_NEEDED if table_has_code else reasons.CODE_UNUSED)
            )
        point = cpace.scalar_mult(self._scalar, theirs.share)
        if point == cpace.NEUTRAL:
            raise HandshakeError(Sentence(reasons.DEGENERATE))
        self._theirs = theirs
        first, second = (self._mine, theirs) if self._initiator else (theirs, self._mine)
        isk = cpace.intermediate_key(
            point, cpace.transcript_ir(first.share, first.key, second.share, second.key), b""
        )
        assert self._table_id is not None
        transcript = hashlib.sha256(
            encode_canonical(
                [
                    LABEL,
                    NET_VERSION,
                    self._table_id,
                    [first.key, first.share],
                    [second.key, second.share],
                    self._mine.code,
                ],
            )
        ).digest()
        return _Secrets(transcript, hmac.digest(transcript, isk, "sha256"))  # HKDF-Extract

    def _auth(self, secrets: _Secrets) -> dict[str, Any]:
        confirm = secrets.confirm(self._initiator)
        sig = self._identity.sign(secrets.signed(self._initiator, confirm))
        return {"t": "auth", "sig": sig, "confirm": confirm}

    def _check_auth(self, msg: dict[str, Any], secrets: _Secrets) -> None:
        assert self._theirs is not None
        sig, confirm = msg.get("sig"), msg.get("confirm")
        if not (_is_bytes(sig, SIGNATURE_BYTES) and _is_bytes(confirm, CONFIRM_BYTES)):
            raise HandshakeError(Sentence(reasons.BAD_AUTH))
        theirs_initiator = not self._initiator
        if not verify_signature(self._theirs.key, secrets.signed(theirs_initiator, confirm), sig):
            raise HandshakeError(Sentence(reasons.BAD_SIGNATURE))
        if not hmac.compare_digest(confirm, secrets.confirm(theirs_initiator)):
            if self._mine.code:
                raise WrongJoinCode(Sentence(reasons.WRONG_CODE))
            raise HandshakeError(Sentence(reasons.BAD_CONFIRMATION))
