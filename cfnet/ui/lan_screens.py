"""A person at the keyboard plays a LAN game: the table browser, the lobby, the game screen.

`LanClient(settings).run()` is `cfnet play`: the tables mDNS finds, listed live; host one, join
the selected one or one by address; wait in the lobby until the table starts; play it in the
`GameScreen`. `SeatScreens` (the lobby, then the game screen) is what `cfnet host` and
`cfnet join` show a person. Every screen is full-screen prompt_toolkit, 80x24 up.
"""

from __future__ import annotations

import asyncio
import textwrap
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, VSplit, Window, WindowAlign
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.processors import BeforeInput, ConditionalProcessor, PasswordProcessor
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import DynamicStyle, Style

from cfnet.disk.store import load_identity, prepare_home
from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.game.bots import BOT_STRATEGIES
from cfnet.game.rules import MAX_PLAYERS, MIN_PLAYERS, RuleOptionError, RuleOptions
from cfnet.game.text import WIDTH, score_lines
from cfnet.net.address import parse_host_port
from cfnet.net.discovery import Discovery, TableBrowser, TableInfo, check_name
from cfnet.net.lobby import LobbyEvent, Seating, TableOpened
from cfnet.net.roster import Roster
from cfnet.protocol.wire import MAX_NAME_CHARS
from cfnet.record.identity import Identity, fingerprint
from cfnet.seat.config import HostConfig, JoinConfig, PeerConfig
from cfnet.seat.host import check_host, host
from cfnet.seat.join import join as join_table
from cfnet.seat.net_game import NetGame
from cfnet.seat.seating import AddBot, player_name
from cfnet.seat.session import GameAborted, GameEnded, SessionEvent
from cfnet.ui.game_screen import GameScreen
from cfnet.ui.spectate import Spectator
from cfnet.ui.styles import COLOUR, MONOCHROME, Line, Pane, scroll_to
from cfnet.ui.watching import watch_found

LOG_ROWS = 4


@dataclass(frozen=True, slots=True)
class Terminal:
    """Where the screens read keys and draw (None: this process's terminal)."""

    input: Input | None = None
    output: Output | None = None
    color_depth: ColorDepth | None = None


class LeftTable(LocalProtocolError):
    """The person left the table before it started."""


