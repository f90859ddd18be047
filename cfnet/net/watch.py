"""Watchers: read-only spectators of a table, linked to its host's lobby (protocol.md 6.11).

A watcher dials the host's lobby port and runs the usual handshake (any identity key; the
table's join code if it has one), then says `watch` instead of `sit`. The host sends it the
roster (`seats`) while the table fills, then the chain as `entry` frames in log order from the
genesis, each new entry as the host's table appends it, and `done` once the game is over. The
watcher sends nothing but pings: any other message closes its link, so a watcher can post
nothing (and no seat links to it: the mesh takes only the seats' keys). Each watcher has its
own bounded queue: a slow watcher is dropped, never waited for.

The watcher knows whom it watches: the host's handshake key must be seat 0's key in the table
entry the host sends (and the fingerprint the person pinned, if any), and what it has read but
not yet checked is bounded in bytes: past that it stops reading until the checks catch up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cfnet.errors import PeerProtocolError
from cfnet.lang import N_, Sentence, _
from cfnet.lang.formatting import native_digits
from cfnet.net import reasons
from cfnet.net.discovery import TableInfo
from cfnet.net.framing import encode_frame, entry_frame
from cfnet.net.handshake import HandshakeResult
from cfnet.net.link import Link, LinkClosed
from cfnet.net.mesh import MAX_QUEUED_BYTES, EntryStore
from cfnet.net.roster import (
    LOBBY_IDLE,
    LOBBY_PING,
    LobbyError,
    Say,
    authenticate,
    connect,
    parse_roster,
    receive,
)
from cfnet.protocol.genesis import parse_genesis
from cfnet.protocol.wire import check_display_name
from cfnet.record.identity import Identity, fingerprint

log = logging.getLogger("cfnet.net")

MAX_WATCHERS = 8  # per table: each holds a connection to the host
MAX_WATCH_QUEUE = 4096  # frames queued for one watcher before it is dropped as too slow
FINISH_GRACE = 5.0  # at the end, how long the host waits for its frames to reach the watchers
MAX_UNCHECKED = MAX_QUEUED_BYTES  # entry bytes a watcher holds read but not yet checked


@dataclass(eq=False)
class _Watcher:
    name: str
    key: bytes
    link: Link
    queue: asyncio.Queue[bytes] = field(default_factory=lambda: asyncio.Queue(MAX_WATCH_QUEUE))


class Watchers:
    """The host's watchers: `serve` one after its `watch` message; `feed` the chain once the
    game starts, then `entry` each entry the table appends; `finish` at the end."""

    def __init__(
        self,
        enabled: bool,
        say: Say,
        *,
        ping_interval: float = LOBBY_PING,
        idle_timeout: float = LOBBY_IDLE,
    ) -> None:
        self.enabled = enabled
        self._say = say
        self._ping_interval = ping_interval
        self._idle_timeout = idle_timeout
        self._watchers: list[_Watcher] = []
        self._chain: EntryStore | None = None
        self._roster: dict[str, Any] | None = None
        self._closing: set[asyncio.Task[None]] = set()
        self.on_change: Callable[[], None] = lambda: None

    def __len__(self) -> int:
        return len(self._watchers)

    def roster(self, message: dict[str, Any]) -> None:
        """The lobby's roster changed: tell every watcher (before the chain starts)."""
        self._roster = message
        if self._chain is None:
            self._send_all(encode_frame(message))

    def feed(self, chain: EntryStore) -> None:
        """The game has started: send each watcher the chain so far; `entry` sends the rest."""
        self._chain = chain
        for watcher in self._watchers:
            self._catch_up(watcher)

    def entry(self, wire: bytes) -> None:
        """The table appended `wire` (after it is stored): send it to every watcher."""
        self._send_all(entry_frame(wire))

    async def finish(self) -> None:
        """The game is over: say `done` after what is queued, close every watcher's link."""
        self._send_all(encode_frame({"t": "done"}))
        watchers = list(self._watchers)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(FINISH_GRACE):  # one deadline for all
                for watcher in watchers:
                    await watcher.queue.join()
        for watcher in watchers:
            await watcher.link.close(Sentence(reasons.GAME_OVER))

    def refusal(self) -> Sentence | None:
        """Why another watcher is refused now, or None."""
        if not self.enabled:
            return Sentence(reasons.NO_WATCHERS)
        if len(self._watchers) >= MAX_WATCHERS:
            return Sentence(reasons.WATCHERS_FULL, count=MAX_WATCHERS)
        return None

    async def serve(self, link: Link, key: bytes, message: dict[str, Any]) -> None:
        """Run one watcher's link (after its `watch` message) until it closes."""
        refusal: str | None = self.refusal()
        name = message.get("name")
        if refusal is None and not isinstance(name, str):
            refusal = Sentence(reasons.BAD_WATCH)
        if refusal is None:
            try:
                name = check_display_name(str(name).strip(), N_("watcher name"))
            except ValueError as error:
                refusal = error.args[0]
        if refusal is not None:
            await link.close(refusal)
            return
        watcher = _Watcher(str(name), key, link)
        self._watchers.append(watcher)
        watching = _("{name} ({key}) is watching ({count} watching)")
        count = native_digits(str(len(self)))
        self._say(watching.format(name=watcher.name, key=fingerprint(key), count=count))
        if self._chain is None and self._roster is not None:
            self._put(watcher, encode_frame(self._roster))
        elif self._chain is not None:
            self._catch_up(watcher)
        self.on_change()
        sender = asyncio.create_task(self._send_loop(watcher))
        try:
            async with link.pinging(self._ping_interval):
                while True:
                    got = await receive(link, self._idle_timeout, watcher.name)
                    await link.close(Sentence(reasons.WATCHER_POSTS, kind=repr(got["t"])))
        except (LinkClosed, LobbyError):
            pass
        finally:
            sender.cancel()
            await asyncio.wait([sender])
            self._watchers.remove(watcher)
            stopped = _("{name} stopped watching ({count} watching)")
            self._say(stopped.format(name=watcher.name, count=native_digits(str(len(self)))))
            self.on_change()

    def _catch_up(self, watcher: _Watcher) -> None:
        assert self._chain is not None
        for wire in self._chain.since(0):
            self._put(watcher, entry_frame(wire))

    def _send_all(self, frame: bytes) -> None:
        for watcher in self._watchers:
            self._put(watcher, frame)

    def _put(self, watcher: _Watcher, frame: bytes) -> None:
        try:
            watcher.queue.put_nowait(frame)
        except asyncio.QueueFull:
            task = asyncio.get_running_loop().create_task(
                watcher.link.close(Sentence(reasons.WATCHER_SLOW, count=MAX_WATCH_QUEUE))
            )
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def _send_loop(self, watcher: _Watcher) -> None:
        queue = watcher.queue
        with contextlib.suppress(LinkClosed):
            while True:
                frames = [await queue.get()]
                while not queue.empty():
                    frames.append(queue.get_nowait())
                await watcher.link.send_frames(b"".join(frames))
                for _ in frames:
                    queue.task_done()


