"""Length-prefixed msgpack frames, bounded before and while decoding.

A frame is a 4-byte big-endian body length, then the body: one canonical msgpack map with a
str key "t" (the message type). The length is checked against the limit before the body is
read; the body goes through `cfnet.record.codec.decode_bounded`, which checks sizes, depth, item
count
and truncation on the headers before any object is built (one call per frame: no long-lived
Unpacker to reuse after an error). Every failure raises a specific `FrameError`.

Before the handshake a frame is plain and small (`HANDSHAKE_LIMITS`). After it, every frame is
sealed (`FrameCipher`): the body is ChaCha20-Poly1305 ciphertext and tag, under one key and a
frame counter (the nonce) per direction, with the length prefix as associated data; a frame
that fails to open was altered, replayed, reordered or cut, and the link must close.

The mesh's `entry` frames, most of the traffic, have a fixed canonical shape: `entry_frame`
builds one by concatenation (the mesh encodes each once for all its links) and `decode_body`
slices the wire bytes out of one without the general decoder (same result, checked exactly).
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.lang import Sentence
from cfnet.net import reasons
from cfnet.record.codec import DecodeError, decode_bounded, encode_canonical
from cfnet.record.entry import MAX_ENTRY_BYTES

HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = MAX_ENTRY_BYTES + 4096  # one entry's wire bytes plus the message around them


class FrameError(PeerProtocolError):
    """A frame received from a peer that breaks the framing rules; the link must close."""


class FrameTooLarge(FrameError):
    """The length prefix announces a body over the limit (nothing of the body was read)."""


class FrameUnauthenticated(FrameError):
    """A sealed frame does not open under the link's key and next counter."""


class FrameTruncated(FrameError):
    """The stream ended inside a frame header or body."""


class FrameMalformed(FrameError):
    """The body is not one canonical msgpack message map within the limits (size, depth...)."""


@dataclass(frozen=True, slots=True)
class FrameLimits:
    """Bounds on one frame: body bytes, per-object sizes and container nesting depth."""

    max_bytes: int = MAX_FRAME_BYTES
    max_str: int = 1024
    max_array: int = 256
    max_map: int = 32
    max_depth: int = 6


DEFAULT_LIMITS = FrameLimits()
HANDSHAKE_LIMITS = FrameLimits(max_bytes=1024)  # a hello, an auth or a goodbye: a few hundred
TAG_BYTES = 16  # the Poly1305 tag at the end of a sealed body
NONCE_BYTES = 12


class FrameCipher:
    """The sealing of one link's frames after its handshake: a ChaCha20-Poly1305 key and a
    frame counter per direction (the nonce: the counter as 12 bytes big-endian, from 0)."""

    def __init__(self, send_key: bytes, receive_key: bytes) -> None:
        self._send = ChaCha20Poly1305(send_key)
        self._receive = ChaCha20Poly1305(receive_key)
        self._sent = 0
        self._received = 0

    def seal(self, frames: bytes) -> bytes:
        """The sealed frames for plain `frames` (one or more, concatenated, each well formed)."""
        out = []
        start = 0
        while start < len(frames):
            end = start + HEADER.size + HEADER.unpack_from(frames, start)[0]
            header = HEADER.pack(end - start - HEADER.size + TAG_BYTES)
            nonce = self._sent.to_bytes(NONCE_BYTES, "big")
            self._sent += 1
            out += [header, self._send.encrypt(nonce, frames[start + HEADER.size : end], header)]
            start = end
        return b"".join(out)

    def open(self, header: bytes, sealed: bytes) -> bytes:
        """The plain body of the next sealed frame; `FrameUnauthenticated` if it does not open."""
        nonce = self._received.to_bytes(NONCE_BYTES, "big")
        try:
            body = self._receive.decrypt(nonce, sealed, header)
        except InvalidTag:
            raise FrameUnauthenticated(
                Sentence(reasons.FRAME_FORGED, number=self._received)
            ) from None
        self._received += 1
        return body


_ENTRY_HEAD = b"\x82\xa1t\xa5entry\xa4wire"  # canonical {"t": "entry", "wire": <bin...>}
# msgpack bin type byte: (bytes of the size, the sizes it is the shortest form for)
_BIN_HEADERS = {0xC4: (1, 0, 0xFF), 0xC5: (2, 0x100, 0xFFFF), 0xC6: (4, 0x10000, 0xFFFFFFFF)}


