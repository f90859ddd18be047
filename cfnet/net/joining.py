"""The joiner's side of the lobby (`net/lobby.py` is the host's): dial the table, authenticate
(with the join code if it has one), ask for a seat, follow the roster, check the genesis the host
signs (and where the host's mesh listens, which `start` says too), open the mesh listener,
answer `ready` and take every seat's mesh address from `go`. A joiner that could not get a
seat for a reason that may pass (nobody answers yet, the link was cut, the host had no room)
learns so (`Unreachable`) and dials again after `retry_delays`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cfnet.errors import PeerProtocolError
from cfnet.lang import N_, Sentence, _
from cfnet.lang.formatting import native_digits
from cfnet.lang.sentence import clauses
from cfnet.net.discovery import TableInfo
from cfnet.net.handshake import CodeMismatch
from cfnet.net.link import Link, LinkClosed
from cfnet.net.lobby import Addr, OnEvent, Prepare, Seating
from cfnet.net.reasons import BAD_TABLE_ENTRY, LEAVING_LOBBY, TABLE_STARTED, heard
from cfnet.net.roster import (
    LOBBY_IDLE,
    LOBBY_PING,
    LobbyError,
    NotTheTable,
    Roster,
    Say,
    Unreachable,
    authenticate,
    connect,
    parse_roster,
    receive,
)
from cfnet.protocol.genesis import parse_genesis
from cfnet.record.identity import Identity

RETRY = (0.5, 8.0)  # a joiner dials again after 0.5 s, twice as long each time, at most 8 s


def retry_delays() -> Iterator[float]:
    """The waits before each new dial of a table that could not be joined: RETRY[0] s,
    doubling, at most RETRY[1] s."""
    delay = RETRY[0]
    while True:
        yield delay
        delay = min(2 * delay, RETRY[1])


def check_timeout(timeout: int, least: int) -> None:
    """LobbyError unless a table's `timeout` is at least `least` seconds."""
    if timeout < least:
        raise LobbyError(
            Sentence(
                N_(
                    "the table gives each seat only {timeout} s to answer: a person's seat needs"
                    " at least {least} s (ask its host for --timeout {least} or more, or seat a"
                    " computer player with --strategy)"
                ),
                timeout=str(timeout),
                least=str(least),
            )
        )


async def join_table(
    identity: Identity,
    player: str,
    host: str,
    port: int,
    prepare: Prepare,
    *,
    code: str | None = None,
    advertised: TableInfo | None = None,
    say: Say = print,
    on_event: OnEvent | None = None,
    ping_interval: float = LOBBY_PING,
    idle_timeout: float = LOBBY_IDLE,
    min_timeout: int = 0,
) -> Seating:
    """Take a seat at the table hosted at `host:port`; returns once the mesh addresses are known.

    `advertised`: what mDNS said of the table (its id, host key, rules and seats are then
    checked). `prepare` runs when the genesis arrives (it must open the mesh listener).
    `min_timeout`: refuse a table whose timeout is shorter (PERSON_MIN_TIMEOUT for a person's
    seat). Unreachable if we had no seat yet and dialling again may work (nobody answers, the
    link was cut, the host had no room then); NotTheTable if what answers is not the table;
    LobbyError if the table refuses us for good or the seating breaks down."""
    where = f"{host}:{port}"
    if advertised is not None:
        refusal = advertised.refusal or _code_refusal(advertised.code, code, where)
        if refusal is not None:
            raise LobbyError(refusal)
        if advertised.timeout is not None:
            check_timeout(advertised.timeout, min_timeout)
    link, local_host = await connect(host, port)
    seat = _Sitting(identity, player, link, advertised, say, on_event, idle_timeout, min_timeout)
    try:
        try:
            result = await authenticate(link, identity, code, advertised)
        except LinkClosed as exc:
            if isinstance(exc.error, CodeMismatch):
                raise LobbyError(_code_refusal(code is None, code, where) or exc.reason) from None
            raise _not_seated(exc, where) from None
        seat.table_id, seat.host_key = result.table_id, result.peer_key
        async with link.pinging(ping_interval):
            genesis, mine, addresses = await seat.run(prepare, host)
        return Seating(genesis, mine, addresses, local_host)
    except LinkClosed as exc:
        if seat.roster is None:  # no seat was ours yet
            raise _not_seated(exc, where) from None
        raise LobbyError(
            Sentence(N_("the table closed our link: {reason}"), reason=exc.reason)
        ) from None
    except PeerProtocolError as exc:
        await link.close(Sentence(BAD_TABLE_ENTRY, reason=exc.reason))
        raise LobbyError(
            Sentence(N_("the host sent a bad table: {reason}"), reason=exc.reason)
        ) from None
    except LobbyError as exc:
        await link.close(exc.args[0] if len(exc.args) == 1 else str(exc))
        raise
    finally:
        await link.close(Sentence(LEAVING_LOBBY))


