"""An asyncio TCP link carrying frames: connect, authenticate, send, receive, close with a reason.

Until the handshake succeeds a link carries plain frames of at most `HANDSHAKE_LIMITS`; after
it, sealed frames (`FrameCipher`, keyed by the handshake) within the link's own limits.

Every way a link ends (a bad frame, a failed handshake, the peer's goodbye, a lost connection,
our own close) is logged once with its reason and surfaces to readers as `LinkClosed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any

from cfnet.errors import PeerProtocolError
from cfnet.identity import fingerprint
from cfnet.net.framing import (
    DEFAULT_LIMITS,
    HANDSHAKE_LIMITS,
    FrameCipher,
    FrameError,
    FrameLimits,
    encode_frame,
    read_frame,
)
from cfnet.net.handshake import Handshake, HandshakeError, HandshakeResult

log = logging.getLogger("cfnet.net")

HANDSHAKE_TIMEOUT = 10.0
MAX_REASON = 200


class LinkClosed(ConnectionError):
    """The link is closed; `reason` says why, `error` is the peer's fault if there was one."""

    def __init__(self, reason: str, error: PeerProtocolError | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.error = error


class Link:
    """A TCP connection exchanging frame messages; `peer` is set once the handshake succeeds."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        limits: FrameLimits = DEFAULT_LIMITS,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._limits = limits
        self._cipher: FrameCipher | None = None  # set by a successful handshake
        self._closed: LinkClosed | None = None
        self._sent_at = asyncio.get_running_loop().time()  # of the last send
        self.peer: HandshakeResult | None = None
        address = writer.get_extra_info("peername")
        self.label = f"{address[0]}:{address[1]}" if isinstance(address, tuple) else "?"

    @classmethod
    async def connect(
        cls, host: str, port: int, *, timeout: float = 5.0, limits: FrameLimits = DEFAULT_LIMITS
    ) -> Link:
        """A new link to `host:port` (raises OSError or TimeoutError if nobody answers)."""
        async with asyncio.timeout(timeout):  # not wait_for: in 3.11 it can swallow a cancel
            reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer, limits)

    @property
    def closed(self) -> LinkClosed | None:
        """Why the link closed, or None while it is open."""
        return self._closed

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send one message; raises `LinkClosed` if the link is or becomes closed."""
        await self.send_frames(encode_frame(message, self._limits))

    async def send_frames(self, frames: bytes) -> None:
        """Send plain frames already encoded (one or more, concatenated), sealed if the link is
        keyed; raises `LinkClosed` if the link is or becomes closed."""
        if self._closed is not None:
            raise self._closed
        self._writer.write(self._sealed(frames))
        self._sent_at = asyncio.get_running_loop().time()
        try:
            await self._writer.drain()
        except OSError as exc:
            await self._end(f"connection lost while sending: {exc}", notify=False)
            raise self._closed_error() from None

    async def receive(self) -> dict[str, Any]:
        """The next message; raises `LinkClosed` (after closing and logging) on any failure."""
        if self._closed is not None:
            raise self._closed
        try:
            if self._cipher is None:
                message = await read_frame(self._reader, HANDSHAKE_LIMITS)
            else:
                message = await read_frame(self._reader, self._limits, self._cipher)
        except FrameError as exc:
            await self._end(f"bad frame: {type(exc).__name__}: {exc}", error=exc)
            raise self._closed_error() from exc
        except OSError as exc:
            await self._end(f"connection lost: {exc}", notify=False)
            raise self._closed_error() from None
        if message is None:
            await self._end("peer closed the connection", notify=False)
            raise self._closed_error()
        if message["t"] == "bye":
            reason = str(message.get("reason"))[:MAX_REASON]
            await self._end(f"peer said goodbye: {reason!r}", notify=False)
            raise self._closed_error()
        return message

    async def handshake(
        self, handshake: Handshake, timeout: float = HANDSHAKE_TIMEOUT
    ) -> HandshakeResult:
        """Run `handshake` over this link; on failure the link is closed and `LinkClosed` raised."""
        try:
            async with asyncio.timeout(timeout):
                for message in handshake.start():
                    await self.send(message)
                while handshake.result is None:
                    message = await self.receive()
                    for reply in handshake.receive(message):
                        await self.send(reply)
        except HandshakeError as exc:
            await self._end(f"handshake failed: {exc}", error=exc)
            raise self._closed_error() from exc
        except TimeoutError:
            await self._end(f"handshake timed out after {timeout:g} s")
            raise self._closed_error() from None
        self.peer = handshake.result
        self._cipher = FrameCipher(self.peer.send_key, self.peer.receive_key)
        self.label = f"{self.label} ({fingerprint(self.peer.peer_key)})"
        return self.peer

    @contextlib.asynccontextmanager
    async def pinging(self, interval: float) -> AsyncIterator[None]:
        """Inside: a ping is sent whenever nothing was sent for `interval` s."""

        async def ping() -> None:
            loop = asyncio.get_running_loop()
            with contextlib.suppress(LinkClosed):
                while True:
                    await asyncio.sleep(self._sent_at + interval - loop.time())
                    if loop.time() - self._sent_at >= interval:
                        await self.send({"t": "ping"})

        task = asyncio.create_task(ping())
        try:
            yield
        finally:
            task.cancel()
            await asyncio.wait([task])  # never swallows our own cancellation

    async def close(self, reason: str) -> None:
        """Close the link, telling the peer `reason` (best effort); idempotent."""
        await self._end(reason)

    def _sealed(self, frames: bytes) -> bytes:
        return frames if self._cipher is None else self._cipher.seal(frames)

    def _closed_error(self) -> LinkClosed:
        assert self._closed is not None
        return self._closed

    async def _end(
        self, reason: str, *, notify: bool = True, error: PeerProtocolError | None = None
    ) -> None:
        if self._closed is not None:
            return
        self._closed = LinkClosed(reason, error)
        log.log(
            logging.WARNING if error else logging.INFO, "link %s closed: %s", self.label, reason
        )
        if notify and not self._writer.is_closing():
            with contextlib.suppress(Exception):
                bye = encode_frame({"t": "bye", "reason": reason[:MAX_REASON]})
                self._writer.write(self._sealed(bye))
        self._writer.close()
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(1.0):
                await self._writer.wait_closed()
