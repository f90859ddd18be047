"""The game screen: a full-screen prompt_toolkit application over a `GameSession` (80x24 up).

Top to bottom: status bar, players, the board (or a panel: help, scores, log, round result),
what to do now, the hand, the numbered legal moves, the latest events, feedback, the input line.
Events from the session are shown as they come, while the player types.
"""

from __future__ import annotations

import asyncio
import re
import textwrap
from collections.abc import Callable, Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
    WindowAlign,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl, UIContent, UIControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import DynamicStyle, Style

from cfnet.game.engine import (
    TOES,
    Draw,
    EndReason,
    Game,
    IllegalMoveError,
    Move,
    Phase,
    Play,
    PlayerView,
)
from cfnet.game.expert_bot import HINT_THINK, ExpertBot
from cfnet.game.text import count, render_board, score_table
from cfnet.game.tiles import a_number
from cfnet.seat.session import (
    GameAborted,
    GameEnded,
    GameSession,
    Moved,
    Notice,
    RoundBegan,
    RoundEnded,
    SessionEvent,
)
from cfnet.ui.move_input import (
    Command,
    InputCompleter,
    InputError,
    numbered_moves,
    parse_input,
    sorted_hand,
)

WIDTH = 80
LOG_ROWS = 4
Line = StyleAndTextTuples

COLOUR = Style.from_dict(
    {
        "status": "bg:ansiblue ansiwhite bold",
        "status.turn": "bg:ansiyellow ansiblack bold",
        "title": "bold",
        "banner": "ansiyellow bold",
        "open": "ansigreen bold",
        "label": "ansicyan bold",
        "tile.playable": "ansigreen bold",
        "tile.drawn": "ansimagenta bold",
        "number": "ansicyan bold",
        "error": "ansired bold",
        "info": "ansigreen",
        "event.mine": "ansicyan",
        "event.round": "bold",
        "more": "ansibrightblack",
        "toolbar": "ansibrightblack",
        "rule": "ansibrightblack",
        "selected": "reverse",
    }
)
MONOCHROME = Style.from_dict(
    {
        "status": "reverse",
        "status.turn": "reverse bold",
        "title": "bold",
        "banner": "bold",
        "open": "bold",
        "label": "bold",
        "tile.playable": "bold",
        "tile.drawn": "underline",
        "number": "bold",
        "error": "bold",
        "selected": "reverse",
    }
)

HELP_TEXT = (
    "How to play: type a move or a command. Tab completes; Up/Down: earlier lines.",
    "  3            the move numbered 3 in the list of your moves",
    "  9-3 b        tile 9-3 on the open end labelled b on the board",
    "  9-3          the tile alone, when it fits one place only",
    "  draw, pass   only when none of your tiles fits (the banner says which)",
    "  hint         what the computer would play   scores    the score table",
    "  log          every event so far             help      this text",
    "  Enter, next  the next round, after a round  quit, leave  leave (asks first)",
    "  Esc          back to the board              PgUp/PgDn scroll this pane",
    "Play when you can; draw only when nothing fits, and play a drawn tile that fits.",
    "A double opens a foot: the next 3 tiles go on it. The lowest total wins.",
)


class Pane(UIControl):
    """Lines that fit the window, from a scroll offset, with a 'more' marker when cut."""

    def __init__(
        self,
        get_lines: Callable[[], list[Line]],
        scroll: Callable[[int, int], int],
        keys: str = "PgUp/PgDn",
    ):
        self._get_lines = get_lines
        self._scroll = scroll
        self._keys = keys

    def create_content(self, width: int, height: int | None) -> UIContent:
        lines = self._get_lines()
        rows = max(1, height or len(lines))
        if len(lines) > rows:
            rows = max(1, rows - 1)
            top = self._scroll(len(lines), rows)
            below = len(lines) - top - rows
            shown = lines[top : top + rows]
            note = f"  ({top} rows above, {below} below: {self._keys} scroll)"
            shown.append([("class:more", note)])
            lines = shown
        return UIContent(get_line=lambda i: lines[i], line_count=len(lines))

    def is_focusable(self) -> bool:
        return False


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def describe_end(reason: EndReason, went_out: int | None, names: Sequence[str]) -> str:
    """Why a round ended, with names."""
    if reason is EndReason.WENT_OUT and went_out is not None:
        return f"{_name(names, went_out)} went out"
    if reason is EndReason.DEAD_FOOT:
        return "blocked: no tile is left that could go on the open foot"
    return "blocked: nobody could play or draw"