def _code_refusal(table_has_code: bool, code: str | None, where: str) -> str | None:
    """Why a table (at `where`) that has a join code or not cannot be joined with `code`."""
    if table_has_code and code is None:
        return Sentence(
            N_("the table at {where} needs a join code: give it with --code CODE"), where=where
        )
    if not table_has_code and code is not None:
        return Sentence(N_("the table at {where} has no join code: leave out --code"), where=where)
    return None


def _not_seated(closed: LinkClosed, where: str) -> LobbyError:
    """What the end of our link to the table at `where`, before we had a seat, means:
    Unreachable if dialling again may work, NotTheTable if what answered is no table, else
    the table's refusal."""
    said = closed.said
    if said is None and closed.error is not None:  # its handshake failed our checks
        return NotTheTable(
            Sentence(N_("no table answers at {where}: {reason}"), where=where, reason=closed.reason)
        )
    if said is None:
        return Unreachable(
            Sentence(
                N_("our link to the table at {where} broke: {reason}"),
                where=where,
                reason=closed.reason,
            )
        )
    if said.startswith(("handshake failed", "no seat taken")) or said == TABLE_STARTED:
        return LobbyError(
            Sentence(
                N_("the table at {where} refused us: {reason}"), where=where, reason=heard(said)
            )
        )
    return Unreachable(
        Sentence(
            N_("the table at {where} closed our link before we had a seat: {reason}"),
            where=where,
            reason=heard(said),
        )
    )


