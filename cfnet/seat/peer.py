"""What `cfnet host`, `join`, `bot` and `resume` share: options, seating a peer, playing it.

Each runs one asyncio loop: the lobby (host or joiner side, with mDNS where a table is found by
name), then the `NetGame` driver over the mesh until the game is over; the exit code is the
driver's (0: a complete game whose saved log verifies). The environment variable
CFNET_TEST_CHAOS (net/chaos_sim.py) is for tests only: it has the peer cut its links at random.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import logging
import os
import signal
import socket
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfnet.cli.options import (
    add_rule_argument,
    add_think_arguments,
    host_port,
    ipv4,
    port_number,
    seconds_type,
)
from cfnet.disk.store import (
    LOG_FILE,
    StoreError,
    TableMeta,
    TableStore,
    add_home_argument,
    keep_spare_descriptors,
    list_tables,
    load_identity,
    prepare_home,
    table_dir,
)
from cfnet.errors import LocalProtocolError, PeerProtocolError, UsageError, describe, exit_status
from cfnet.game.bots import BOT_STRATEGIES, Player, make_bot
from cfnet.game.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    RuleOptionError,
    RuleOptions,
    rule_options,
)
from cfnet.net.discovery import Discovery, TableInfo, check_name
from cfnet.net.faults import chaos_from_env
from cfnet.net.lobby import (
    PERSON_MIN_TIMEOUT,
    HostLobby,
    LobbyError,
    OnRoster,
    Seating,
    Unreachable,
    check_player,
    join_table,
)
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.table import Table
from cfnet.protocol.wire import DEFAULT_TIMEOUT, MAX_TIMEOUT
from cfnet.record.identity import Identity
from cfnet.seat.children import Children
from cfnet.seat.net_game import NetGame

if TYPE_CHECKING:
    from cfnet.ui.lan_screens import SeatScreens

log = logging.getLogger("cfnet.net")

ANY = "0.0.0.0"
MDNS_GROUP = ("224.0.0.251", 5353)
BOT_EXIT_WAIT = 30.0  # after a finished game, how long computer players may take to finish
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)  # end a peer as Ctrl-C does
JOIN_LOOK = 5.0  # how long `cfnet join NAME` looks for the table on the LAN without --wait
BOT_LOOK = 30.0  # ... and `cfnet bot --table NAME`
SAME_NAME_SETTLE = 1.0  # once a table of the name is seen, how long to look for namesakes
CLIENT_LOG = "client.log"


def say(text: str) -> None:
    print(text, flush=True)


# ---------------------------------------------------------------------- options


def add_peer_arguments(parser: argparse.ArgumentParser, strategy_default: str | None) -> None:
    """Options every seated peer has: --home, --interface, --strategy, --player, --verbose."""
    add_home_argument(parser)
    parser.add_argument(
        "--interface",
        type=ipv4,
        default=None,
        metavar="ADDR",
        help="IPv4 address of the interface to use for mDNS and TCP (default: the LAN one)",
    )
    parser.add_argument(
        "--strategy",
        choices=BOT_STRATEGIES,
        default=strategy_default,
        help="a computer plays this seat with this strategy (plain line output)"
        + ("" if strategy_default else "; default: you play it in the game screen"),
    )
    add_think_arguments(parser, "(with --strategy expert; host: its --bots too)")
    parser.add_argument("--player", default=None, metavar="NAME", help="your name at the table")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="log every link event (to stderr; for a person's seat to HOME/client.log)",
    )


def add_code_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--code", default=None, metavar="CODE", help="the table's join code (never sent)"
    )


def setup(args: argparse.Namespace) -> None:
    """A person's seat needs a terminal; the test-only CFNET_TEST_CHAOS must be well formed.
    File descriptors are set aside for the state directory (network floods cannot take them)."""
    chaos_from_env()
    keep_spare_descriptors()
    if args.strategy is None and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "a person's seat needs a terminal for the game screen; "
            f"give --strategy {'|'.join(BOT_STRATEGIES)} for a computer seat"
        )


def seat_logging(args: argparse.Namespace, home: Path) -> contextlib.AbstractContextManager[None]:
    """Where the seat logs (link events too with --verbose): stderr for a computer seat;
    HOME/client.log for a person's, whose terminal the screens own."""
    if args.strategy is None:
        return log_file(home, args.verbose)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="cfnet: %(message)s",
        stream=sys.stderr,
    )
    return contextlib.nullcontext()


