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
import os
import secrets
import shlex
import shutil
import signal
import sys
import tempfile
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from cfnet.cli.main import invocation
from cfnet.cli.options import seconds_type
from cfnet.disk.store import IDENTITY_FILE, load_identity, prepare_home, table_dir
from cfnet.errors import LocalProtocolError, PeerProtocolError, describe
from cfnet.game.bots import make_bot
from cfnet.game.rules import MAX_PLAYERS, MIN_PLAYERS, RuleOptionError, RuleOptions
from cfnet.game.text import (
    points_won_with,
    rounds_text,
    score_lines,
)
from cfnet.lang import N_, _, ngettext, said, word_list
from cfnet.lang.formatting import native_digits
from cfnet.net.lobby import LobbyEvent
from cfnet.protocol.events import GameOver, MoveMade, RoundScored
from cfnet.protocol.testing import derived, sim_entropy
from cfnet.protocol.verify import verify_entries
from cfnet.record.identity import fingerprint
from cfnet.record.logfile import LogFileError, read_log
from cfnet.seat.children import BotConfig, Children
from cfnet.seat.config import HostConfig, PeerConfig
from cfnet.seat.host import Hosting
from cfnet.seat.net_game import NetGame, same_end_exits
from cfnet.seat.process import drain
from cfnet.seat.seating import urandom
from cfnet.seat.session import GameAborted, GameLeft, SessionEvent
from cfnet.seat.signals import catch
from cfnet.ui.game_screen import GameScreen
from cfnet.ui.lines import PlainLines
from cfnet.ui.live_view import LiveView

LOOPBACK = "127.0.0.1"  # the demo never binds or advertises on any other address
BOT_NAMES = ("Ada", "Bob", "Cleo", "Dev", "Eve", "Finn", "Gus")
POLL = 0.05  # how often to look at the children and at whether it is our move
BOT_FIND_WAIT = 30.0  # how long a computer player looks for the table by mDNS
BOT_EXIT_WAIT = 30.0  # after the game, how long the computer players may take to finish

T = TypeVar("T")


class DemoError(Exception):
    """The demo cannot go on: what failed, in words."""


# ---------------------------------------------------------------------- the demo


