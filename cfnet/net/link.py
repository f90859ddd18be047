"""An asyncio TCP link carrying frames: connect, authenticate, send, receive, close with a reason.

Until the handshake succeeds a link carries plain frames of at most `HANDSHAKE_LIMITS`; after
it, sealed frames (`FrameCipher`, keyed by the handshake) within the link's own limits.

Every way a link ends (a bad frame, a failed handshake, the peer's goodbye, a lost connection,
our own close) is logged once with its reason and surfaces to readers as `LinkClosed`.
`Admission` caps the connections a listener holds while they are being set up: when they are
too many, it closes the one that has got least far, the oldest of those, to let a new one in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import socket
from asyncio.constants import ACCEPT_RETRY_DELAY
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

from cfnet.errors import PeerProtocolError
from cfnet.lang import Sentence
from cfnet.net.framing import (
    DEFAULT_LIMITS,
    HANDSHAKE_LIMITS,
    HEADER,
    FrameCipher,
    FrameError,
    FrameLimits,
    encode_frame,
    read_frame,
)
from cfnet.net.handshake import CodeMismatch, Handshake, HandshakeError, HandshakeResult
from cfnet.net.reasons import (
    BAD_FRAME,
    GOODBYE,
    HANDSHAKE_FAILED,
    HANDSHAKE_TIMED_OUT,
    LOST,
    LOST_SENDING,
    NO_HELLO,
    PEER_CLOSED,
    ROOM,
    ROOM_FROM,
    heard,
)
from cfnet.record.identity import fingerprint

log = logging.getLogger("cfnet.net")

HANDSHAKE_TIMEOUT = 5.0
HELLO_TIMEOUT = 2.0  # a listener closes a connection whose hello has not come this soon
MAX_REASON = 200
MAX_UNAUTHENTICATED = 32  # connections a listener holds while they are set up...
MAX_UNAUTHENTICATED_PER_ADDRESS = 16  # ...and from one source address
ACCEPT_EXHAUSTED = "socket.accept() out of system resource"  # asyncio's words; it retries in 1 s


class LinkClosed(ConnectionError):
    """The link is closed; `reason` says why, `error` is the peer's fault if there was one,
    `said` what the peer gave as its reason if it closed the link saying why (a `bye`)."""

    def __init__(
        self, reason: str, error: PeerProtocolError | None = None, said: str | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.error = error
        self.said = said

    @property
    def by_peer(self) -> bool:
        """The peer closed the link, saying why."""
        return self.said is not None


def _lost(error: OSError) -> str:
    """Why a connection was lost, as the system says it (no `[Errno N]`)."""
    text = error.strerror or str(error) or type(error).__name__
    return text[:1].lower() + text[1:]


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
        self.heard = False  # a whole frame has come from the peer
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

    def frame_waiting(self) -> bool:
        """Whether a whole frame from the peer waits in the socket, not yet read (a peek: it
        stays there); False if that cannot be known."""
        sock = self._writer.get_extra_info("socket")
        try:
            with sock.dup() as peek:  # the transport's socket object does not receive
                data = peek.recv(HANDSHAKE_LIMITS.max_bytes + HEADER.size, socket.MSG_PEEK)
        except (AttributeError, OSError):
            return False
        return len(data) >= HEADER.size and len(data) >= HEADER.size + HEADER.unpack_from(data)[0]

    @property
    def write_buffer_size(self) -> int:
        """Bytes written to this link that the socket has not taken yet."""
        return int(self._writer.transport.get_write_buffer_size())

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
            await self._end(Sentence(LOST_SENDING, error=_lost(exc)), notify=False)
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
            bad = Sentence(BAD_FRAME, kind=type(exc).__name__, reason=exc.reason)
            await self._end(bad, error=exc)
            raise self._closed_error() from exc
        except OSError as exc:
            await self._end(Sentence(LOST, error=_lost(exc)), notify=False)
            raise self._closed_error() from None
        if message is None:
            await self._end(Sentence(PEER_CLOSED), notify=False)
            raise self._closed_error()
        self.heard = True
        if message["t"] == "bye":
            reason = str(message.get("reason"))[:MAX_REASON]
            goodbye = Sentence(GOODBYE, reason=heard(reason))
            await self._end(goodbye, notify=False, said=reason)
            raise self._closed_error()
        return message

    async def handshake(
        self,
        handshake: Handshake,
        timeout: float = HANDSHAKE_TIMEOUT,
        hello_timeout: float | None = None,
    ) -> HandshakeResult:
        """Run `handshake` over this link, within `timeout` s (the peer's first frame within
        `hello_timeout` s, if given); on failure the link is closed and `LinkClosed` raised."""
        loop = asyncio.get_running_loop()
        under_way = True
        late: asyncio.TimerHandle | None = None

        def missed(hello: asyncio.Timeout) -> None:
            """A loop turn after the hello's deadline (so that a frame that came while the
            loop was busy is read first): expire `hello` unless a frame came."""
            if under_way and not self.heard:
                hello.reschedule(loop.time())

        try:
            async with asyncio.timeout(timeout), asyncio.timeout(None) as hello:
                if hello_timeout is not None:
                    late = loop.call_later(hello_timeout, loop.call_soon, missed, hello)
                for message in handshake.start():
                    await self.send(message)
                while handshake.result is None:
                    message = await self.receive()
                    for reply in handshake.receive(message):
                        await self.send(reply)
        except HandshakeError as exc:
            await self._end(Sentence(HANDSHAKE_FAILED, reason=exc.reason), error=exc)
            raise self._closed_error() from exc
        except TimeoutError:
            if self.heard or hello_timeout is None:
                await self._end(Sentence(HANDSHAKE_TIMED_OUT, seconds=float(timeout)))
            else:
                await self._end(Sentence(NO_HELLO, seconds=float(hello_timeout)))
            raise self._closed_error() from None
        finally:
            under_way = False
            if late is not None:
                late.cancel()
        self.peer = handshake.result
        self._cipher = FrameCipher(self.peer.send_key, self.peer.receive_key)
        self.label = f"{self.label} ({fingerprint(self.peer.peer_key)})"
        return self.peer

    @contextlib.asynccontextmanager
    async def pinging(
        self, interval: float, message: Callable[[], Mapping[str, Any]] | None = None
    ) -> AsyncIterator[None]:
        """Inside: `message()` (default: a ping) is sent whenever nothing was sent for
        `interval` s."""

        async def ping() -> None:
            loop = asyncio.get_running_loop()
            with contextlib.suppress(LinkClosed):
                while True:
                    await asyncio.sleep(self._sent_at + interval - loop.time())
                    if loop.time() - self._sent_at >= interval:
                        await self.send({"t": "ping"} if message is None else message())

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
        self,
        reason: str,
        *,
        notify: bool = True,
        error: PeerProtocolError | None = None,
        said: str | None = None,
    ) -> None:
        if self._closed is not None:
            return
        self._closed = LinkClosed(reason, error, said)
        fault = error is not None and not isinstance(error, CodeMismatch)  # a mismatch: told
        level = logging.WARNING if fault else logging.INFO
        log.log(level, "link %s closed: %s", self.label, reason)
        if notify and not self._writer.is_closing():
            with contextlib.suppress(Exception):
                bye = encode_frame({"t": "bye", "reason": reason[:MAX_REASON]})
                self._writer.write(self._sealed(bye))
        self._writer.close()
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(1.0):
                await self._writer.wait_closed()


class Admission:
    """A listener's connections being set up (accepted, not yet authenticated, or in the lobby
    not yet seated): at most `total` at once, and `per_address` from one source address.

    A new connection always gets in. When it would go over a cap, the held connection that has
    got least far is closed to make room (of its own address if that address is at its cap,
    else of all): one from which no whole frame has come, else one whose handshake is not
    done, else one that is authenticated but not yet set up; the oldest of those. A peer that
    sends its hello at once and completes its handshake is soon past every connection that
    sends nothing or trickles its bytes, so no number of such connections, from any number of
    addresses, keeps it out; and they cost a bounded number of file descriptors."""

    def __init__(
        self,
        total: int = MAX_UNAUTHENTICATED,
        per_address: int = MAX_UNAUTHENTICATED_PER_ADDRESS,
    ) -> None:
        self._total = total
        self._per_address = per_address
        self._held: dict[Link, str] = {}  # the address of each, oldest first
        self._early: set[Link] = set()  # held ones whose first frame was there when they came
        self._count: Counter[str] = Counter()
        self._closing: set[asyncio.Task[None]] = set()

    @contextlib.contextmanager
    def hold(self, link: Link, address: str) -> Iterator[None]:
        """Inside: `link`, from `address`, is being set up (unless `release`d sooner)."""
        self._make_room(address)
        self._held[link] = address
        if link.frame_waiting():
            self._early.add(link)
        self._count[address] += 1
        try:
            yield
        finally:
            self.release(link)

    def release(self, link: Link) -> None:
        """`link` is set up (or gone): it no longer counts."""
        address = self._held.pop(link, None)
        self._early.discard(link)
        if address is not None:
            self._count[address] -= 1
            if not self._count[address]:
                del self._count[address]

    def _make_room(self, address: str) -> None:
        """Close one held connection if one more from `address` would go over a cap."""
        if self._count[address] >= self._per_address:
            candidates = [link for link, held in self._held.items() if held == address]
            why = Sentence(ROOM_FROM, count=self._per_address, address=address)
        elif len(self._held) >= self._total:
            candidates = list(self._held)
            why = Sentence(ROOM, count=self._total)
        else:
            return
        victim = min(candidates, key=self._progress)  # the first (oldest) of the least rank
        self.release(victim)
        task = asyncio.get_running_loop().create_task(victim.close(why))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _progress(self, link: Link) -> int:
        """How far a connection being set up has got: 0 nothing whole received, 1 its
        handshake under way (its hello came, or was there when it came), 2 authenticated."""
        return 2 if link.peer is not None else int(link.heard or link in self._early)


def peer_host(writer: asyncio.StreamWriter) -> str:
    """The source IP address of an accepted connection ("?" if unknown)."""
    address = writer.get_extra_info("peername")
    return str(address[0]) if isinstance(address, tuple) else "?"


def quiet_accept_exhaustion() -> None:
    """On the running loop (unless it has an exception handler already): a listener that
    finds no file descriptor free for a new connection (asyncio pauses it for a second) is
    logged in one line per pause, not with a traceback; asyncio's retry of a listener closed
    during its pause is dropped; anything else goes to the default handler."""
    loop = asyncio.get_running_loop()
    if loop.get_exception_handler() is not None:
        return
    paused: dict[int, float] = {}  # a listener's descriptor: when its last pause began

    def pause_begins(listener: Any, now: float) -> bool:
        """Whether a report of `listener` (a socket) out of descriptors begins a pause
        (asyncio reports each connection waiting, up to its backlog, in turn)."""
        descriptor = listener.fileno() if hasattr(listener, "fileno") else -1
        if now < paused.get(descriptor, -math.inf) + ACCEPT_RETRY_DELAY:
            return False
        paused[descriptor] = now
        return True

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if context.get("message") == ACCEPT_EXHAUSTED and isinstance(error, OSError):
            if pause_begins(context.get("socket"), loop.time()):
                log.warning("cannot accept a connection now (%s): trying again in a moment", error)
        elif _retry_of_a_closed_listener(context):
            log.debug("a listener closed during its pause for file descriptors: not resumed")
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


def _retry_of_a_closed_listener(context: Mapping[str, Any]) -> bool:
    """Whether `context` is asyncio's resuming of a listener after its pause (its timer's
    callback `_start_serving`) that failed because the listener was closed meanwhile: on Python
    3.11 it raises ValueError on the socket's descriptor, -1."""
    handle = context.get("handle")
    callback, args = getattr(handle, "_callback", None), getattr(handle, "_args", ())
    return (
        isinstance(context.get("exception"), ValueError)
        and getattr(callback, "__name__", None) == "_start_serving"
        and any(isinstance(arg, socket.socket) and arg.fileno() == -1 for arg in args)
    )
