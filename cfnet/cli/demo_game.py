"""`cfnet demo`: a complete game on loopback between real peers, watched live from one seat.

The demo process hosts the table on 127.0.0.1 (mDNS and TCP bound there only) and sits in
seat 0; every other seat is a `cfnet bot` process that finds the table by mDNS (with --seed,
`cfnet.cli.demo_bot`: the same, its secrets derived from the seed, as seat 0's are). Seat 0 plays
through the same `NetGame` driver as any peer: a computer player chosen here (paced so a person
can follow), or the person at the keyboard in the game screen (`--human`). At the end the log
is copied to a stable path and verified (the check `cfnet verify` runs).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import shlex
import shutil
import signal
import sys
import tempfile
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TextIO, TypeVar

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from cfnet.cli.main import invocation
from cfnet.cli.options import seconds_type
from cfnet.disk.store import load_identity, prepare_home, table_dir
from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.game.board import PublicRound
from cfnet.game.bots import make_bot
from cfnet.game.moves import Draw, IllegalMoveError, Play
from cfnet.game.rules import MAX_PLAYERS, MIN_PLAYERS, RuleOptionError, RuleOptions
from cfnet.game.text import (
    ROUND_AUDIT,
    count,
    describe_end,
    render_board,
    render_hand,
    score_lines,
)
from cfnet.net.lobby import LobbyEvent
from cfnet.protocol.events import GameOver, MoveMade, RoundScored, RoundStarted
from cfnet.protocol.testing import derived, sim_entropy
from cfnet.protocol.verify import verify_entries
from cfnet.record.identity import fingerprint
from cfnet.record.logfile import LogFileError, read_log
from cfnet.seat.children import BotConfig, Children
from cfnet.seat.config import HostConfig, PeerConfig
from cfnet.seat.host import Hosting
from cfnet.seat.net_game import NetGame
from cfnet.seat.process import drain
from cfnet.seat.seating import urandom
from cfnet.seat.session import GameAborted, Notice, SessionEvent
from cfnet.ui.game_screen import GameScreen
from cfnet.ui.lines import PlainLines

LOOPBACK = "127.0.0.1"  # the demo never binds or advertises on any other address
BOT_NAMES = ("Ada", "Bob", "Cleo", "Dev", "Eve", "Finn", "Gus")
POLL = 0.05  # how often to look at the children and at whether it is our move
BOT_FIND_WAIT = 30.0  # how long a computer player looks for the table by mDNS
BOT_EXIT_WAIT = 30.0  # after the game, how long the computer players may take to finish
RECENT = 4  # moves shown under the board in the live view

T = TypeVar("T")


class DemoError(Exception):
    """The demo cannot go on: what failed, in words."""


# ---------------------------------------------------------------------- the live view


def _tiles(count: int) -> str:
    return f"{count:>2} tile{'' if count == 1 else 's'}"


def _points(count: int) -> str:
    return f"{count:>3} point{'' if count == 1 else 's'}"


class LiveView:
    """Shows the game as seat `me` sees it: each move, the board, tiles left, round results.

    It keeps its own copy of the public round, advanced event by event, so what it shows is
    the game as of the event shown even when the network is ahead of the display. `frames`:
    redraw one frame in place (a terminal); else print one line per move (a pipe or file).
    `audited`: the game's rounds are audited (said after each)."""

    def __init__(
        self,
        names: Sequence[str],
        me: int,
        rounds: int,
        out: TextIO,
        frames: bool,
        audited: bool,
    ) -> None:
        self.names = tuple(names)
        self.audited = audited
        self.me = me
        self.rounds = rounds
        self.out = out
        self.frames = frames
        self.public: PublicRound | None = None
        self.totals = tuple(0 for _ in names)
        self.recent: deque[str] = deque(maxlen=RECENT)
        self._drawn = 0  # rows of the frame on screen, to redraw over

    @property
    def my_turn(self) -> bool:
        """Seat `me` is to move in the round as shown (so the display has caught up)."""
        public = self.public
        return public is not None and not public.is_over and public.turn == self.me

    def who(self, seat: int) -> str:
        return self.names[seat]

    def say(self, text: str = "") -> None:
        self._drawn = 0
        print(text, file=self.out, flush=True)

    def show(self, event: SessionEvent, options: RuleOptions) -> None:
        if isinstance(event, RoundStarted):
            self.public = PublicRound(len(self.names), event.round_number, event.starter, options)
            self.recent.clear()
            self.say(
                f"\nround {event.round_number} of {self.rounds}: centre {self.public.centre}, "
                f"{self.who(event.starter)} starts"
            )
            self._frame()
        elif isinstance(event, MoveMade):
            self._moved(event)
        elif isinstance(event, RoundScored):
            self._round_ended(event)
        elif isinstance(event, Notice):
            self._note(event.text)
        elif isinstance(event, GameAborted):
            self.say(f"game aborted: {event.reason}")

    def _note(self, text: str) -> None:
        if self.frames:
            self.recent.append(text)
            self._frame()
        else:
            self.say(f"  {text}")

    def _moved(self, event: MoveMade) -> None:
        public = self.public
        if public is None:
            return
        move = event.move
        with contextlib.suppress(IllegalMoveError):  # the table checked it already
            public.apply_public(move, event.seat)
        who = self.who(event.seat)
        if isinstance(move, Play):
            left = public.hand_counts[event.seat]
            text = f"{who} plays {move.tile} on {move.end}, {left} left"
        elif isinstance(move, Draw):
            text = f"{who} draws" + (f" {event.drawn}" if event.drawn is not None else "")
        else:
            text = f"{who} passes"
        self._note(text)

    def _frame(self) -> None:
        """Redraw the live frame over the previous one (terminal only)."""
        public = self.public
        if not self.frames or public is None:
            return
        size = shutil.get_terminal_size()
        rows = [
            f"round {public.round_number} of {self.rounds} | centre {public.centre} | "
            f"yard {public.yard_count} ({public.drawable} drawable)"
        ]
        for seat, name in enumerate(self.names):
            mark = ">" if seat == public.turn and not public.is_over else " "
            mine = "  (this process's seat)" if seat == self.me else ""
            rows.append(
                f" {mark} {name:<6} {_tiles(public.hand_counts[seat])}   "
                f"total {self.totals[seat]:>3}{mine}"
            )
        board = render_board(public).splitlines()
        room = max(3, size.lines - 1 - len(rows) - RECENT)
        if len(board) > room:
            board = [*board[: room - 1], f"... {len(board) - room + 1} more rows of the board"]
        rows += board + [f"  {text}" for text in self.recent]
        cut = [row[: size.columns - 1] for row in rows]
        up = f"\x1b[{self._drawn}F" if self._drawn else ""
        self.out.write(up + "".join(f"{row}\x1b[K\n" for row in cut) + "\x1b[J")
        self.out.flush()
        self._drawn = len(cut)

    def _round_ended(self, event: RoundScored) -> None:
        self.totals = event.totals
        public = self.public
        if public is not None and not self.frames:
            self.say(f"the board at the end of round {event.round_number}:")
            self.say(render_board(public))
        self._frame()
        self.say(
            f"round {event.round_number} over: "
            f"{describe_end(event.end_reason, event.went_out, self.names)}"
        )
        width = max(len(n) for n in self.names)
        for seat, hand in enumerate(event.left):
            shown = render_hand(hand).replace("\n", " ") if hand else "went out"
            self.say(
                f"  {self.names[seat]:<{width}}  {_points(event.scores[seat])} "
                f"(total {event.totals[seat]:>3})  {shown}"
            )
        if self.audited:
            self.say(f"  round {event.round_number} verified: {ROUND_AUDIT}")


