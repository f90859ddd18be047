"""A full-screen prompt_toolkit page (title, a body that scrolls to its focus row, recent
messages, feedback, an input line that may ask a question, a key reminder) and where it draws."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass

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

from cfnet.errors import LocalProtocolError
from cfnet.game.text import WIDTH
from cfnet.ui.styles import COLOUR, MONOCHROME, Line, Pane, scroll_to

LOG_ROWS = 4


@dataclass(frozen=True, slots=True)
class Terminal:
    """Where the screens read keys and draw (None: this process's terminal)."""

    input: Input | None = None
    output: Output | None = None
    color_depth: ColorDepth | None = None


class LeftTable(LocalProtocolError):
    """The person left the table before it started."""


class Page:
    """A full-screen page: title bar, a body that scrolls to its focus row, recent messages,
    feedback, an input line (which may ask a question) and a key reminder."""

    def __init__(self, terminal: Terminal, refresh: float | None = None) -> None:
        self.log: list[tuple[str, str]] = []
        self.feedback: tuple[str, str] = ("", "")
        self.lines_typed = 0  # tests wait on it
        self.question: Question | None = None
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

    def ask(self, question: Question) -> None:
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
class Question:
    """A question in the input line: `answer` gets the reply (or `default` for an empty one);
    a ValueError or LocalProtocolError it raises is shown, and the question asked again."""

    label: str
    answer: Callable[[str], None]
    default: str = ""
    note: str = ""
    secret: bool = False


# ---------------------------------------------------------------------- the browser
