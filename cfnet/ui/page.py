"""A full-screen prompt_toolkit page (title, a body that scrolls to its focus row, recent
messages, feedback, an input line that may ask a question, a key reminder) and where it draws,
laid out for the terminal's size (from 60x16)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.processors import BeforeInput, ConditionalProcessor, PasswordProcessor
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import DynamicStyle, Style

from cfnet.errors import LocalProtocolError, describe
from cfnet.game.text import SENTENCE_CHARS, WIDTH, escaped, fit, pad, shown_sentence
from cfnet.lang import pgettext
from cfnet.ui.styles import (
    COLOUR,
    MIN_COLUMNS,
    MONOCHROME,
    Frame,
    Line,
    rule,
    scroll_to,
    scrolled,
    too_small,
    wrapped_line,
)

LOG_ROWS = 4
BODY_ROWS = 3  # the body's least height
MIN_ROWS = 16  # a page's least height, input line and key reminder included
BELOW = 2  # the input line and the key reminder, under what `Page.frame` draws


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
        self._page = BODY_ROWS  # the body's rows, as last drawn: what PgUp/PgDn move by
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

    def body(self, width: int = WIDTH) -> tuple[list[Line], int]:
        """The body's rows within `width` columns and the row to keep in view (-1: none, the
        body is read page by page with PgUp/PgDn)."""
        raise NotImplementedError

    def toolbar(self, width: int = WIDTH) -> str:
        """The key reminder, within `width` columns."""
        raise NotImplementedError

    def command(self, text: str) -> None:
        """Act on a typed line that answers no question."""
        raise NotImplementedError

    def cancel(self) -> None:
        """Ctrl-C / Ctrl-D with no question asked."""
        raise NotImplementedError

    # -- shared behaviour

    def say(self, text: str) -> None:
        """Add a message to the page's log (it may quote a peer: escaped)."""
        self.log.append(("", shown_sentence(text)))
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
                self.error(describe(exc))
            return False
        answer = text.strip() or question.default
        try:
            self.question = None
            self.feedback = ("", "")
            question.answer(answer)
        except (ValueError, LocalProtocolError) as exc:
            self.question = question  # ask again
            self.error(describe(exc))
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
            else:
                self.back()

        @keys.add("pageup")
        def _up(event: KeyPressEvent) -> None:
            self._top = max(0, self._top - self._page)

        @keys.add("pagedown")
        def _down(event: KeyPressEvent) -> None:
            self._top += self._page

        self.more_keys(keys)
        return keys

    def more_keys(self, keys: KeyBindings) -> None:
        """Add the page's own keys."""

    def back(self) -> None:
        """Esc with no question asked: nothing, unless the page has something to go back from."""

    def _drop_question(self) -> None:
        self.question = None
        self.input.reset()
        self.info("Cancelled.")

    def _style(self) -> Style:
        return MONOCHROME if self.app.color_depth is ColorDepth.DEPTH_1_BIT else COLOUR

    def _label(self) -> str:
        return "> " if self.question is None else f"{self.question.label}: "

    def _layout(self) -> HSplit:
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
                Window(Frame(self.frame), height=Dimension(weight=1)),
                Window(field, height=1),
                Window(Frame(self._toolbar_line), height=1),
            ]
        )

    def frame(self, width: int, height: int) -> list[Line]:
        """The title, body, messages and feedback within `width` columns and `height` rows
        (the input line and the key reminder come under them): the body gets what the rest
        leaves, the messages give way first; a terminal too small is told what it needs."""
        if width < MIN_COLUMNS or height + BELOW < MIN_ROWS:
            return too_small(width, height + BELOW, MIN_COLUMNS, MIN_ROWS)
        title = escaped(f" {self.title()}", SENTENCE_CHARS)  # it may name a peer's table
        top: Line = [("class:status", pad(fit(title, width), width))]
        feedback = self._feedback(width)
        spare = height - 1 - len(feedback) - BODY_ROWS
        log: list[Line] = []
        if spare >= 2:  # a rule and at least one message
            log = [
                rule(pgettext("heading", "messages"), width),
                *self._recent(width, min(LOG_ROWS, spare - 1)),
            ]
        rows = max(1, height - 1 - len(feedback) - len(log))
        lines, focus = self.body(width)
        if len(lines) > rows and focus >= 0:
            self._top = scroll_to(self._top, focus, len(lines), rows - 1)
        self._page = max(1, rows - 2)
        body, self._top = scrolled(lines, rows, self._top, "↑↓" if focus >= 0 else "PgUp/PgDn")
        body += [[] for _ in range(rows - len(body))]
        return [top, *body, *log, *feedback]

    def _toolbar_line(self, width: int, height: int) -> list[Line]:
        return [[("class:toolbar", fit(self.toolbar(width), width))]]

    def _recent(self, width: int, rows: int = LOG_ROWS) -> list[Line]:
        """The newest `rows` rows of the messages, wrapped within `width` columns."""
        lines: list[Line] = []
        for style, text in self.log[-rows:]:
            lines += wrapped_line(style, text, width, "    ")
        return lines[-rows:]

    def _feedback(self, width: int) -> list[Line]:
        style, text = self.feedback
        return wrapped_line(style, shown_sentence(text), width, "  ") if text else []

    def text(self, width: int = WIDTH) -> str:
        """The page as plain text (tests): title, body, messages, feedback, prompt."""
        parts = [self.title(), *("".join(t[1] for t in row) for row in self.body(width)[0])]
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