@contextlib.contextmanager
def log_file(home: Path, verbose: bool = False) -> Iterator[None]:
    """Log to HOME/client.log while a full screen owns the terminal (stderr would overwrite
    it); at the end, say where on stderr if anything was logged."""
    path = home / CLIENT_LOG
    size = path.stat().st_size if path.exists() else 0
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO if verbose else logging.WARNING)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        handler.close()
        if path.stat().st_size > size:
            print(f"cfnet: messages were logged in {path}", file=sys.stderr, flush=True)


def default_address() -> str:
    """The address of the interface that reaches the LAN (no packet is sent to find it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(MDNS_GROUP)
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def player_name(args: argparse.Namespace, identity: Identity) -> str:
    if args.player:
        return check_player(args.player)
    if args.strategy:
        return f"{args.strategy}-{identity.fingerprint[:4]}"
    with contextlib.suppress(Exception):
        return check_player(getpass.getuser())
    return "player"


def computer(args: argparse.Namespace, seat: int) -> Player | None:
    if args.strategy is None:
        return None
    return make_bot(args.strategy, seat, args.think, args.rollouts)


def screens_for(args: argparse.Namespace) -> SeatScreens | None:
    """The person's screens on this terminal (lobby, then game) for a seat without --strategy."""
    if args.strategy is not None:
        return None
    from cfnet.ui.lan_screens import SeatScreens

    table = vars(args).get("name") or vars(args).get("table")  # host --name, join NAME
    return SeatScreens(
        title=f"table {table!r}" if table else "",
        bots=vars(args).get("bots", 0),
        timeout=vars(args).get("timeout"),  # a host's; a joiner is told it in the lobby
    )


async def _seating(
    seating: Awaitable[Seating],
    screens: SeatScreens | None,
    add_bot: Callable[[], None] | None,
    identity: Identity,
) -> Seating:
    """Await the lobby: in the lobby screen for a person (who may leave: LeftTable)."""
    if screens is None:
        return await seating
    return await screens.seat(seating, add_bot, identity.public)


# ---------------------------------------------------------------------- seating


Entropy = Callable[[int], Callable[[int], bytes]]
"""For a seat number, where that seat's round secrets come from (n -> n random bytes)."""


def urandom(seat: int) -> Callable[[int], bytes]:
    """Every real seat's secrets: the operating system's randomness."""
    return os.urandom


class Seat:
    """Builds the local game when the genesis arrives (the lobby's `prepare`).

    `entropy` is `urandom` for every real seat; only `cfnet demo --seed` passes another."""

    def __init__(
        self,
        args: argparse.Namespace,
        home: Path,
        identity: Identity,
        bind: str,
        entropy: Entropy = urandom,
    ) -> None:
        self.args = args
        self.home = home
        self.identity = identity
        self.bind = bind
        self.entropy = entropy
        self.game: NetGame | None = None
        self.port = 0

    async def prepare(self, genesis: bytes, seat: int) -> int:
        local = LocalSeat(self.identity, seat, self.entropy(seat))
        table = Table(genesis, local, time.monotonic())
        meta = TableMeta(
            table.table_id,
            table.name,
            seat,
            table.players,
            table.options,
            strategy=self.args.strategy,
        )
        store = TableStore.create(self.home, meta)
        store.append(table.entries[0])
        self.game = make_game(self.args, self.identity, table, store)
        self.port = await self.game.listen(self.bind, 0)
        # before `ready`: resumed before `go`, this seat listens where the others will dial it
        store.save_meta(replace(meta, addresses={seat: (self.bind, self.port)}))
        return self.port

    def seated(self, seating: Seating) -> NetGame:
        """Record every seat's address (for resume) and point the mesh at the others."""
        game = self.game
        assert game is not None
        addresses = dict(seating.addresses)
        addresses[seating.seat] = (seating.local_host, self.port)
        game.store.save_meta(replace(game.store.meta, addresses=addresses))
        game.set_addresses(addresses)
        return game


def make_game(
    args: argparse.Namespace, identity: Identity, table: Table, store: TableStore
) -> NetGame:
    assert table.me is not None
    interactive = args.strategy is None
    return NetGame(
        identity,
        table,
        store,
        player=computer(args, table.me),
        say=None if interactive else say,
        chaos=chaos_from_env(),
    )


async def play(game: NetGame, screens: SeatScreens | None) -> int:
    """Play to the end: in the game screen for a person, with plain lines for a computer."""
    if game.player is not None:
        code = await game.play()
    else:
        assert screens is not None
        code = await screens.play(game)
    await drain()
    return code