def encode_frame(message: Mapping[str, Any], limits: FrameLimits = DEFAULT_LIMITS) -> bytes:
    """The frame (header + body) for `message`; `LocalProtocolError` if it is over the limit."""
    if not isinstance(message.get("t"), str):
        raise LocalProtocolError(  # untranslated: a caller's bug
            "a frame message needs a str type under key 't'"
        )
    body = encode_canonical(dict(message), max_depth=limits.max_depth)
    if len(body) > limits.max_bytes:
        raise LocalProtocolError(  # untranslated: a caller's bug
            f"frame of {len(body)} bytes is over {limits.max_bytes}"
        )
    return HEADER.pack(len(body)) + body


def entry_frame(wire: bytes, limits: FrameLimits = DEFAULT_LIMITS) -> bytes:
    """The frame of `{"t": "entry", "wire": wire}`: the bytes `encode_frame` gives, built fast."""
    size = len(wire)
    tag, width = next((tag, w) for tag, (w, _, high) in _BIN_HEADERS.items() if size <= high)
    length = len(_ENTRY_HEAD) + 1 + width + size
    if length > limits.max_bytes:
        raise LocalProtocolError(  # untranslated: a caller's bug
            f"frame of {length} bytes is over {limits.max_bytes}"
        )
    return HEADER.pack(length) + _ENTRY_HEAD + bytes([tag]) + size.to_bytes(width, "big") + wire


def _entry_wire(body: bytes) -> bytes | None:
    """The wire bytes if `body` is exactly a canonical entry message, else None."""
    start = len(_ENTRY_HEAD)
    if len(body) <= start or not body.startswith(_ENTRY_HEAD):
        return None
    header = _BIN_HEADERS.get(body[start])
    if header is None:
        return None
    width, low, high = header
    data = start + 1 + width
    size = int.from_bytes(body[start + 1 : data], "big")
    if len(body) != data + size or not low <= size <= high:
        return None
    return body[data:]


def check_length(header: bytes, limits: FrameLimits = DEFAULT_LIMITS, overhead: int = 0) -> int:
    """The body length announced by a 4-byte header; `FrameTooLarge` if over the limit plus
    `overhead` (a sealed body's tag)."""
    (length,) = HEADER.unpack(header)
    if length > limits.max_bytes + overhead:
        raise FrameTooLarge(
            Sentence(reasons.FRAME_ANNOUNCED, size=length, limit=limits.max_bytes + overhead)
        )
    if length < overhead:
        raise FrameUnauthenticated(Sentence(reasons.FRAME_SHORT, size=length))
    return int(length)


def decode_body(body: bytes, limits: FrameLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """The message map in a frame body; raises a `FrameError` subclass on anything else."""
    if len(body) > limits.max_bytes:
        raise FrameTooLarge(Sentence(reasons.FRAME_LARGE, size=len(body), limit=limits.max_bytes))
    wire = _entry_wire(body)
    if wire is not None:
        return {"t": "entry", "wire": wire}
    try:
        value = decode_bounded(
            body,
            max_size=limits.max_bytes,
            max_depth=limits.max_depth,
            max_str_len=limits.max_str,
            max_bin_len=limits.max_bytes,
            max_array_len=limits.max_array,
            max_map_len=limits.max_map,
        )
    except DecodeError as exc:
        raise FrameMalformed(Sentence(reasons.FRAME_BODY, reason=exc.reason)) from None
    if not isinstance(value, dict) or not isinstance(value.get("t"), str):
        raise FrameMalformed(Sentence(reasons.FRAME_NOT_MAP))
    return value


async def read_frame(
    reader: asyncio.StreamReader,
    limits: FrameLimits = DEFAULT_LIMITS,
    cipher: FrameCipher | None = None,
) -> dict[str, Any] | None:
    """The next message from `reader` (a sealed frame if `cipher` is given); None on a clean
    end of stream between frames."""
    try:
        header = await reader.readexactly(HEADER.size)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raise FrameTruncated(Sentence(reasons.FRAME_CUT_HEADER, got=len(exc.partial))) from None
    length = check_length(header, limits, 0 if cipher is None else TAG_BYTES)
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError as exc:
        raise FrameTruncated(
            Sentence(reasons.FRAME_CUT_BODY, got=len(exc.partial), size=length)
        ) from None
    return decode_body(body if cipher is None else cipher.open(header, body), limits)
