"""Right-to-left text on a terminal.

A sentence in a right-to-left language keeps tiles, scores and end labels in isolates (`isolate`,
`isolate_name`), so `6-4 b` reads `6-4 b` inside Persian. A terminal that does bidi itself
(mlterm, VTE terminals such as GNOME Terminal and xfce4-terminal, Konsole) is given the text in
logical order with its isolates; for one that does not (xterm, the Linux console, tmux on its
own), cfnet puts each line in visual order itself (python-bidi) and strips the controls.
`--bidi auto|terminal|cfnet` chooses; auto asks the environment which terminal this is and keeps
logical order when the output is not a terminal (a pipe, a file)."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Literal

from cfnet.lang.bidi_marks import (
    CONTROLS,
    FSI,
    ISOLATES,
    LRE,
    LRI,
    LRM,
    PDF,
    PDI,
    RLE,
    RLM,
)
from cfnet.lang.catalog import language
from cfnet.lang.width import pad_left, wrap

Mode = Literal["terminal", "cfnet"]
MODES = ("auto", "terminal", "cfnet")
"""The values of `--bidi`: auto chooses between the other two (`resolve`)."""
_STRIP = str.maketrans("", "", CONTROLS)

_mode: Mode = "terminal"
_marks: Literal["none", "isolates", "embeddings"] = "none"
"""What a terminal that does bidi is given besides the logical text (`set_terminal`)."""


def isolate(text: str) -> str:
    """Left-to-right `text` (a tile, a score, an end label) isolated when the language in effect
    is right to left, so that its order stays as written."""
    return f"{LRI}{text}{PDI}" if language().rtl else text


def isolate_name(text: str) -> str:
    """A name, in any script, isolated when the language in effect is right to left."""
    return f"{FSI}{text}{PDI}" if language().rtl else text


def terminal_does_bidi(environ: Mapping[str, str]) -> bool:
    """Whether the terminal the environment names reorders right-to-left text itself: mlterm,
    a VTE terminal of version 0.58 or later, or Konsole."""
    vte = environ.get("VTE_VERSION", "")
    return (
        "MLTERM" in environ
        or "KONSOLE_VERSION" in environ
        or (vte.isdecimal() and int(vte) >= 5800)
    )


def resolve(mode: str, is_terminal: bool, environ: Mapping[str, str]) -> Mode:
    """What `--bidi mode` means here: `terminal` (logical order, the terminal reorders) or
    `cfnet` (cfnet writes visual order). auto: logical order into a pipe or a file, or to a
    terminal that does bidi; visual order to any other terminal."""
    if mode == "terminal":
        return "terminal"
    if mode == "cfnet":
        return "cfnet"
    if mode != "auto":
        raise ValueError(f"unknown bidi mode {mode!r}: choose one of {', '.join(MODES)}")
    return "terminal" if not is_terminal or terminal_does_bidi(environ) else "cfnet"


def set_bidi(mode: Mode) -> None:
    """Make `visual` reorder lines (`cfnet`) or leave them in logical order (`terminal`)."""
    global _mode
    _mode = mode


def set_terminal(is_terminal: bool, environ: Mapping[str, str]) -> None:
    """Say what the output is, for `terminal_line`: a terminal that does bidi gets a mark of
    each line's direction, and mlterm (which draws isolate controls as boxes) embeddings in
    place of isolates; a pipe, a file or a terminal cfnet reorders for gets nothing added."""
    global _marks
    if not is_terminal or not terminal_does_bidi(environ):
        _marks = "none"
    else:
        _marks = "embeddings" if "MLTERM" in environ else "isolates"


def vte_paragraphs(environ: Mapping[str, str]) -> tuple[str, str]:
    """The escape sequences that turn on and off a VTE terminal's choice of each line's
    direction by its first strong letter (DECSET 2501), so that a right-to-left line is laid
    out from the right; empty strings for any other terminal."""
    if "VTE_VERSION" in environ and terminal_does_bidi(environ):
        return "\x1b[?2501h", "\x1b[?2501l"
    return "", ""


def marks_lines() -> bool:
    """Whether lines of the language in effect get a direction mark for the terminal."""
    return language().rtl and _mode == "terminal" and _marks != "none"


def terminal_line(fragments: list[str]) -> list[str]:
    """A row of a full screen (its fragments) in a right-to-left language as it is written to
    the terminal: without controls when cfnet reordered it; with `marked`'s mark after a first
    space when `marks_lines` (a screen drops a zero-width character that begins a row, so such a
    row is one cell wider: the screen is drawn a cell narrower); otherwise unchanged."""
    if not language().rtl:
        return fragments
    if _mode == "cfnet":
        return [fragment.translate(_STRIP) for fragment in fragments]
    if not marks_lines():
        return fragments
    marked = _marked(fragments)
    return [" " + marked[0], *marked[1:]]


def _marked(fragments: list[str]) -> list[str]:
    """`fragments` after a first mark (RLM, LRM) that gives a terminal doing bidi the line's
    direction as `starts_right_to_left` finds it, so a line that begins with a name is not
    taken for left to right; for mlterm, isolates become embeddings, each end followed by the
    mark so that neighbouring spans stay apart."""
    mark = RLM if starts_right_to_left("".join(fragments)) else LRM
    if _marks == "embeddings":
        fragments = [_as_embeddings(fragment, mark) for fragment in fragments]
    return [mark + fragments[0], *fragments[1:]]


def _as_embeddings(text: str, mark: str) -> str:
    """`text` with each isolate as the embedding of its direction, and `mark` after each end."""
    out = []
    for i, char in enumerate(text):
        if char == LRI:
            out.append(LRE)
        elif char == FSI:
            out.append(RLE if starts_right_to_left(text[i + 1 :]) else LRE)
        elif char == PDI:
            out.append(PDF + mark)
        else:
            out.append(char)
    return "".join(out)


def bidi_mode() -> Mode:
    """Who puts right-to-left lines in visual order: the terminal, or cfnet."""
    return _mode


def _reorders(rtl: bool | None) -> bool:
    return _mode == "cfnet" and (language().rtl if rtl is None else rtl)


def visual(line: str, rtl: bool | None = None) -> str:
    """One line as it is to be written: in visual order without bidi controls when cfnet does
    the reordering and the text is right to left (`rtl`; None: the language in effect is),
    else unchanged."""
    if not _reorders(rtl):
        return line
    from bidi import get_display

    return str(get_display(line, base_dir="R")).translate(_STRIP)


def visual_line(line: str, columns: int, rtl: bool | None = None) -> str:
    """`visual(line, rtl)`, right-aligned in `columns` cells when cfnet put it in visual order
    (as right-to-left text is read); unchanged otherwise."""
    if not _reorders(rtl):
        return line
    return pad_left(visual(line, rtl), columns)


def starts_right_to_left(text: str) -> bool:
    """Whether the first letter of `text` with a strong direction, outside isolates, is right
    to left: the direction a terminal that does bidi gives a line of its own (none: left to
    right), as in rule P2 of the bidi algorithm."""
    depth = 0
    for char in text:
        if char in ISOLATES:
            depth += 1
        elif char == PDI:
            depth = max(0, depth - 1)
        if depth or char == PDI:
            continue
        direction = unicodedata.bidirectional(char)
        if direction in ("R", "AL"):
            return True
        if direction == "L":
            return False
    return False


def screen_line(line: str, columns: int) -> str | None:
    """A line of a full screen as cfnet writes it when it does the reordering: in visual order,
    right-aligned in `columns` cells when it reads right to left (`starts_right_to_left`), left
    aligned when it reads left to right but holds right-to-left words (a board row with a
    Persian note); None when the line is to be drawn as it is (no right-to-left letter in it,
    or the terminal does the bidi)."""
    if not _reorders(None):
        return None
    if starts_right_to_left(line):
        return visual_line(line, columns, rtl=True)
    if any(unicodedata.bidirectional(char) in ("R", "AL") for char in line):
        from bidi import get_display

        return str(get_display(line, base_dir="L")).translate(_STRIP)
    return None


def written(line: str) -> str:
    """A line of plain output in a right-to-left language as it is written to a terminal that
    does bidi: after its direction mark (`_marked`); otherwise unchanged."""
    return _marked([line])[0] if marks_lines() else line


def display_lines(text: str, columns: int, indent: str = "", rtl: bool | None = None) -> list[str]:
    """`text` wrapped to `columns` cells (`wrap`), each line as it is to be written
    (`visual_line`): wrap first, reorder after, so each line holds the words it would hold in
    logical order."""
    return [visual_line(line, columns, rtl) for line in wrap(text, columns, indent)]