async def drain(timeout: float = 1.0) -> None:
    """Let the tasks of links just closed finish before the loop ends (asyncio.run would
    cancel them, and a cancelled server connection task is reported as an error)."""
    others = asyncio.all_tasks() - {asyncio.current_task()}
    if others:
        await asyncio.wait(others, timeout=timeout)


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP (a kill, a closed terminal) ended the loop, as Ctrl-C does."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def run_loop(main: Coroutine[Any, Any, int]) -> int:
    """`asyncio.run(main)`, where SIGTERM and SIGHUP cancel `main` as Ctrl-C does, so that
    every cleanup runs (a table is withdrawn from mDNS, with goodbye packets); then `Stopped`."""
    received: list[int] = []

    async def guarded() -> int:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def stop(signum: int) -> None:
            received.append(signum)
            task.cancel()

        for signum in STOP_SIGNALS:
            loop.add_signal_handler(signum, stop, signum)
        try:
            return await main
        finally:
            for signum in STOP_SIGNALS:
                loop.remove_signal_handler(signum)

    try:
        return asyncio.run(guarded())
    except asyncio.CancelledError:
        if received:
            raise Stopped(received[0]) from None
        raise


def _interrupted(command: str, stop: KeyboardInterrupt) -> int:
    """Say how the command was stopped; 130 for Ctrl-C, 128 + N for signal N."""
    if isinstance(stop, Stopped):
        how, code = f"stopped by {signal.Signals(stop.signum).name}", 128 + stop.signum
    else:
        how, code = "interrupted", 130
    print(
        f"cfnet {command}: {how} (a game under way goes on with `cfnet resume`)",
        file=sys.stderr,
        flush=True,
    )
    return code


def _failed(command: str, error: Exception) -> int:
    """Say `error` in one line; its exit status (2: usage, 1: any other failure)."""
    print(f"cfnet {command}: {describe(error)}", file=sys.stderr, flush=True)
    return exit_status(error)


# ---------------------------------------------------------------------- host


def add_host_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", required=True, help="the table's name, as others see it")
    parser.add_argument(
        "--seats", type=int, default=4, help=f"seats at the table, {MIN_PLAYERS}..{MAX_PLAYERS}"
    )
    add_rule_argument(parser)
    add_code_argument(parser)
    parser.add_argument(
        "--bots", type=int, default=0, metavar="K", help="start K computer players that join"
    )
    parser.add_argument(
        "--bot-strategy",
        choices=BOT_STRATEGIES,
        default="greedy",
        help="strategy of the --bots players (default greedy)",
    )
    parser.add_argument(
        "--port", type=port_number, default=0, help="TCP port of the lobby (default: any)"
    )
    parser.add_argument(
        "--no-watchers",
        action="store_true",
        help="refuse spectators (by default anyone who may join may watch: `cfnet watch`)",
    )
    parser.add_argument(
        "--timeout",
        type=int,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"how long a seat may take to answer before it forfeits (default {DEFAULT_TIMEOUT})",
    )
    add_peer_arguments(parser, None)


def run_host(args: argparse.Namespace) -> int:
    try:
        name, options = check_host(args)  # the options first: they are wrong on any terminal
        setup(args)
        home = prepare_home(args.home)
        identity = load_identity(home)
        with seat_logging(args, home):
            return run_loop(host(args, name, options, home, identity, screens_for(args)))
    except (LocalProtocolError, RuleOptionError, OSError) as exc:
        return _failed("host", exc)
    except KeyboardInterrupt as stop:
        return _interrupted("host", stop)


def check_host(args: argparse.Namespace) -> tuple[str, RuleOptions]:
    """The table's name and rules from `cfnet host` options (UsageError saying what is
    wrong)."""
    try:
        name = check_name(args.name)
        options = rule_options(args.rule, args.seats)
    except (LocalProtocolError, RuleOptionError) as exc:
        raise UsageError(str(exc)) from None
    if not 0 <= args.bots < args.seats:
        raise UsageError(f"--bots {args.bots}: at most {args.seats - 1} at {args.seats} seats")
    if not 1 <= args.timeout <= MAX_TIMEOUT:
        raise UsageError(f"--timeout {args.timeout}: give 1 to {MAX_TIMEOUT} seconds")
    if args.strategy is None and args.timeout < PERSON_MIN_TIMEOUT:
        raise UsageError(
            f"--timeout {args.timeout}: a person plays seat 0 and needs at least "
            f"{PERSON_MIN_TIMEOUT} s to answer (give --timeout {PERSON_MIN_TIMEOUT} or more; "
            "shorter only at a table of computer players, with --strategy)"
        )
    return name, options


