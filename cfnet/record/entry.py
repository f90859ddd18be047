"""Signed log entries, their canonical bytes and hash, and equivocation proofs.

signed = canonical msgpack [1, table_id, seq, prev, seat, kind, body]; the Ed25519 signature
covers SIGN_DOMAIN + signed; wire = canonical msgpack [signed, signature]; hash =
SHA-256(HASH_DOMAIN + wire). Pure: no I/O, no clock.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from typing import Any

from cfnet.deck.derive import TABLE_ID_BYTES as TABLE_ID_BYTES  # the entry format's table id
from cfnet.errors import LocalProtocolError
from cfnet.lang import N_, Sentence
from cfnet.record.codec import MAX_DEPTH, DecodeError, EncodeError, decode_bounded, encode_canonical
from cfnet.record.identity import SIGNATURE_BYTES, Identity, verify_signature

ENTRY_VERSION = 1
SIGN_DOMAIN = b"cfnet/v1/entry\0"
HASH_DOMAIN = b"cfnet/v1/entry-hash\0"
HASH_BYTES = 32
GENESIS_PREV = bytes(HASH_BYTES)
MAX_ENTRY_BYTES = 1 << 20
MAX_SEQ = (1 << 32) - 1
MAX_SEAT = 255
VERIFIED_MEMORY = 4096
"""How many valid (key, entry hash) pairs are remembered: a verification is a pure function."""
_verified: dict[tuple[bytes, bytes], None] = {}  # oldest first
_verified_lock = threading.Lock()
DECODED_MEMORY = 512
"""How many entries decoded last are remembered by their wire bytes (those of at most
DECODED_SIZE bytes, a hop entry included): decoding is a pure function."""
DECODED_SIZE = 1 << 14
_decoded: dict[bytes, Entry] = {}  # oldest first
_decoded_lock = threading.Lock()
KIND_PATTERN = re.compile(r"[a-z][a-z0-9_.-]{0,31}\Z")


class MalformedEntry(DecodeError):
    """Received bytes are not a well-formed entry (layout, types, sizes or encoding)."""


@dataclass(frozen=True, eq=False, repr=False, slots=True)
class Entry:
    """One signed log entry; built only by `sign_entry` or `decode_entry`. Equal iff same wire.

    `body` is the decoded form of the signed bytes; treat it as read-only.
    """

    table_id: bytes
    seq: int
    prev: bytes
    seat: int
    kind: str
    body: dict[str, Any]
    signature: bytes
    signed: bytes
    wire: bytes
    hash: bytes

    def verify(self, public_key: bytes) -> bool:
        """Whether `public_key` signed exactly SIGN_DOMAIN + `signed` (a valid signature is
        remembered: the entry read ahead is checked once, not again when it is judged)."""
        if (public_key, self.hash) in _verified:
            return True
        if not verify_signature(public_key, SIGN_DOMAIN + self.signed, self.signature):
            return False
        with _verified_lock:
            _verified[public_key, self.hash] = None
            while len(_verified) > VERIFIED_MEMORY:
                del _verified[next(iter(_verified))]
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entry) and self.wire == other.wire

    def __hash__(self) -> int:
        return hash(self.wire)

    def __repr__(self) -> str:
        return (
            f"Entry(seq={self.seq}, seat={self.seat}, kind={self.kind!r},"
            f" hash={self.hash.hex()[:16]}...)"
        )


def entry_hash(wire: bytes) -> bytes:
    """The chain hash of an entry's wire bytes: SHA-256(HASH_DOMAIN + wire)."""
    return hashlib.sha256(HASH_DOMAIN + wire).digest()


def sign_entry(
    identity: Identity,
    table_id: bytes,
    seq: int,
    prev: bytes,
    seat: int,
    kind: str,
    body: dict[str, Any],
) -> Entry:
    """A new entry signed by `identity`; LocalProtocolError if any field is not allowed."""
    try:
        signed = encode_canonical([ENTRY_VERSION, table_id, seq, prev, seat, kind, body])
        signature = identity.sign(SIGN_DOMAIN + signed)
        return decode_entry(encode_canonical([signed, signature]))
    except (EncodeError, DecodeError) as exc:
        raise LocalProtocolError(f"cannot sign this entry: {exc}") from exc  # untranslated: bug


