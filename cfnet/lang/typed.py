"""What a player types, in their own script, read as the game's commands and moves.

A Greek or Persian player need not switch keyboard layout: digits of any script are digits
(`۹-۳` is `9-3`), and a letter typed on the key that carries an end label's Latin letter is that
label (Greek `β`, Persian `ذ`, both on the B key, are end `b`). Commands are accepted in the
language in effect and in English (`τράβα` and `draw`)."""

from __future__ import annotations

import unicodedata

from cfnet.lang.catalog import pgettext


def translated_commands() -> dict[str, str]:
    """The commands of the game screen and lobby (bot and start: the host's, in the lobby), by
    their English word (what the code
    compares), each with the word the language in effect types for it (the catalogs' context
    `command`: one word, no spaces)."""
    return {
        "draw": pgettext("command", "draw"),
        "pass": pgettext("command", "pass"),
        "hint": pgettext("command", "hint"),
        "scores": pgettext("command", "scores"),
        "log": pgettext("command", "log"),
        "help": pgettext("command", "help"),
        "rules": pgettext("command", "rules"),
        "next": pgettext("command", "next"),
        "quit": pgettext("command", "quit"),
        "yes": pgettext("command", "yes"),
        "no": pgettext("command", "no"),
        "bot": pgettext("command", "bot"),
        "start": pgettext("command", "start"),
    }


_GREEK_KEYS = dict(zip("αβψδεφγηιξκλμνοπρστθωςχυζ", "abcdefghijklmnoprstuvwxyz", strict=True))
"""The Greek layout: the letter each Latin letter's key types (`;` is on Q, so q has none)."""
_PERSIAN_KEYS = dict(
    zip("ضصثقفغعهخحشسیبلاتنمظطزرذدپئي", "qwertyuiopasdfghjklzxcvbnmmd", strict=True)
)
"""The Persian layouts (ISIRI 9147 and the older Windows one): the letter each key types; M is
پ on one and ئ on the other, D is Persian ی or Arabic ي."""
_KEYS = {
    **{ord(k): v for k, v in _GREEK_KEYS.items()},
    **{ord(k.upper()): v for k, v in _GREEK_KEYS.items() if k != "ς"},
    **{ord(k): v for k, v in _PERSIAN_KEYS.items()},
}
_SAME_LETTER = str.maketrans({"ي": "ی", "ى": "ی", "ك": "ک", "\u200c": None, "\u200d": None})
"""Persian letters that keyboards type in two forms, and the joiners a word may carry."""


def ascii_digits(text: str) -> str:
    """`text` with every decimal digit of any script as an ASCII digit: `۹-۳` is `9-3`."""
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)


def latin_keys(text: str) -> str:
    """`text` with each Greek or Persian letter as the Latin letter on the same key."""
    return text.translate(_KEYS)


def command_key(word: str) -> str:
    """A word as commands are compared: case, accents, joiners and letter variants ignored."""
    decomposed = unicodedata.normalize("NFKD", word.strip().casefold().translate(_SAME_LETTER))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def command_words() -> dict[str, str]:
    """Each word accepted as a command, by its `command_key`, and the command it names: the
    English words and those of the language in effect."""
    translated = translated_commands()
    words = {command_key(name): name for name in translated}
    for name, word in translated.items():
        words.setdefault(command_key(word), name)
    return words


def command(word: str) -> str | None:
    """The command (its English word) that a typed word names, or None."""
    return command_words().get(command_key(word))


def normalise(text: str) -> str:
    """A typed line as the game reads it: a command word in any accepted language as its English
    word; otherwise digits as ASCII digits and Greek or Persian letters as the Latin letters on
    their keys (`۹-۳ ذ` is `9-3 b`, `9-3 β` is `9-3 b`)."""
    words = text.split()
    if len(words) == 1 and (name := command(words[0])) is not None:
        return name
    return " ".join(latin_keys(ascii_digits(word)) for word in words)
