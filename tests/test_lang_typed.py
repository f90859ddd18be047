"""Typing in one's own script: digits of any script are digits, a Greek or Persian letter is the
end label on the same key, and commands are accepted in the language in effect and in English.
A normalised move is read by the game's real move parser."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cfnet.game.board import line_label
from cfnet.game.moves import Play, parse_move
from cfnet.game.tiles import Tile
from cfnet.lang.catalog import set_language
from cfnet.lang.languages import LANGUAGES, SOURCE
from cfnet.lang.typed import ascii_digits, command, latin_keys, normalise, translated_commands

GREEK_LAYOUT = "αβψδεφγηιξκλμνοπ;ρστθωςχυζ"  # what keys a..z type on a Greek keyboard
PERSIAN_LAYOUT = "شذزیثبلاهتنمپدخحضقسفعرصطغظ"  # and on a Persian (ISIRI 9147) one


@pytest.fixture(params=list(LANGUAGES))
def each_language(request: pytest.FixtureRequest) -> Iterator[str]:
    set_language(LANGUAGES[request.param])
    yield request.param
    set_language(LANGUAGES[SOURCE])


def test_digits_of_every_script_are_digits() -> None:
    assert ascii_digits("۰۱۲۳۴۵۶۷۸۹") == "0123456789"  # Persian
    assert ascii_digits("٠١٢٣٤٥٦٧٨٩") == "0123456789"  # Arabic-Indic
    assert ascii_digits("۹-۳ b") == "9-3 b"


@pytest.mark.parametrize("layout", [GREEK_LAYOUT, PERSIAN_LAYOUT])
def test_each_letter_is_the_latin_letter_on_its_key(layout: str) -> None:
    keys = "abcdefghijklmnopqrstuvwxyz"
    typed = {latin: letter for latin, letter in zip(keys, layout, strict=True) if letter != ";"}
    assert {latin: latin_keys(letter) for latin, letter in typed.items()} == {
        latin: latin for latin in typed
    }


def test_greek_capitals_the_older_persian_layout_and_arabic_letters() -> None:
    assert latin_keys("ΑΒΨ") == "abc"
    assert latin_keys("ئ") == "m" and latin_keys("ي") == "d"  # Windows layout; Arabic yeh
    assert latin_keys("ββ ذذ") == "bb bb"  # labels after z: aa, ab, ...


@pytest.mark.parametrize(
    ("typed", "tile", "end"),
    [
        ("۹-۳ ذ", Tile(3, 9), "b"),  # all Persian: digits and the letter on the B key
        ("٩-٣ β", Tile(3, 9), "b"),
        ("6-4 γ", Tile(4, 6), "g"),
        ("۶-۴ شذ", Tile(4, 6), "ab"),
    ],
)
def test_a_move_typed_in_another_script_is_read_by_the_move_parser(
    typed: str, tile: Tile, end: str
) -> None:
    move = parse_move(normalise(typed))
    assert isinstance(move, Play) and (move.tile, move.end) == (tile, end)
    assert end in {line_label(i) for i in range(60)}


def test_commands_in_the_language_and_in_english(each_language: str) -> None:
    for name, word in translated_commands().items():
        assert command(word) == name
        assert command(name) == name  # English always works
        assert command(word.upper()) == name and command(f"  {word} ") == name
        assert normalise(word) == name
    assert command("bogus") is None


def test_greek_commands_without_accents_or_in_capitals() -> None:
    set_language(LANGUAGES["el"])
    try:
        assert [command(w) for w in ("τράβα", "τραβα", "ΤΡΑΒΑ", "Πάσο", "οχι", "ΝΑΙ")] == [
            "draw", "draw", "draw", "pass", "no", "yes",
        ]  # fmt: skip
        assert normalise("τράβα") == "draw" and normalise("9-3 τ") == "9-3 t"
    finally:
        set_language(LANGUAGES[SOURCE])


def test_persian_commands_whatever_the_keyboard_types_for_yeh_and_kaf() -> None:
    set_language(LANGUAGES["fa"])
    try:
        assert command("بکش") == "draw" and command("پیشنهاد") == "hint"
        assert command("پيشنهاد") == "hint"  # Arabic yeh, as some keyboards type it
        assert command("امتیاز\u200cها") == "scores"  # with the joiner many write
        assert command("τράβα") is None  # another language's word is not taken
    finally:
        set_language(LANGUAGES[SOURCE])
