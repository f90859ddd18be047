"""`cfnet host` (and the browser's "host"): open a table on the LAN, seat the players who join
(computer players it starts among them), play it. `Hosting` is the table's lobby side, which
`cfnet demo` uses too."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from cfnet.disk.store import load_identity, prepare_home
from cfnet.errors import LocalProtocolError, UsageError, describe
from cfnet.game.rules import RuleOptionError, RuleOptions, rule_options
from cfnet.lang import _
from cfnet.net.discovery import Discovery, check_name
from cfnet.net.lobby import PERSON_MIN_TIMEOUT, HostLobby, LobbyEvent, SeatTaken
from cfnet.protocol.wire import MAX_TIMEOUT
from cfnet.record.identity import Identity
from cfnet.seat.children import BotConfig, Children
from cfnet.seat.config import HostConfig
from cfnet.seat.net_game import NetGame, same_end_exits
from cfnet.seat.process import drain, failed, interrupted, run_loop, seat_logging, setup
from cfnet.seat.seating import (
    Entropy,
    Front,
    MakeFront,
    Seat,
    default_address,
    player_name,
    run_game,
    urandom,
)

BOT_EXIT_WAIT = 30.0  # after a finished game, how long computer players may take to finish
BOTS_DIR = "bots"  # HOME/bots/NAME: the state directory of each computer player a host starts
BOT_FINISH_WAIT = 600.0  # after the person left, how long they may take to play the game out


def run_host(config: HostConfig, make_front: MakeFront) -> int:
    """`cfnet host`: check the options, then host and play in one loop; the exit code."""
    try:
        config, options = check_host(config)  # first: they are wrong on any terminal
        setup(config.peer)
        home = prepare_home(config.peer.home)
        identity = load_identity(home)
        with seat_logging(config.peer, home):
            return run_loop(host(config, options, home, identity, make_front(config.peer)))
    except (LocalProtocolError, RuleOptionError, OSError) as exc:
        return failed("host", exc)
    except KeyboardInterrupt as stop:
        return interrupted("host", stop)


def check_host(config: HostConfig) -> tuple[HostConfig, RuleOptions]:
    """`config` with the table's name checked, and the table's rules (UsageError saying what
    is wrong)."""
    try:
        name = check_name(config.name)
        options = rule_options(list(config.rules), config.seats)
    except (LocalProtocolError, RuleOptionError) as exc:
        raise UsageError(describe(exc)) from None
    if not 0 <= config.bots < config.seats:
        raise UsageError(
            _("--bots {bots}: at most {most} at {seats} seats").format(
                bots=config.bots, most=config.seats - 1, seats=config.seats
            )
        )
    if not 1 <= config.timeout <= MAX_TIMEOUT:
        raise UsageError(
            _("--timeout {timeout}: give 1 to {most} seconds").format(
                timeout=config.timeout, most=MAX_TIMEOUT
            )
        )
    if config.peer.strategy is None and config.timeout < PERSON_MIN_TIMEOUT:
        raise UsageError(
            _(
                "--timeout {timeout}: a person plays seat 0 and needs at least {least} s to"
                " answer (give --timeout {least} or more; shorter only at a table of computer"
                " players, with --strategy)"
            ).format(timeout=config.timeout, least=PERSON_MIN_TIMEOUT)
        )
    return replace(config, name=name), options


class Hosting:
    """One hosted table's lobby side: `await open()` (listen, advertise), `start_bot` computer
    players, `await seat_all()` (the game, once every seat is taken), `await leave()` in any
    case (the lobby closes, the table is withdrawn from mDNS). `on_seat` is told each seat
    taken (`SeatTaken`); `bot_keys` are the keys of the computer players started here."""

    def __init__(
        self,
        config: HostConfig,
        options: RuleOptions,
        home: Path,
        identity: Identity,
        front: Front,
        address: str,
        *,
        entropy: Entropy = urandom,
        table_id: bytes | None = None,
    ) -> None:
        self.config = config
        self.home = home
        self.address = address
        self.front = front
        self.seat = Seat(config.peer, home, identity, address, front, entropy)
        self.bots = Children()
        self.bot_keys: list[bytes] = []
        self.on_seat: Callable[[SeatTaken], None] = lambda _: None
        self.discovery = Discovery(address)  # announced only where the lobby listens (6.2)
        self.lobby = HostLobby(
            identity,
            self.discovery,
            name=config.name,
            player=player_name(config.peer, identity),
            seats=config.seats,
            options=options,
            timeout=config.timeout,
            code=config.code,
            interface=address,
            port=config.port,
            say=front.say,
            on_event=self._event,
            watchers=config.watchers,
        )
        if table_id is not None:
            self.lobby.table_id = table_id
        self.port = 0

    def _event(self, event: LobbyEvent) -> None:
        self.front.lobby(event)
        if isinstance(event, SeatTaken):
            self.on_seat(event)

    async def open(self) -> int:
        """Listen and advertise the table; the lobby's TCP port."""
        await self.discovery.__aenter__()
        self.port = await self.lobby.open()
        return self.port

    def start_bot(self, bot: BotConfig | None = None) -> bytes:
        """Start a computer player (default: the next `botN` of --bot-strategy, joining at the
        lobby's address); its identity key."""
        config = self.config
        if bot is None:
            number = len(self.bots.children) + 1
            bot = BotConfig(
                f"bot{number}",
                self.home / BOTS_DIR / f"bot{number}",
                config.bot_strategy,
                config.peer.think,
                config.peer.rollouts,
                connect=(self.address, self.port),
                interface=config.peer.interface,
                code=config.code,
            )
        _, key = self.bots.start_bot(bot)
        self.bot_keys.append(key)
        return key

    async def seat_all(self) -> NetGame:
        """Wait until every seat is taken (in the front's lobby); the game, seated."""
        seating = self.front.seat(
            self.lobby.seat_all(self.seat.prepare),
            self.start_bot,
            self.lobby.identity.public,
            self.bot_keys,
        )
        return self.seat.seated(await seating)

    async def leave(self) -> None:
        """Close the lobby and withdraw the table from mDNS."""
        await self.lobby.close()
        await self.discovery.close()