def decode_entry(wire: bytes) -> Entry:
    """The entry whose wire bytes are exactly `wire`; MalformedEntry if not. No signature check.
    The last DECODED_MEMORY entries decoded are remembered (a log read ahead, then judged)."""
    kept = type(wire) is bytes and len(wire) <= DECODED_SIZE
    entry = _decoded.get(wire) if kept else None
    if entry is None:
        entry = _decode(wire)
        if not kept:
            return entry
        with _decoded_lock:
            _decoded[wire] = entry
            while len(_decoded) > DECODED_MEMORY:
                del _decoded[next(iter(_decoded))]
    return entry


def _decode(wire: bytes) -> Entry:
    try:
        outer = decode_bounded(
            wire,
            max_size=MAX_ENTRY_BYTES,
            max_depth=1,
            max_array_len=2,
            max_map_len=0,
            max_str_len=0,
            max_items=3,
        )
        _expect(type(outer) is list and len(outer) == 2, N_("wire must be [signed, signature]"))
        signed, signature = outer
        _expect(type(signed) is bytes, N_("the signed part must be bin"))
        _expect(
            type(signature) is bytes and len(signature) == SIGNATURE_BYTES,
            N_("the signature must be {size} bytes of bin"),
            size=SIGNATURE_BYTES,
        )
        fields = decode_bounded(signed, max_size=MAX_ENTRY_BYTES, max_depth=MAX_DEPTH)
    except MalformedEntry:
        raise
    except DecodeError as exc:
        raise MalformedEntry(exc.reason) from exc
    _expect(type(fields) is list and len(fields) == 7, N_("signed part must be a 7-item array"))
    version, table_id, seq, prev, seat, kind, body = fields
    ok = type(version) is int and version == ENTRY_VERSION
    _expect(ok, N_("version must be {version}"), version=ENTRY_VERSION)
    _expect(
        _is_bytes(table_id, TABLE_ID_BYTES),
        N_("table id must be {size} bytes"),
        size=TABLE_ID_BYTES,
    )
    ok = type(seq) is int and 0 <= seq <= MAX_SEQ
    _expect(ok, N_("seq must be an int 0..{most}"), most=MAX_SEQ)
    _expect(_is_bytes(prev, HASH_BYTES), N_("prev must be {size} bytes"), size=HASH_BYTES)
    _expect(seq > 0 or prev == GENESIS_PREV, N_("entry 0 must have prev = 32 zero bytes"))
    ok = type(seat) is int and 0 <= seat <= MAX_SEAT
    _expect(ok, N_("seat must be an int 0..{most}"), most=MAX_SEAT)
    _expect(
        type(kind) is str and KIND_PATTERN.match(kind) is not None,
        N_("kind must be 1..32 of a-z 0-9 _ . - starting with a letter"),
    )
    _expect(type(body) is dict, N_("body must be a map"))
    return Entry(table_id, seq, prev, seat, kind, body, signature, signed, wire, entry_hash(wire))


def _is_bytes(value: object, size: int) -> bool:
    return type(value) is bytes and len(value) == size


def _expect(ok: bool, reason: str, **values: int) -> None:
    """MalformedEntry saying `reason` (a marked template, filled with `values`) unless `ok`."""
    if not ok:
        raise MalformedEntry(Sentence(reason, **values))


@dataclass(frozen=True, slots=True)
class Equivocation:
    """Two entries claimed to be one seat's different signed entries for one (table, seq, prev):
    one place on one chain (an honest seat signs a seq again only on another chain, after an
    abort replaced what it had built on)."""

    a: Entry
    b: Entry

    def check(self, public_key: bytes) -> bool:
        """Whether this proves that `public_key`'s owner equivocated."""
        a, b = self.a, self.b
        same_place = (a.table_id, a.seq, a.prev, a.seat) == (b.table_id, b.seq, b.prev, b.seat)
        return same_place and a.wire != b.wire and a.verify(public_key) and b.verify(public_key)

    def to_plain(self) -> list[bytes]:
        """[wire, wire], the smaller first: one form per pair, ready for an entry body."""
        return sorted([self.a.wire, self.b.wire])

    @classmethod
    def from_plain(cls, plain: object) -> Equivocation:
        """Parse `to_plain`'s form; MalformedEntry if it is not two distinct entries in order.

        Shape only: call `check` with the accused seat's key."""
        if not (type(plain) is list and len(plain) == 2 and all(type(w) is bytes for w in plain)):
            raise MalformedEntry(Sentence(N_("an equivocation proof must be [wire, wire]")))
        if not plain[0] < plain[1]:
            raise MalformedEntry(
                Sentence(N_("an equivocation proof's two wires must differ, smaller first"))
            )
        return cls(decode_entry(plain[0]), decode_entry(plain[1]))