async def watch_table(
    identity: Identity,
    name: str,
    host: str,
    port: int,
    on_entry: Callable[[bytes], None],
    *,
    code: str | None = None,
    advertised: TableInfo | None = None,
    pinned: str | None = None,
    say: Say = print,
    ping_interval: float = LOBBY_PING,
    idle_timeout: float = LOBBY_IDLE,
) -> bytes:
    """Watch the table hosted at `host:port` until its host says the game is over: `on_entry`
    gets each entry's wire bytes in log order, from the genesis. `pinned`: the fingerprint the
    host's key must have. Returns the table id; raises LobbyError if the host refuses us, is
    not whom we pinned, is not seat 0 of the table it sends, or the link breaks before the
    end."""
    if advertised is not None and advertised.refusal is not None:
        raise LobbyError(advertised.refusal)
    link, _address = await connect(host, port)
    try:
        result = await authenticate(link, identity, code, advertised)
        key = fingerprint(result.peer_key)
        if pinned is not None and key != pinned:
            raise LobbyError(
                Sentence(
                    N_(
                        "the host at {host}:{port} has the key {key}, not {pinned}"
                        " (--fingerprint): it is not the host you named; nothing was watched"
                    ),
                    host=host,
                    port=str(port),
                    key=key,
                    pinned=pinned,
                )
            )
        await link.send({"t": "watch", "name": name})
        return await _follow(link, result, on_entry, say, ping_interval, idle_timeout)
    except LinkClosed as exc:
        raise LobbyError(
            Sentence(N_("the table closed our link: {reason}"), reason=exc.reason)
        ) from None
    except LobbyError as exc:
        await link.close(exc.args[0] if len(exc.args) == 1 else str(exc))
        raise
    finally:
        await link.close(Sentence(reasons.LEAVING))