async def host(
    config: HostConfig, options: RuleOptions, home: Path, identity: Identity, front: Front
) -> int:
    """Open the table, seat everyone (in the lobby screen for a person), play it. The computer
    players it starts end with it: after a finished game they finish too (waited for, up to
    BOT_EXIT_WAIT); when the host's seat left a game that goes on, they play it out (up to
    BOT_FINISH_WAIT) if another peer's player is still seated; on any other way out (quit,
    leave, an error, a signal, a game left only to them) they are stopped at once."""
    hosting = Hosting(
        config, options, home, identity, front, config.peer.interface or default_address()
    )
    finished = over = left = False
    try:
        try:
            await hosting.open()
            for _bot in range(config.bots):
                hosting.start_bot()
            game = await hosting.seat_all()
            game.own_bots = frozenset(hosting.bot_keys)
        except BaseException:
            await hosting.leave()
            await drain()  # the lobby links' tasks end once their links are closed
            raise
        lobby = hosting.lobby
        if lobby.watchers.enabled:  # the lobby stays open for watchers until the end
            game.watchers = lobby.watchers
            lobby.watchers.feed(game.store)
            withdrawing = asyncio.create_task(_withdraw_once_played(game, hosting.discovery))
            try:
                code = await run_game(game, front)
            finally:
                game.play_over.set()  # (already, unless the game failed to run)
                await withdrawing
            await hosting.leave()
        else:
            leaving = asyncio.create_task(hosting.leave())  # while it starts
            code = await run_game(game, front)
            await leaving
        finished, over = game.table.finished, game.table.over
        left = game.table.departed and game.others_play_on()
    finally:
        problem = await end_bots(hosting.bots, finished=finished, over=over, left=left)
    if problem is not None:
        print(f"cfnet host: {problem}", file=sys.stderr, flush=True)
        return code or 1
    return code


async def _withdraw_once_played(game: NetGame, discovery: Discovery) -> None:
    """Withdraw the table from mDNS (its goodbyes take a quarter of a second) as soon as play
    is over (the last move is in): the last round's audit, the end and the seat's lingering for
    the others' final chains go on meanwhile, with nothing more to watch."""
    await game.play_over.wait()
    await discovery.close()


async def end_bots(bots: Children, *, finished: bool, over: bool, left: bool) -> str | None:
    """End the computer players a seat started, as its game ended for it: `finished` (they
    finish too: waited for, up to BOT_EXIT_WAIT), `left` a game that goes on for another peer's
    player (they play it out, up to BOT_FINISH_WAIT), or any other way (stopped at once); what
    went wrong with one of them, if anything."""
    if left and bots.children:  # someone else's game goes on: they play their seats out
        print(_("the computer players finish the game without you..."), flush=True)
    wait = BOT_FINISH_WAIT if left else BOT_EXIT_WAIT
    fine = same_end_exits(over)
    problem = await asyncio.to_thread(bots.wait, wait, fine) if finished or left else None
    bots.stop()
    return problem