async def host(
    args: argparse.Namespace,
    name: str,
    options: RuleOptions,
    home: Path,
    identity: Identity,
    screens: SeatScreens | None,
) -> int:
    """Open the table, seat everyone (in the lobby screen for a person), play it. The computer
    players it starts end with it: after a finished game they finish too (waited for, up to
    BOT_EXIT_WAIT); on any other way out (quit, leave, an error, a signal) they are stopped at
    once."""
    address = args.interface or default_address()
    seat = Seat(args, home, identity, address)
    bots = Children()
    finished = False
    discovery = Discovery(address)  # announced only where the lobby listens (RFC 6762 6.2)
    await discovery.__aenter__()
    lobby = HostLobby(
        identity,
        discovery,
        name=name,
        player=player_name(args, identity),
        seats=args.seats,
        options=options,
        timeout=args.timeout,
        code=args.code,
        interface=address,
        port=args.port,
        say=say if screens is None else screens.say,
        on_roster=None if screens is None else screens.roster,
        watchers=not vars(args).get("no_watchers", False),
    )
    try:
        try:
            port = await lobby.open()
            for _ in range(args.bots):
                start_bot(bots, args, home, address, port)

            def add_bot() -> None:
                start_bot(bots, args, home, address, port)

            seating = await _seating(lobby.seat_all(seat.prepare), screens, add_bot, identity)
        except BaseException:
            await _leave_lobby(lobby, discovery)
            await drain()  # the lobby links' tasks end once their links are closed
            raise
        game = seat.seated(seating)
        if lobby.watchers.enabled:  # the lobby stays open for watchers until the end
            game.watchers = lobby.watchers
            lobby.watchers.feed(game.store)
            code = await play(game, screens)
            await _leave_lobby(lobby, discovery)
        else:
            leaving = asyncio.create_task(_leave_lobby(lobby, discovery))  # while it starts
            code = await play(game, screens)
            await leaving
        finished = game.table.finished
    finally:
        problem = await asyncio.to_thread(bots.wait, BOT_EXIT_WAIT) if finished else None
        bots.stop()
    if problem is not None:
        print(f"cfnet host: {problem}", file=sys.stderr, flush=True)
        return code or 1
    return code


async def _leave_lobby(lobby: HostLobby, discovery: Discovery) -> None:
    """Close the lobby and withdraw the table from mDNS."""
    await lobby.close()
    await discovery.close()


def start_bot(
    bots: Children, args: argparse.Namespace, home: Path, address: str, port: int
) -> None:
    """Start the next computer player among `bots`: a `cfnet bot` process with its own home
    that joins the table at `address`:`port`."""
    number = len(bots.children) + 1
    bot_home = home / "bots" / f"bot{number}"
    bot_home.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "cfnet",
        "bot",
        "--connect",
        f"{address}:{port}",
        "--strategy",
        args.bot_strategy,
        "--home",
        str(bot_home),
        "--player",
        f"bot{number}",
        f"--think={args.think}",
    ]
    if args.rollouts is not None:
        command.append(f"--rollouts={args.rollouts}")
    if args.interface:
        command += ["--interface", args.interface]
    if args.code:
        command += ["--code", args.code]
    bots.start(f"bot{number}", command, bot_home / "output.txt")


# ---------------------------------------------------------------------- join and bot


def add_join_arguments(parser: argparse.ArgumentParser, strategy_default: str | None) -> None:
    parser.add_argument(
        "--connect",
        type=host_port,
        default=None,
        metavar="HOST:PORT",
        help="join the table at this address directly (where multicast does not reach)",
    )
    look = JOIN_LOOK if strategy_default is None else BOT_LOOK
    parser.add_argument(
        "--wait",
        type=seconds_type(0, 3600),
        default=look,
        metavar="SECONDS",
        help=f"how long to look for the table on the LAN (default {look:g})",
    )
    parser.add_argument(
        "--host",
        type=host_port,
        default=None,
        metavar="ADDR:PORT",
        help="of the tables of that name, the one listed at this address",
    )
    parser.add_argument(
        "--fingerprint",
        default=None,
        metavar="KEY",
        help="of the tables of that name, the one whose host key has this fingerprint "
        "(or its start, e.g. its first group)",
    )
    add_code_argument(parser)
    add_peer_arguments(parser, strategy_default)