class _Unchecked:
    """Entries read from the host and not yet checked: at most MAX_UNCHECKED bytes of them
    (one entry, however large, when none is held). `put` waits for room, so a host that sends
    faster than the checks go is read no faster than they go; None ends the chain. After
    `close` (the checks stopped), `put` drops what it is given."""

    def __init__(self) -> None:
        self._wires: deque[bytes | None] = deque()
        self._bytes = 0
        self._room = asyncio.Event()
        self._some = asyncio.Event()
        self._closed = False

    async def put(self, wire: bytes | None) -> None:
        size = 0 if wire is None else len(wire)
        while not self._closed and self._wires and self._bytes + size > MAX_UNCHECKED:
            self._room.clear()
            await self._room.wait()
        if not self._closed:
            self._wires.append(wire)
            self._bytes += size
            self._some.set()

    async def get(self) -> bytes | None:
        while not self._wires:
            self._some.clear()
            await self._some.wait()
        wire = self._wires.popleft()
        self._bytes -= 0 if wire is None else len(wire)
        self._room.set()
        return wire

    def close(self) -> None:
        self._closed = True
        self._room.set()


def check_host(wire: bytes, result: HandshakeResult) -> None:
    """The host's first entry must be the table entry of the handshake's table, with the
    host's key in seat 0; LobbyError saying what is wrong otherwise."""
    try:
        entry, _, _, _, seats = parse_genesis(wire)
    except PeerProtocolError as error:
        raise LobbyError(
            Sentence(
                N_("the host's first entry is not a valid table entry: {reason}"),
                reason=error.reason,
            )
        ) from None
    if entry.table_id != result.table_id:
        raise LobbyError(Sentence(N_("the host sent the chain of another table than its own")))
    if seats[0].key != result.peer_key:
        raise LobbyError(
            Sentence(
                N_(
                    "the host has the key {key}, but seat 0 ({name}) of the table it sent has the"
                    " key {seated}: it is not that table's host, and nothing it sends is shown"
                ),
                key=fingerprint(result.peer_key),
                name=seats[0].name,
                seated=fingerprint(seats[0].key),
            )
        )


async def _follow(
    link: Link,
    result: HandshakeResult,
    on_entry: Callable[[bytes], None],
    say: Say,
    ping_interval: float,
    idle_timeout: float,
) -> bytes:
    """Read the host's messages until `done`. Entries are checked in a task of their own, so
    that our pings go on however long the checks take; reading runs ahead of the checks by at
    most MAX_UNCHECKED bytes (`_Unchecked`), then waits for them."""
    wires = _Unchecked()

    async def check() -> None:
        first = True
        while (wire := await wires.get()) is not None:
            if first:
                check_host(wire, result)
                first = False
            on_entry(wire)
            await asyncio.sleep(0)  # let the reader and the pings run between entries

    checker = asyncio.create_task(check())
    checker.add_done_callback(lambda _: wires.close())
    shown: list[str] = []
    try:
        async with link.pinging(ping_interval):
            while not checker.done():
                message = await receive(link, idle_timeout, Sentence(N_("the host")))
                kind = message["t"]
                if kind == "entry" and isinstance(message.get("wire"), bytes):
                    await wires.put(message["wire"])
                elif kind == "seats":
                    lines = parse_roster(message).lines()
                    if lines != shown:
                        shown = lines
                        for line in lines:
                            say(line)
                elif kind == "done":
                    await wires.put(None)
                    break
                else:
                    raise LobbyError(
                        Sentence(N_("unexpected message {kind} to a watcher"), kind=repr(kind))
                    )
        await checker  # raises what the checks found, if anything
        return result.table_id
    finally:
        checker.cancel()
        await asyncio.gather(checker, return_exceptions=True)
