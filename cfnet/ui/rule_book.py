"""The rule book on a terminal: its Markdown reflowed to the terminal's width (in display cells,
right-to-left lines in the order the terminal needs) and paged; into a pipe or a file, the
Markdown as it is."""

from __future__ import annotations

import re
import shutil
import sys
from typing import TextIO

from cfnet.lang import _, language
from cfnet.lang.bidi import display_lines, visual_line
from cfnet.lang.rulebook import rule_book

MAX_COLUMNS = 100
"""The widest a reflowed line gets, however wide the terminal: longer lines are hard to read."""
_ITEM = re.compile(r"(\s*)([-*]|\d+\.)\s+")
_FENCE = "```"


def show_rule_book(out: TextIO) -> None:
    """Write the rule book in the language in effect to `out`: paged when it and the keyboard
    are a terminal, as Markdown otherwise. A language without its own rule book yet gets the
    English one, after a line that says so (on stderr in a pipe, so that `out` stays Markdown)."""
    text, translated = rule_book(language())
    note = (
        ""
        if translated
        else _(
            "The rule book is not yet translated into {language}; here it is in English."
        ).format(language=language().name)
    )
    if not (out.isatty() and sys.stdin.isatty()):
        if note:
            print(note, file=sys.stderr)
        out.write(text)
        return
    import pydoc

    columns = min(shutil.get_terminal_size().columns, MAX_COLUMNS)
    book = markdown_lines(text, columns, rtl=language().rtl and translated)
    lines = ([*display_lines(note, columns), ""] if note else []) + book
    pydoc.pager("\n".join(lines) + "\n")


def markdown_lines(text: str, columns: int, rtl: bool) -> list[str]:
    """Markdown as terminal lines of at most `columns` cells: each paragraph and list item
    rewrapped (an item's lines hang under its text, a heading's under its title), table rows
    and fenced blocks kept line for line; every line as `display_lines` writes it (`rtl`: the
    text is right to left)."""
    out: list[str] = []
    block: list[str] = []
    hang = ""

    def flush() -> None:
        if block:
            out.extend(display_lines(" ".join(block), columns, hang, rtl))
            block.clear()

    fenced = False
    for raw in text.splitlines():
        line = raw.rstrip()
        item = _ITEM.match(line)
        if line.startswith(_FENCE) or fenced:
            flush()
            fenced = fenced != line.startswith(_FENCE)
            out.append(visual_line(line, columns, rtl))
        elif line.startswith("#"):
            flush()
            marks = line.split(" ", 1)[0]
            out.extend(display_lines(line, columns, " " * (len(marks) + 1), rtl))
        elif not line or line.lstrip().startswith("|"):
            flush()
            if line or (out and out[-1]):
                out.append(visual_line(line, columns, rtl) if line else "")
        elif item:
            flush()
            hang = " " * len(item.group(0))
            block.append(line)
        else:
            if not block:
                hang = ""
            block.append(line.strip() if block else line)
    flush()
    return out
