"""The lobby screen (who sits where, until the table starts) and `SeatScreens`: what `cfnet host`
and `cfnet join` show a person, the lobby then the game screen."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Sequence

from cfnet.game.text import (
    SENTENCE_CHARS,
    WIDTH,
    clock,
    columns,
    escaped,
    fit,
    left_line,
    pad,
    score_lines,
    seat_name,
)
from cfnet.lang import N_, _, digits, ngettext, word_list
from cfnet.lang.bidi import visual
from cfnet.lang.typed import normalise
from cfnet.net.lobby import LobbyEvent, Seating, TableOpened
from cfnet.net.roster import Roster
from cfnet.protocol.events import GameOver
from cfnet.record.identity import fingerprint
from cfnet.seat.net_game import NO_RESULT_EXIT, NetGame
from cfnet.seat.seating import AddBot
from cfnet.seat.session import GameAborted, GameLeft, SessionEvent
from cfnet.ui.game_screen import GameScreen
from cfnet.ui.page import LeftTable, Page, Terminal
from cfnet.ui.rule_book import rule_book_lines
from cfnet.ui.styles import Line, wrapped_line

HOST_HELP = N_(
    "bot seats a computer player in a free seat; start seats computer players in every free"
    " seat, and the game starts; leave, or Ctrl-C in one key, gives up the table; rules shows"
    " the rule book; help shows this."
)
GUEST_HELP = N_(
    "leave, or Ctrl-C in one key, gives up your seat; rules shows the rule book; help shows this."
)


class LobbyScreen(Page):
    """Who sits where, live, until the table starts; the host may seat computer players."""

    def __init__(self, terminal: Terminal, table: str = "", timeout: int | None = None) -> None:
        """`timeout`: the table's, if known."""
        super().__init__(terminal, refresh=1.0)  # how long the free seats have waited ticks
        self.table = table
        self.timeout = timeout
        self.names: list[tuple[str, bytes]] = []
        self.seats = 0
        self.me = b""
        self.left = False
        self._add_bot: AddBot | None = None
        self._bots: list[bytes] = []  # the keys of the computer players started here
        self._free_since: dict[int, float] = {}  # each free seat: when it was last seen taken
        self.reading_rules = False  # the body shows the rule book instead of the seats

    async def seat(
        self,
        seating: Awaitable[Seating],
        add_bot: AddBot | None,
        me: bytes,
        bots: Sequence[bytes] = (),
    ) -> Seating:
        """Show the lobby while `seating` runs (`bots`: the computer players started with the
        table, on their way to a seat); its result, or LeftTable if the person left."""
        self._add_bot, self.me, self._bots = add_bot, me, list(bots)
        task = asyncio.ensure_future(seating)

        def done(_: object) -> None:
            if self.app.is_running and not self.app.is_done:
                self.app.exit()

        try:
            await self.app.run_async(pre_run=lambda: task.add_done_callback(done))
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if task.cancelled() or (self.left and task.exception() is not None):
            if self._hosting():
                raise LeftTable(_("you gave up the table before it started"))
            if not self.seats:  # no roster came: no seat was ours
                raise LeftTable(_("you stopped before taking a seat: nothing was joined"))
            raise LeftTable(_("you left the table before it started"))
        return task.result()

    def roster(self, names: list[tuple[str, bytes]], seats: int) -> None:
        self.names, self.seats = list(names), seats
        now = time.monotonic()
        free = range(len(self.names), seats)
        self._free_since = {seat: self._free_since.get(seat, now) for seat in free}
        self.app.invalidate()

    @property
    def full(self) -> bool:
        return self.seats > 0 and len(self.names) >= self.seats

    def _hosting(self) -> bool:
        return self._add_bot is not None

    def title(self) -> str:
        if self.table:
            return _("cfnet · lobby · {table}").format(table=self.table)
        return _("cfnet · lobby")

    def body(self, width: int = WIDTH) -> tuple[list[Line], int]:
        if self.reading_rules:
            return [[("", line)] for line in rule_book_lines(width)], -1
        if not self.seats:
            return [[("", _("Taking a seat…"))]], 0
        taken = _("Seats: {count} of {seats} taken").format(
            count=digits(len(self.names)), seats=digits(self.seats)
        )
        rows: list[Line] = [[("class:title", taken)]]
        coming = self._pending_bots()
        names = [escaped(name) for name, _key in self.names]
        marks = max(columns(_seat_mark(True, True)), columns(_seat_mark(True, False)))
        room = width - len("  0  ") - len(" xxxx-xxxx-xxxx-xxxx") - marks
        name_width = min(max(24, *(columns(name) for name in names)), max(8, room))
        now = time.monotonic()
        for seat in range(self.seats):
            if seat < len(self.names):
                key = self.names[seat][1]
                mark = _seat_mark(seat == 0, key == self.me)
                style = "class:title" if key == self.me else ""
                name = pad(fit(names[seat], name_width), name_width)
                rows.append([(style, f"  {digits(seat)}  {name} {fingerprint(key)}{mark}")])
            elif seat < len(self.names) + coming:
                free = _("(free: a computer player is coming)")
                rows.append([("class:more", f"  {digits(seat)}  {free}")])
            elif self._hosting():
                waited = clock(now - self._free_since.get(seat, now))
                free = _("(free for {clock})").format(clock=waited)
                rows.append([("class:more", f"  {digits(seat)}  {free}")])
            else:
                free = _("(free)")
                rows.append([("class:more", f"  {digits(seat)}  {free}")])
        rows.append([("", "")])
        if self.full:
            rows.append([("class:banner", _("Every seat is taken: the table is starting…"))])
        else:
            free_seats = self.seats - len(self.names)
            waiting = ngettext(
                "Waiting for {count} more player.", "Waiting for {count} more players.", free_seats
            )
            rows += wrapped_line("", waiting.format(count=digits(free_seats)), width)
            rows += wrapped_line("", _("The game starts as soon as every seat is taken."), width)
        if self.timeout is not None:
            answer = _("Each seat has {seconds} s to answer (the table's timeout).")
            rows += wrapped_line("", answer.format(seconds=digits(self.timeout)), width)
        return rows, 0

    def toolbar(self, width: int = WIDTH) -> str:
        if self._hosting():
            keys = (
                _("bot · start · rules · help · leave or Ctrl-C: give up the table"),
                _("bot · start · rules · help · leave"),
            )
        else:
            keys = (
                _("rules · help · leave or Ctrl-C: give up your seat"),
                _("rules · help · leave"),
            )
        return keys[0] if columns(keys[0]) <= width else keys[1]

    def cancel(self) -> None:
        self.command("leave")

    def back(self) -> None:
        """Esc: from the rule book back to the seats."""
        if self.reading_rules:
            self.reading_rules = False
            self.info("")

    def command(self, text: str) -> None:
        word = normalise(text).lower()
        if not word:  # an empty Enter: back from the rule book, else nothing to do
            self.back()
            return
        if word == "rules":
            self.reading_rules, self._top = True, 0
            self.info(_("PgUp/PgDn: read on · Esc or Enter: back to the seats"))
        elif word in ("?", "\u061f", "help"):
            self.info(_(HOST_HELP if self._hosting() else GUEST_HELP))
        elif word in ("l", "leave", "q", "quit", "exit"):
            if self.full:
                self.error(_("the table is starting: quit from the game screen instead"))
                return
            self.left = True
            self.app.exit()
        elif word in ("b", "bot", "s", "start") and self._add_bot is not None:
            free = self.seats - len(self.names) - self._pending_bots()
            if free <= 0:
                self.error(_("every free seat has a player or a computer player on its way"))
                return
            for _bot in range(free if word in ("s", "start") else 1):
                self._bots.append(self._add_bot())
            self.info(_("Computer players are on their way to their seats."))
        elif self._hosting():
            self.error(
                _(
                    "{text!r} is not a lobby command: type bot, start or leave (help says what"
                    " each does)"
                ).format(text=text)
            )
        else:
            self.error(
                _("{text!r} is not a lobby command: type leave (help says what it does)").format(
                    text=text
                )
            )

    def _pending_bots(self) -> int:
        seated = {key for _name, key in self.names}
        return sum(key not in seated for key in self._bots)


