"""Logs an adversary builds from honest ones with the library's own classes: records appended,
cut or forged, for the `cfnet verify` attacks in this folder; a second valid signature of an
entry (two entries for one place, signed by its seat)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import Any

import nacl.bindings as sodium

from cfnet.record.codec import encode_canonical
from cfnet.record.entry import SIGN_DOMAIN, Entry, decode_entry, sign_entry
from cfnet.record.identity import Identity


def extend(
    log: Sequence[Entry], identity: Identity, seat: int, kind: str, body: dict[str, Any]
) -> list[Entry]:
    """`log` with one more entry linked to its end, claiming `seat`, signed by `identity` (a
    key that is not the seat's makes it a forgery anyone can write)."""
    last = log[-1]
    return [*log, sign_entry(identity, last.table_id, last.seq + 1, last.hash, seat, kind, body)]


def second_signature(identity: Identity, entry: Entry, nonce: bytes | None = None) -> Entry:
    """`entry` with another valid Ed25519 signature (RFC 8032 with a random nonce, or one
    reduced from the 64 bytes `nonce`)."""
    digest = hashlib.sha512(identity.seed).digest()
    a = bytearray(digest[:32])
    a[0] &= 248
    a[31] &= 127
    a[31] |= 64
    scalar = sodium.crypto_core_ed25519_scalar_reduce(bytes(a) + bytes(32))
    r = sodium.crypto_core_ed25519_scalar_reduce(os.urandom(64) if nonce is None else nonce)
    big_r = sodium.crypto_scalarmult_ed25519_base_noclamp(r)
    message = SIGN_DOMAIN + entry.signed
    k = sodium.crypto_core_ed25519_scalar_reduce(
        hashlib.sha512(big_r + identity.public + message).digest()
    )
    s = sodium.crypto_core_ed25519_scalar_add(r, sodium.crypto_core_ed25519_scalar_mul(k, scalar))
    other = decode_entry(encode_canonical([entry.signed, big_r + s]))
    assert other.verify(identity.public) and other.wire != entry.wire
    return other
