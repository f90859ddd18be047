"""What every full-screen view shares: the colour and monochrome styles, styled lines, the
frame a screen draws for its terminal's size (with a scrolling part), and the board with its
labels and open ends styled (from `cfnet.game.text`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.styles import Style

from cfnet.game.board import PublicRound
from cfnet.game.text import (
    LABEL,
    OPEN,
    Row,
    board_rows,
    columns,
    escaped,
    plain,
    wrap_words,
    wrapped,
)
from cfnet.lang import _, digits, language
from cfnet.lang.bidi import marks_lines, screen_line, terminal_line

Line = StyleAndTextTuples
Draw = Callable[[int, int], list[Line]]
"""What a screen shows for a terminal area of (columns, rows): at most that many lines."""
MIN_COLUMNS = 60
"""The narrowest terminal the screens lay out for; below it they say what they need."""

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
_BOARD_STYLES = {"": "", LABEL: "class:label", OPEN: "class:open"}


class Frame(UIControl):
    """A window's lines, drawn for its size by `draw` (columns, rows). Every fragment is
    `escaped` on its way to the terminal: whatever text reaches a screen, no character in it
    moves the cursor, changes colours or reorders what follows."""

    def __init__(self, draw: Draw) -> None:
        self._draw = draw

    def create_content(self, width: int, height: int | None) -> UIContent:
        width -= marks_lines()  # the cell before each row's direction mark
        drawn = [_in_order(row, width) for row in self._draw(width, height or 1)]
        rtl = language().rtl  # cfnet's own isolates are kept, for a terminal that does bidi
        lines: list[Line] = [
            _for_terminal([(t[0], escaped(t[1], len(t[1]), isolates=rtl)) for t in row])
            for row in drawn
        ]
        return UIContent(get_line=lambda i: lines[i], line_count=len(lines))

    def is_focusable(self) -> bool:
        return False


def _for_terminal(row: Line) -> Line:
    """A row's fragments with the marks the terminal needs (`terminal_line`), styles kept."""
    row = row or [("", "")]
    texts = terminal_line([t[1] for t in row])
    return [(t[0], text) for t, text in zip(row, texts, strict=True)]


def _in_order(row: Line, width: int) -> Line:
    """A row as it is drawn: a right-to-left row that cfnet puts in visual order is one fragment
    (in the style of its first styled fragment), others are as they came."""
    text = "".join(t[1] for t in row)
    shown = screen_line(text, width)
    if shown is None:
        return row
    return [(next((t[0] for t in row if t[0]), ""), shown)]


def too_small(width: int, height: int, need_width: int, need_height: int) -> list[Line]:
    """What a screen shows in a terminal smaller than it needs (its size: width x height)."""
    text = _(
        "This screen needs a terminal of at least {need_width} columns and {need_height} rows;"
        " this one has {width} columns and {height} rows. Make the window larger, or the font"
        " smaller."
    ).format(need_width=need_width, need_height=need_height, width=width, height=height)
    return [[("class:error", row)] for row in wrapped(text, width)]


def scrolled(lines: list[Line], rows: int, top: int, keys: str) -> tuple[list[Line], int]:
    """`lines` within `rows` rows from line `top` (kept in range), with a last row saying what
    is above and below when they do not all fit; and the top used."""
    if len(lines) <= rows:
        return lines, 0
    rows = max(1, rows - 1)
    top = max(0, min(top, len(lines) - rows))
    below = len(lines) - top - rows
    note = "  " + _("({above} rows above, {below} below: {keys} scroll)").format(
        above=digits(top), below=digits(below), keys=keys
    )
    return [*lines[top : top + rows], [("class:more", note)]], top


def scroll_to(top: int, focus: int, total: int, rows: int) -> int:
    """The first of `total` lines to show in `rows` rows, moved from `top` just enough to show
    line `focus`."""
    if focus < top:
        top = focus
    elif focus >= top + rows:
        top = focus - rows + 1
    return max(0, min(top, total - rows))


def board_lines(public: PublicRound, width: int) -> list[Line]:
    """The board tree within `width` columns, its line labels and open ends styled."""
    rows = board_rows(public, width)
    return [[(_BOARD_STYLES[style], text) for style, text in row] for row in rows]


def wrap_items(items: Sequence[Line], lead: Line, width: int, sep: str = "  ") -> list[Line]:
    """`items` after `lead`, separated by `sep`, in rows of `width` columns, an item never split;
    the rows after the first indented as far as `lead` reaches."""
    first: Row = [(t[0], t[1]) for t in lead]
    more: Row = [("", " " * columns(plain(first)))]
    words: list[Row] = [[(t[0], t[1]) for t in item] for item in items]
    return [[*row] for row in wrap_words(first, more, words, sep, width)]


def wrapped_line(style: str, text: str, width: int, indent: str = "") -> list[Line]:
    """`text` in `style`, wrapped into rows of `width` columns at spaces."""
    return [[(style, row)] for row in wrapped(text, width, indent)]


def rule(title: str, width: int) -> Line:
    """A horizontal rule across `width` columns with `title` near its start."""
    lead = f"── {title} "
    return [("class:rule", lead + "─" * max(0, width - columns(lead)))]