def _seat_mark(host: bool, you: bool) -> str:
    """What follows a seated player's name in the lobby: `  (host, you)`, `  (you)`, ...."""
    if host and you:
        return "  " + _("(host, you)")
    if host:
        return "  " + _("(host)")
    if you:
        return "  " + _("(you)")
    return ""


def say(line: str) -> None:
    """Print a line after the screens are gone, as it is to be written (`visual` order when
    cfnet does the bidi)."""
    print(visual(line))


class SeatScreens:
    """A person's seat: the lobby screen while seating, then the game screen."""

    def __init__(
        self, terminal: Terminal | None = None, title: str = "", timeout: int | None = None
    ) -> None:
        self.terminal = terminal or Terminal()
        self.screen = LobbyScreen(self.terminal, title, timeout)
        self.game: GameScreen | None = None

    @property
    def current(self) -> LobbyScreen | GameScreen:
        return self.screen if self.game is None else self.game

    def say(self, text: str) -> None:
        """A lobby message, in the lobby screen's messages."""
        self.screen.say(text)

    def lobby(self, event: LobbyEvent) -> None:
        """The lobby screen shows each roster (the host's from the opening of its table)."""
        roster = event.roster if isinstance(event, TableOpened) else event
        if isinstance(roster, Roster):
            self.screen.roster(roster.names, roster.seats)

    async def seat(
        self,
        seating: Awaitable[Seating],
        add_bot: AddBot | None,
        me: bytes,
        bots: Sequence[bytes] = (),
    ) -> Seating:
        return await self.screen.seat(seating, add_bot, me, bots)

    def follow(self, game: NetGame, event: SessionEvent) -> None:
        """Nothing: the game screen takes the game's events from its queue."""

    async def play(self, game: NetGame) -> int:
        """The game screen until the person leaves it; NO_RESULT_EXIT if the game was aborted
        (a person who left a game that goes on leaves with 0)."""
        terminal = self.terminal
        self.game = GameScreen(game, terminal.input, terminal.output, terminal.color_depth)
        code = await self.game.run()
        result = game.result
        if isinstance(result, GameOver):
            winners = word_list([seat_name(game.names, s) for s in result.winners])
            over = ngettext(
                "cfnet: table {table!r} is over; the winner: {names}",
                "cfnet: table {table!r} is over; the winners: {names}",
                len(result.winners),
            )
            say(over.format(table=game.table.name, names=winners))
            print("\n".join(score_lines(game.game, game.names)))
        elif isinstance(result, GameLeft):
            line = left_line(game.table.name, result.how, result.comeback, result.waits)
            print(escaped(line, SENTENCE_CHARS))
        elif isinstance(result, GameAborted) and game.resigned:
            resigned = _("cfnet: you resigned from table {table!r}; the others were told")
            say(resigned.format(table=game.table.name))
        elif isinstance(result, GameAborted):
            reason = escaped(result.reason, SENTENCE_CHARS)
            aborted = _("cfnet: table {table!r} was aborted: {reason}")
            say(aborted.format(table=game.table.name, reason=reason))
            code = code or NO_RESULT_EXIT
        else:
            left = _("cfnet: you left table {table!r} unfinished (cfnet resume goes on)")
            say(left.format(table=game.table.name))
        say(_("cfnet: its log is {path}").format(path=game.log_path))
        return code


# ---------------------------------------------------------------------- cfnet play