class _Sitting:
    """The joiner's side of one lobby link, after the handshake."""

    def __init__(
        self,
        identity: Identity,
        player: str,
        link: Link,
        advertised: TableInfo | None,
        say: Say,
        on_event: OnEvent | None,
        idle_timeout: float,
        min_timeout: int,
    ) -> None:
        self.identity = identity
        self.player = player
        self.link = link
        self.advertised = advertised
        self.say = say
        self.on_event = on_event
        self.idle_timeout = idle_timeout
        self.min_timeout = min_timeout
        self.table_id = b""
        self.host_key = b""
        self.roster: Roster | None = None

    async def run(self, prepare: Prepare, host: str) -> tuple[bytes, int, dict[int, Addr]]:
        """Sit, follow the roster, check the genesis, say ready; (genesis, seat, addresses)."""
        await self.link.send({"t": "sit", "name": self.player})
        genesis: bytes | None = None
        seat = -1
        while True:
            message = await receive(self.link, self.idle_timeout, Sentence(N_("the host")))
            kind = message["t"]
            if kind == "seats" and genesis is None:
                last, self.roster = self.roster, parse_roster(message)
                if last is None and self.roster.timeout is not None:
                    check_timeout(self.roster.timeout, self.min_timeout)
                    self.say(
                        _("each seat has {seconds} s to answer (the table's timeout)").format(
                            seconds=native_digits(str(self.roster.timeout))
                        )
                    )
                if self.on_event is not None and self.roster != last:
                    self.on_event(self.roster)
            elif kind == "start" and genesis is None and isinstance(message.get("genesis"), bytes):
                known = _host_address(message, host)
                genesis, seat = self.check_genesis(message["genesis"])
                port = await prepare(genesis, seat, known)
                await self.link.send({"t": "ready", "port": port})
            elif kind == "go" and genesis is not None:
                return genesis, seat, _addresses(message, host)
            elif kind != "seats":
                raise LobbyError(Sentence(N_("unexpected lobby message {kind}"), kind=repr(kind)))

    def check_genesis(self, wire: bytes) -> tuple[bytes, int]:
        """The genesis must be valid, the host's, for the table and roster of this lobby (and
        its advertisement), with our seat as the roster showed it; (wire, our seat)."""
        entry, name, options, timeout, seats = parse_genesis(wire)
        roster, advertised = self.roster, self.advertised
        listed = [(info.name, info.key) for info in seats]
        mine = [s for s, info in enumerate(seats) if info.key == self.identity.public]
        wrong: list[str] = []
        if entry.table_id != self.table_id:
            wrong.append(
                Sentence(
                    N_("it is for table {id}, not {ours}"),
                    id=entry.table_id.hex(),
                    ours=self.table_id.hex(),
                )
            )
        if seats[0].key != self.host_key:
            wrong.append(Sentence(N_("it is not the host's")))
        if roster is None or listed != roster.names or len(seats) != roster.seats:
            wrong.append(Sentence(N_("its seats are not those of the roster the lobby showed")))
        if roster is not None and options != roster.rules:
            wrong.append(
                Sentence(N_("its rules {rules} are not the lobby's"), rules=options.describe())
            )
        if advertised is not None and (name, options, len(seats)) != (
            advertised.name,
            advertised.rules,
            advertised.seats,
        ):
            wrong.append(
                Sentence(
                    N_(
                        "it is table {name} with {seats} seats and rules {rules}, the table"
                        " advertised {advertised} with {advertised_seats} seats and rules"
                        " {advertised_rules}"
                    ),
                    name=repr(name),
                    seats=str(len(seats)),
                    rules=options.describe(),
                    advertised=repr(advertised.name),
                    advertised_seats=str(advertised.seats),
                    advertised_rules=advertised.rules.describe(),
                )
            )
        if len(mine) != 1 or seats[mine[0]].name != self.player:
            wrong.append(Sentence(N_("it does not give us the seat we took")))
        announced = {roster.timeout if roster else None, advertised and advertised.timeout} - {None}
        if announced and announced != {timeout}:
            wrong.append(
                Sentence(
                    N_("its timeout {timeout} s is not the one the table announced"),
                    timeout=str(timeout),
                )
            )
        if timeout < self.min_timeout:
            wrong.append(
                Sentence(
                    N_("its timeout {timeout} s is below {least} s"),
                    timeout=str(timeout),
                    least=str(self.min_timeout),
                )
            )
        if wrong:
            raise LobbyError(
                Sentence(N_("refusing the host's table entry: {reasons}"), reasons=clauses(wrong))
            )
        self.say(
            _("table {name!r} starts: you are seat {seat} of {seats} ({rules})").format(
                name=name,
                seat=native_digits(str(mine[0])),
                seats=native_digits(str(len(seats))),
                rules=options.describe(),
            )
        )
        return entry.wire, mine[0]


def _host_address(start: dict[str, Any], host: str) -> dict[int, Addr]:
    """Seat 0's mesh address from `start` (its `port` at the `host` we dialled), if it gives
    one (an older host does not); LobbyError for a port that is not an int 1..65535."""
    if "port" not in start:
        return {}
    port = start["port"]
    if not (type(port) is int and 0 < port <= 0xFFFF):
        raise LobbyError(
            Sentence(
                N_(
                    "malformed 'start' message: its port {port} is not a TCP port (an int 1..65535)"
                ),
                port=repr(port),
            )
        )
    return {0: (host, port)}


def _addresses(message: dict[str, Any], host: str) -> dict[int, Addr]:
    seats, rows = message.get("seats"), message.get("addresses")
    if not (isinstance(seats, list) and isinstance(rows, list) and len(seats) == len(rows)):
        raise LobbyError(Sentence(N_("malformed 'go' message")))
    addresses = {}
    for seat, row in zip(seats, rows, strict=True):
        if not (
            type(seat) is int
            and isinstance(row, list)
            and len(row) == 2
            and isinstance(row[0], str)
            and type(row[1]) is int
        ):
            raise LobbyError(Sentence(N_("malformed 'go' message")))
        addresses[seat] = (row[0] or host, row[1])
    return addresses