class _Page:
    """A full-screen page: title bar, a body that scrolls to its focus row, recent messages,
    feedback, an input line (which may ask a question) and a key reminder."""

    def __init__(self, terminal: Terminal, refresh: float | None = None) -> None:
        self.log: list[tuple[str, str]] = []
        self.feedback: tuple[str, str] = ("", "")
        self.lines_typed = 0  # tests wait on it
        self.question: _Question | None = None
        self._top = 0
        self.input = Buffer(multiline=False, accept_handler=self._accept)
        self.app: Application[None] = Application(
            layout=Layout(self._layout(), focused_element=self.input),
            key_bindings=self._keys(),
            style=DynamicStyle(self._style),
            full_screen=True,
            input=terminal.input,
            output=terminal.output,
            color_depth=terminal.color_depth or ColorDepth.from_env(),  # NO_COLOR: plain
            refresh_interval=refresh,
        )

    # -- what a page shows and does

    def title(self) -> str:
        raise NotImplementedError

    def body(self) -> tuple[list[Line], int]:
        """The body's rows and the row to keep in view."""
        raise NotImplementedError

    def toolbar(self) -> str:
        raise NotImplementedError

    def command(self, text: str) -> None:
        """Act on a typed line that answers no question."""
        raise NotImplementedError

    def cancel(self) -> None:
        """Ctrl-C / Ctrl-D with no question asked."""
        raise NotImplementedError

    # -- shared behaviour

    def say(self, text: str) -> None:
        """Add a message (wrapped) to the page's log."""
        for row in textwrap.wrap(text, WIDTH, subsequent_indent="    "):
            self.log.append(("", row))
        self.app.invalidate()

    def error(self, text: str) -> None:
        self.feedback = ("class:error", f"✗ {text}")

    def info(self, text: str) -> None:
        self.feedback = ("class:info", text)

    def ask(self, question: _Question) -> None:
        self.question = question
        self.input.reset()
        if question.note:
            self.info(question.note)

    def _accept(self, buffer: Buffer) -> bool:
        text = buffer.text
        self.lines_typed += 1
        question = self.question
        if question is None:
            self.feedback = ("", "")
            try:
                self.command(text.strip())
            except (ValueError, LocalProtocolError) as exc:
                self.error(str(exc))
            return False
        answer = text.strip() or question.default
        try:
            self.question = None
            self.feedback = ("", "")
            question.answer(answer)
        except (ValueError, LocalProtocolError) as exc:
            self.question = question  # ask again
            self.error(str(exc))
        return False

    def _keys(self) -> KeyBindings:
        keys = KeyBindings()

        @keys.add("c-c")
        @keys.add("c-d")
        def _cancel(event: KeyPressEvent) -> None:
            if self.question is not None:
                self._drop_question()
            else:
                self.cancel()

        @keys.add("escape", eager=True)
        def _escape(event: KeyPressEvent) -> None:
            if self.question is not None:
                self._drop_question()

        self.more_keys(keys)
        return keys

    def more_keys(self, keys: KeyBindings) -> None:
        """Add the page's own keys."""

    def _drop_question(self) -> None:
        self.question = None
        self.input.reset()
        self.info("Cancelled.")

    def _style(self) -> Style:
        return MONOCHROME if self.app.color_depth is ColorDepth.DEPTH_1_BIT else COLOUR

    def _label(self) -> str:
        return "> " if self.question is None else f"{self.question.label}: "

    def _layout(self) -> HSplit:
        def text(get: Callable[[], Line], align: WindowAlign = WindowAlign.LEFT) -> Window:
            return Window(FormattedTextControl(get), dont_extend_height=True, align=align)

        secret = Condition(lambda: self.question is not None and self.question.secret)
        field = BufferControl(
            self.input,
            input_processors=[
                ConditionalProcessor(PasswordProcessor(), secret),
                BeforeInput(self._label, style="class:title"),
            ],
        )
        return HSplit(
            [
                VSplit([text(lambda: [("", f" {self.title()}")])], style="class:status"),
                Window(Pane(self._body_lines, self._follow), height=Dimension(min=3, weight=1)),
                text(lambda: [("class:rule", "── messages " + "─" * (WIDTH - 12))]),
                Window(FormattedTextControl(self._recent), height=LOG_ROWS),
                ConditionalContainer(
                    text(self._feedback), Condition(lambda: bool(self.feedback[1]))
                ),
                Window(field, height=1),
                text(lambda: [("class:toolbar", self.toolbar())]),
            ]
        )

    def _body_lines(self) -> list[Line]:
        return self.body()[0]

    def _follow(self, total: int, rows: int) -> int:
        """Scroll just enough to keep the focus row in view."""
        self._top = scroll_to(self._top, self.body()[1], total, rows)
        return self._top

    def _recent(self) -> Line:
        rows: Line = []
        for i, entry in enumerate(self.log[-LOG_ROWS:]):
            if i:
                rows.append(("", "\n"))
            rows.append(entry)
        return rows

    def _feedback(self) -> Line:
        style, text = self.feedback
        return [(style, textwrap.fill(text, WIDTH, subsequent_indent="  "))]

    def text(self) -> str:
        """The page as plain text (tests): title, body, messages, feedback, prompt."""
        parts = [self.title(), *("".join(t[1] for t in row) for row in self.body()[0])]
        parts += [text for _, text in self.log[-LOG_ROWS:]]
        parts += [self.feedback[1], self._label() + self.input.text]
        return "\n".join(parts)


@dataclass(frozen=True, slots=True)
class _Question:
    """A question in the input line: `answer` gets the reply (or `default` for an empty one);
    a ValueError or LocalProtocolError it raises is shown, and the question asked again."""

    label: str
    answer: Callable[[str], None]
    default: str = ""
    note: str = ""
    secret: bool = False


# ---------------------------------------------------------------------- the browser


@dataclass(frozen=True, slots=True)
class HostTable:
    """The person chose to host: the table's name, seats, rules, join code, computer players."""

    name: str
    seats: int
    rules: tuple[str, ...]
    code: str | None
    bots: int
    bot_strategy: str = "greedy"


@dataclass(frozen=True, slots=True)
class JoinTable:
    """The person chose a table: one the browser found, or an address; with its join code."""

    found: TableInfo | None
    address: tuple[str, int] | None
    code: str | None


@dataclass(frozen=True, slots=True)
class WatchTable:
    """The person chose to watch a listed table (with its join code, if it has one)."""

    found: TableInfo
    code: str | None


Choice = HostTable | JoinTable | WatchTable

BROWSER_KEYS = "↑↓ select · Enter join · w watch · h host · c HOST:PORT · r refresh · q quit"


