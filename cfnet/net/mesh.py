"""A full mesh of authenticated links among a table's seated peers, carrying opaque entries.

Every peer links to every other one: of each pair, the peer with the smaller key dials and
keeps redialling (with backoff) while the link is down; the other dials too once the link has
been down for twice the longest redial delay (it may know an address the dialler lacks). A
listener accepts any other seat (at most a few connections being set up at once: the one that
got least far makes room for a new one, `Admission`); of two links of a pair the one the
smaller key dialled is kept, so two links never fight. Our own entries are `post`ed to every
link; a received entry that the table layer takes (appended, or held until its predecessors
arrive) is echoed on to every other link
(before what the table layer posts in answer to it) once: echoes are deduplicated by hash, but
every copy received goes to the table layer, which ignores what it holds (a copy may be the
only way back for an entry it took ahead of its chain and then let go). So a broken link does
not stall delivery while some path remains. Each side says how many log entries it holds and
the hash of the last (`sync`) when a link comes up and again whenever it
sent nothing for a while (the keepalive), and `announce` does so at once; the other sends what
follows if its chain holds that one there, else its own entries from that position on (or its
last if it holds fewer: an abort that supersedes the peer's longer or different chain, and what
follows the abort), so a peer that missed or refused an entry asks for it again. A `sync`
answer is written lazily, a chunk at a time as the link drains; one at a time per link (a
newer `sync` waits, replacing an older waiting one, and the link is not read meanwhile), and
the other messages queued for a link are capped in bytes: a peer that does not read costs
bounded memory. A link silent past the idle timeout is closed. `finish` says
goodbye once every linked peer is done too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any, Protocol

from cfnet.net.framing import encode_frame, entry_frame
from cfnet.net.handshake import Handshake
from cfnet.net.link import (
    HELLO_TIMEOUT,
    Admission,
    Link,
    LinkClosed,
    peer_host,
    quiet_accept_exhaustion,
)
from cfnet.record.entry import entry_hash
from cfnet.record.identity import Identity, fingerprint

log = logging.getLogger("cfnet.net")

MAX_QUEUED_BYTES = 4 * 1024 * 1024  # frames waiting for one link (a `sync` answer not counted)
RESYNC_CHUNK = 256 * 1024  # a `sync` answer is written this many bytes (or one entry) at a time


class EntryStore(Protocol):
    """What the mesh reads from the table layer's log to resync a peer."""

    def count(self) -> int:
        """How many entries of the shared log we hold: a prefix, in log order."""
        ...

    def since(self, count: int) -> Sequence[bytes]:
        """The wire bytes of our log entries from position `count` on, in log order."""
        ...


Deliver = Callable[[bytes, bytes], bool | Awaitable[bool]]
"""Called with (wire bytes, sender's key) for each entry received (every copy); returns (or
gives an awaitable of) whether the table layer took it (appended, or held until its
predecessors arrive): then the mesh echoes it on to every other peer. It must not raise, nor
block the loop; it may `post` (what it posts is sent after the echo, so that on every link an
entry goes before its follower). One delivery at a time: the link it came on is not read, and
the other links wait to deliver, until it is done. `close` never cuts a delivery short: it waits
for the one under way, and none starts after it."""

Head = tuple[int, bytes]  # (entries held, hash of the last one or b"")


def head_of(store: EntryStore) -> Head:
    """What a `sync` from `store` says: its entry count and the hash of its last entry."""
    count = store.count()
    return count, entry_hash(store.since(count - 1)[0]) if count else b""


