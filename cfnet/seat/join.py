"""`cfnet join` and `cfnet bot` (and the browser's "join"): take a seat at a table (one found
in the browser, at an address, or by name on the LAN) and play it."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from pathlib import Path

from cfnet.disk.store import list_tables, load_identity, prepare_home
from cfnet.errors import LocalProtocolError, describe
from cfnet.lang import _, decimal, digits, ngettext
from cfnet.lang.formatting import quantity
from cfnet.net.discovery import Discovery, TableInfo, fingerprint_text, namesakes
from cfnet.net.joining import join_table, retry_delays
from cfnet.net.lobby import PERSON_MIN_TIMEOUT, Seating
from cfnet.net.roster import LobbyError, NotTheTable, Say, Unreachable
from cfnet.record.identity import Identity
from cfnet.seat.config import JoinConfig
from cfnet.seat.process import seat_logging
from cfnet.seat.seating import ANY, Entropy, Front, MakeFront, Seat, player_name, run_game, urandom


async def set_up_and_join(
    config: JoinConfig, make_front: MakeFront, entropy: Entropy | None, discovery: Discovery | None
) -> int:
    """Make the state directory and identity, then join as `join` does (`discovery`: mDNS,
    listening already, when the table is looked for by name)."""
    home = prepare_home(config.peer.home)
    identity = load_identity(home)
    with seat_logging(config.peer, home):
        front = make_front(config.peer)
        chosen = urandom if entropy is None else entropy
        return await join(config, home, identity, front, entropy=chosen, discovery=discovery)


async def join(
    config: JoinConfig,
    home: Path,
    identity: Identity,
    front: Front,
    found: TableInfo | None = None,
    entropy: Entropy = urandom,
    discovery: Discovery | None = None,
) -> int:
    """Take a seat (the table `found` in a browser, at --connect, or by name: looked for with
    `discovery`, which is closed once the seat is taken), play it."""
    peer = config.peer
    seat = Seat(peer, home, identity, peer.interface or ANY, front, entropy)
    player = player_name(peer, identity)

    def sit(host: str, port: int, advertised: TableInfo | None) -> Awaitable[Seating]:
        return join_table(
            identity,
            player,
            host,
            port,
            seat.prepare,
            code=config.code,
            advertised=advertised,
            say=front.say,
            on_event=front.lobby,
            min_timeout=_least_timeout(config),
        )

    try:
        if found is not None:
            sitting = _dial(config.wait, lambda: sit(found.address, found.port, found), front.say)
        elif config.connect is not None:
            host, port = config.connect
            sitting = _dial(config.wait, lambda: sit(host, port, None), front.say)
        else:
            assert config.table is not None and discovery is not None
            sitting = _join_by_name(config, config.table, home, sit, front.say, discovery)
        seating = await front.seat(sitting, None, identity.public)
    except BaseException:
        await seat.abandon()
        raise
    return await run_game(seat.seated(seating), front)


Sit = Callable[[str, int, TableInfo | None], Awaitable[Seating]]
"""Join the table at (host, port), as advertised (or not): `join_table` with our seat."""


async def _dial(wait: float, sit: Callable[[], Awaitable[Seating]], say: Say) -> Seating:
    """`sit()`, and again after each Unreachable (saying so) with growing waits
    (`retry_delays`), until `wait` s have passed; then LobbyError saying how often we tried."""
    until = time.monotonic() + wait
    delays = retry_delays()
    tries = 0
    while True:
        tries += 1
        try:
            return await sit()
        except Unreachable as exc:
            left = until - time.monotonic()
            if left <= 0:
                raise LobbyError(
                    ngettext(
                        "{error}; dialled {count} time in {seconds} s (--wait SECONDS dials"
                        " longer)",
                        "{error}; dialled {count} times in {seconds} s (--wait SECONDS dials"
                        " longer)",
                        tries,
                    ).format(error=describe(exc), count=digits(tries), seconds=quantity(wait))
                ) from None
            delay = min(next(delays), left)
            again = _("{error}; dialling again in {seconds} s")
            say(again.format(error=describe(exc), seconds=decimal(delay, 1)))
            await asyncio.sleep(delay)


def _least_timeout(config: JoinConfig) -> int:
    """The shortest table timeout this seat accepts: a person needs PERSON_MIN_TIMEOUT."""
    return PERSON_MIN_TIMEOUT if config.peer.strategy is None else 0


def _chosen(config: JoinConfig, name: str) -> Callable[[TableInfo], bool]:
    """Whether a listed table is the one `cfnet join NAME [--host A:P] [--fingerprint K]` names."""
    key = (config.fingerprint or "").replace("-", "").lower()

    def chosen(table: TableInfo) -> bool:
        return (
            table.name == name
            and (config.host is None or (table.address, table.port) == tuple(config.host))
            and table.fingerprint.replace("-", "").startswith(key)
        )

    return chosen


def _one_key(config: JoinConfig) -> bool:
    """Whether --fingerprint names the host key whole: then no namesake is chosen beside the
    tables of that key, and there is none to look for."""
    try:
        return config.fingerprint is not None and bool(fingerprint_text(config.fingerprint))
    except LocalProtocolError:
        return False  # the start of one, which may be the start of several


Listing = tuple[bytes, str, int]  # a table's id and where it was listed


def _listing(table: TableInfo) -> Listing:
    return table.table_id, table.address, table.port


async def _join_by_name(
    config: JoinConfig, name: str, home: Path, sit: Sit, say: Say, discovery: Discovery
) -> Seating:
    """Find the table by mDNS (`discovery`, listening since the start; closed at the end) and
    join it, for --wait s. Tables of that name with different host keys are not guessed
    between: LobbyError lists them (choose with --host or --fingerprint). A listing that does
    not answer as the table (a fake) is given up; one that cannot be reached now is dialled
    again with growing waits (`retry_delays`), listings not tried yet first."""
    until = time.monotonic() + config.wait
    given_up: set[Listing] = set()  # what answers there is not the table
    again: dict[Listing, tuple[float, Iterator[float]]] = {}  # when to dial again, the waits
    why: dict[Listing, str] = {}  # why each listing tried could not be joined
    chosen = _chosen(config, name)

    def candidate(table: TableInfo) -> bool:
        return (
            chosen(table)
            and table.free > 0
            and table.refusal is None
            and _listing(table) not in given_up
        )

    def next_dial(table: TableInfo) -> float:
        return again[_listing(table)][0] if _listing(table) in again else -math.inf

    def due(table: TableInfo) -> bool:
        return candidate(table) and next_dial(table) <= time.monotonic()

    browser = discovery.browse()
    try:
        say(_("looking for table {name!r} on the LAN...").format(name=name))
        settled = _one_key(config)  # else namesakes are looked for once one is seen
        while (now := time.monotonic()) < until:
            wake = min([until] + [at for at, _ in again.values() if at > now])
            try:
                await browser.wait_for(due, wake - now)
            except TimeoutError:
                continue  # a listing is due again, or the time is up
            if not settled:  # namesakes may still be answering: give them a moment
                look = min(browser.namesake_wait(), max(0.0, until - time.monotonic()))
                await asyncio.sleep(look)
                settled = True
            candidates = [t for t in browser.tables.values() if candidate(t)]
            if len({t.fingerprint for t in candidates}) > 1:
                raise LobbyError(
                    namesakes(name, candidates, _("--host ADDR:PORT or --fingerprint KEY"))
                )
            ready = sorted(filter(due, candidates), key=lambda t: (next_dial(t), t.where))
            if not ready:  # withdrawn meanwhile
                continue
            info = ready[0]
            listing = _listing(info)
            if listing not in again:
                found = _("found table {name!r} at {where}, timeout {timeout}")
                say(found.format(name=name, where=info.where, timeout=info.timeout_text))
            try:
                return await sit(info.address, info.port, info)
            except NotTheTable as exc:
                given_up.add(listing)
                why[listing] = describe(exc)
                say(_("{error}; looking further").format(error=describe(exc)))
            except Unreachable as exc:
                delays = again[listing][1] if listing in again else retry_delays()
                delay = next(delays)
                again[listing] = (time.monotonic() + delay, delays)
                why[listing] = describe(exc)
                dial_again = _("{error}; dialling it again in {seconds} s")
                say(dial_again.format(error=describe(exc), seconds=decimal(delay, 1)))
    finally:
        await discovery.close()  # seated, or looked long enough: done with mDNS
    raise LobbyError(_not_found(config, name, home, browser.tables.values(), why))


def _not_found(
    config: JoinConfig,
    name: str,
    home: Path,
    seen: Iterable[TableInfo],
    tried: Mapping[Listing, str],
) -> str:
    """Why no table `name` could be joined within --wait s, and what to do instead."""
    seen = sorted(seen, key=lambda t: (t.name.casefold(), t.address, t.port))
    chosen = _chosen(config, name)
    named = [t for t in seen if chosen(t)]
    seconds = quantity(config.wait)
    if any(m.name == name for m in list_tables(home)):
        return _(
            "table {name!r} is not open on the LAN, but it is an unfinished game of yours:"
            " `cfnet resume --table {table}` takes you back to it"
        ).format(name=name, table=name)
    if tried:
        return _(
            "no table {name!r} could be joined within {seconds} s (--wait SECONDS looks longer):"
            " {reasons}"
        ).format(name=name, seconds=seconds, reasons="; ".join(tried.values()))
    if named:
        table = named[0]
        if table.refusal is not None:
            return table.refusal
        full = _("table {name!r} is full ({taken}/{seats} seats taken): host one")
        return full.format(name=name, taken=digits(table.taken), seats=digits(table.seats))
    others = ", ".join(f"{t.name!r} ({t.address}:{t.port})" for t in seen)
    if any(t.name == name for t in seen):
        missing = _(
            "no table {name!r} at that --host or --fingerprint is seen on the LAN within"
            " {seconds} s (--wait SECONDS looks longer); {listed}"
        )
    else:
        missing = _(
            "no table {name!r} is seen on the LAN within {seconds} s (--wait SECONDS looks"
            " longer); {listed}"
        )
    listed = (
        _("tables seen: {tables}").format(tables=others) if others else _("no table is seen at all")
    )
    return missing.format(name=name, seconds=seconds, listed=listed)