def instruction(view: PlayerView, names: Sequence[str], ready: bool = True) -> str:
    """What the local player must do now, or who is to play (e.g. 'Foot on 5-5: 1 of 3 ...').

    `ready`: the table waits for the local player (False while, say, a hand is being opened)."""
    public = view.public
    if public.end_reason is not None:
        return f"Round over: {describe_end(public.end_reason, public.went_out, names)}."
    mine = public.turn == view.seat
    who = "you" if mine else _name(names, public.turn)
    if mine and not ready:
        return "Your turn, as soon as the table has opened your tiles…"
    need = ""
    if public.phase is Phase.FOOT and public.foot is not None:
        foot = public.foot
        down = TOES - public.toes_left
        must = f"{who} must play {a_number(foot.low)}"
        need = f"Foot on {foot.label}: {down} of {TOES} toes; {must}. "
    elif public.phase is Phase.OPENING:
        need = public.requirement()
        need = f"{need[0].upper()}{need[1:]}. "
    if not mine:
        return f"{who} to play. {need}".rstrip()
    moves = view.legal_moves()
    plays = [m for m in moves if isinstance(m, Play)]
    if view.drawn is not None:
        if plays:
            places = ", ".join(m.end for m in plays)
            return f"You drew {view.drawn}: it fits {places}, so you must play it."
        return f"You drew {view.drawn}: it fits nowhere; pass."
    if plays:
        return f"Your turn. {need or 'Play a tile on an open end.'}".rstrip()
    if isinstance(moves[0], Draw):
        return f"Your turn. {need}No tile of yours fits: draw."
    return f"Your turn. {need}Nothing fits and the yard is at its floor: pass."


def score_lines(game: Game, names: Sequence[str]) -> list[str]:
    """The score table with names: one row per round played, then the totals."""
    return score_table(names, list(enumerate(game.round_scores, start=1)), game.totals)


def newest_row(rows: Sequence[str], moves: Sequence[Move]) -> int:
    """The board row showing the last tile played (0: the centre, before any play)."""
    tile = next((m.tile for m in reversed(moves) if isinstance(m, Play)), None)
    if tile is None:
        return 0
    shown = (f"[{tile.high}|{tile.low}]", f"[{tile.low}|{tile.high}]")
    return next((i for i, row in enumerate(rows) if any(s in row for s in shown)), 0)


_BOARD_MARKS = re.compile(r"(-> \d open|[a-z]+: new (?:train|toe), needs a \d|^[├└│ ─]*[a-z]+:)")


def _board_line(text: str) -> Line:
    """A board row with open ends and labels styled."""
    parts: Line = []
    last = 0
    for match in _BOARD_MARKS.finditer(text):
        parts.append(("", text[last : match.start()]))
        style = "class:label" if match.group(0).endswith(":") else "class:open"
        parts.append((style, match.group(0)))
        last = match.end()
    parts.append(("", text[last:]))
    return parts


def _wrap_items(items: Sequence[Line], lead: Line, indent: int, sep: str = "  ") -> list[Line]:
    """`items` after `lead`, separated by `sep`, wrapped into rows of WIDTH columns."""
    rows: list[Line] = [list(lead)]
    used = sum(len(t[1]) for t in lead)
    for item in items:
        size = sum(len(t[1]) for t in item)
        if used + len(sep) + size > WIDTH and used > indent:
            rows.append([("", " " * indent)])
            used = indent
        elif used > indent or rows[-1] is not rows[0]:
            rows[-1].append(("", sep))
            used += len(sep)
        rows[-1].extend(item)
        used += size
    return rows


def _titled(title: str, rows: Sequence[tuple[str, str]]) -> list[Line]:
    lines: list[Line] = [[("class:title", title)]]
    lines.extend([row] for row in rows)
    return lines


def _join(rows: Sequence[Line]) -> Line:
    out: Line = []
    for i, row in enumerate(rows):
        if i:
            out.append(("", "\n"))
        out.extend(row)
    return out