def run_join(
    args: argparse.Namespace, table: str | None, command: str, entropy: Entropy = urandom
) -> int:
    if table is None and args.connect is None:
        return _failed(command, UsageError("name a table, or give --connect HOST:PORT"))
    try:
        setup(args)
        home = prepare_home(args.home)
        identity = load_identity(home)
        with seat_logging(args, home):
            return run_loop(join(args, table, home, identity, screens_for(args), entropy=entropy))
    except (LocalProtocolError, PeerProtocolError, OSError, TimeoutError) as exc:
        return _failed(command, exc)
    except KeyboardInterrupt as stop:
        return _interrupted(command, stop)


async def join(
    args: argparse.Namespace,
    name: str | None,
    home: Path,
    identity: Identity,
    screens: SeatScreens | None,
    found: TableInfo | None = None,
    entropy: Entropy = urandom,
) -> int:
    """Take a seat (the table `found` in a browser, at --connect, or by name), play it."""
    seat = Seat(args, home, identity, args.interface or ANY, entropy)
    player = player_name(args, identity)
    tell = say if screens is None else screens.say
    roster = None if screens is None else screens.roster
    try:
        if found is not None or args.connect is not None:
            address, port = (found.address, found.port) if found else args.connect
            seating = await _seating(
                join_table(
                    identity,
                    player,
                    address,
                    port,
                    seat.prepare,
                    code=args.code,
                    advertised=found,
                    say=tell,
                    on_roster=roster,
                    min_timeout=_least_timeout(args),
                ),
                screens,
                None,
                identity,
            )
        else:
            assert name is not None
            finding = _join_by_name(args, name, home, identity, player, seat, tell, roster)
            seating = await _seating(finding, screens, None, identity)
    except BaseException:
        if seat.game is not None:
            await seat.game.close()
            seat.game.store.close()
        raise
    return await play(seat.seated(seating), screens)


def _least_timeout(args: argparse.Namespace) -> int:
    """The shortest table timeout this seat accepts: a person needs PERSON_MIN_TIMEOUT."""
    return PERSON_MIN_TIMEOUT if args.strategy is None else 0


def _chosen(args: argparse.Namespace, name: str) -> Callable[[TableInfo], bool]:
    """Whether a listed table is the one `cfnet join NAME [--host A:P] [--fingerprint K]` names."""
    key = (args.fingerprint or "").replace("-", "").lower()

    def chosen(table: TableInfo) -> bool:
        return (
            table.name == name
            and (args.host is None or (table.address, table.port) == tuple(args.host))
            and table.fingerprint.replace("-", "").startswith(key)
        )

    return chosen


async def _join_by_name(
    args: argparse.Namespace,
    name: str,
    home: Path,
    identity: Identity,
    player: str,
    seat: Seat,
    say: Callable[[str], None],
    on_roster: OnRoster | None,
) -> Seating:
    """Find the table by mDNS (for --wait s) and join it. Tables of that name with different
    host keys are not guessed between: LobbyError lists them (choose with --host or
    --fingerprint). A listing that does not answer as a table (a stale record, a fake) is
    skipped while others are looked for."""
    until = time.monotonic() + args.wait
    tried: dict[tuple[bytes, str, int], str] = {}  # listing -> why it failed
    chosen = _chosen(args, name)

    def joinable(table: TableInfo) -> bool:
        listing = (table.table_id, table.address, table.port)
        return chosen(table) and table.free > 0 and table.refusal is None and listing not in tried

    async with Discovery(args.interface) as discovery:
        browser = discovery.browse()
        say(f"looking for table {name!r} on the LAN...")
        while True:
            try:
                await browser.wait_for(joinable, max(0.0, until - time.monotonic()))
            except TimeoutError:
                seen = browser.tables.values()
                raise LobbyError(_not_found(args, name, home, seen, tried)) from None
            if len(tried) == 0:  # namesakes may still be resolving: give them a moment
                await asyncio.sleep(min(SAME_NAME_SETTLE, max(0.0, until - time.monotonic())))
            candidates = sorted(
                (t for t in browser.tables.values() if joinable(t)),
                key=lambda t: (t.address, t.port),
            )
            if len({t.fingerprint for t in candidates}) > 1:
                raise LobbyError(_namesakes(name, candidates))
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
                    code=args.code,
                    advertised=info,
                    say=say,
                    on_roster=on_roster,
                    min_timeout=_least_timeout(args),
                )
            except Unreachable as exc:
                tried[(info.table_id, info.address, info.port)] = str(exc)
                say(f"{exc}; looking further")


