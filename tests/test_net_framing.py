"""Frames: bounded decoding raises a specific error for each kind of bad input, on real sockets."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st
from net_helpers import LOOPBACK, link_server

from cfnet.errors import LocalProtocolError
from cfnet.net.framing import (
    HEADER,
    MAX_FRAME_BYTES,
    FrameError,
    FrameMalformed,
    FrameTooLarge,
    FrameTruncated,
    decode_body,
    encode_frame,
)
from cfnet.net.link import Link, LinkClosed


def nested(levels: int) -> bytes:
    """A msgpack body of `levels` one-element arrays around nil."""
    return b"\x91" * levels + b"\xc0"


def test_round_trip() -> None:
    message = {"t": "entry", "wire": b"\x00" * 1000, "n": [1, 2, {"x": "y"}]}
    frame = encode_frame(message)
    assert HEADER.unpack(frame[:4]) == (len(frame) - 4,)
    assert decode_body(frame[4:]) == message


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"\xc1", "reserved type byte"),  # the one never-used msgpack byte
        (b"\x92\x01", "truncated"),  # truncated array
        (msgpack.packb({"t": "x"}) + b"\x00", "trailing data"),
        (msgpack.packb([1, 2]), "not a message map"),
        (msgpack.packb({"t": 1}), "not a message map"),  # type is not a str
        (msgpack.packb({"t": "x", "s": "a" * 2000}), "str of length 2000"),
        (msgpack.packb({"t": "x", "a": [0] * 300}), "array of length 300"),
        (b"\x82\xa1t\xa1x\xa1e" + b"\xc7\x01\x05a", "ext type"),
        (b"\x81\xa1t\xa2\xff\xfe", "not valid msgpack"),  # invalid UTF-8
        (b"\x81\x01\xa1x", "not valid msgpack"),  # int map key
        (b"\x82\xa1t\xa1x\xa1a\xcc\x01", "not canonical"),  # 1 not in its shortest form
        (nested(10), "nested deeper than 6"),
        (nested(100_000), "nested deeper than 6"),  # beyond msgpack's own stack
        (msgpack.packb({"t": "x", "a": [[[[[[1]]]]]]}), "nested deeper than 6"),
    ],
)
def test_bad_bodies_raise_frame_malformed_saying_why(body: bytes, reason: str) -> None:
    with pytest.raises(FrameMalformed, match=reason):
        decode_body(body)


def test_oversized_body_and_outgoing_frame() -> None:
    with pytest.raises(FrameTooLarge):
        decode_body(b"\x00" * (MAX_FRAME_BYTES + 1))
    with pytest.raises(LocalProtocolError):
        encode_frame({"t": "x", "wire": b"\x00" * MAX_FRAME_BYTES})


@given(st.binary(max_size=300))
def test_garbage_never_escapes_as_another_error(body: bytes) -> None:
    with contextlib.suppress(FrameError):
        decode_body(body)


async def _send_raw_and_close_server_side(raw: bytes, *, eof: bool) -> tuple[LinkClosed, bytes]:
    """Write `raw` to a server Link; returns why the server closed and what it sent back."""
    async with link_server() as (port, accepted):
        reader, writer = await asyncio.open_connection(LOOPBACK, port)
        server_link = await asyncio.wait_for(accepted.get(), 30)
        writer.write(raw)
        if eof:
            writer.write_eof()
        with pytest.raises(LinkClosed) as info:
            await asyncio.wait_for(server_link.receive(), 30)
        reply = await asyncio.wait_for(reader.read(), 30)
        writer.close()
        return info.value, reply


@pytest.mark.parametrize(
    ("raw", "eof", "error"),
    [
        # Only a header announcing 4 GiB: refused without waiting for (or reading) a body.
        (HEADER.pack(0xFFFFFFFF), False, FrameTooLarge),
        (HEADER.pack(MAX_FRAME_BYTES + 1), False, FrameTooLarge),
        (HEADER.pack(10) + b"\x81\xa1t", True, FrameTruncated),
        (b"\x00\x00", True, FrameTruncated),
        (HEADER.pack(1) + b"\xc1", False, FrameMalformed),
        (HEADER.pack(50_001) + nested(50_000), False, FrameMalformed),
    ],
)
def test_bad_frames_close_the_link_with_a_logged_reason(
    raw: bytes, eof: bool, error: type[FrameError], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cfnet.net")
    closed, reply = asyncio.run(_send_raw_and_close_server_side(raw, eof=eof))
    assert isinstance(closed.error, error)
    assert closed.reason.startswith(f"bad frame: {error.__name__}")
    assert any("bad frame" in r.getMessage() for r in caplog.records)
    if not eof:  # the peer was told why (a bye frame), unless it had already hung up
        message = decode_body(reply[4:])
        assert message["t"] == "bye" and error.__name__ in message["reason"]


async def _good_frames_then_clean_close() -> None:
    async with link_server() as (port, accepted):
        client = await Link.connect(LOOPBACK, port)
        server_link = await asyncio.wait_for(accepted.get(), 30)
        for i in range(3):
            await client.send({"t": "ping", "i": i})
        assert [(await server_link.receive())["i"] for _ in range(3)] == [0, 1, 2]
        await client.close("done here")
        with pytest.raises(LinkClosed, match="done here"):
            await asyncio.wait_for(server_link.receive(), 30)
        with pytest.raises(LinkClosed):
            await server_link.send({"t": "ping"})


def test_frames_flow_and_goodbye_carries_the_reason() -> None:
    asyncio.run(_good_frames_then_clean_close())
