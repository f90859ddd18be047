"""Domain-separated hashing for the mental deck: labels, byte encodings, streams, sampling.

Byte-exact (protocol.md, "Mental deck"): every integer is a 4-byte big-endian unsigned; a
label is one length byte then its ASCII text; streams are 64-byte blocks numbered from 0.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Iterable, Iterator
from typing import Protocol

from cfnet.errors import LocalProtocolError

TILE_POINT = "cfnet/v1/tile-point"
MASKING_KEY = "cfnet/v1/masking-key"
PERMUTATION = "cfnet/v1/permutation"
POSITION_KEY = "cfnet/v1/position-key"
STARTER_NONCE = "cfnet/v1/starter-nonce"
SEED_COMMITMENT = "cfnet/v1/seed-commitment"
NONCE_COMMITMENT = "cfnet/v1/nonce-commitment"
JOINT_DRAW = "cfnet/v1/joint-draw"
SHUFFLE_GENERATOR = "cfnet/v1/shuffle-generator"
SHUFFLE_STATEMENT = "cfnet/v1/shuffle-statement"
SHUFFLE_WEIGHT = "cfnet/v1/shuffle-weight"
SHUFFLE_CHALLENGE = "cfnet/v1/shuffle-challenge"
SHUFFLE_NONCE = "cfnet/v1/shuffle-nonce"
REKEY_STATEMENT = "cfnet/v1/rekey-statement"
REKEY_WEIGHT = "cfnet/v1/rekey-weight"
REKEY_CHALLENGE = "cfnet/v1/rekey-challenge"
REKEY_NONCE = "cfnet/v1/rekey-nonce"
DEAL_SEED = "cfnet/v1/deal-seed"

TABLE_ID_BYTES = 16
SEED_BYTES = 32
SCALAR_BYTES = 32
GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493
_WORD_RANGE = 2**32


def u32(value: int) -> bytes:
    """`value` as 4 bytes big-endian; LocalProtocolError outside 0..2**32-1."""
    if not 0 <= value < _WORD_RANGE:
        raise LocalProtocolError(  # untranslated: a caller's bug
            f"{value} does not fit the 4-byte field: use 0..{2**32 - 1}"
        )
    return value.to_bytes(4, "big")


@functools.lru_cache(maxsize=64)
def label_bytes(label: str) -> bytes:
    """One length byte, then the label's ASCII bytes."""
    raw = label.encode("ascii")
    return bytes([len(raw)]) + raw


def round_context(table_id: bytes, round_number: int) -> bytes:
    """table_id (16 bytes) || u32(round_number)."""
    if not isinstance(table_id, bytes) or len(table_id) != TABLE_ID_BYTES:
        raise LocalProtocolError(f"a table id is {TABLE_ID_BYTES} bytes")  # untranslated: bug
    return table_id + u32(round_number)


@functools.lru_cache(maxsize=1024)
def context(table_id: bytes, round_number: int, seat: int) -> bytes:
    """round_context || u32(seat): what binds a seat's secret or commitment to its place."""
    return round_context(table_id, round_number) + u32(seat)


def commitment_hash(label: str, *parts: bytes) -> bytes:
    """SHA-256(label_bytes(label) || parts...): a 32-byte public commitment."""
    return hashlib.sha256(label_bytes(label) + b"".join(parts)).digest()


def secret_blocks(seed: bytes, label: str, info: bytes) -> Iterator[bytes]:
    """Block i = HMAC-SHA-512(key=seed, label_bytes(label) || info || u32(i)), i = 0, 1, ..."""
    return _blocks(_keyed(seed, label, info))


def public_blocks(label: str, info: bytes) -> Iterator[bytes]:
    """Block i = SHA-512(label_bytes(label) || info || u32(i)), i = 0, 1, ..."""
    return _blocks(hashlib.sha512(label_bytes(label) + info))


def secret_scalars(seed: bytes, label: str, info: bytes) -> Iterator[bytes]:
    """Scalar i = scalar_from_blocks(secret_blocks(seed, label, info || u32(i))), i = 0, 1, ..."""
    return _scalars(_keyed(seed, label, info))


def public_scalars(label: str, info: bytes) -> Iterator[bytes]:
    """Scalar i = scalar_from_blocks(public_blocks(label, info || u32(i))), i = 0, 1, ..."""
    return _scalars(hashlib.sha512(label_bytes(label) + info))


class _Prefix(Protocol):
    """A hash (SHA-512 or a keyed HMAC-SHA-512) that absorbed a stream's prefix."""

    def copy(self) -> _Prefix: ...
    def update(self, data: bytes, /) -> None: ...
    def digest(self) -> bytes: ...


def _keyed(seed: bytes, label: str, info: bytes) -> hmac.HMAC:
    """HMAC-SHA-512 keyed with `seed`, label_bytes(label) || info absorbed."""
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        raise LocalProtocolError(f"a seed is {SEED_BYTES} bytes")  # untranslated: a bug
    return hmac.new(seed, label_bytes(label) + info, "sha512")


def _blocks(prefix: _Prefix) -> Iterator[bytes]:
    """The digests of `prefix` || u32(i), i = 0, 1, ... (the prefix is hashed once)."""
    counter = 0
    while True:
        block = prefix.copy()
        block.update(u32(counter))
        yield block.digest()
        counter += 1


def _scalars(prefix: _Prefix) -> Iterator[bytes]:
    """Scalar i: the first nonzero scalar of the blocks of `prefix` || u32(i)."""
    index = 0
    while True:
        stream = prefix.copy()
        stream.update(u32(index))
        yield scalar_from_blocks(_blocks(stream))
        index += 1


def words(blocks: Iterable[bytes]) -> Iterator[int]:
    """The blocks read as consecutive 4-byte big-endian words."""
    for block in blocks:
        for start in range(0, len(block), 4):
            yield int.from_bytes(block[start : start + 4], "big")


def uniform_below(n: int, word_stream: Iterator[int]) -> int:
    """Uniform in 0..n-1: the first word w < 2**32 - (2**32 mod n), taken mod n."""
    if not 0 < n <= _WORD_RANGE:
        raise LocalProtocolError(  # untranslated: a caller's bug
            f"cannot sample below {n}: use 1..{_WORD_RANGE}"
        )
    limit = _WORD_RANGE - _WORD_RANGE % n
    for word in word_stream:
        if word < limit:
            return word % n
    raise LocalProtocolError(  # untranslated: a bug (the streams are endless)
        "the word stream ended before a sample was accepted"
    )


def fisher_yates(size: int, word_stream: Iterator[int]) -> tuple[int, ...]:
    """Shuffle 0..size-1: for i = size-1 down to 1, swap i with j = uniform_below(i + 1)."""
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        j = uniform_below(i + 1, word_stream)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def scalar_from_blocks(blocks: Iterable[bytes]) -> bytes:
    """The first nonzero reduction mod L of a 64-byte block (little-endian), as 32 bytes."""
    for block in blocks:
        value = int.from_bytes(block, "little") % GROUP_ORDER  # libsodium's scalar_reduce
        if value:
            return value.to_bytes(SCALAR_BYTES, "little")
    raise LocalProtocolError(  # untranslated: a bug (the streams are endless)
        "the block stream ended before a nonzero scalar"
    )


def is_scalar(value: object) -> bool:
    """Whether `value` is 32 bytes encoding a canonical nonzero scalar (1..L-1, little-endian)."""
    return (
        isinstance(value, bytes)
        and len(value) == SCALAR_BYTES
        and 0 < int.from_bytes(value, "little") < GROUP_ORDER
    )
