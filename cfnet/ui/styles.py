"""What every full-screen view shares: the colour and monochrome styles, styled lines, the
scrolling pane, and the board with its labels and open ends styled (from `cfnet.game.text`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.styles import Style

from cfnet.game.board import PublicRound
from cfnet.game.text import LABEL, OPEN, WIDTH, board_rows

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
_BOARD_STYLES = {"": "", LABEL: "class:label", OPEN: "class:open"}


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


def scroll_to(top: int, focus: int, total: int, rows: int) -> int:
    """The first of `total` lines to show in `rows` rows, moved from `top` just enough to show
    line `focus`."""
    if focus < top:
        top = focus
    elif focus >= top + rows:
        top = focus - rows + 1
    return max(0, min(top, total - rows))


def board_lines(public: PublicRound) -> list[Line]:
    """The board tree with its line labels and open ends styled."""
    return [[(_BOARD_STYLES[style], text) for style, text in row] for row in board_rows(public)]


def wrap_items(items: Sequence[Line], lead: Line, indent: int, sep: str = "  ") -> list[Line]:
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


def titled(title: str, rows: Sequence[tuple[str, str]]) -> list[Line]:
    """A title line, then one line per (style, text)."""
    lines: list[Line] = [[("class:title", title)]]
    lines.extend([row] for row in rows)
    return lines


def join(rows: Sequence[Line]) -> Line:
    """Lines as one formatted text, separated by newlines."""
    out: Line = []
    for i, row in enumerate(rows):
        if i:
            out.append(("", "\n"))
        out.extend(row)
    return out
