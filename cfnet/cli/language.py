"""The language and bidi options of every command (`--lang CODE`, `--bidi MODE`), read before
the parser is built so that `--help` and argparse's own words are in the language."""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from cfnet.lang import bidi
from cfnet.lang.catalog import _, ngettext, set_language
from cfnet.lang.catalog import language as current_language
from cfnet.lang.choice import UnknownLanguageError, choose, language_list

VALUED = ("--lang", "--bidi", "--home")
"""The options read before parsing (each takes a value); --home says where a remembered
language is kept."""


def scan(words: Sequence[str]) -> dict[str, str]:
    """The values `words` give to the options of VALUED (`--lang el` or `--lang=el`), up to a
    `--`; the last one given wins, as with argparse."""
    found: dict[str, str] = {}
    for i, word in enumerate(words):
        if word == "--":
            break
        name, equals, value = word.partition("=")
        if name in VALUED:
            if equals:
                found[name] = value
            elif i + 1 < len(words):
                found[name] = words[i + 1]
    return found


def without_language_options(words: Sequence[str]) -> list[str]:
    """`words` without `--lang CODE` and `--bidi MODE`: what decides which command runs."""
    rest: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in ("--lang", "--bidi"):
            skip = True
        elif not word.startswith(("--lang=", "--bidi=")):
            rest.append(word)
    return rest


def apply(words: Sequence[str]) -> None:
    """Put the language and bidi mode `words` ask for in effect, and route argparse's own words
    through cfnet's catalogs. An unknown language code exits (status 2) with one line that
    lists the languages."""
    from cfnet.disk.home import default_home
    from cfnet.disk.language import remembered_language

    given = scan(words)
    home = Path(given["--home"]).expanduser() if given.get("--home") else default_home()
    remembered = remembered_language(home)
    try:
        language = choose(given.get("--lang"), remembered, os.environ)
    except UnknownLanguageError:
        set_language(choose(None, remembered, os.environ))  # say so in the language otherwise
        error = UnknownLanguageError(given["--lang"])
        message = _("{prog}: {message} (see {prog} --help)").format(prog="cfnet", message=error)
        print(shown(message), file=sys.stderr)
        sys.exit(2)
    try:
        set_language(language)
    except OSError as error:
        print(
            _("cfnet: the {language} catalog cannot be read ({error}); going on in English").format(
                language=language.name, error=error
            ),
            file=sys.stderr,
        )
    mode = given.get("--bidi", "auto")
    is_terminal = sys.stdout.isatty()
    bidi.set_bidi(bidi.resolve(mode if mode in bidi.MODES else "auto", is_terminal, os.environ))
    bidi.set_terminal(is_terminal, os.environ)
    if is_terminal and current_language().rtl and bidi.bidi_mode() == "terminal":
        _lines_by_their_first_letter()
    route_argparse()


def _lines_by_their_first_letter() -> None:
    """In a VTE terminal, have each line laid out in the direction of its first strong letter
    while cfnet runs, so right-to-left lines start at the right (`bidi.vte_paragraphs`)."""
    start, end = bidi.vte_paragraphs(os.environ)
    if start:
        _write(start)
        atexit.register(_write, end)


def _write(sequence: str) -> None:
    sys.stdout.write(sequence)
    sys.stdout.flush()


def route_argparse() -> None:
    """Make argparse look its own words (usage:, options:, error messages) up in cfnet's
    catalogs: it calls the gettext and ngettext it imported, so those names are replaced."""
    vars(argparse).update(_=_, ngettext=ngettext)


def add_language_arguments(parser: argparse.ArgumentParser) -> None:
    """`--lang CODE` and `--bidi MODE`, accepted by every command and by `cfnet` itself (their
    values were applied before parsing: `apply`)."""
    parser.add_argument(
        "--lang",
        metavar="CODE",
        default=argparse.SUPPRESS,
        type=language_code,
        help=_(
            "the language to use: {languages} (default: the one chosen in the browser, else as "
            "the environment says)"
        ).format(languages=language_list()),
    )
    parser.add_argument(
        "--bidi",
        choices=bidi.MODES,
        metavar="MODE",
        default=argparse.SUPPRESS,
        help=_(
            "who puts right-to-left text in order: terminal (it does bidi), cfnet (for a "
            "terminal that does not), or auto: decided by the terminal (default)"
        ),
    )


def language_code(text: str) -> str:
    """An argparse `type=`: one of cfnet's language codes."""
    from cfnet.cli.options import OptionValueError

    try:
        return choose(text, None, {}).code
    except UnknownLanguageError as error:
        raise OptionValueError(str(error)) from None


def shown(message: str) -> str:
    """Text laid out in lines (help, usage, an error) as it is to be written: each line in visual
    order when cfnet does the bidi (`bidi.visual_line`), after a mark of its direction for a
    terminal that does (`bidi.written`)."""
    columns = shutil.get_terminal_size().columns
    lines = message.split("\n")
    return "\n".join(
        bidi.written(bidi.visual_line(line, columns)) if line else line for line in lines
    )