class GameScreen:
    """The interactive game screen for one `GameSession`; `await run()` plays until the end."""

    def __init__(
        self,
        session: GameSession,
        input: Input | None = None,
        output: Output | None = None,
        color_depth: ColorDepth | None = None,
    ) -> None:
        self.session = session
        self.log: list[tuple[str, str]] = []
        self.feedback: tuple[str, str] = ("class:info", "Type help for the commands.")
        self.panel: str | None = None
        self.round_end: RoundEnded | None = None  # set from a round's end to the next deal
        self.results: RoundEnded | None = None  # the last round's, for the results panel
        self.game_end: GameEnded | GameAborted | None = None
        self.confirming_quit = False
        self.lines_typed = 0  # how many lines the player has entered (tests wait on it)
        self._scroll = 0
        self._board_focus = 0  # the board row with the newest tile
        self._follow = True  # scroll the board to it (until the player scrolls himself)
        self._hint = ExpertBot(0, HINT_THINK)
        self.input = Buffer(
            multiline=False,
            history=InMemoryHistory(),
            completer=InputCompleter(lambda: self.session.view),
            accept_handler=self._accept,
        )
        self.app: Application[int] = Application(
            layout=Layout(self._layout(), focused_element=self.input),
            key_bindings=self._keys(),
            style=DynamicStyle(self._style),
            full_screen=True,
            input=input,
            output=output,
            color_depth=color_depth or ColorDepth.from_env(),  # NO_COLOR gives plain text
            refresh_interval=0.25,  # a network session changes between events too
        )

    # -- running

    async def run(self) -> int:
        """Start the session and the screen; returns the exit code when the player leaves."""
        self.session.start()
        consumer = asyncio.get_running_loop().create_task(self._consume())
        try:
            return await self.app.run_async()
        finally:
            consumer.cancel()
            await asyncio.gather(consumer, return_exceptions=True)
            await self.session.close()

    async def _consume(self) -> None:
        """Show each session event as it comes; a failing session ends the screen with its error."""
        try:
            while True:
                self.on_event(await self.session.next_event())
                self.app.invalidate()
        except Exception as error:
            self.app.exit(exception=error)
            raise

    def on_event(self, event: SessionEvent) -> None:
        """Record a session event in the log and the screen's state."""
        names = self.session.names
        me = self.session.seat
        if isinstance(event, Moved | RoundBegan):
            self._follow = True
        if isinstance(event, Moved):
            who = "You" if event.seat == me else _name(names, event.seat)
            style = "class:event.mine" if event.seat == me else ""
            if isinstance(event.move, Play):
                text = f"{who} played {event.move.tile.label} on {event.move.end}"
            elif isinstance(event.move, Draw):
                drawn = f" {event.drawn}" if event.drawn is not None else " a tile"
                text = f"{who} drew{drawn}"
            else:
                text = f"{who} passed"
            self._add(style, text)
        elif isinstance(event, RoundBegan):
            self.round_end = None
            if self.panel == "round":  # the table moved on by itself: let the player read on
                self.feedback = ("class:info", "The next round has begun: Enter shows the board")
            view = self.session.view
            centre = f", centre {view.public.centre}" if view is not None else ""
            starter = (
                "you start" if event.starter == me else f"{_name(names, event.starter)} starts"
            )
            self._add("class:event.round", f"Round {event.round_number} begins{centre}; {starter}")
        elif isinstance(event, RoundEnded):
            self.round_end = self.results = event
            why = describe_end(event.reason, event.went_out, names)
            self._add("class:event.round", f"Round {event.round_number} over: {why}")
            scores = ", ".join(f"{_name(names, s)} {p}" for s, p in enumerate(event.scores))
            self._add("", f"  points: {scores}")
            if event.verified is not None:
                self._add("class:info", f"  {event.verified}")
            self._open("round")
        elif isinstance(event, GameEnded):
            self.game_end = event
            self._add("class:event.round", self._winner_text(event))
            if event.log_path is not None:
                self._add("", f"  log saved to {event.log_path}")
            self._open("round")
        elif isinstance(event, GameAborted):
            self.game_end = event
            self._add("class:error", f"Game aborted: {event.reason}")
        elif isinstance(event, Notice):
            self._add("class:info", event.text)

    def _add(self, style: str, text: str) -> None:
        for row in textwrap.wrap(text, WIDTH, subsequent_indent="    "):
            self.log.append((style, row))

    def _winner_text(self, event: GameEnded) -> str:
        mine = event.winners == (self.session.seat,)
        who = "You" if mine else " and ".join(_name(self.session.names, s) for s in event.winners)
        verb = "win" if mine or len(event.winners) > 1 else "wins"
        best = event.totals[event.winners[0]]
        return f"Game over: {who} {verb} with {count(best, 'point')}"

    # -- input

    def _accept(self, buffer: Buffer) -> bool:
        """Handle one typed line; returns False so the line leaves the input field."""
        self.submit_text(buffer.text)
        return False

    def submit_text(self, text: str) -> None:
        """Act on one line the player typed (a move or a command)."""
        self.lines_typed += 1
        if self.confirming_quit:
            self.confirming_quit = False
            if text.strip().lower() in ("y", "yes", "quit", "leave"):
                self.app.exit(result=0)
                return
            self.feedback = ("class:info", "Staying in the game.")
            return
        if not text.strip():
            self._enter()
            return
        session = self.session
        try:
            parsed = parse_input(text, session.view, session.names)
        except InputError as error:
            self.feedback = ("class:error", f"✗ {error}")
            return
        if isinstance(parsed, Command):
            self._command(parsed.name)
            return
        try:
            session.submit(parsed)
        except IllegalMoveError as error:  # the session knows more than the parser
            self.feedback = ("class:error", f"✗ {error}")
            return
        self.panel = None
        self.feedback = ("", "")  # the move shows in the events

    def _enter(self) -> None:
        """An empty line: leave a panel, go on to the next round, or leave a finished game."""
        if self.game_end is not None:
            self.app.exit(result=0)
        elif self.round_end is not None:
            self.round_end = None
            self._close_panel()
            self.session.ready()
        elif self.panel is not None:
            self._close_panel()
        else:
            self.feedback = ("class:error", "✗ type a move's number, a tile and an end, or help")

    def _command(self, name: str) -> None:
        view = self.session.view
        if name == "quit":
            if self.game_end is not None:
                self.app.exit(result=0)
                return
            self.confirming_quit = True
            self.feedback = (
                "class:error",
                "Leave the game? Type y to leave, anything else to stay.",
            )
        elif name == "next" and self.round_end is not None:
            self._enter()
        elif name == "next":
            self.feedback = ("class:error", "✗ the round is not over yet: play on")
        elif name == "hint":
            if view is None or not self._ready():
                self.feedback = ("class:error", "✗ a hint is for your turn: wait for it")
                return
            advice = self._hint.advise(view)
            number = numbered_moves(view).index(advice.move) + 1
            self.feedback = (
                "class:info",
                f"Hint: the computer would choose {number}) {advice.move}: {advice.reason}",
            )
        else:
            self._open(name)
            self.feedback = ("class:info", "Esc or Enter: back to the board")

    def _close_panel(self) -> None:
        """Back to the board; what the feedback said about the panel is said."""
        self.panel = None
        self.feedback = ("", "")

    def _open(self, panel: str) -> None:
        self.panel = panel
        self._scroll = 1 << 30 if panel == "log" else 0

    def _keys(self) -> KeyBindings:
        keys = KeyBindings()

        @keys.add("c-c")
        @keys.add("c-d")
        def _quit(event: KeyPressEvent) -> None:
            if self.confirming_quit or self.game_end is not None:
                event.app.exit(result=0)
                return
            self._command("quit")

        @keys.add("escape", eager=True)
        def _board(event: KeyPressEvent) -> None:
            self._close_panel()
            self.confirming_quit = False

        @keys.add("pageup")
        def _up(event: KeyPressEvent) -> None:
            self._scroll = max(0, self._scroll - 5)
            self._follow = False

        @keys.add("pagedown")
        def _down(event: KeyPressEvent) -> None:
            self._scroll += 5
            self._follow = False

        return keys

    # -- layout

    def _style(self) -> Style:
        return MONOCHROME if self.app.color_depth is ColorDepth.DEPTH_1_BIT else COLOUR

    def _layout(self) -> FloatContainer:
        def text(get: Callable[[], Line], align: WindowAlign = WindowAlign.LEFT) -> Window:
            control = FormattedTextControl(get)
            return Window(control, dont_extend_height=True, wrap_lines=True, align=align)

        def when(condition: Callable[[], bool], *rows: Window) -> ConditionalContainer:
            return ConditionalContainer(HSplit(list(rows)), Condition(condition))

        right = Window(
            FormattedTextControl(self._status_right),
            width=lambda: Dimension.exact(sum(len(t[1]) for t in self._status_right())),
            dont_extend_height=True,
        )
        status = VSplit([text(self._status_left), right], style="class:status")
        prompt = VSplit(
            [
                Window(BufferControl(self.input, input_processors=[BeforeInput("> ")]), height=1),
                when(lambda: not self.input.text, text(self._toolbar, WindowAlign.RIGHT)),
            ]
        )
        body = HSplit(
            [
                status,
                text(self._players),
                Window(Pane(self._main_lines, self._clamp), height=Dimension(min=3, weight=1)),
                text(self._banner),
                when(lambda: bool(self._hand()), text(self._hand)),
                when(lambda: bool(self._moves()), text(self._moves)),
                when(
                    lambda: self.panel is None,
                    text(self._log_title),
                    Window(FormattedTextControl(self._recent), height=LOG_ROWS),
                ),
                when(lambda: bool(self.feedback[1]), text(self._feedback)),
                prompt,
            ]
        )
        menu = Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8))
        return FloatContainer(body, [menu])

    def _clamp(self, total: int, rows: int) -> int:
        """The pane's first row: the board follows its newest tile unless scrolled by hand."""
        if self.panel is None and self._follow:
            focus = self._board_focus
            if focus < self._scroll:
                self._scroll = focus
            elif focus >= self._scroll + rows:
                self._scroll = focus - rows + 1
        self._scroll = max(0, min(self._scroll, total - rows))
        return self._scroll

    def _status_left(self) -> Line:
        view = self.session.view
        game = self.session.game
        if view is None:
            return [("", " cfnet · dealing…")]
        public = view.public
        return [
            (
                "",
                f" Round {public.round_number}/{game.options.rounds}"
                f" · move {len(public.moves)} · yard {public.yard_count}"
                f" ({public.drawable} drawable)",
            )
        ]

    def _status_right(self) -> Line:
        session = self.session
        if self.game_end is not None:
            return [("", "Game over ")]
        waiting = session.waiting_for
        if not waiting:
            return [("", "")]
        if self.round_end is not None and session.seat in waiting:
            return [("class:status.turn", " ▶ Press Enter ")]
        if self._ready():
            return [("class:status.turn", " ▶ Your turn ")]
        if session.seat in waiting:
            return [("", " Dealing… ")]
        more = f" +{len(waiting) - 1}" if len(waiting) > 1 else ""
        return [("", f"  Waiting for {_name(session.names, waiting[0])[:10]}{more} ")]

    def _players(self) -> Line:
        """A small table: each seat's name (the one to move marked), tiles in hand, points."""
        session = self.session
        view = session.view
        totals = session.game.totals
        names = [name[:8] for name in session.names]
        width = max(4, *(len(n) for n in names)) + 2
        heads: Line = [("", "       ")]
        counts, points = "tiles  ", "points "
        for seat, name in enumerate(names):
            turn = view is not None and view.public.turn == seat and not view.public.is_over
            count = view.public.hand_counts[seat] if view is not None else 0
            mark = "▶" if turn else ""
            style = "class:status.turn" if turn else ("class:title" if seat == session.seat else "")
            heads.append(("", " " * (width - len(name) - len(mark))))
            heads.append((style, mark + name))
            counts += f"{count:>{width}}"
            points += f"{totals[seat]:>{width}}"
        return _join([heads, [("", counts)], [("", points)]])

    def _main_lines(self) -> list[Line]:
        view = self.session.view
        if self.panel == "help":
            return [[("class:title" if i == 0 else "", row)] for i, row in enumerate(HELP_TEXT)]
        if self.panel == "scores":
            rows = score_lines(self.session.game, self.session.names)
            return _titled("Scores", [("", row) for row in rows])
        if self.panel == "log":
            return _titled("Event log", self.log)
        if self.panel == "round" and self.results is not None:
            return self._round_lines(self.results)
        if view is None:
            return [[("", "Waiting for the deal…")]]
        rows = render_board(view.public).split("\n")
        self._board_focus = newest_row(rows, view.public.moves)
        return [_board_line(row) for row in rows]

    def _round_lines(self, end: RoundEnded) -> list[Line]:
        names = self.session.names
        why = describe_end(end.reason, end.went_out, names)
        lines: list[Line] = [[("class:title", f"Round {end.round_number} over: {why}")]]
        width = max(len(n) for n in names) + 1
        for seat, hand in enumerate(end.hands):
            tiles = " ".join(str(t) for t in sorted_hand(hand)) or "(out)"
            score = end.scores[seat]
            head = f"{names[seat]:<{width}}{score:>4} {'point' if score == 1 else 'points':<6}  "
            for i, row in enumerate(textwrap.wrap(tiles, WIDTH - len(head)) or [""]):
                lines.append([("", (head if i == 0 else " " * len(head)) + row)])
        if end.verified is not None:
            lines.append([("class:info", end.verified)])
        lines.extend([("", row)] for row in score_lines(self.session.game, names))
        if isinstance(self.game_end, GameEnded):
            lines.append([("class:banner", self._winner_text(self.game_end))])
            if self.game_end.log_path is not None:
                lines.append([("", "The game's log is saved in")])
                path = str(self.game_end.log_path)
                lines.extend([("", "  " + row)] for row in textwrap.wrap(path, WIDTH - 2))
            lines.append([("", "Press Enter to leave.")])
        elif end.round_number >= self.session.game.options.rounds:
            lines.append([("", "The last round: the table is checking the game…")])
        else:
            lines.append([("", "Press Enter to go on (Esc: the board).")])
        return lines

    def _banner(self) -> Line:
        view = self.session.view
        if isinstance(self.game_end, GameAborted):
            style, text = "class:error", f"Game aborted: {self.game_end.reason}"
        elif self.game_end is not None:
            style, text = (
                "class:banner",
                self._winner_text(self.game_end) + ". Press Enter to leave.",
            )
        elif view is None:
            style, text = "class:banner", "Waiting for the deal."
        elif self.round_end is not None:
            number = self.round_end.round_number
            then = f"Press Enter for round {number + 1}."
            if number >= self.session.game.options.rounds:
                then = "That was the last round: the table is checking the game…"
            style, text = "class:banner", f"Round {number} is over. {then}"
        else:
            style, text = "class:banner", instruction(view, self.session.names, self._ready())
        return [(style, textwrap.fill(text, WIDTH))]

    def _hand(self) -> Line:
        view = self.session.view
        if view is None or self.round_end is not None:
            return []
        if not view.hand and not view.public.moves:
            return [("class:title", "Hand  "), ("", "(being dealt…)")]
        moves = view.legal_moves() if self._ready() else []
        playable = {m.tile for m in moves if isinstance(m, Play)}
        items: list[Line] = []
        for tile in sorted_hand(view.hand):
            style = "class:tile.drawn" if tile == view.drawn else ""
            items.append(
                [(style or ("class:tile.playable" if tile in playable else ""), str(tile))]
            )
        return _join(_wrap_items(items, [("class:title", "Hand  ")], 6, " "))

    def _moves(self) -> Line:
        view = self.session.view
        if view is None or self.round_end is not None:
            return []
        moves = numbered_moves(view) if self._ready() else []
        if not moves:
            return [("class:title", "Moves "), ("", "wait for your turn")]
        items: list[Line] = [
            [("class:number", f"{n})"), ("", f" {m}")] for n, m in enumerate(moves, 1)
        ]
        return _join(_wrap_items(items, [("class:title", "Moves ")], 6))

    def _ready(self) -> bool:
        """The table waits for the local seat's move, and its tiles are open."""
        view = self.session.view
        return (
            view is not None
            and not view.public.is_over
            and view.public.turn == view.seat
            and self.session.seat in self.session.waiting_for
            and bool(view.hand)
            and not (view.public.drawn_pending and view.drawn is None)
        )

    def _log_title(self) -> Line:
        return [("class:rule", "── events " + "─" * (WIDTH - 11))]

    def _recent(self) -> Line:
        return _join([[entry] for entry in self.log[-LOG_ROWS:]])

    def _feedback(self) -> Line:
        style, text = self.feedback
        return [(style, textwrap.fill(text, WIDTH, subsequent_indent="  "))]

    def _toolbar(self) -> Line:
        return [("class:toolbar", "Tab: complete · ↑↓: earlier · PgUp/PgDn · help · quit ")]

    # -- for tests and the final printout

    def text(self) -> str:
        """The screen's content as plain text (the main pane unscrolled), top to bottom."""
        parts = [
            self._status_left(),
            self._status_right(),
            self._players(),
            _join(self._main_lines()),
            self._banner(),
            self._hand(),
            self._moves(),
            self._recent(),
            self._feedback(),
        ]
        return "\n".join("".join(t[1] for t in part) for part in parts if part)