def _log_destination(name: str) -> Path:
    """Where the demo keeps the game log: the current directory, else the state directory."""
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
        # A seeded demo plays the same game again: its name (in the table entry) is seeded too.
        suffix = (
            secrets.token_hex(3)
            if args.seed is None
            else derived("cfnet/v1/demo-name", args.seed, size=3).hex()
        )
        self.name = f"demo-{suffix}"
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
        catch([signal.SIGTERM], lambda _signum: self._terminate(main))
        if self.args.seed is not None:  # a deal's secrets follow the chain, its keys included
            for seat, home in enumerate([self.home, *self._bot_homes()]):
                _seeded_identity(home, derived("cfnet/v1/demo-identity", self.args.seed, seat))
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
                    _(
                        "--seed {seed} was played with --home {home} already: give another"
                        " --home, or none"
                    ).format(seed=self.args.seed, home=self.home)
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
                opened = ngettext(
                    "table {name} open on {address}:{port} (loopback only), {count} seat",
                    "table {name} open on {address}:{port} (loopback only), {count} seats",
                    self.args.players,
                )
                self.say(
                    opened.format(
                        name=self.name,
                        address=LOOPBACK,
                        port=port,
                        count=native_digits(str(self.args.players)),
                    )
                )
                self.say("  " + _("rules: {rules}").format(rules=self.options.describe()))
                seating = N_("seating the players stopped: {problem}")
                await self._guard(self._start_bots(hosting), seating)
                game = await self._guard(hosting.seat_all(), seating)
            finally:
                leaving = asyncio.create_task(hosting.leave())
            self.game = game
            self._roster(game)
            if self.args.human:
                code = await self._guard(self._human(game), N_("the game stopped: {problem}"))
            else:
                code = await self._guard(self._follow(game), N_("the game stopped: {problem}"))
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
        for name, home in zip(BOT_NAMES, self._bot_homes(), strict=False):
            self._joined.clear()
            hosting.start_bot(
                BotConfig(
                    name,
                    home,
                    table=self.name,
                    wait=BOT_FIND_WAIT,
                    interface=LOOPBACK,
                    seed=self.args.seed,
                )
            )
            started = _("started {name} (process {pid}): cfnet bot {table}, finds it by mDNS")
            pid = hosting.bots.children[-1].process.pid
            self.say(started.format(name=name, pid=native_digits(str(pid)), table=self.name))
            await self._joined.wait()

    def _bot_homes(self) -> list[Path]:
        """The state directory of each computer player, seat 1 on."""
        return [self.home / "bots" / name for name in BOT_NAMES[: self.args.players - 1]]

    def _roster(self, game: NetGame) -> None:
        self.say(_("every seat is taken; each seat signs with its own key:"))
        for seat, info in enumerate(game.table.seats):
            line = (
                _("seat {number}: {name} key {key}  (this process)")
                if seat == game.seat
                else _("seat {number}: {name} key {key}  (its own process)")
            )
            key = fingerprint(info.key)
            number = native_digits(str(seat))
            self.say("  " + line.format(number=number, name=f"{info.name:<6}", key=key))

    async def _guard(self, work: Awaitable[T], stopped: str) -> T:
        """Await `work`, stopping it with a DemoError naming the child that failed, if any
        (`stopped`: the marked sentence that says so, with a `{problem}`)."""
        task = asyncio.ensure_future(work)
        try:
            while True:
                done, _pending = await asyncio.wait({task}, timeout=POLL)
                if done:
                    return task.result()
                problem = self.children.failed()
                if problem is not None:
                    raise DemoError(_(stopped).format(problem=problem))
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
        if finished:  # the computer players finish too, with the same end
            fine = same_end_exits(game.table.over)
            problem = self.children.wait(BOT_EXIT_WAIT, fine)
        else:  # they would wait for this seat until the table's timeout
            problem = None
            self.children.stop()
        result = game.result
        names = game.names
        self.say("")
        if isinstance(result, GameOver):
            if game.resigned:  # leaving concedes (RULES.md)
                self.say(_("you resigned: you concede, and the game ended there for every seat"))
            played = len(game.game.round_scores)
            self.say(_("game over after {rounds}:").format(rounds=rounds_text(played)))
            for row in score_lines(game.game, names):
                self.say(f"  {row}")
            winners = ngettext(
                "winner: {names} with {points}",
                "winners: {names} with {points}",
                len(result.winners),
            )
            who = word_list([names[s] for s in result.winners])
            score = points_won_with(result.totals[result.winners[0]])
            self.say(winners.format(names=who, points=score))
        elif isinstance(result, GameAborted | GameLeft) and game.resigned:
            self.say(_("you resigned: the game ended there for every seat"))
        elif isinstance(result, GameAborted):
            self.say(_("the game was aborted: {reason}").format(reason=result.reason))
        else:
            self.say(_("the game stopped before its end; the computer players were stopped"))
        destination = self._keep_log()
        entries = read_log(destination)
        verdict = verify_entries(entries)
        count, why = len(entries), said(verdict.problem)
        shown = native_digits(str(count))
        if verdict.ok:
            self.say(
                ngettext(
                    "verified: the log is a complete, valid game ({count} entry)",
                    "verified: the log is a complete, valid game ({count} entries)",
                    count,
                ).format(count=shown)
            )
            checked = _("every signature, shuffle, key and move checked, as `cfnet verify` does")
            self.say(f"  {checked}")
        elif verdict.valid and finished:
            self.say(
                ngettext(
                    "checked: a valid log, the game unfinished ({count} entry)",
                    "checked: a valid log, the game unfinished ({count} entries)",
                    count,
                ).format(count=shown)
            )
            self.say(f"  {why}")
        elif finished:
            self.say(
                ngettext(
                    "NOT verified ({count} entry): {problem}",
                    "NOT verified ({count} entries): {problem}",
                    count,
                ).format(count=shown, problem=why)
            )
        else:
            self.say(
                ngettext(
                    "the log ends before the game does ({count} entry)",
                    "the log ends before the game does ({count} entries)",
                    count,
                ).format(count=shown)
            )
        self.say(_("log saved: {file}").format(file=destination))
        check = f"{invocation()} verify {shlex.quote(str(destination))}"
        self.say(_("check it yourself: {command}").format(command=check))
        if problem is not None:
            raise DemoError(problem)
        if not finished or game.resigned:
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
        raise argparse.ArgumentTypeError(
            _("{text!r}: give a whole number, 0 or more").format(text=text)
        )
    return int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players",
        type=int,
        default=4,
        metavar="N",
        help=_("seats at the table, {least}..{most} (default 4)").format(
            least=MIN_PLAYERS, most=MAX_PLAYERS
        ),
    )
    parser.add_argument(
        "--rounds", type=int, default=10, metavar="R", help=_("rounds to play, 1..10 (default 10)")
    )
    parser.add_argument(
        "--seed",
        type=seed,
        default=None,
        metavar="S",
        help=_(
            "play the same game again: every seat's secret randomness is derived from S (for"
            " demos only; by default, and at every real table, each seat draws its own)"
        ),
    )
    parser.add_argument(
        "--human", action="store_true", help=_("you play seat 0 at the keyboard (game screen)")
    )
    parser.add_argument(
        "--delay",
        type=seconds_type(0, 10, zero_ok=True),
        default=0.1,
        metavar="SECONDS",
        help=_("pause after each move so you can follow (default 0.1; 0: full speed)"),
    )
    parser.add_argument(
        "--home",
        type=Path,
        default=None,
        metavar="DIR",
        help=_("state directory of every seat (default: a temporary one, removed at the end)"),
    )


