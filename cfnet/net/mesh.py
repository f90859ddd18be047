"""A full mesh of authenticated links among a table's seated peers, carrying opaque entries.

Every peer links to every other one: of each pair, the peer with the smaller key dials and
keeps redialling (with backoff) while the link is down; the other accepts. Our own entries are
`post`ed to every link; a received entry that the table layer takes (appended, or held until
its predecessors arrive) is echoed on to every other link; entries are deduplicated by hash.
So a broken link does not stall delivery while some path remains. When a link comes up each
side says how many log entries it holds and the hash of the last (`sync`); the other sends what
follows if its chain holds that one there, else its own last entry (an abort that supersedes
the peer's longer or different chain), so a reconnecting or restarted peer resyncs. A link
silent past the idle timeout is closed (pings keep healthy links busy). `finish` says goodbye
once every linked peer is done too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection, Sequence
from typing import Any, Protocol

from cfnet.identity import Identity, fingerprint
from cfnet.log import entry_hash
from cfnet.net.framing import encode_frame, entry_frame
from cfnet.net.handshake import Handshake
from cfnet.net.link import Link, LinkClosed

log = logging.getLogger("cfnet.net")

MAX_QUEUED = 4096


class EntryStore(Protocol):
    """What the mesh reads from the table layer's log to resync a peer."""

    def count(self) -> int:
        """How many entries of the shared log we hold: a prefix, in log order."""
        ...

    def since(self, count: int) -> Sequence[bytes]:
        """The wire bytes of our log entries from position `count` on, in log order."""
        ...


Deliver = Callable[[bytes, bytes], bool]
"""Called with (wire bytes, sender's key) for each received entry not seen before; returns
whether the table layer took it (appended, or held until its predecessors arrive): then the
mesh echoes it on to every other peer. It must neither block nor raise; it may `post`."""

_Resync = int  # a queued request to send the log from this position on
_Frame = bytes  # a frame already encoded (an entry: encoded once for all the links)
_Item = dict[str, Any] | _Resync | _Frame