def _number(text: str, low: int, high: int, what: str) -> int:
    if not text.isdecimal() or not low <= int(text) <= high:
        raise ValueError(f"{text!r}: {what} is a number from {low} to {high}")
    return int(text)


class BrowserScreen(_Page):
    """The tables on the LAN, updated live; `await run()` returns what the person chose (None:
    quit)."""

    def __init__(
        self,
        discovery: Discovery,
        player: str,
        terminal: Terminal,
        where: str = "",
        note: tuple[str, str] = ("", ""),
    ) -> None:
        super().__init__(terminal, refresh=0.25)  # the list follows mDNS as it changes
        self._discovery = discovery
        self.browser: TableBrowser = discovery.browse()
        self.player = player
        self.where = where
        self.selected: str | None = None  # the selected table's mDNS instance name
        self.feedback = note
        self.choice: Choice | None = None
        self._form = HostTable("", 4, (), None, 0)  # the answers so far

    async def run(self) -> Choice | None:
        self.choice = None
        await self.app.run_async()
        return self.choice

    def tables(self) -> list[TableInfo]:
        """The tables listed, in the order shown."""
        return sorted(
            self.browser.tables.values(), key=lambda t: (t.name.casefold(), t.host, t.instance)
        )

    def _selection(self) -> tuple[list[TableInfo], int]:
        tables = self.tables()
        names = [t.instance for t in tables]
        if self.selected not in names:
            self.selected = names[0] if names else None
        return tables, names.index(self.selected) if self.selected in names else -1

    def title(self) -> str:
        where = f" via {self.where}" if self.where else ""
        return f"cfnet · tables on the LAN{where} · you are {self.player}"

    def body(self) -> tuple[list[Line], int]:
        tables, chosen = self._selection()
        if not tables:
            return [
                [("", "Looking for tables on the LAN… none seen yet.")],
                [("", "")],
                [("", "h: host a table here. c HOST:PORT: join a table by its address,")],
                [("", "where multicast does not reach (the host's screen shows it).")],
            ], 0
        head = f"   {'#':>2}  {'TABLE':<22} {'HOST':<12} {'SEATS':<6} {'RULES':<25} CODE"
        rows: list[Line] = [[("class:title", head)]]
        names = Counter(table.name for table in tables)
        for i, table in enumerate(tables):
            rules = table.rules
            trains = rules.trains_needed(table.seats)
            blank = " 0-0=50" if rules.double_blank_50 else ""
            about = table.incompatible or f"{rules.rounds} round{_s(rules.rounds)}, {trains} trains"
            host = table.host[:12]
            if names[table.name] > 1:  # namesakes: told apart by their host keys
                host = f"{table.host[:7]} {table.fingerprint[:4]}"
            text = (
                f"{'▶' if i == chosen else ' '}  {i + 1:>2}  {table.name[:22]:<22} "
                f"{host:<12} {f'{table.taken}/{table.seats}':<6} "
                f"{about + ('' if table.incompatible else blank):<25} "
                f"{'yes' if table.code else ''}"
            )
            styles = ["class:selected"] if i == chosen else []
            styles += ["class:more"] if table.incompatible else []  # dimmed: it cannot be joined
            rows.append([(" ".join(styles), text)])
        if 0 <= chosen < len(tables):
            table = tables[chosen]
            rows.append([("", "")])
            rows.append([("", f"   host key {table.fingerprint} at {table.address}:{table.port}")])
            namesakes = names[table.name]
            also = f" · {namesakes} tables have this name: check the key" if namesakes > 1 else ""
            rows.append([("", f"   each seat has {table.timeout_text} to answer{also}")])
        return rows, chosen + 1

    def toolbar(self) -> str:
        if self.question is not None:
            return "Enter: the default in [brackets] · Esc: cancel"
        return BROWSER_KEYS

    def more_keys(self, keys: KeyBindings) -> None:
        @keys.add("up")
        def _up(event: KeyPressEvent) -> None:
            self._move(-1)

        @keys.add("down")
        def _down(event: KeyPressEvent) -> None:
            self._move(1)

    def _move(self, step: int) -> None:
        tables, chosen = self._selection()
        if tables:
            self.selected = tables[max(0, min(len(tables) - 1, chosen + step))].instance

    def cancel(self) -> None:
        self.app.exit()

    def command(self, text: str) -> None:
        words = text.split()
        word = words[0].lower() if words else "join"
        rest = words[1:]
        if word in ("q", "quit", "exit"):
            self.app.exit()
        elif word in ("j", "join") or word.isdecimal():
            self._join_listed(int(word) if word.isdecimal() else None)
        elif word in ("w", "watch"):
            self._watch_listed()
        elif word in ("h", "host"):
            self._ask_host()
        elif word in ("c", "connect"):
            if rest:
                self._connect(" ".join(rest))
            else:
                self.ask(_Question("Address (HOST:PORT)", self._connect))
        elif word in ("r", "refresh"):
            self.browser = self._discovery.browse()
            self.info("Looking again: the list fills as tables answer.")
        elif word in ("?", "help"):
            self.info(f"Keys: {BROWSER_KEYS}. A number joins that table.")
        else:
            self.error(f"{text!r} is not a command here: {BROWSER_KEYS}")

    def _join_listed(self, number: int | None) -> None:
        tables, chosen = self._selection()
        if not tables:
            self.error("no table is listed yet: host one (h), or join by address (c HOST:PORT)")
            return
        index = chosen if number is None else number - 1
        if not 0 <= index < len(tables):
            self.error(f"there is no table {number}: choose 1 to {len(tables)}")
            return
        table = tables[index]
        self.selected = table.instance
        if table.refusal is not None:
            self.error(table.refusal)
        elif table.free <= 0:
            self.error(f"table {table.name!r} is full: choose another, or host one")
        elif table.code:
            self.ask(
                _Question(
                    f"Join code for {table.name[:30]!r}",
                    lambda code: self._choose(JoinTable(table, None, _code(code, True))),
                    secret=True,
                    note="This table lets in only those who know its code: ask its host.",
                )
            )
        else:
            self._choose(JoinTable(table, None, None))

    def _watch_listed(self) -> None:
        """Watch the selected table (cfnet watch), asking its join code if it has one."""
        tables, chosen = self._selection()
        if not 0 <= chosen < len(tables):
            self.error("no table is listed yet: there is nothing to watch")
            return
        table = tables[chosen]
        if table.refusal is not None:
            self.error(table.refusal)
        elif table.code:
            self.ask(
                _Question(
                    f"Join code to watch {table.name[:24]!r}",
                    lambda code: self._choose(WatchTable(table, _code(code, True))),
                    secret=True,
                    note="This table lets in only those who know its code, watchers too.",
                )
            )
        else:
            self._choose(WatchTable(table, None))

    def _connect(self, text: str) -> None:
        address = parse_host_port(text)
        self.ask(
            _Question(
                "Join code [none]",
                lambda code: self._choose(JoinTable(None, address, _code(code, False))),
                secret=True,
                note=f"Joining {address[0]}:{address[1]}: type the table's join code, if any.",
            )
        )

    def _choose(self, choice: Choice) -> None:
        self.choice = choice
        self.app.exit()

    # -- hosting: five questions, each with a default

    def _ask_host(self) -> None:
        default = f"{self.player}'s table"[:MAX_NAME_CHARS].strip()
        self.ask(_Question(f"Table name [{default}]", self._host_name, default))

    def _host_name(self, text: str) -> None:
        self._form = replace(self._form, name=check_name(text))
        self.ask(
            _Question(
                f"Seats, {MIN_PLAYERS} to {MAX_PLAYERS} [4]",
                self._host_seats,
                "4",
                "How many players, you included.",
            )
        )

    def _host_seats(self, text: str) -> None:
        self._form = replace(self._form, seats=_number(text, MIN_PLAYERS, MAX_PLAYERS, "seats"))
        default = RuleOptions().describe()
        self.ask(
            _Question(
                "Rules [defaults]",
                self._host_rules,
                "",
                f"NAME=VALUE ...: rounds=1..10, start_trains=N..8, double_blank_50=on|off. "
                f"Enter: {default}",
            )
        )

    def _host_rules(self, text: str) -> None:
        options = RuleOptions()
        try:
            for item in text.split():
                options = options.with_assignment(item)
            options.check(self._form.seats)
        except RuleOptionError as exc:
            raise ValueError(str(exc)) from None
        self._form = replace(self._form, rules=tuple(text.split()))
        self.ask(
            _Question(
                "Join code [none]",
                self._host_code,
                note="Only players who type this code may sit (it is never sent). Enter: none.",
            )
        )

    def _host_code(self, text: str) -> None:
        self._form = replace(self._form, code=_code(text, False))
        self.ask(
            _Question(
                f"Computer players, 0 to {self._form.seats - 1} [0]",
                self._host_bots,
                "0",
                "They sit at once; more can be added in the lobby. A strategy may follow: "
                f"2 expert ({', '.join(BOT_STRATEGIES)}; default greedy).",
            )
        )

    def _host_bots(self, text: str) -> None:
        bots, strategy = computer_players(text, self._form.seats - 1)
        self._choose(replace(self._form, bots=bots, bot_strategy=strategy))


