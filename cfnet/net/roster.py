"""What a joiner's and a watcher's lobby link share (protocol.md 6.10, 6.11): dialing the
table's host, its errors, reading the next lobby message, and the roster a `seats` message
carries."""

from __future__ import annotations

import asyncio
import errno
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cfnet.errors import LocalProtocolError
from cfnet.game.rules import RuleOptions
from cfnet.lang import N_, Sentence, _
from cfnet.lang.formatting import native_digits
from cfnet.net.discovery import TableInfo, parse_rules
from cfnet.net.handshake import Handshake, HandshakeResult
from cfnet.net.link import Link
from cfnet.net.reasons import NOTHING_RECEIVED
from cfnet.protocol.wire import check_display_name
from cfnet.record.identity import PUBLIC_KEY_BYTES, Identity, fingerprint

CONNECT_TIMEOUT = 5.0
LOBBY_PING = 5.0  # a ping goes on a lobby link on which nothing was sent for this long
LOBBY_IDLE = 15.0  # a lobby link on which nothing was received for this long is dropped

Say = Callable[[str], None]


class LobbyError(LocalProtocolError):
    """Seating failed: the table refused us, went away, or sent something we cannot use."""


class Unreachable(LobbyError):
    """The table could not be reached now: nobody answers at its address, or our link to it
    was cut or closed before we had a seat for want of room; dialling again may work."""


class NotTheTable(LobbyError):
    """What answers at the table's address is not the table (another key than the one
    advertised, or no handshake of a table): dialling it again is of no use."""


@dataclass(frozen=True, slots=True)
class Roster:
    """What a `seats` message says: (name, key) by seat, the seats, the rules, the timeout
    (None from a host that does not send it), how many watch."""

    names: list[tuple[str, bytes]]
    seats: int
    rules: RuleOptions
    timeout: int | None = None
    watching: int = 0

    def lines(self) -> list[str]:
        """The roster as plain lines, in the language in effect: each seat with its player's
        key, or free; the watchers."""
        names = self.names
        taken, free = _("seat {number}: {name} ({key})"), _("seat {number}: (free)")
        lines = [
            taken.format(number=native_digits(str(i)), name=name, key=fingerprint(key))
            for i, (name, key) in enumerate(names)
        ]
        lines += [free.format(number=native_digits(str(i))) for i in range(len(names), self.seats)]
        if self.watching > 0:
            lines.append(_("watching: {count}").format(count=native_digits(str(self.watching))))
        return [f"  {line}" for line in lines]


def parse_roster(message: dict[str, Any]) -> Roster:
    """What a 'seats' message says; LobbyError if it is malformed."""
    rows, seats, rules = message.get("seats"), message.get("of"), message.get("rules")
    timeout, watching = message.get("timeout"), message.get("watching")
    if not (
        isinstance(rows, list)
        and type(seats) is int
        and isinstance(rules, str)
        and (timeout is None or type(timeout) is int)
    ):
        raise LobbyError(Sentence(N_("malformed 'seats' message")))
    names: list[tuple[str, bytes]] = []
    for row in rows:
        if not (
            isinstance(row, list)
            and len(row) == 2
            and isinstance(row[1], bytes)
            and len(row[1]) == PUBLIC_KEY_BYTES
        ):
            raise LobbyError(Sentence(N_("malformed 'seats' message")))
        try:  # shown as it came: checked as the genesis will be
            names.append((check_display_name(row[0], N_("player name")), row[1]))
        except ValueError as exc:
            raise LobbyError(
                Sentence(N_("malformed 'seats' message: {error}"), error=exc.args[0])
            ) from None
    try:
        parsed = parse_rules(rules)
    except ValueError:
        raise LobbyError(
            Sentence(N_("malformed 'seats' message: rules {rules}"), rules=repr(rules[:100]))
        ) from None
    return Roster(names, seats, parsed, timeout, watching if type(watching) is int else 0)


async def receive(link: Link, idle: float, who: str) -> dict[str, Any]:
    """The next lobby message other than a ping; LobbyError (after closing the link) if
    nothing came from `who` for `idle` s, LinkClosed if the link closed."""
    while True:
        try:
            async with asyncio.timeout(idle):
                message = await link.receive()
        except TimeoutError:
            await link.close(Sentence(NOTHING_RECEIVED, seconds=idle))
            raise LobbyError(
                Sentence(
                    N_("{name} stopped answering (nothing received for {seconds} s)"),
                    name=who,
                    seconds=idle,
                )
            ) from None
        if message["t"] != "ping":
            return message


async def connect(host: str, port: int) -> tuple[Link, str]:
    """A link to the table's host at `host:port` and our address on it; Unreachable if
    nobody answers there (saying why in cfnet's words)."""
    try:
        async with asyncio.timeout(CONNECT_TIMEOUT):
            reader, writer = await asyncio.open_connection(host, port)
    except TimeoutError:
        why = Sentence(N_("no answer within {seconds} s"), seconds=f"{CONNECT_TIMEOUT:g}")
        raise Unreachable(_unreachable(host, port, why)) from None
    except OSError as exc:
        raise Unreachable(_unreachable(host, port, _why(exc))) from None
    return Link(reader, writer), str(writer.get_extra_info("sockname")[0])


def _unreachable(host: str, port: int, why: str) -> Sentence:
    """Why the table at `host:port` cannot be reached."""
    return Sentence(
        N_("cannot reach the table at {host}:{port}: {why}"), host=host, port=str(port), why=why
    )


def _why(error: OSError) -> str:
    """Why a connection could not be made, in a few words (no errno, no library text)."""
    if isinstance(error, socket.gaierror):
        return Sentence(N_("that host name is not known here"))
    if error.errno == errno.ECONNREFUSED:
        return Sentence(N_("nothing listens there (connection refused)"))
    if error.errno is not None and error.errno > 0:
        return os.strerror(error.errno)[:1].lower() + os.strerror(error.errno)[1:]
    return Sentence(N_("the connection failed"))


async def authenticate(
    link: Link, identity: Identity, code: str | None, advertised: TableInfo | None
) -> HandshakeResult:
    """Run the handshake with the table's host (with the join `code`); `advertised`: what
    mDNS said of the table (its id and host key are checked: NotTheTable if the key is
    another). LinkClosed if the handshake fails (`said`: the host refused us, saying why)."""
    handshake = Handshake(
        identity,
        initiator=True,
        table_id=None if advertised is None else advertised.table_id,
        join_code=code,
    )
    result = await link.handshake(handshake)
    if advertised is not None and fingerprint(result.peer_key) != advertised.fingerprint:
        raise NotTheTable(
            Sentence(
                N_("the host's key is {key}, the table advertised {advertised}"),
                key=fingerprint(result.peer_key),
                advertised=advertised.fingerprint,
            )
        )
    return result
