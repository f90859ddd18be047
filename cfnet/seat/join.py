"""`cfnet join` and `cfnet bot` (and the browser's "join"): take a seat at a table (one found
in the browser, at an address, or by name on the LAN) and play it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from cfnet.disk.store import list_tables, load_identity, prepare_home
from cfnet.errors import LocalProtocolError, PeerProtocolError, UsageError
from cfnet.net.discovery import Discovery, TableInfo, namesakes
from cfnet.net.joining import join_table
from cfnet.net.lobby import PERSON_MIN_TIMEOUT, Seating
from cfnet.net.roster import LobbyError, Unreachable
from cfnet.record.identity import Identity
from cfnet.seat.config import JoinConfig
from cfnet.seat.process import failed, interrupted, run_loop, seat_logging, setup
from cfnet.seat.seating import ANY, Entropy, Front, MakeFront, Seat, player_name, run_game, urandom

SAME_NAME_SETTLE = 1.0  # once a table of the name is seen, how long to look for namesakes


def run_join(
    config: JoinConfig, make_front: MakeFront, command: str, entropy: Entropy = urandom
) -> int:
    """`cfnet join` or `cfnet bot` (`command`) in one loop; the exit code."""
    if config.table is None and config.connect is None:
        return failed(command, UsageError("name a table, or give --connect HOST:PORT"))
    try:
        setup(config.peer)
        home = prepare_home(config.peer.home)
        identity = load_identity(home)
        with seat_logging(config.peer, home):
            front = make_front(config.peer)
            return run_loop(join(config, home, identity, front, entropy=entropy))
    except (LocalProtocolError, PeerProtocolError, OSError, TimeoutError) as exc:
        return failed(command, exc)
    except KeyboardInterrupt as stop:
        return interrupted(command, stop)


async def join(
    config: JoinConfig,
    home: Path,
    identity: Identity,
    front: Front,
    found: TableInfo | None = None,
    entropy: Entropy = urandom,
) -> int:
    """Take a seat (the table `found` in a browser, at --connect, or by name), play it."""
    peer = config.peer
    seat = Seat(peer, home, identity, peer.interface or ANY, front, entropy)
    player = player_name(peer, identity)
    try:
        if found is not None or config.connect is not None:
            address, port = (found.address, found.port) if found else config.connect or ("", 0)
            sitting = join_table(
                identity,
                player,
                address,
                port,
                seat.prepare,
                code=config.code,
                advertised=found,
                say=front.say,
                on_event=front.lobby,
                min_timeout=_least_timeout(config),
            )
        else:
            assert config.table is not None
            sitting = _join_by_name(config, config.table, home, identity, player, seat, front)
        seating = await front.seat(sitting, None, identity.public)
    except BaseException:
        await seat.abandon()
        raise
    return await run_game(seat.seated(seating), front)


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


async def _join_by_name(
    config: JoinConfig,
    name: str,
    home: Path,
    identity: Identity,
    player: str,
    seat: Seat,
    front: Front,
) -> Seating:
    """Find the table by mDNS (for --wait s) and join it. Tables of that name with different
    host keys are not guessed between: LobbyError lists them (choose with --host or
    --fingerprint). A listing that does not answer as a table (a stale record, a fake) is
    skipped while others are looked for."""
    until = time.monotonic() + config.wait
    tried: dict[tuple[bytes, str, int], str] = {}  # listing -> why it failed
    chosen = _chosen(config, name)
    say = front.say

    def joinable(table: TableInfo) -> bool:
        listing = (table.table_id, table.address, table.port)
        return chosen(table) and table.free > 0 and table.refusal is None and listing not in tried

    async with Discovery(config.peer.interface) as discovery:
        browser = discovery.browse()
        say(f"looking for table {name!r} on the LAN...")
        while True:
            try:
                await browser.wait_for(joinable, max(0.0, until - time.monotonic()))
            except TimeoutError:
                seen = browser.tables.values()
                raise LobbyError(_not_found(config, name, home, seen, tried)) from None
            if len(tried) == 0:  # namesakes may still be resolving: give them a moment
                await asyncio.sleep(min(SAME_NAME_SETTLE, max(0.0, until - time.monotonic())))
            candidates = sorted(
                (t for t in browser.tables.values() if joinable(t)),
                key=lambda t: (t.address, t.port),
            )
            if len({t.fingerprint for t in candidates}) > 1:
                raise LobbyError(
                    namesakes(name, candidates, "--host ADDR:PORT or --fingerprint KEY")
                )
            if not candidates:  # withdrawn meanwhile
                continue
            info = candidates[0]
            say(f"found table {name!r} at {info.where}, timeout {info.timeout_text}")
            try:
                return await join_table(
                    identity,
                    player,
                    info.address,
                    info.port,
                    seat.prepare,
                    code=config.code,
                    advertised=info,
                    say=say,
                    on_event=front.lobby,
                    min_timeout=_least_timeout(config),
                )
            except Unreachable as exc:
                tried[(info.table_id, info.address, info.port)] = str(exc)
                say(f"{exc}; looking further")


def _not_found(
    config: JoinConfig,
    name: str,
    home: Path,
    seen: Iterable[TableInfo],
    tried: Mapping[tuple[bytes, str, int], str],
) -> str:
    """Why no table `name` could be joined within --wait s, and what to do instead."""
    seen = sorted(seen, key=lambda t: (t.name.casefold(), t.address, t.port))
    chosen = _chosen(config, name)
    named = [t for t in seen if chosen(t)]
    looked = f"within {config.wait:g} s (--wait SECONDS looks longer)"
    if any(m.name == name for m in list_tables(home)):
        return (
            f"table {name!r} is not open on the LAN, but it is an unfinished game of yours: "
            f"`cfnet resume --table {name}` takes you back to it"
        )
    if tried:
        return f"no table {name!r} could be joined {looked}: " + "; ".join(tried.values())
    if named:
        table = named[0]
        if table.refusal is not None:
            return table.refusal
        return f"table {name!r} is full ({table.taken}/{table.seats} seats taken): host one"
    others = ", ".join(f"{t.name!r} ({t.address}:{t.port})" for t in seen)
    which = " at that --host or --fingerprint" if any(t.name == name for t in seen) else ""
    listed = f"tables seen: {others}" if others else "no table is seen at all"
    return f"no table {name!r}{which} is seen on the LAN {looked}; {listed}"
