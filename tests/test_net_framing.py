"""Frames: bounded decoding raises a specific error for each kind of bad input, on real sockets;
small plain frames before the handshake, sealed ones after it (a relay that alters, replays,
reorders or drops one makes the link close, saying why)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st
from net_helpers import LOOPBACK, link_server

from cfnet.errors import LocalProtocolError
from cfnet.net.framing import (
    HANDSHAKE_LIMITS,
    HEADER,
    MAX_FRAME_BYTES,
    FrameError,
    FrameMalformed,
    FrameTooLarge,
    FrameTruncated,
    FrameUnauthenticated,
    decode_body,
    encode_frame,
)
from cfnet.net.handshake import Handshake
from cfnet.net.link import Link, LinkClosed
from cfnet.record.identity import Identity

TABLE = bytes(range(16))
HOST, GUEST = Identity.from_seed(bytes([1]) * 32), Identity.from_seed(bytes([2]) * 32)


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
        # Before the handshake a frame is at most 1024 bytes: one of 1025 is refused on its
        # header, while only part of its body has come (the link does not wait for the rest).
        (HEADER.pack(1024) + nested(1024), False, FrameMalformed),
        (HEADER.pack(1025) + nested(100), False, FrameTooLarge),
        (HEADER.pack(50_001) + nested(50_000), False, FrameTooLarge),
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


def test_the_handshake_frame_limit_is_a_few_hundred_bytes() -> None:
    assert HANDSHAKE_LIMITS.max_bytes == 1024
    hello = Handshake(GUEST, initiator=True, table_id=TABLE, join_code="a code").start()[0]
    assert len(encode_frame(hello)) < 200
    bye = {"t": "bye", "reason": "\U0001f600" * 200}  # the longest goodbye: 200 characters
    assert len(encode_frame(bye, HANDSHAKE_LIMITS)) <= 4 + 1024


async def _an_oversized_hello_closes_the_handshake_at_once() -> LinkClosed:
    async with link_server() as (port, accepted):
        _, writer = await asyncio.open_connection(LOOPBACK, port)
        server_link = await asyncio.wait_for(accepted.get(), 5)
        writer.write(HEADER.pack(MAX_FRAME_BYTES) + b"\x00" * 4096)  # the rest never comes
        with pytest.raises(LinkClosed) as info:
            await server_link.handshake(Handshake(HOST, initiator=False, table_id=TABLE), 60)
        writer.close()
        return info.value


def test_an_oversized_handshake_frame_closes_the_link_without_waiting_for_its_body() -> None:
    closed = asyncio.run(_an_oversized_hello_closes_the_handshake_at_once())
    assert isinstance(closed.error, FrameTooLarge)  # not "handshake timed out after 60 s"
    assert closed.reason == (
        f"bad frame: FrameTooLarge: frame announces {MAX_FRAME_BYTES} bytes, the limit is 1024"
    )


# ---------------------------------------------------------------- a man in the middle

Tamper = Callable[[int, bytes], list[bytes]]
"""Given the index of a frame from client to server and its bytes, the frames to forward."""


@contextlib.asynccontextmanager
async def relay(port: int, tamper: Tamper, seen: list[bytes]) -> AsyncIterator[int]:
    """A TCP relay on 127.0.0.1 to `port`: frames from the client go through `tamper` (and are
    recorded in `seen`), bytes from the server pass as they are. Yields the relay's port."""

    async def client_to_server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        index = 0
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                header = await reader.readexactly(HEADER.size)
                frame = header + await reader.readexactly(HEADER.unpack(header)[0])
                seen.append(frame)
                writer.write(b"".join(tamper(index, frame)))
                await writer.drain()
                index += 1

    async def server_to_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(LOOPBACK, port)
        await asyncio.gather(
            client_to_server(reader, up_writer),
            server_to_client(up_reader, writer),
            return_exceptions=True,
        )
        for end in (writer, up_writer):
            end.close()

    server = await asyncio.start_server(on_connect, LOOPBACK, 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()


async def _pings_through_relay(tamper: Tamper) -> tuple[list[int], LinkClosed, str]:
    """A handshake, then three pings from client to server through the relay; (the pings the
    server got before it closed the link, why it closed, why the client's link closed)."""
    seen: list[bytes] = []
    async with link_server() as (port, accepted), relay(port, tamper, seen) as relay_port:
        client = await Link.connect(LOOPBACK, relay_port)
        server = await asyncio.wait_for(accepted.get(), 5)
        await asyncio.gather(
            client.handshake(Handshake(GUEST, initiator=True, table_id=None)),
            server.handshake(Handshake(HOST, initiator=False, table_id=TABLE)),
        )
        for i in range(3):
            await client.send({"t": "ping", "i": i})
        got: list[int] = []
        with pytest.raises(LinkClosed) as info:
            async with asyncio.timeout(10):
                while True:
                    got.append((await server.receive())["i"])
        with pytest.raises(LinkClosed) as told:
            async with asyncio.timeout(10):
                await client.receive()
        return got, info.value, told.value.reason


def passing(index: int, frame: bytes) -> list[bytes]:
    return [frame]


def flip(offset: int) -> Tamper:
    """Flip one bit of the byte at `offset` in the first frame after the handshake (index 2:
    the client's hello and auth come first)."""

    def tamper(index: int, frame: bytes) -> list[bytes]:
        if index != 2:
            return [frame]
        return [frame[:offset] + bytes([frame[offset] ^ 1]) + frame[offset + 1 :]]

    return tamper


def replay(index: int, frame: bytes) -> list[bytes]:
    return [frame, frame] if index == 2 else [frame]


def make_reorder() -> Tamper:
    held: list[bytes] = []

    def reorder(index: int, frame: bytes) -> list[bytes]:
        if index == 2:
            held.append(frame)
            return []
        return [frame, *held] if index == 3 else [frame]

    return reorder


def drop(index: int, frame: bytes) -> list[bytes]:
    return [] if index == 2 else [frame]


async def _client_says_goodbye_through_relay() -> tuple[list[int], LinkClosed, list[bytes]]:
    seen: list[bytes] = []
    async with link_server() as (port, accepted), relay(port, passing, seen) as relay_port:
        client = await Link.connect(LOOPBACK, relay_port)
        server = await asyncio.wait_for(accepted.get(), 5)
        await asyncio.gather(
            client.handshake(Handshake(GUEST, initiator=True, table_id=None)),
            server.handshake(Handshake(HOST, initiator=False, table_id=TABLE)),
        )
        for i in range(3):
            await client.send({"t": "ping", "i": i})
        await client.close("done here")
        got: list[int] = []
        with pytest.raises(LinkClosed) as info:
            async with asyncio.timeout(10):
                while True:
                    got.append((await server.receive())["i"])
        return got, info.value, seen


def test_sealed_frames_pass_an_honest_relay_and_hide_their_content() -> None:
    got, closed, seen = asyncio.run(_client_says_goodbye_through_relay())
    assert got == [0, 1, 2] and closed.reason == "peer said goodbye: 'done here'"
    assert [decode_body(frame[4:])["t"] for frame in seen[:2]] == ["hello", "auth"]  # plain
    after = b"".join(seen[2:])
    assert len(seen) == 6 and b"ping" not in after and b"done here" not in after


@pytest.mark.parametrize(
    ("tamper", "got", "frame"),
    [
        (flip(4 + 3), [], 0),  # a byte of the ciphertext
        (flip(-1), [], 0),  # a byte of the tag
        (flip(3), [], 0),  # the length prefix (associated data)
        (replay, [0], 1),  # the first ping a second time: its counter is past
        (make_reorder(), [], 0),  # the second ping first
        (drop, [], 0),  # the first ping cut out
    ],
    ids=["body", "tag", "length", "replay", "reorder", "drop"],
)
def test_a_relay_that_alters_a_sealed_frame_makes_the_link_close_saying_why(
    tamper: Tamper, got: list[int], frame: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cfnet.net")
    received, closed, told = asyncio.run(_pings_through_relay(tamper))
    assert received == got
    assert isinstance(closed.error, FrameUnauthenticated)
    reason = (
        f"bad frame: FrameUnauthenticated: frame {frame} of the link fails its authentication "
        "tag (altered, replayed, reordered or sealed under another key)"
    )
    assert closed.reason == reason
    assert any(reason in record.getMessage() for record in caplog.records)  # logged
    assert told == f"peer said goodbye: {reason!r}"  # and the sender is told, sealed