def computer_players(text: str, most: int) -> tuple[int, str]:
    """Read the host form's answer `K [STRATEGY]` (0..`most` players, default greedy);
    ValueError says what is allowed."""
    count, _, strategy = text.strip().partition(" ")
    bots = _number(count or "0", 0, most, "computer players")
    strategy = strategy.strip().lower() or "greedy"
    if strategy not in BOT_STRATEGIES:
        raise ValueError(f"{strategy!r}: a computer player is one of {', '.join(BOT_STRATEGIES)}")
    return bots, strategy


def _s(count: int) -> str:
    return "" if count == 1 else "s"


def _code(text: str, required: bool) -> str | None:
    code = text.strip()
    if not code and required:
        raise ValueError("this table needs its join code: ask its host (Esc: cancel)")
    return code or None


# ---------------------------------------------------------------------- the lobby


class LobbyScreen(_Page):
    """Who sits where, live, until the table starts; the host may seat computer players."""

    def __init__(self, terminal: Terminal, table: str = "", timeout: int | None = None) -> None:
        """`timeout`: the table's, if known."""
        super().__init__(terminal)
        self.table = table
        self.timeout = timeout
        self.names: list[tuple[str, bytes]] = []
        self.seats = 0
        self.me = b""
        self.left = False
        self._add_bot: AddBot | None = None
        self._bots: list[bytes] = []  # the keys of the computer players started here

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
            raise LeftTable("you left the table before it started")
        return task.result()

    def roster(self, names: list[tuple[str, bytes]], seats: int) -> None:
        self.names, self.seats = list(names), seats
        self.app.invalidate()

    @property
    def full(self) -> bool:
        return self.seats > 0 and len(self.names) >= self.seats

    def _hosting(self) -> bool:
        return self._add_bot is not None

    def title(self) -> str:
        name = f" · {self.table}" if self.table else ""
        return f"cfnet · lobby{name}"

    def body(self) -> tuple[list[Line], int]:
        if not self.seats:
            return [[("", "Taking a seat…")]], 0
        rows: list[Line] = [[("class:title", f"Seats: {len(self.names)} of {self.seats} taken")]]
        coming = self._pending_bots()
        for seat in range(self.seats):
            if seat < len(self.names):
                name, key = self.names[seat]
                marks = ["host"] if seat == 0 else []
                marks += ["you"] if key == self.me else []
                mark = f"  ({', '.join(marks)})" if marks else ""
                style = "class:title" if key == self.me else ""
                rows.append([(style, f"  {seat}  {name[:24]:<24} {fingerprint(key)}{mark}")])
            elif seat < len(self.names) + coming:
                rows.append([("class:more", f"  {seat}  (free: a computer player is coming)")])
            else:
                rows.append([("class:more", f"  {seat}  (free)")])
        rows.append([("", "")])
        if self.full:
            rows.append([("class:banner", "Every seat is taken: the table is starting…")])
        else:
            free = self.seats - len(self.names)
            rows.append([("", f"Waiting for {free} more player{_s(free)}.")])
            rows.append([("", "The game starts as soon as every seat is taken.")])
        if self.timeout is not None:
            rows.append([("", f"Each seat has {self.timeout} s to answer (the table's timeout).")])
        return rows, 0

    def toolbar(self) -> str:
        if self._hosting():
            return "bot: seat a computer player · start: fill the seats and start · leave"
        return "leave: give up your seat"

    def cancel(self) -> None:
        self.command("leave")

    def command(self, text: str) -> None:
        word = text.lower()
        if not word:  # an empty Enter: nothing to do
            return
        if word in ("l", "leave", "q", "quit", "exit"):
            if self.full:
                self.error("the table is starting: quit from the game screen instead")
                return
            self.left = True
            self.app.exit()
        elif word in ("b", "bot", "s", "start") and self._add_bot is not None:
            free = self.seats - len(self.names) - self._pending_bots()
            if free <= 0:
                self.error("every free seat has a player or a computer player on its way")
                return
            for _ in range(free if word in ("s", "start") else 1):
                self._bots.append(self._add_bot())
            self.info("Computer players are on their way to their seats.")
        else:
            allowed = "bot, start or leave" if self._hosting() else "leave"
            self.error(f"{text!r} is not a lobby command: type {allowed}")

    def _pending_bots(self) -> int:
        seated = {key for _, key in self.names}
        return sum(key not in seated for key in self._bots)


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
        """The game screen until the person leaves it; 3 if the game was aborted."""
        terminal = self.terminal
        self.game = GameScreen(game, terminal.input, terminal.output, terminal.color_depth)
        code = await self.game.run()
        result = game.result
        if isinstance(result, GameEnded):
            winners = " and ".join(game.names[s] for s in result.winners)
            print(f"cfnet: table {game.table.name!r} is over; the winner: {winners}")
            print("\n".join(score_lines(game.game, game.names)))
        elif isinstance(result, GameAborted):
            print(f"cfnet: table {game.table.name!r} was aborted: {result.reason}")
            code = code or 3
        else:
            print(f"cfnet: you left table {game.table.name!r} unfinished (cfnet resume goes on)")
        print(f"cfnet: its log is {game.log_path}")
        return code


