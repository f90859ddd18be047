"""The lobby: a host opens a table, joiners take its seats, and the seating ends in a genesis.

The host listens on TCP and advertises the table by mDNS. A joiner dials it, authenticates
(handshake bound to the table, with the join code if the table has one) and asks for a seat
(`sit`, with its player name). The host tells every seated joiner the roster (`seats`) each
time it changes; a joiner leaves by closing its link. When every seat is taken the host signs
the genesis and sends it with the port of its own mesh listener (`start`); each joiner checks
it, notes where the host's mesh listens, opens its own mesh listener and answers with its port
(`ready`); the host then sends every seat's mesh address (`go`) and the lobby
closes. Seat 0 is the host; joiners sit in the order they arrived. Both sides ping a quiet
link and drop one on which nothing came for a while; the host holds only so many lobby
connections being set up at once, and from one address, closing the one that got least far to
let a new one in (`Admission`), refuses an address that gave too many wrong join codes lately,
and the whole table for a while (longer each time) after too many wrong codes from anywhere.
Every name the host sends is checked like a genesis name before it is shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import math
import os
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from cfnet.errors import LocalProtocolError, describe
from cfnet.game.rules import RuleOptions
from cfnet.lang import N_, Sentence, _, ngettext, number
from cfnet.lang.formatting import native_digits, quantity
from cfnet.lang.sentence import said
from cfnet.net.discovery import Discovery, TableInfo, check_name
from cfnet.net.handshake import (
    Handshake,
    WrongJoinCode,
)
from cfnet.net.link import (
    HELLO_TIMEOUT,
    Admission,
    Link,
    LinkClosed,
    peer_host,
    quiet_accept_exhaustion,
)
from cfnet.net.reasons import (
    BUSY_ADDRESS,
    BUSY_TABLE,
    EARLY_READY,
    KEY_SEATED,
    LOBBY_CLOSED,
    LOCKED_OUT,
    NO_SEAT,
    NOT_READY,
    NOT_SIT,
    TABLE_FULL,
    TABLE_STARTED,
    UNEXPECTED,
    WRONG_CODES,
)
from cfnet.net.roster import (
    LOBBY_IDLE,
    LOBBY_PING,
    LobbyError,
    Roster,
    Say,
    receive,
)
from cfnet.net.watch import Watchers
from cfnet.protocol.genesis import SeatInfo, make_genesis
from cfnet.record.entry import TABLE_ID_BYTES
from cfnet.record.identity import Identity, fingerprint

log = logging.getLogger("cfnet.net")

SIT_TIMEOUT = 10.0
MAX_CODE_FAILURES = 5  # wrong join codes (and attempts under way) per address...
CODE_FAILURE_WINDOW = 60.0  # ...within this many seconds; then the address is refused
TABLE_CODE_FAILURES = 10  # wrong join codes (and attempts under way) at the table...
TABLE_LOCKOUT = (30.0, 600.0)  # ...then every joiner is refused 30 s, doubling, at most 600 s
PERSON_MIN_TIMEOUT = 20  # a table where a person sits gives each seat at least this long

Addr = tuple[str, int]

Prepare = Callable[[bytes, int, dict[int, Addr]], Awaitable[int]]
"""Called with (genesis wire, my seat, the other seats' mesh addresses known so far: a joiner
knows the host's from `start`) once the table is set; opens the mesh listener and returns its
port."""


@dataclass(frozen=True, slots=True)
class TableOpened:
    """The host's table is open (on `port`) with the host alone in seat 0."""

    port: int
    roster: Roster


@dataclass(frozen=True, slots=True)
class SeatTaken:
    """A joiner sat down at the host's table: its seat, its name and its key."""

    seat: int
    name: str
    key: bytes


LobbyEvent = TableOpened | SeatTaken | Roster
"""What a lobby tells its seat besides its sentences: the table opened, a joiner sat down (the
host's side), the roster changed (a `Roster`, each time it changes)."""

OnEvent = Callable[[LobbyEvent], None]


@dataclass(frozen=True, slots=True)
class Seating:
    """The outcome of the lobby: the signed genesis, my seat, every seat's mesh address."""

    genesis: bytes
    seat: int
    addresses: dict[int, Addr]
    local_host: str


def check_player(name: str) -> str:
    """`name` stripped, if it is a name (`check_name`: 1..40 printable characters);
    LocalProtocolError otherwise."""
    return check_name(name, N_("player name"))


def _reason(error: Exception) -> str:
    """The reason an error gives (a `Sentence` kept as one), for a goodbye or a line."""
    reason = error.args[0] if len(error.args) == 1 else None
    return reason if isinstance(reason, str) else str(error)


class _Guesses:
    """Join-code attempts (each is one guess). Per source address: at most `limit` failures
    and attempts under way within `window` s; an address over it is refused until its oldest
    failure is that old. At the table: at most `table_limit` failures since the last lock-out
    plus attempts under way; the failure that reaches it locks every address out for
    `lockout[0]` s, twice as long at each lock-out, at most `lockout[1]` s."""

    def __init__(
        self,
        limit: int,
        window: float,
        table_limit: int,
        lockout: tuple[float, float],
        clock: Callable[[], float],
    ) -> None:
        self._limit = limit
        self._window = window
        self._table_limit = table_limit
        self._lockout = lockout
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._pending: Counter[str] = Counter()
        self._table_failures = 0  # since the last lock-out
        self._lockouts = 0
        self._locked_until = -math.inf

    def refusal(self, address: str) -> Sentence | None:
        """Why `address` may not try now, or None (then call `attempt`)."""
        if self._clock() < self._locked_until:
            return Sentence(LOCKED_OUT, wait=math.ceil(self._locked_until - self._clock()))
        failures = self._failures.get(address, deque())
        while failures and failures[0] <= self._clock() - self._window:
            failures.popleft()
        if not failures:
            self._failures.pop(address, None)
        if len(failures) + self._pending[address] < self._limit:
            if self._table_failures + self._pending.total() < self._table_limit:
                return None
            return Sentence(BUSY_TABLE)
        if not failures:
            return Sentence(BUSY_ADDRESS, address=address)
        wait = math.ceil(failures[0] + self._window - self._clock())
        return Sentence(
            WRONG_CODES, address=address, limit=self._limit, window=self._window, wait=wait
        )

    @contextlib.contextmanager
    def attempt(self, address: str) -> Iterator[None]:
        """Inside: an attempt from `address` is under way."""
        self._pending[address] += 1
        try:
            yield
        finally:
            self._pending[address] -= 1
            if not self._pending[address]:
                del self._pending[address]

    def failed(self, address: str) -> list[str]:
        """Count a wrong code from `address`; what the host is told of it (a limit reached)."""
        self._failures.setdefault(address, deque()).append(self._clock())
        told = []
        if len(self._failures[address]) == self._limit:
            told.append(
                ngettext(
                    "{count} wrong join code from {address} within {seconds} s: it is refused"
                    " for a while",
                    "{count} wrong join codes from {address} within {seconds} s: it is refused"
                    " for a while",
                    self._limit,
                ).format(count=number(self._limit), address=address, seconds=quantity(self._window))
            )
        self._table_failures += 1
        if self._table_failures == self._table_limit:
            self._table_failures = 0
            self._lockouts += 1
            seconds = min(self._lockout[0] * 2 ** (self._lockouts - 1), self._lockout[1])
            self._locked_until = self._clock() + seconds
            told.append(
                ngettext(
                    "{count} wrong join code at this table: every joiner is refused for"
                    " {seconds} s (someone may be guessing the code)",
                    "{count} wrong join codes at this table: every joiner is refused for"
                    " {seconds} s (someone may be guessing the code)",
                    self._table_limit,
                ).format(count=number(self._table_limit), seconds=quantity(seconds))
            )
        return told


@dataclass(eq=False)
class _Joiner:
    name: str
    key: bytes
    link: Link
    host: str
    started: bool = False  # sent the genesis: a `ready` is expected now
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
        on_event: OnEvent | None = None,
        ping_interval: float = LOBBY_PING,
        idle_timeout: float = LOBBY_IDLE,
        hello_timeout: float = HELLO_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
        watchers: bool = True,
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
        self._on_event = on_event
        self._ping_interval = ping_interval
        self._idle_timeout = idle_timeout
        self._hello_timeout = hello_timeout
        self._guesses = _Guesses(
            MAX_CODE_FAILURES, CODE_FAILURE_WINDOW, TABLE_CODE_FAILURES, TABLE_LOCKOUT, clock
        )
        self._admission = Admission()
        self._joiners: list[_Joiner] = []
        self._full = asyncio.Event()
        self._roster_lock = asyncio.Lock()  # a roster is sent whole, and before the start
        self._started = False
        self._server: asyncio.Server | None = None
        self._info: TableInfo | None = None
        self.watchers = Watchers(
            watchers, say, ping_interval=ping_interval, idle_timeout=idle_timeout
        )
        self.watchers.on_change = self._watchers_changed
        self._tasks: set[asyncio.Task[None]] = set()

    def _watchers_changed(self) -> None:
        """Before the start, every joiner and watcher sees how many are watching."""
        if not self._started:
            task = asyncio.get_running_loop().create_task(self._roster_changed())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def open(self) -> int:
        """Listen and advertise; returns the lobby's TCP port."""
        quiet_accept_exhaustion()
        try:
            self._server = await asyncio.start_server(self._on_connect, self._interface, self._port)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            raise LobbyError(
                _(
                    "port {port} on {address} is in use by another program: choose another"
                    " --port, or leave it out for any free one"
                ).format(port=self._port, address=self._interface)
            ) from None
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
            timeout=self.timeout,
        )
        if self._discovery is not None:
            await self._discovery.advertise(self._info, [self._interface])
        opened = (
            _(
                "table {name!r} open on {address}:{port} ({seats} seats, {rules}, timeout"
                " {timeout} s, join code required); you sit in seat 0 as {player} ({key})"
            )
            if self._code
            else _(
                "table {name!r} open on {address}:{port} ({seats} seats, {rules}, timeout"
                " {timeout} s); you sit in seat 0 as {player} ({key})"
            )
        )
        self._say(
            opened.format(
                name=self.name,
                address=self._interface,
                port=port,
                seats=native_digits(str(self.seats)),
                rules=self.options.describe(),
                timeout=native_digits(str(self.timeout)),
                player=self.player,
                key=fingerprint(self.identity.public),
            )
        )
        if self._on_event is not None:
            self._on_event(TableOpened(port, self._roster()))
        return port

    def _names(self) -> list[tuple[str, bytes]]:
        return [(self.player, self.identity.public)] + [(j.name, j.key) for j in self._joiners]

    def _roster(self) -> Roster:
        return Roster(self._names(), self.seats, self.options, self.timeout, len(self.watchers))

    async def seat_all(self, prepare: Prepare) -> Seating:
        """Wait until every seat is taken, then sign and hand out the genesis."""
        while not self._started:
            await self._full.wait()
            async with self._roster_lock:  # every joiner has the full roster
                self._started = len(self._names()) == self.seats  # else one left meanwhile
        infos = [SeatInfo(name, key) for name, key in self._names()]
        genesis = make_genesis(
            self.identity, self.table_id, self.name, self.options, infos, self.timeout
        ).wire
        port = await prepare(genesis, 0, {})
        for joiner in self._joiners:
            joiner.started = True
            with contextlib.suppress(LinkClosed):
                await joiner.link.send({"t": "start", "genesis": genesis, "port": port})
        if self._joiners:  # one deadline for all
            await asyncio.wait([j.ready for j in self._joiners], timeout=self.timeout)
        addresses = {0: (self._interface, port)}
        for seat, joiner in enumerate(self._joiners, 1):
            if joiner.ready.done():
                error = joiner.ready.exception()
                if error is None:
                    addresses[seat] = (joiner.host, joiner.ready.result())
                    continue
            else:
                error = TimeoutError(
                    Sentence(N_("no 'ready' within {seconds} s"), seconds=self.timeout)
                )
                await joiner.link.close(Sentence(NOT_READY, seconds=self.timeout))
            not_ready = _("seat {number} ({name}) did not get ready: {error}")
            number = native_digits(str(seat))
            self._say(not_ready.format(number=number, name=joiner.name, error=describe(error)))
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
            await joiner.link.close(Sentence(LOBBY_CLOSED))  # their tasks end by themselves

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link, host = Link(reader, writer), peer_host(writer)
        with self._admission.hold(link, host):  # until seated or watching
            await self._serve(link, host)

    async def _serve(self, link: Link, host: str) -> None:
        if self._started and not self.watchers.enabled:
            await link.close(Sentence(TABLE_STARTED))
            return
        refusal = self._guesses.refusal(host) if self._code is not None else None
        if refusal is not None:
            await link.close(refusal)
            return
        handshake = Handshake(
            self.identity, initiator=False, table_id=self.table_id, join_code=self._code
        )
        with self._guesses.attempt(host):
            try:
                result = await link.handshake(handshake, hello_timeout=self._hello_timeout)
            except LinkClosed as closed:
                if isinstance(closed.error, WrongJoinCode):
                    for line in self._guesses.failed(host):
                        self._say(line)
                return
        try:
            message = await receive(link, SIT_TIMEOUT, Sentence(N_("the joiner")))
            if message["t"] == "watch":  # a spectator (net/watch.py)
                self._admission.release(link)  # at most MAX_WATCHERS are served
                await self.watchers.serve(link, result.peer_key, message)
                return
            player = self._check_sit(message, result.peer_key)
        except (LinkClosed, LobbyError) as exc:
            await link.close(Sentence(NO_SEAT, reason=_reason(exc)))
            return
        self._admission.release(link)  # seated: at most one per seat
        joiner = _Joiner(player, result.peer_key, link, host)
        self._joiners.append(joiner)
        seat = len(self._joiners)
        sits = _("{name} ({key}) sits in seat {number}")
        number = native_digits(str(seat))
        self._say(sits.format(name=player, key=fingerprint(joiner.key), number=number))
        if self._on_event is not None:
            self._on_event(SeatTaken(seat, player, joiner.key))
        await self._roster_changed()
        await self._listen(joiner)

    def _check_sit(self, message: dict[str, Any], key: bytes) -> str:
        if message["t"] != "sit" or not isinstance(message.get("name"), str):
            raise LobbyError(Sentence(NOT_SIT, kind=repr(message["t"])))
        try:
            player = check_player(message["name"])
        except LocalProtocolError as exc:
            raise LobbyError(exc.args[0]) from None
        if self._started or len(self._joiners) + 1 >= self.seats:
            raise LobbyError(Sentence(TABLE_FULL))
        if key == self.identity.public or any(j.key == key for j in self._joiners):
            raise LobbyError(Sentence(KEY_SEATED))
        return player

    async def _listen(self, joiner: _Joiner) -> None:
        """Read the joiner's lobby messages until its link closes (before the start: it left)."""
        link = joiner.link
        try:
            async with link.pinging(self._ping_interval):
                while True:
                    message = await receive(link, self._idle_timeout, joiner.name)
                    port = message.get("port")
                    if (
                        message["t"] == "ready"
                        and joiner.started
                        and type(port) is int
                        and 0 < port <= 0xFFFF
                        and not joiner.ready.done()
                    ):
                        joiner.ready.set_result(port)
                        continue
                    early = message["t"] == "ready" and not joiner.started
                    kind = repr(message["t"])
                    await link.close(Sentence(EARLY_READY if early else UNEXPECTED, kind=kind))
        except (LinkClosed, LobbyError) as gone:
            if not joiner.ready.done():
                joiner.ready.set_exception(gone)
                joiner.ready.exception()  # retrieved: nobody may await it after the start
            if not self._started:
                self._joiners.remove(joiner)
                left = _("{name} left the table ({reason})")
                reason = said(link.closed.reason if link.closed else _reason(gone))
                self._say(left.format(name=joiner.name, reason=reason))
                await self._roster_changed()

    async def _roster_changed(self) -> None:
        async with self._roster_lock:
            names = self._names()
            if len(names) == self.seats:
                self._full.set()
            else:
                self._full.clear()
            if self._on_event is not None:
                self._on_event(self._roster())
            message = {
                "t": "seats",
                "seats": [[name, key] for name, key in names],
                "of": self.seats,
                "rules": self.options.describe(),
                "timeout": self.timeout,
                "watching": len(self.watchers),
            }
            self.watchers.roster(message)
            for joiner in list(self._joiners):
                with contextlib.suppress(LinkClosed):
                    await joiner.link.send(message)
        if self._discovery is not None and self._info is not None:
            self._info = replace(self._info, taken=len(names))
            with contextlib.suppress(Exception):
                await self._discovery.update(self._info, [self._interface])