class Mesh:
    """This peer's links to the other seats (`peers`: their identity keys) of one table."""

    def __init__(
        self,
        identity: Identity,
        table_id: bytes,
        peers: Collection[bytes],
        store: EntryStore,
        deliver: Deliver,
        *,
        retry: tuple[float, float] = (0.05, 2.0),
        ping_interval: float = 5.0,
        idle_timeout: float = 15.0,
    ) -> None:
        self._identity = identity
        self._table_id = table_id
        self._peers = frozenset(peers) - {identity.public}
        self._store = store
        self._deliver = deliver
        self._retry = retry
        self._ping_interval = ping_interval
        self._idle_timeout = idle_timeout
        self._addresses: dict[bytes, tuple[str, int]] = {}
        self._links: dict[bytes, tuple[Link, asyncio.Queue[_Item]]] = {}
        self._seen: set[bytes] = set()
        self._done: set[bytes] = set()
        self._changed = asyncio.Condition()
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None
        self._closing = False

    async def start(self, host: str, port: int = 0) -> int:
        """Listen on `host:port` and start dialling; returns the port we listen on."""
        self._server = await asyncio.start_server(self._accept, host, port)
        for key in self._peers:
            if self._identity.public < key:
                self._spawn(self._dial_forever(key))
        return int(self._server.sockets[0].getsockname()[1])

    def set_address(self, key: bytes, host: str, port: int) -> None:
        """Where `key`'s peer listens (learnt from the lobby, mDNS or a resume file)."""
        self._addresses[key] = (host, port)
        self._spawn(self._notify())

    @property
    def connected(self) -> frozenset[bytes]:
        """The keys of the peers we have a live, authenticated link to."""
        return frozenset(self._links)

    async def wait_connected(self, keys: Collection[bytes], timeout: float) -> None:
        """Return once we have links to all of `keys`; TimeoutError after `timeout` s."""
        async with asyncio.timeout(timeout), self._changed:
            await self._changed.wait_for(lambda: set(keys) <= self._links.keys())

    def post(self, wire: bytes) -> None:
        """Send our own entry (already stored) to every peer; a second post is a no-op."""
        self._send_on(wire, entry_hash(wire), skip=None)

    def _send_on(self, wire: bytes, digest: bytes, skip: bytes | None) -> None:
        if digest not in self._seen:
            self._seen.add(digest)
            frame = entry_frame(wire)
            for key in list(self._links):
                if key != skip:
                    self._enqueue(key, frame)

    async def disconnect(self, key: bytes, reason: str) -> None:
        """Close the link to `key` (the dialler will reconnect after its retry delay)."""
        if key in self._links:
            await self._links[key][0].close(reason)

    async def finish(self, grace: float) -> None:
        """The game is over here: tell every peer (after what is queued for it), wait up to
        `grace` s until every linked peer has said the same, then close."""
        for key in list(self._links):
            self._enqueue(key, {"t": "done"})
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace), self._changed:
                await self._changed.wait_for(lambda: self._links.keys() <= self._done)
        await self.close()

    async def close(self) -> None:
        """Stop listening and dialling; close every link (after what is queued for it)."""
        self._closing = True
        if self._server is not None:
            self._server.close()
        for link, queue in list(self._links.values()):
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1.0):
                    await queue.join()
            await link.close("peer leaving the mesh")
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    def _spawn(self, coroutine: Any) -> None:
        task: asyncio.Task[None] = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def _enqueue(self, key: bytes, item: _Item) -> None:
        link, queue = self._links[key]
        try:
            queue.put_nowait(item)
        except asyncio.QueueFull:
            self._spawn(link.close(f"peer too slow: {MAX_QUEUED} messages queued"))

    async def _dial_forever(self, key: bytes) -> None:
        delay = self._retry[0]
        while not self._closing:
            async with self._changed:
                await self._changed.wait_for(lambda: key in self._addresses)
            host, port = self._addresses[key]
            try:
                link = await Link.connect(host, port)
                await link.handshake(self._handshake(initiator=True, accept={key}))
            except (OSError, TimeoutError, LinkClosed) as exc:
                log.debug("dialling %s at %s:%d failed: %s", fingerprint(key), host, port, exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._retry[1])
                continue
            delay = self._retry[0]
            await self._serve(key, link)
            await asyncio.sleep(delay)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(reader, writer)
        if self._closing:
            await link.close("peer leaving the mesh")
            return
        callers = {key for key in self._peers if key < self._identity.public}
        try:
            result = await link.handshake(self._handshake(initiator=False, accept=callers))
        except LinkClosed:
            return
        await self._serve(result.peer_key, link)

    def _handshake(self, *, initiator: bool, accept: Collection[bytes]) -> Handshake:
        return Handshake(
            self._identity, initiator=initiator, table_id=self._table_id, accept=accept
        )

    async def _serve(self, key: bytes, link: Link) -> None:
        """Run one authenticated link until it closes."""
        if key in self._links:
            await self._links[key][0].close("replaced by a new connection")
        queue: asyncio.Queue[_Item] = asyncio.Queue(MAX_QUEUED)
        self._links[key] = (link, queue)
        await self._notify()
        count = self._store.count()
        head = entry_hash(self._store.since(count - 1)[0]) if count else b""
        queue.put_nowait({"t": "sync", "count": count, "head": head})
        sender = asyncio.create_task(self._send_loop(link, queue))
        try:
            while True:
                async with asyncio.timeout(self._idle_timeout):
                    message = await link.receive()
                self._on_message(key, link, message)
        except TimeoutError:
            await link.close(f"nothing received for {self._idle_timeout:g} s")
        except LinkClosed:
            pass
        finally:
            sender.cancel()
            await asyncio.wait([sender])  # never swallows our own cancellation
            if self._links.get(key, (None,))[0] is link:
                del self._links[key]
                await self._notify()

    def _on_message(self, key: bytes, link: Link, message: dict[str, Any]) -> None:
        kind = message["t"]
        if kind == "entry" and isinstance(message.get("wire"), bytes):
            wire: bytes = message["wire"]
            digest = entry_hash(wire)  # dedup first: the table decodes and verifies
            if digest not in self._seen and self._deliver(wire, key):
                self._send_on(wire, digest, skip=key)
        elif (
            kind == "sync"
            and type(message.get("count")) is int
            and message["count"] >= 0
            and isinstance(message.get("head"), bytes)
        ):
            self._resync(key, message["count"], message["head"])
        elif kind == "done":
            self._done.add(key)
            self._spawn(self._notify())
        elif kind != "ping":
            self._spawn(link.close(f"malformed or unexpected mesh message {kind!r}"))

    def _resync(self, key: bytes, count: int, head: bytes) -> None:
        """Answer a peer's `sync`: what follows its `count` entries if our chain has its last
        one (`head`) there, else our last entry: chains that differ differ by an abort, and
        that is how ours ends (the peer takes it if it is earlier than its own or supersedes
        the entries it holds)."""
        ours = self._store.count()
        if count == 0 or (count <= ours and entry_hash(self._store.since(count - 1)[0]) == head):
            self._enqueue(key, count)
        elif ours:
            self._enqueue(key, {"t": "entry", "wire": self._store.since(ours - 1)[0]})

    async def _send_loop(self, link: Link, queue: asyncio.Queue[_Item]) -> None:
        with contextlib.suppress(LinkClosed):  # the receive side notices and cleans up
            await self._send_forever(link, queue)

    async def _send_forever(self, link: Link, queue: asyncio.Queue[_Item]) -> None:
        async with link.pinging(self._ping_interval):  # not a timeout around every get
            while True:
                items = [await queue.get()]
                while not queue.empty():  # all that is queued goes out in one write
                    items.append(queue.get_nowait())
                await link.send_frames(b"".join(self._frames(item) for item in items))
                for _ in items:
                    queue.task_done()

    def _frames(self, item: _Item) -> bytes:
        if isinstance(item, bytes):
            return item
        if isinstance(item, int):
            return b"".join(entry_frame(wire) for wire in self._store.since(item))
        return encode_frame(item)