# ---------------------------------------------------------------------- cfnet play


@dataclass(frozen=True, slots=True)
class Settings:
    """`cfnet play` options: the interface, the state directory, the player's name."""

    interface: str | None = None
    home: Path | None = None
    name: str | None = None


class LanClient:
    """Browser, lobby, game: `await run()` until the person quits or a game is over."""

    def __init__(self, settings: Settings, terminal: Terminal | None = None) -> None:
        self.settings = settings
        self.terminal = terminal or Terminal()
        self.browser: BrowserScreen | None = None
        self.seat: SeatScreens | None = None
        self.watching: Spectator | None = None  # the game watched, if the person chose that

    @property
    def screen(self) -> BrowserScreen | LobbyScreen | GameScreen | None:
        """What the person sees now."""
        return self.browser if self.seat is None else self.seat.current

    async def run(self) -> int:
        settings = self.settings
        home = prepare_home(settings.home)
        identity = load_identity(home)
        peer = PeerConfig(home=home, interface=settings.interface, player=settings.name)
        player = player_name(peer, identity)
        note = ("class:info", f"Your key: {fingerprint(identity.public)}")
        while True:
            async with Discovery(settings.interface) as discovery:
                self.browser = BrowserScreen(
                    discovery, player, self.terminal, settings.interface or "", note
                )
                choice = await self.browser.run()
            if choice is None:
                return 0
            try:
                return await self._sit(choice, peer, home, identity)
            except LeftTable:
                note = ("class:info", "You left the table.")
            except (LocalProtocolError, PeerProtocolError, OSError, TimeoutError) as exc:
                note = ("class:error", f"✗ {exc}")
            finally:
                self.seat = None

    async def _sit(self, choice: Choice, peer: PeerConfig, home: Path, identity: Identity) -> int:
        """Host, join or watch as chosen, through `cfnet host`/`join`/`watch`'s own code."""
        if isinstance(choice, WatchTable):
            self.watching = Spectator()
            found, terminal = choice.found, self.terminal
            return await watch_found(
                identity,
                player_name(peer, identity),
                found,
                choice.code,
                self.watching,
                terminal.input,
                terminal.output,
            )
        if isinstance(choice, HostTable):
            config = HostConfig(
                choice.name,
                peer,
                seats=choice.seats,
                rules=choice.rules,
                code=choice.code,
                bots=choice.bots,
                bot_strategy=choice.bot_strategy,
            )
            config, options = check_host(config)
            title = f"table {config.name!r}"
            self.seat = SeatScreens(self.terminal, title, config.timeout)
            return await host(config, options, home, identity, self.seat)
        join = JoinConfig(peer, connect=choice.address, code=choice.code)
        if choice.found is not None:
            title = f"table {choice.found.name!r}"
        else:
            assert choice.address is not None
            title = f"table at {choice.address[0]}:{choice.address[1]}"
        timeout = None if choice.found is None else choice.found.timeout
        self.seat = SeatScreens(self.terminal, title, timeout=timeout)
        if choice.found is not None:
            found = choice.found
            code = ", join code given" if choice.code else ""
            self.seat.say(
                f"joining {found.name!r} at {found.address}:{found.port}, host {found.host} "
                f"({found.fingerprint}): {found.seats} seats, {found.rules.describe()}{code}"
            )
        return await join_table(join, home, identity, self.seat, choice.found)
