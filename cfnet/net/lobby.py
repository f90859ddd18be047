"""The lobby: a host opens a table, joiners take its seats, and the seating ends in a genesis.

The host listens on TCP and advertises the table by mDNS. A joiner dials it, authenticates
(handshake bound to the table, with the join code if the table has one) and asks for a seat
(`sit`, with its player name). The host tells every seated joiner the roster (`seats`) each
time it changes; a joiner leaves by closing its link. When every seat is taken the host signs
the genesis and sends it (`start`); each joiner checks it, opens its mesh listener and answers
with its port (`ready`); the host then sends every seat's mesh address (`go`) and the lobby
closes. Seat 0 is the host; joiners sit in the order they arrived.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.identity import Identity, fingerprint
from cfnet.net.discovery import Discovery, TableInfo
from cfnet.net.handshake import TABLE_ID_BYTES, Handshake
from cfnet.net.link import Link, LinkClosed
from cfnet.rules import RuleOptions
from cfnet.table import SeatInfo, make_genesis, parse_genesis
from cfnet.table_wire import MAX_NAME_CHARS

log = logging.getLogger("cfnet.net")

SIT_TIMEOUT = 10.0
CONNECT_TIMEOUT = 5.0

Prepare = Callable[[bytes, int], Awaitable[int]]
"""Called with (genesis wire, my seat) once the table is set; opens the mesh listener and
returns its port."""

Say = Callable[[str], None]

OnRoster = Callable[[list[tuple[str, bytes]], int], None]
"""Told (every seated player's (name, key) by seat, the number of seats) when the roster changes."""


class LobbyError(LocalProtocolError):
    """Seating failed: the table refused us, went away, or sent something we cannot use."""


class Unreachable(LobbyError):
    """Nobody answers at the table's address, or not with the key the table advertised."""


@dataclass(frozen=True, slots=True)
class Seating:
    """The outcome of the lobby: the signed genesis, my seat, every seat's mesh address."""

    genesis: bytes
    seat: int
    addresses: dict[int, tuple[str, int]]
    local_host: str


def check_player(name: str) -> str:
    """A player name: 1..MAX_NAME_CHARS printable characters (LocalProtocolError otherwise)."""
    name = name.strip()
    if not name or len(name) > MAX_NAME_CHARS or not name.isprintable():
        raise LocalProtocolError(
            f"player name {name!r}: use 1 to {MAX_NAME_CHARS} printable characters"
        )
    return name


def _roster(names: list[tuple[str, bytes]], seats: int) -> list[str]:
    lines = [f"  seat {i}: {name} ({fingerprint(key)})" for i, (name, key) in enumerate(names)]
    return lines + [f"  seat {i}: (free)" for i in range(len(names), seats)]


@dataclass(eq=False)
class _Joiner:
    name: str
    key: bytes
    link: Link
    host: str
    ready: asyncio.Future[int] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class HostLobby:
    """The host's side: `await open()`, then `await seat_all(prepare)`; `close()` in any case
    (it withdraws the advertisement: the game may run meanwhile)."""

    def __init__(
        self,
        identity: Identity,
        discovery: Discovery | None,
        *,
        name: str,
        player: str,
        seats: int,
        options: RuleOptions,
        timeout: int,
        code: str | None,
        interface: str,
        port: int = 0,
        say: Say = print,
        on_roster: OnRoster | None = None,
    ) -> None:
        options.check(seats)
        self.identity = identity
        self.table_id = os.urandom(TABLE_ID_BYTES)
        self.name = name
        self.player = player
        self.seats = seats
        self.options = options
        self.timeout = timeout
        self._discovery = discovery
        self._code = code
        self._interface = interface
        self._port = port
        self._say = say
        self._on_roster = on_roster
        self._joiners: list[_Joiner] = []
        self._full = asyncio.Event()
        self._started = False
        self._server: asyncio.Server | None = None
        self._info: TableInfo | None = None

    async def open(self) -> int:
        """Listen and advertise; returns the lobby's TCP port."""
        self._server = await asyncio.start_server(self._on_connect, self._interface, self._port)
        port = int(self._server.sockets[0].getsockname()[1])
        self._info = TableInfo(
            self.name,
            self.table_id,
            self.player,
            fingerprint(self.identity.public),
            self.options,
            self.seats,
            1,
            self._code is not None,
            port=port,
        )
        if self._discovery is not None:
            await self._discovery.advertise(self._info, [self._interface])
        code = ", join code required" if self._code else ""
        self._say(
            f"table {self.name!r} open on {self._interface}:{port} ({self.seats} seats, "
            f"{self.options.describe()}{code}); you sit in seat 0 as {self.player} "
            f"({fingerprint(self.identity.public)})"
        )
        if self._on_roster is not None:
            self._on_roster([(self.player, self.identity.public)], self.seats)
        return port

    async def seat_all(self, prepare: Prepare) -> Seating:
        """Wait until every seat is taken, then sign and hand out the genesis."""
        await self._full.wait()
        infos = [SeatInfo(self.player, self.identity.public)]
        infos += [SeatInfo(j.name, j.key) for j in self._joiners]
        genesis = make_genesis(
            self.identity, self.table_id, self.name, self.options, infos, self.timeout
        ).wire
        port = await prepare(genesis, 0)
        for joiner in self._joiners:
            with contextlib.suppress(LinkClosed):
                await joiner.link.send({"t": "start", "genesis": genesis})
        addresses = {0: (self._interface, port)}
        for seat, joiner in enumerate(self._joiners, 1):
            try:
                async with asyncio.timeout(self.timeout):
                    addresses[seat] = (joiner.host, await joiner.ready)
            except (TimeoutError, LinkClosed) as exc:
                self._say(f"seat {seat} ({joiner.name}) did not get ready: {exc}")
        rows = [["" if s == 0 else host, port] for s, (host, port) in sorted(addresses.items())]
        seats = [s for s in sorted(addresses)]
        for seat, joiner in enumerate(self._joiners, 1):
            if seat in addresses:
                with contextlib.suppress(LinkClosed):
                    await joiner.link.send({"t": "go", "seats": seats, "addresses": rows})
        return Seating(genesis, 0, addresses, self._interface)

    async def _withdraw(self) -> None:
        if self._discovery is not None and self._info is not None:
            with contextlib.suppress(Exception):
                await self._discovery.withdraw(self.table_id)
            self._info = None

    async def close(self) -> None:
        """Stop listening and advertising; close every lobby link."""
        await self._withdraw()
        if self._server is not None:
            self._server.close()
        for joiner in list(self._joiners):  # a closed link's task removes its joiner
            await joiner.link.close("the lobby is closed")  # their tasks end by themselves

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._serve(Link(reader, writer), writer.get_extra_info("peername"))

    async def _serve(self, link: Link, peer: Any) -> None:
        host = peer[0] if isinstance(peer, tuple) else "?"
        if self._started:
            await link.close("the table has started: every seat is taken")
            return
        handshake = Handshake(
            self.identity, initiator=False, table_id=self.table_id, join_code=self._code
        )
        try:
            result = await link.handshake(handshake)
            async with asyncio.timeout(SIT_TIMEOUT):
                message = await link.receive()
        except (LinkClosed, TimeoutError) as exc:
            await link.close(f"no seat taken: {exc}")
            return
        key = result.peer_key
        try:
            player = self._check_sit(message, key)
        except LobbyError as exc:
            await link.close(str(exc))
            return
        joiner = _Joiner(player, key, link, host)
        self._joiners.append(joiner)
        self._say(f"{player} ({fingerprint(key)}) sits in seat {len(self._joiners)}")
        await self._roster_changed()
        await self._listen(joiner)

    def _check_sit(self, message: dict[str, Any], key: bytes) -> str:
        if message["t"] != "sit" or not isinstance(message.get("name"), str):
            raise LobbyError(f"expected a 'sit' message, got {message['t']!r}")
        try:
            player = check_player(message["name"])
        except LocalProtocolError as exc:
            raise LobbyError(str(exc)) from None
        if self._started or len(self._joiners) + 1 >= self.seats:
            raise LobbyError("the table is full")
        if key == self.identity.public or any(j.key == key for j in self._joiners):
            raise LobbyError(
                "this identity key already has a seat at the table: every player needs its own "
                "state directory (--home)"
            )
        return player

    async def _listen(self, joiner: _Joiner) -> None:
        """Read the joiner's lobby messages until its link closes (before the start: it left)."""
        try:
            while True:
                message = await joiner.link.receive()
                port = message.get("port")
                if message["t"] == "ready" and type(port) is int and 0 < port <= 0xFFFF:
                    if not joiner.ready.done():
                        joiner.ready.set_result(port)
                    continue
                await joiner.link.close(f"unexpected lobby message {message['t']!r}")
        except LinkClosed as closed:
            if not joiner.ready.done():
                joiner.ready.set_exception(closed)
                joiner.ready.exception()  # retrieved: nobody may await it after the start
            if not self._started:
                self._joiners.remove(joiner)
                self._say(f"{joiner.name} left the table ({closed.reason})")
                await self._roster_changed()

    async def _roster_changed(self) -> None:
        names = [(self.player, self.identity.public)] + [(j.name, j.key) for j in self._joiners]
        if len(names) == self.seats:
            self._started = True
            self._full.set()
        for line in _roster(names, self.seats):
            self._say(line)
        if self._on_roster is not None:
            self._on_roster(names, self.seats)
        rows = [[name, key] for name, key in names]
        for joiner in list(self._joiners):
            with contextlib.suppress(LinkClosed):
                await joiner.link.send({"t": "seats", "seats": rows, "of": self.seats})
        if self._discovery is not None and self._info is not None:
            self._info = replace(self._info, taken=len(names))
            with contextlib.suppress(Exception):
                await self._discovery.update(self._info, [self._interface])


async def join_table(
    identity: Identity,
    player: str,
    host: str,
    port: int,
    prepare: Prepare,
    *,
    code: str | None = None,
    table_id: bytes | None = None,
    host_fingerprint: str | None = None,
    say: Say = print,
    on_roster: OnRoster | None = None,
) -> Seating:
    """Take a seat at the table hosted at `host:port`; returns once the mesh addresses are known.

    `prepare` runs when the genesis arrives (it must open the mesh listener). LobbyError if the
    host refuses us or the seating breaks down."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port), CONNECT_TIMEOUT
        )
    except (OSError, TimeoutError) as exc:
        raise Unreachable(f"cannot reach the table at {host}:{port}: {exc}") from None
    local_host = str(writer.get_extra_info("sockname")[0])
    link = Link(reader, writer)
    try:
        return await _seat(
            link,
            identity,
            player,
            host,
            local_host,
            prepare,
            code,
            table_id,
            host_fingerprint,
            say,
            on_roster,
        )
    except LinkClosed as exc:
        raise LobbyError(f"the table closed our link: {exc.reason}") from None
    except PeerProtocolError as exc:
        await link.close(f"bad table entry: {exc.reason}")
        raise LobbyError(f"the host sent a bad table: {exc.reason}") from None
    finally:
        await link.close("leaving the lobby")


async def _seat(
    link: Link,
    identity: Identity,
    player: str,
    host: str,
    local_host: str,
    prepare: Prepare,
    code: str | None,
    table_id: bytes | None,
    host_fingerprint: str | None,
    say: Say,
    on_roster: OnRoster | None,
) -> Seating:
    handshake = Handshake(identity, initiator=True, table_id=table_id, join_code=code)
    result = await link.handshake(handshake)
    host_key = result.peer_key
    if host_fingerprint is not None and fingerprint(host_key) != host_fingerprint:
        raise Unreachable(
            f"the host's key is {fingerprint(host_key)}, the table advertised {host_fingerprint}"
        )
    await link.send({"t": "sit", "name": player})
    shown: list[str] = []
    genesis: bytes | None = None
    seat = -1
    while True:
        message = await link.receive()
        kind = message["t"]
        if kind == "seats" and genesis is None:
            names, of = _roster_of(message)
            lines = _roster(names, of)
            if lines != shown:
                shown = lines
                for line in lines:
                    say(line)
                if on_roster is not None:
                    on_roster(names, of)
        elif kind == "start" and genesis is None and isinstance(message.get("genesis"), bytes):
            entry, name, options, _, seats = parse_genesis(message["genesis"])
            if seats[0].key != host_key:
                raise LobbyError("the table entry is not the host's")
            mine = [s for s, info in enumerate(seats) if info.key == identity.public]
            if len(mine) != 1 or seats[mine[0]].name != player:
                raise LobbyError("the table entry does not give us the seat we took")
            genesis, seat = entry.wire, mine[0]
            say(
                f"table {name!r} starts: you are seat {seat} of {len(seats)} ({options.describe()})"
            )
            await link.send({"t": "ready", "port": await prepare(genesis, seat)})
        elif kind == "go" and genesis is not None:
            addresses = _addresses(message, host)
            return Seating(genesis, seat, addresses, local_host)
        elif kind != "seats":
            raise LobbyError(f"unexpected lobby message {kind!r}")


def _roster_of(message: dict[str, Any]) -> tuple[list[tuple[str, bytes]], int]:
    """The (name, key) of each seated player and the number of seats in a 'seats' message."""
    rows, seats = message.get("seats"), message.get("of")
    names: list[tuple[str, bytes]] = []
    if isinstance(rows, list) and type(seats) is int:
        for row in rows:
            if (
                isinstance(row, list)
                and len(row) == 2
                and isinstance(row[0], str)
                and isinstance(row[1], bytes)
            ):
                names.append((row[0][:MAX_NAME_CHARS], row[1]))
    return names, seats if type(seats) is int else len(names)


def _addresses(message: dict[str, Any], host: str) -> dict[int, tuple[str, int]]:
    seats, rows = message.get("seats"), message.get("addresses")
    if not (isinstance(seats, list) and isinstance(rows, list) and len(seats) == len(rows)):
        raise LobbyError("malformed 'go' message")
    addresses = {}
    for seat, row in zip(seats, rows, strict=True):
        if not (
            type(seat) is int
            and isinstance(row, list)
            and len(row) == 2
            and isinstance(row[0], str)
            and type(row[1]) is int
        ):
            raise LobbyError("malformed 'go' message")
        addresses[seat] = (row[0] or host, row[1])
    return addresses