class _Outbox:
    """What one link still has to send: frames (capped in bytes), at most one `sync` answer
    under way (written lazily from the store) and one waiting, and a final `done`."""

    def __init__(self, store: EntryStore) -> None:
        self._store = store
        self._frames: deque[bytes] = deque()
        self.queued = 0  # bytes in `_frames`
        self._resync: int | None = None  # the position the answer under way goes on from
        self._asked: Head | None = None  # a `sync` to answer once the one under way is sent
        self._done = False
        self.changed = asyncio.Event()  # something to send
        self._resumed = asyncio.Event()  # no `sync` waits any more
        self.busy = False  # a batch is being written

    @property
    def idle(self) -> bool:
        """Nothing is left to send."""
        return not (self._frames or self.busy or self._done) and self._resync is None

    @property
    def paused(self) -> bool:
        """A `sync` waits for the answer under way: read nothing more from this peer."""
        return self._asked is not None

    async def resumed(self) -> None:
        """Return once no `sync` waits for the answer under way."""
        while self._asked is not None:
            self._resumed.clear()
            await self._resumed.wait()

    def put(self, frame: bytes) -> bool:
        """Queue a frame; False (nothing queued) if that would go over `MAX_QUEUED_BYTES`."""
        if self.queued + len(frame) > MAX_QUEUED_BYTES:
            return False
        self._frames.append(frame)
        self.queued += len(frame)
        self.changed.set()
        return True

    def ask(self, head: Head) -> None:
        """The peer's `sync`: answered now, or after the answer under way (the latest wins)."""
        if self._resync is None:
            self._resync = self._answer(head)
        else:
            self._asked = head
        self.changed.set()

    def finish(self) -> None:
        """Send `done` after everything else."""
        self._done = True
        self.changed.set()

    def _answer(self, head: Head) -> int | None:
        """Where a `sync` answer starts: after the peer's entries if our chain holds its last
        one there; else at the position of its last entry, or at our last if we hold fewer
        (chains differ where an abort superseded entries, and a game may go on after the abort:
        the peer needs it and all that follows); None when there is nothing to send."""
        count, digest = head
        ours = self._store.count()
        if count == 0 or (count <= ours and entry_hash(self._store.since(count - 1)[0]) == digest):
            return count if count < ours else None
        return min(count, ours) - 1 if ours else None

    def take(self) -> bytes:
        """The next batch to write (empty: nothing now): the queued frames, then up to
        `RESYNC_CHUNK` bytes of the answer under way, then `done` when all is sent."""
        parts = list(self._frames)
        self._frames.clear()
        self.queued = 0
        if self._resync is not None:
            size = 0
            for wire in self._store.since(self._resync):
                if size and size + len(wire) > RESYNC_CHUNK:
                    break
                parts.append(entry_frame(wire))
                size += len(wire)
                self._resync += 1
            if self._resync >= self._store.count():
                self._resync = None
                if self._asked is not None:
                    self._resync, self._asked = self._answer(self._asked), None
                    self._resumed.set()
        if self._done and not self._frames and self._resync is None:
            self._done = False
            parts.append(encode_frame({"t": "done"}))
        if self._resync is None and not self._done:
            self.changed.clear()
        return b"".join(parts)


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
        self._fallback = 2 * retry[1]  # the larger key dials after the link is down this long
        self._links: dict[bytes, tuple[Link, _Outbox]] = {}
        self._reverse: set[Link] = set()  # live links that the larger key of their pair dialled
        self._down: dict[bytes, float] = {}  # when each unlinked peer's link went down
        self._created = time.monotonic()
        self._heads: dict[bytes, Head] = {}  # what each peer's last `sync` said
        self._sent: set[bytes] = set()  # the hashes of the entries we posted or echoed
        self._answering: list[bytes] | None = None  # posts made by `deliver`, sent after its echo
        self._delivering = asyncio.Lock()  # one delivery at a time (`Deliver`)...
        self._deliverer: asyncio.Task[Any] | None = None  # ...made by this task
        self._done: set[bytes] = set()
        self._changed = asyncio.Condition()
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None
        self._admission = Admission()
        self._unauthenticated: set[Link] = set()  # accepted, handshake under way
        self._closing = False
        self._delivered_all = False  # closed: no delivery starts any more

    async def start(self, host: str, port: int = 0) -> int:
        """Listen on `host:port` and start dialling; returns the port we listen on."""
        quiet_accept_exhaustion()
        self._server = await asyncio.start_server(self._accept, host, port)
        for key in self._peers:
            self._spawn(self._dial_forever(key))
        return int(self._server.sockets[0].getsockname()[1])

    def set_address(self, key: bytes, host: str, port: int) -> None:
        """Where `key`'s peer listens (learnt from the lobby, mDNS or a resume file)."""
        self._addresses[key] = (host, port)
        self._spawn(self._notify())

    def down_since(self, key: bytes) -> float | None:
        """Since when (time.monotonic) we have had no link to `key`'s peer; None: linked."""
        if key in self._links:
            return None
        return self._down.get(key, self._created)

    @property
    def connected(self) -> frozenset[bytes]:
        """The keys of the peers we have a live, authenticated link to."""
        return frozenset(self._links)

    async def wait_connected(self, keys: Collection[bytes], timeout: float) -> None:
        """Return once we have links to all of `keys`; TimeoutError after `timeout` s."""
        async with asyncio.timeout(timeout), self._changed:
            await self._changed.wait_for(lambda: set(keys) <= self._links.keys())

    async def changed(self, timeout: float) -> None:
        """Return at the next change (a link up or down, a peer's `sync` or `done`), or after
        `timeout` s."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout), self._changed:
                await self._changed.wait()

    def post(self, wire: bytes) -> None:
        """Send our own entry (already stored) to every peer; a second post is a no-op."""
        if self._answering is not None and asyncio.current_task() is self._deliverer:
            self._answering.append(wire)  # posted by `deliver`: after its echo
        else:
            self._send_on(wire, entry_hash(wire), skip=None)

    def resend(self, wire: bytes) -> None:
        """Send `wire` to every linked peer now, even if it was sent before: a message that
        is not a chain entry (a return request) has no sync to bring it back if it was lost."""
        self._sent.add(entry_hash(wire))
        frame = entry_frame(wire)
        for key in list(self._links):
            self._enqueue(key, frame)

    def _send_on(self, wire: bytes, digest: bytes, skip: bytes | None) -> None:
        if digest not in self._sent:
            self._sent.add(digest)
            frame = entry_frame(wire)
            for key in list(self._links):
                if key != skip:
                    self._enqueue(key, frame)

    def announce(self) -> None:
        """Send our chain's count and head (`sync`) to every linked peer now."""
        frame = self._sync_frame()
        for key in list(self._links):
            self._enqueue(key, frame)

    def caught_up(self) -> bool:
        """Whether some peer has told us its chain (`sync`) and we hold its head: the entry at
        its last seq is the same here (a chain as long as ours that forks from it is not)."""
        ours = head_of(self._store)[0]
        return any(
            0 < count <= ours and entry_hash(self._store.since(count - 1)[0]) == head
            for count, head in self._heads.values()
        )

    def agree(self, keys: Collection[bytes]) -> bool:
        """Whether every peer in `keys` said (in its last `sync`) it holds our chain exactly."""
        ours = head_of(self._store)
        return all(self._heads.get(key) == ours for key in keys)

    def backlog(self, key: bytes) -> int:
        """Bytes waiting to go to `key`'s peer: queued frames and the socket's write buffer
        (the answer to a `sync` is made a chunk at a time, as this drains)."""
        if key not in self._links:
            return 0
        link, outbox = self._links[key]
        return outbox.queued + link.write_buffer_size

    async def disconnect(self, key: bytes, reason: str) -> None:
        """Close the link to `key` (the dialler will reconnect after its retry delay)."""
        if key in self._links:
            await self._links[key][0].close(reason)

    async def finish(self, grace: float) -> None:
        """The game is over here: tell every peer (after what is queued for it), wait up to
        `grace` s until every linked peer has said the same, then close."""
        for _, outbox in self._links.values():
            outbox.finish()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace), self._changed:
                await self._changed.wait_for(lambda: self._links.keys() <= self._done)
        await self.close()

    async def close(self) -> None:
        """Stop listening and dialling; close every link (after what is queued for it); the
        delivery under way, if any, ends first."""
        self._closing = True
        if self._server is not None:
            self._server.close()
        for link in list(self._unauthenticated):  # their tasks end by themselves
            await link.close("peer leaving the mesh")
        for link, outbox in list(self._links.values()):
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1.0):
                    while not (outbox.idle or link.closed):
                        await asyncio.sleep(0.01)
            await link.close("peer leaving the mesh")
        async with self._delivering:  # a delivery under way ends first; none starts after
            self._delivered_all = True
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

    def _sync_message(self) -> dict[str, Any]:
        count, head = head_of(self._store)
        return {"t": "sync", "count": count, "head": head}

    def _sync_frame(self) -> bytes:
        return encode_frame(self._sync_message())

    def _enqueue(self, key: bytes, frame: bytes) -> None:
        link, outbox = self._links[key]
        if not outbox.put(frame):
            self._spawn(link.close(f"peer too slow: over {MAX_QUEUED_BYTES} bytes queued"))

    async def _dial_forever(self, key: bytes) -> None:
        """Dial `key`'s peer whenever we know its address and have no link to it: at once if
        our key is the smaller (we are the pair's dialler), else once the link has been down
        `_fallback` s (the dialler may not know our address)."""
        dialler = self._identity.public < key
        delay = self._retry[0]
        while not self._closing:
            async with self._changed:
                await self._changed.wait_for(
                    lambda: key in self._addresses and key not in self._links
                )
            down = self.down_since(key)
            if not dialler and down is not None and time.monotonic() < down + self._fallback:
                await asyncio.sleep(down + self._fallback - time.monotonic())
                continue
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
            await self._serve(key, link, dialled=True)
            await asyncio.sleep(delay)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(reader, writer)
        if self._closing:
            await link.close("peer leaving the mesh")
            return
        with self._admission.hold(link, peer_host(writer)):
            self._unauthenticated.add(link)
            try:
                handshake = self._handshake(initiator=False, accept=self._peers)
                result = await link.handshake(handshake, hello_timeout=HELLO_TIMEOUT)
            except LinkClosed:
                return
            finally:
                self._unauthenticated.discard(link)
        await self._serve(result.peer_key, link, dialled=False)

    def _handshake(self, *, initiator: bool, accept: Collection[bytes]) -> Handshake:
        return Handshake(
            self._identity, initiator=initiator, table_id=self._table_id, accept=accept
        )

    async def _serve(self, key: bytes, link: Link, *, dialled: bool) -> None:
        """Run one authenticated link to `key` (`dialled`: by us) until it closes. It replaces
        the pair's link that is up, unless that one the smaller key dialled and this one the
        larger: then this one is closed at once (both ends keep the same link)."""
        reverse = (key < self._identity.public) == dialled  # the larger key dialled it
        old = self._links.get(key, (None,))[0]
        if reverse and old is not None and old not in self._reverse:
            await link.close("a link dialled by the peer with the smaller key is up already")
            return
        outbox = _Outbox(self._store)
        self._links[key] = (link, outbox)  # before any await: no other link slips in between
        if reverse:
            self._reverse.add(link)
        self._down.pop(key, None)
        if old is not None:
            await old.close("replaced by a new connection")
        await self._notify()
        outbox.put(self._sync_frame())
        sender = asyncio.create_task(self._send_loop(link, outbox))
        try:
            while True:
                async with asyncio.timeout(self._idle_timeout):
                    await outbox.resumed()  # it asks faster than it reads the answers
                    message = await link.receive()
                await self._on_message(key, link, outbox, message)
        except TimeoutError:
            why = "it does not read what it asked for" if outbox.paused else "nothing received"
            await link.close(f"{why} for {self._idle_timeout:g} s")
        except LinkClosed:
            pass
        finally:
            sender.cancel()
            await asyncio.wait([sender])  # never swallows our own cancellation
            self._reverse.discard(link)
            if self._links.get(key, (None,))[0] is link:
                del self._links[key]
                self._down[key] = time.monotonic()
                await self._notify()

    async def _on_message(
        self, key: bytes, link: Link, outbox: _Outbox, message: dict[str, Any]
    ) -> None:
        kind = message["t"]
        if kind == "entry" and isinstance(message.get("wire"), bytes):
            wire: bytes = message["wire"]
            async with self._delivering:
                if self._delivered_all:
                    return
                self._answering, self._deliverer = [], asyncio.current_task()
                try:
                    taken = self._deliver(wire, key)
                    if not isinstance(taken, bool):
                        taken = await taken
                finally:
                    answers, self._answering, self._deliverer = self._answering, None, None
                if taken:
                    self._send_on(wire, entry_hash(wire), skip=key)
                for answer in answers:
                    self._send_on(answer, entry_hash(answer), skip=None)
        elif (
            kind == "sync"
            and type(message.get("count")) is int
            and message["count"] >= 0
            and isinstance(message.get("head"), bytes)
        ):
            head = (message["count"], message["head"])
            self._heads[key] = head
            outbox.ask(head)
            self._spawn(self._notify())
        elif kind == "done":
            self._done.add(key)
            self._spawn(self._notify())
        elif kind != "ping":
            self._spawn(link.close(f"malformed or unexpected mesh message {kind!r}"))

    async def _send_loop(self, link: Link, outbox: _Outbox) -> None:
        with contextlib.suppress(LinkClosed):  # the receive side notices and cleans up
            async with link.pinging(self._ping_interval, self._sync_message):
                while True:
                    await outbox.changed.wait()
                    outbox.busy = True
                    try:
                        batch = outbox.take()
                        if batch:  # written and drained before the next chunk is made
                            await link.send_frames(batch)
                    finally:
                        outbox.busy = False