def run(args: argparse.Namespace) -> int:
    try:
        options = RuleOptions().with_assignment(f"rounds={args.rounds}")
        options.check(args.players)
    except RuleOptionError as exc:
        print(f"cfnet demo: {describe(exc)}", file=sys.stderr)
        return 2
    if args.human and not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(_("cfnet demo: --human needs a terminal for the game screen"), file=sys.stderr)
        return 2
    temporary = args.home is None
    home = prepare_home(Path(tempfile.mkdtemp(prefix="cfnet-demo-")) if temporary else args.home)
    demo = Demo(args, options, home)
    keep = False
    try:
        return asyncio.run(demo.run())
    except (KeyboardInterrupt, asyncio.CancelledError):
        how = (
            _("cfnet demo: terminated; stopping the computer players")
            if demo.terminated
            else _("cfnet demo: interrupted; stopping the computer players")
        )
        print(f"\n{how}", file=sys.stderr)
        return 128 + (signal.SIGTERM if demo.terminated else signal.SIGINT)
    except DemoError as exc:
        keep = True
        print(f"cfnet demo: {describe(exc)}", file=sys.stderr)
        return 1
    except (LocalProtocolError, PeerProtocolError, LogFileError, OSError) as exc:
        keep = True
        print(f"cfnet demo: {describe(exc)}", file=sys.stderr)
        return 1
    finally:
        demo.children.stop()
        if temporary and not keep:
            shutil.rmtree(home, ignore_errors=True)
        elif keep and temporary:
            kept = _("cfnet demo: every seat's state and output is kept in {home}")
            print(kept.format(home=home), file=sys.stderr)


def _seeded_identity(home: Path, seed: bytes) -> None:
    """Give `home` the identity key with this private seed (a seeded demo only: the seed is
    public, so are these keys), unless it has one already."""
    path = home / IDENTITY_FILE
    if not path.exists():
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_bytes(seed)
        path.chmod(0o600)
