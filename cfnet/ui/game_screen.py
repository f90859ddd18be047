"""The game screen: a full-screen prompt_toolkit application over a `GameSession` (60x20 up).

`GamePanes` draws the panes for the terminal's size; this adds the terminal: the keys and the
input line (moves and commands typed while the session's events are shown as they come).
"""

from __future__ import annotations

import asyncio

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
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
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import DynamicStyle, Style

from cfnet.errors import describe
from cfnet.game.expert_bot import HINT_THINK, ExpertBot
from cfnet.game.moves import IllegalMoveError, Move
from cfnet.lang import _
from cfnet.lang.typed import normalise
from cfnet.seat.session import GameSession
from cfnet.ui.game_panes import PROMPT_ROWS, GamePanes
from cfnet.ui.move_input import (
    Command,
    InputCompleter,
    InputError,
    numbered_moves,
    parse_input,
    shown_move,
)
from cfnet.ui.styles import COLOUR, MONOCHROME, Frame


class GameScreen(GamePanes):
    """The interactive game screen for one `GameSession`; `await run()` plays until the end."""

    def __init__(
        self,
        session: GameSession,
        input: Input | None = None,
        output: Output | None = None,
        color_depth: ColorDepth | None = None,
    ) -> None:
        super().__init__(session)
        self.confirming_quit = False
        self.leaving = False  # resigned: the screen closes when the game's end comes
        self.lines_typed = 0  # how many lines the player has entered (tests wait on it)
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
                if self.leaving and self.game_end is not None:
                    self.app.exit(result=0)
                    return
                self.app.invalidate()
        except Exception as error:
            self.app.exit(exception=error)
            raise

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
            if normalise(text).lower() in ("y", "yes", "quit", "leave"):
                self._leave()
                return
            self.feedback = ("class:info", _("Staying in the game."))
            return
        if not text.strip():
            self._enter()
            return
        session = self.session
        try:
            parsed: Command | Move | InputError = parse_input(text, session.view, session.names)
        except InputError as error:
            parsed = error
        if isinstance(parsed, Command):
            self._command(parsed.name)
            return
        if self.game_end is not None:
            over = _("the game is over for you: press Enter to leave")
            self.feedback = ("class:error", f"✗ {over}")
            return
        if isinstance(parsed, InputError):
            self.feedback = ("class:error", f"✗ {parsed}")
            return
        try:
            session.submit(parsed)
        except IllegalMoveError as error:  # the session knows more than the parser
            self.feedback = ("class:error", f"✗ {describe(error)}")
            return
        self.panel = None
        self.feedback = ("", "")  # the move shows in the events

    def _leave(self) -> None:
        """Resign for good: leave at once, or once the session has ended (the resignation
        posted at our turn)."""
        if self.game_end is not None or not self.session.resign():
            self.app.exit(result=0)
            return
        self.leaving = True
        self.feedback = (
            "class:info",
            _(
                "Leaving: your resignation is signed and posted at your turn, so nobody waits for"
                " you, then cfnet ends. Ctrl-C leaves at once (the others then wait out your time)."
            ),
        )

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
            self.feedback = (
                "class:error",
                "✗ " + _("type a move's number, a tile and an end, or help"),
            )

    def _command(self, name: str) -> None:
        view = self.session.view
        if name == "quit":
            if self.game_end is not None:
                self.app.exit(result=0)
                return
            self.confirming_quit = True
            self.feedback = (
                "class:error",
                _("Leave the game? Type y to leave, anything else to stay."),
            )
        elif name == "next" and self.round_end is not None:
            self._enter()
        elif name == "next":
            self.feedback = ("class:error", "✗ " + _("the round is not over yet: play on"))
        elif name == "hint":
            if view is None or not self._ready():
                self.feedback = ("class:error", "✗ " + _("a hint is for your turn: wait for it"))
                return
            advice = self._hint.advise(view)
            number = numbered_moves(view).index(advice.move) + 1
            self.feedback = (
                "class:info",
                _("Hint: the computer would choose {number}) {move}: {reason}").format(
                    number=number, move=shown_move(advice.move), reason=advice.reason
                ),
            )
        else:
            self._open(name)
            self.feedback = ("class:info", _("Esc or Enter: back to the board"))

    def _keys(self) -> KeyBindings:
        keys = KeyBindings()

        @keys.add("c-c")
        @keys.add("c-d")
        def _quit(event: KeyPressEvent) -> None:
            if self.leaving or self.game_end is not None:
                event.app.exit(result=0)
                return
            if self.confirming_quit:
                self.confirming_quit = False
                self._leave()
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
        toolbar = Window(
            FormattedTextControl(lambda: [("class:toolbar", self.toolbar(self._columns()))]),
            dont_extend_height=True,
            align=WindowAlign.RIGHT,
        )
        prompt = VSplit(
            [
                Window(BufferControl(self.input, input_processors=[BeforeInput("> ")]), height=1),
                ConditionalContainer(toolbar, Condition(lambda: not self.input.text)),
            ],
            height=PROMPT_ROWS,
        )
        body = HSplit([Window(Frame(self.frame), height=Dimension(weight=1)), prompt])
        menu = Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8))
        return FloatContainer(body, [menu])

    def _columns(self) -> int:
        return self.app.output.get_size().columns