# ---------------------------------------------------------------------- the demo


def _log_destination(name: str) -> Path:
    """Where the demo keeps the game log: the current directory, else the data directory."""
    filename = f"cfnet-{name}.cflog"
    here = Path.cwd()
    if os.access(here, os.W_OK):
        return here / filename
    return prepare_home() / "demos" / filename


class Demo:
    """One run of `cfnet demo` (see the module docstring)."""

    def __init__(
        self,
        args: argparse.Namespace,
        options: RuleOptions,
        home: Path,
        terminal: tuple[Input, Output] | None = None,
    ) -> None:
        """`terminal`: where --human's game screen reads keys and draws (None: this one)."""
        self.args = args
        self.options = options
        self.home = home
        self.children = Children()
        self.name = f"demo-{secrets.token_hex(3)}"
        self.out = sys.stdout
        self.game: NetGame | None = None
        self._joined = asyncio.Event()
        self.terminated = False
        self.terminal = terminal
        self.screen: GameScreen | None = None  # --human's

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    async def run(self) -> int:
        main = asyncio.current_task()
        assert main is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self._terminate, main)
        identity = load_identity(self.home)
        me = "you" if self.args.human else "demo"
        entropy = urandom if self.args.seed is None else partial(sim_entropy, self.args.seed)
        config = HostConfig(
            self.name,
            PeerConfig(home=self.home, interface=LOOPBACK, player=me),
            seats=self.args.players,
        )
        table_id = None
        if self.args.seed is not None:  # the deal derives from the table id too
            table_id = derived("cfnet/v1/demo-table", self.args.seed, size=16)
            if table_dir(self.home, table_id).exists():
                raise DemoError(
                    f"--seed {self.args.seed} was played with --home {self.home} already: "
                    "give another --home, or none"
                )
        hosting = Hosting(
            config,
            self.options,
            self.home,
            identity,
            _Quiet(),
            LOOPBACK,
            entropy=entropy,
            table_id=table_id,
        )
        self.children = hosting.bots
        hosting.on_seat = lambda _: self._joined.set()
        leaving: asyncio.Task[None] | None = None
        try:
            try:
                port = await hosting.open()
                self.say(
                    f"table {self.name} open on {LOOPBACK}:{port} (loopback only), "
                    f"{self.args.players} seats\n  rules: {self.options.describe()}"
                )
                await self._guard(self._start_bots(hosting), "seating the players")
                game = await self._guard(hosting.seat_all(), "seating the players")
            finally:
                leaving = asyncio.create_task(hosting.leave())
            self.game = game
            self._roster(game)
            if self.args.human:
                code = await self._guard(self._human(game), "the game")
            else:
                code = await self._guard(self._follow(game), "the game")
        finally:
            if self.game is not None:
                await self.game.close()
                self.game.store.close()
            if leaving is not None:
                await leaving
            await drain()  # lobby connections end by themselves once their links close
        return self._finish(code)

    def _terminate(self, main: asyncio.Task[int]) -> None:
        """SIGTERM: stop as on Ctrl-C (every child stopped, the temporary home removed)."""
        self.terminated = True
        main.cancel()

    async def _start_bots(self, hosting: Hosting) -> None:
        """Start the computer players one by one, each once the one before has sat down (so
        each name gets the same seat every time). Each finds the table by mDNS; with --seed,
        its secrets derive from the seed (cfnet.cli.demo_bot)."""
        for seat in range(1, self.args.players):
            name = BOT_NAMES[seat - 1]
            self._joined.clear()
            hosting.start_bot(
                BotConfig(
                    name,
                    self.home / "bots" / name,
                    table=self.name,
                    wait=BOT_FIND_WAIT,
                    interface=LOOPBACK,
                    seed=self.args.seed,
                )
            )
            self.say(
                f"started {name} (process {hosting.bots.children[-1].process.pid}): "
                f"cfnet bot --table {self.name}, finds it by mDNS"
            )
            await self._joined.wait()

    def _roster(self, game: NetGame) -> None:
        self.say("every seat is taken; each seat signs with its own key:")
        for seat, info in enumerate(game.table.seats):
            where = "this process" if seat == game.seat else "its own process"
            self.say(f"  seat {seat}: {info.name:<6} key {fingerprint(info.key)}  ({where})")

    async def _guard(self, work: Awaitable[T], what: str) -> T:
        """Await `work`, stopping it with a DemoError naming the child that failed, if any."""
        task = asyncio.ensure_future(work)
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=POLL)
                if done:
                    return task.result()
                problem = self.children.failed()
                if problem is not None:
                    raise DemoError(f"{what} stopped: {problem}")
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    async def _follow(self, game: NetGame) -> int:
        """Play seat 0 as a computer player and show the game as it goes, paced by --delay."""
        frames = self.out.isatty() and os.environ.get("TERM", "") != "dumb"
        view = LiveView(game.names, game.seat, self.options.rounds, self.out, frames, game.audited)
        player = make_bot("greedy", 0)
        play = asyncio.ensure_future(game.run())
        event = asyncio.ensure_future(game.next_event())
        try:
            while True:
                await asyncio.wait({play, event}, timeout=POLL, return_when="FIRST_COMPLETED")
                if play.done() and not event.done():
                    await asyncio.wait({event}, timeout=0.2)  # what was queued last
                    if not event.done():
                        return play.result()
                if event.done():
                    shown = event.result()
                    event = asyncio.ensure_future(game.next_event())
                    view.show(shown, self.options)
                    await self._pause(shown)
                if view.my_turn and game.table.awaiting_local_move:
                    current = game.view
                    if current is not None:
                        game.submit(player.choose(current))
        finally:
            for task in (play, event):
                task.cancel()
            await asyncio.gather(play, event, return_exceptions=True)

    async def _pause(self, event: SessionEvent) -> None:
        if isinstance(event, MoveMade):
            await asyncio.sleep(self.args.delay)
        elif isinstance(event, RoundScored) and self.out.isatty():
            await asyncio.sleep(min(2.0, 15 * self.args.delay))  # time to read the result

    async def _human(self, game: NetGame) -> int:
        keys, output = self.terminal or (None, None)
        self.screen = _KeptLogScreen(game, self._keep_log, keys, output)
        return await self.screen.run()

    def _keep_log(self) -> Path:
        """Copy the game's log to where the demo keeps it (its state directory may be a
        temporary one, removed at the end); the copy's path."""
        assert self.game is not None
        destination = _log_destination(self.name)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.game.log_path, destination)
        return destination

    def _finish(self, code: int) -> int:
        """Copy the log to a stable path, verify it, print the result; the exit code."""
        game = self.game
        assert game is not None
        finished = game.table.finished
        if finished:  # the computer players finish too
            problem = self.children.wait(BOT_EXIT_WAIT)
        else:  # they would wait for this seat until the table's timeout
            problem = None
            self.children.stop()
        result = game.result
        names = game.names
        self.say("")
        if isinstance(result, GameOver):
            played = len(game.game.round_scores)
            self.say(f"game over after {played} round{'s' if played > 1 else ''}:")
            for row in score_lines(game.game, names):
                self.say(f"  {row}")
            who = " and ".join(names[s] for s in result.winners)
            self.say(f"winner: {who} with {count(result.totals[result.winners[0]], 'point')}")
        elif isinstance(result, GameAborted):
            self.say(f"the game was aborted: {result.reason}")
        else:
            self.say("the game stopped before its end; the computer players were stopped")
        destination = self._keep_log()
        entries = read_log(destination)
        verdict = verify_entries(entries)
        if verdict.ok:
            self.say(f"verified: the log is a complete, valid game ({len(entries)} entries)")
            self.say("  every signature, shuffle, key and move checked, as `cfnet verify` does")
        elif finished:
            self.say(f"NOT verified ({len(entries)} entries): {verdict.problem}")
        else:
            self.say(f"the log ends before the game does ({len(entries)} entries)")
        self.say(f"log saved: {destination}")
        check = f"{invocation()} verify {shlex.quote(str(destination))}"
        self.say(f"check it yourself: {check}")
        if problem is not None:
            raise DemoError(problem)
        if not finished:
            return code or 1
        if not verdict.ok or not isinstance(result, GameOver):
            return 3
        return code


