"""Text measured as a terminal shows it: in display cells (wcwidth), not characters, so that a
Persian word with a zero-width joiner or a Greek word with accents is as wide as it looks.
wcwidth's tables are loaded when first needed (a printable ASCII text is one cell a character):
a command that measures only such text, as `cfnet verify` in English does, starts sooner."""

from __future__ import annotations

from cfnet.lang.bidi_marks import ISOLATES, PDI

_KEEP_TOGETHER = "\ue000"
"""Stands for a space inside an isolated span while wrapping (a private-use character, one cell
wide, no break): a tile and its end are never parted."""


def width(text: str) -> int:
    """How many cells `text` takes on a terminal (bidi marks and joiners take none)."""
    if text.isascii() and text.isprintable():
        return len(text)
    import wcwidth

    return int(wcwidth.width(text))


def pad(text: str, columns: int) -> str:
    """`text` followed by spaces to fill `columns` cells (unchanged when it is wider)."""
    import wcwidth

    return str(wcwidth.ljust(text, columns))


def pad_left(text: str, columns: int) -> str:
    """`text` after spaces to fill `columns` cells: a right-aligned line."""
    import wcwidth

    return str(wcwidth.rjust(text, columns))


def clip(text: str, columns: int) -> str:
    """The start of `text` that fits in `columns` cells."""
    import wcwidth

    return str(wcwidth.clip(text, 0, columns))


def wrap(text: str, columns: int, indent: str = "") -> list[str]:
    """`text` broken into lines of at most `columns` cells at spaces (never inside a word, a
    tile like 6-4 or an isolated span), the lines after the first indented by `indent`."""
    import wcwidth

    held = _hold_isolates(text)
    lines = wcwidth.wrap(
        held, columns, subsequent_indent=indent, break_on_hyphens=False, break_long_words=True
    )
    return [line.replace(_KEEP_TOGETHER, " ") for line in lines] or [""]


def _hold_isolates(text: str) -> str:
    """`text` with the spaces inside each isolated span held together."""
    out, depth = [], 0
    for char in text:
        if char in ISOLATES:
            depth += 1
        elif char == PDI and depth:
            depth -= 1
        out.append(_KEEP_TOGETHER if char == " " and depth else char)
    return "".join(out)