def _namesakes(name: str, tables: list[TableInfo]) -> str:
    """Why `cfnet join NAME` does not choose between `tables` of that name, and how to."""
    listed = "; ".join(table.where for table in tables)
    return (
        f"{len(tables)} tables are named {name!r}: {listed}; choose one with --host ADDR:PORT "
        "or --fingerprint KEY (a listing is not proof: the host's key is checked when you join)"
    )


def _not_found(
    args: argparse.Namespace,
    name: str,
    home: Path,
    seen: Iterable[TableInfo],
    tried: Mapping[tuple[bytes, str, int], str],
) -> str:
    """Why no table `name` could be joined within --wait s, and what to do instead."""
    seen = sorted(seen, key=lambda t: (t.name.casefold(), t.address, t.port))
    chosen = _chosen(args, name)
    named = [t for t in seen if chosen(t)]
    looked = f"within {args.wait:g} s (--wait SECONDS looks longer)"
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


# ---------------------------------------------------------------------- resume


def add_resume_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--table",
        default=None,
        metavar="NAME|ID",
        help="which unfinished table (default: the only one)",
    )
    add_peer_arguments(parser, None)


def run_resume(args: argparse.Namespace) -> int:
    try:
        home = prepare_home(args.home)
        identity = load_identity(home)
        meta = _pick_table(home, args.table)
        if args.strategy is None:  # a computer seat stays one
            args.strategy = meta.strategy
        setup(args)
        with seat_logging(args, home):
            return run_loop(_resume(args, home, identity, meta))
    except (LocalProtocolError, PeerProtocolError, OSError) as exc:
        return _failed("resume", exc)
    except KeyboardInterrupt as stop:
        return _interrupted("resume", stop)


def _pick_table(home: Path, wanted: str | None) -> TableMeta:
    """The unfinished table `wanted` (a name or the start of an id; None: the only one) in
    `home`; LocalProtocolError saying whether it is finished, unknown or ambiguous."""

    def matches(meta: TableMeta) -> bool:
        return wanted is None or meta.name == wanted or meta.table_id.hex().startswith(wanted)

    every = list_tables(home, include_finished=True)
    unfinished = [m for m in every if not m.finished]
    tables = [m for m in unfinished if matches(m)]
    if len(tables) == 1:
        return tables[0]
    if tables:
        match = f"match {wanted!r}" if wanted else "are kept"
        raise LocalProtocolError(
            f"{len(tables)} unfinished tables {match} in {home}: {_tables(tables)}; "
            "name one with --table NAME|ID"
        )
    if wanted is None:
        raise LocalProtocolError(f"no unfinished table in {home}: nothing to resume")
    others = f"unfinished: {_tables(unfinished)}" if unfinished else "no table is unfinished"
    finished = [m for m in every if matches(m)]
    if finished:
        log_path = table_dir(home, finished[0].table_id) / LOG_FILE
        raise LocalProtocolError(
            f"table {wanted!r} is finished: nothing to resume (its log: {log_path}); {others}"
        )
    raise LocalProtocolError(f"no table {wanted!r} in {home}; {others}")


def _tables(tables: list[TableMeta]) -> str:
    return ", ".join(f"{m.name} ({m.table_id.hex()[:12]})" for m in tables)


async def _resume(args: argparse.Namespace, home: Path, identity: Identity, meta: TableMeta) -> int:
    store = TableStore.open(home, meta.table_id)
    try:
        saved = store.load()
        if not saved.entries:
            raise StoreError(f"table {meta.name!r} has no saved entries to resume from")
        if saved.secrets is None:
            local = LocalSeat(identity, meta.seat)
        else:
            local = LocalSeat.from_plain(identity, saved.secrets)
        table = Table(saved.entries[0].wire, local, time.monotonic())
        game = make_game(args, identity, table, store)
        game.replay(saved.entries[1:])
        say(
            f"resuming table {meta.name!r} as seat {meta.seat}: {len(saved.entries)} entries on "
            "disk"
        )
        port = meta.addresses[meta.seat][1] if meta.seat in meta.addresses else 0
        await game.listen(args.interface or ANY, port)
        game.set_addresses(meta.addresses)
        return await play(game, screens_for(args))
    finally:
        store.close()