class _KeptLogScreen(GameScreen):
    """--human's game screen: the game's end names the log's kept copy, made then."""

    def __init__(
        self, game: NetGame, keep: Callable[[], Path], keys: Input | None, output: Output | None
    ) -> None:
        super().__init__(game, keys, output)
        self._keep = keep

    def kept_log(self) -> Path:
        """The kept copy, made now."""
        return self._keep()


class _Quiet(PlainLines):
    """The demo's seat 0 prints nothing of the lobby and the game (the demo says what happens
    itself) and plays as the demo chooses (`Demo._follow`, or the game screen with --human)."""

    def say(self, text: str) -> None:
        """Nothing."""

    def lobby(self, event: LobbyEvent) -> None:
        """Nothing."""

    def follow(self, game: NetGame, event: SessionEvent) -> None:
        """Nothing: the demo takes the game's events from its queue."""


# ---------------------------------------------------------------------- the command


def seed(text: str) -> int:
    if not text.isdigit() or int(text) >= 1 << 63:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number, 0 or more")
    return int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players",
        type=int,
        default=4,
        metavar="N",
        help=f"seats at the table, {MIN_PLAYERS}..{MAX_PLAYERS} (default 4)",
    )
    parser.add_argument(
        "--rounds", type=int, default=10, metavar="R", help="rounds to play, 1..10 (default 10)"
    )
    parser.add_argument(
        "--seed",
        type=seed,
        default=None,
        metavar="S",
        help="play the same game again: every seat's secret randomness is derived from S "
        "(for demos only; by default, and at every real table, each seat draws its own)",
    )
    parser.add_argument(
        "--human", action="store_true", help="you play seat 0 at the keyboard (game screen)"
    )
    parser.add_argument(
        "--delay",
        type=seconds_type(0, 10, zero_ok=True),
        default=0.1,
        metavar="SECONDS",
        help="pause after each move so you can follow (default 0.1; 0: full speed)",
    )
    parser.add_argument(
        "--home",
        type=Path,
        default=None,
        metavar="DIR",
        help="state directory of every seat (default: a temporary one, removed at the end)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        options = RuleOptions().with_assignment(f"rounds={args.rounds}")
        options.check(args.players)
    except RuleOptionError as exc:
        print(f"cfnet demo: {exc}", file=sys.stderr)
        return 2
    if args.human and not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("cfnet demo: --human needs a terminal for the game screen", file=sys.stderr)
        return 2
    temporary = args.home is None
    home = prepare_home(Path(tempfile.mkdtemp(prefix="cfnet-demo-")) if temporary else args.home)
    demo = Demo(args, options, home)
    keep = False
    try:
        return asyncio.run(demo.run())
    except (KeyboardInterrupt, asyncio.CancelledError):
        how = "terminated" if demo.terminated else "interrupted"
        print(f"\ncfnet demo: {how}; stopping the computer players", file=sys.stderr)
        return 128 + (signal.SIGTERM if demo.terminated else signal.SIGINT)
    except DemoError as exc:
        keep = True
        print(f"cfnet demo: {exc}", file=sys.stderr)
        return 1
    except (LocalProtocolError, PeerProtocolError, LogFileError, OSError) as exc:
        keep = True
        print(f"cfnet demo: {exc}", file=sys.stderr)
        return 1
    finally:
        demo.children.stop()
        if temporary and not keep:
            shutil.rmtree(home, ignore_errors=True)
        elif keep and temporary:
            print(f"cfnet demo: every seat's state and output is kept in {home}", file=sys.stderr)
