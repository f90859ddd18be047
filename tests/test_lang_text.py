"""Text as each language writes it and a terminal shows it: numbers and lists (CLDR), display
width, wrapping that never parts a tile from its end, and Persian lines in visual order with
tiles, scores and end labels still reading left to right."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cfnet.game.text import points, winner_text, your_name
from cfnet.lang import (
    N_,
    Sentence,
    decimal,
    isolate,
    isolate_name,
    number,
    percent,
    said,
    word_list,
)
from cfnet.lang.bidi import bidi_mode, display_lines, resolve, set_bidi, visual
from cfnet.lang.bidi_marks import CONTROLS
from cfnet.lang.catalog import set_language
from cfnet.lang.languages import LANGUAGES, SOURCE
from cfnet.lang.width import clip, pad, width, wrap
from cfnet.net.lobby import check_player


@pytest.fixture
def persian() -> Iterator[None]:
    set_language(LANGUAGES["fa"])
    set_bidi("cfnet")
    yield
    set_bidi("terminal")
    set_language(LANGUAGES[SOURCE])


@pytest.mark.parametrize(
    ("code", "whole", "tenths", "share", "listed"),
    [
        ("en", "12,345", "12.5", "44.8%", "ana, bo, and ci"),
        ("tl", "12,345", "12.5", "44.8%", "ana, bo, at ci"),
        ("ms", "12,345", "12.5", "44.8%", "ana, bo dan ci"),
        ("el", "12.345", "12,5", "44,8%", "ana, bo και ci"),
        ("fy", "12.345", "12,5", "44,8%", "ana, bo en ci"),
        ("fa", "۱۲٬۳۴۵", "۱۲٫۵", "۴۴٫۸%", "ana،\u200f bo، و ci"),
    ],
)
def test_numbers_and_lists_as_each_language_writes_them(
    code: str, whole: str, tenths: str, share: str, listed: str
) -> None:
    set_language(LANGUAGES[code])
    try:
        shown = (
            number(12345),
            decimal(12.46, 1),
            percent(0.448, 1),
            word_list(["ana", "bo", "ci"]),
        )
    finally:
        set_language(LANGUAGES[SOURCE])
    assert shown == (whole, tenths, share, listed)


def test_width_counts_cells_not_characters() -> None:
    persian_word = "می\u200cشود"  # 'becomes', with a zero-width non-joiner
    assert (len(persian_word), width(persian_word)) == (6, 5)
    assert width("\u20666-4 b\u2069") == 5  # isolates take no cell
    assert width("Ελληνικά") == 8 and width("日本") == 4
    assert pad("αβγ", 5) == "αβγ  " and width(pad(persian_word, 6)) == 6
    assert clip("Ελληνικά", 3) == "Ελλ"


def test_wrapping_fits_the_width_and_keeps_a_tile_with_its_end(persian: None) -> None:
    sentence = "بازیکن کاشی " + isolate("6-4 b") + " را روی انتهای باز گذاشت و " + isolate("12")
    for columns in range(14, 40):
        lines = wrap(sentence, columns)
        assert all(width(line) <= columns for line in lines), (columns, lines)
        assert sum(line.count("\u2066") for line in lines) == 2
        assert any("\u20666-4 b\u2069" in line for line in lines)  # never split at its space
    assert wrap("Ο παίκτης τραβάει 9-3 από την αυλή", 12) == [
        "Ο παίκτης",
        "τραβάει 9-3",  # no break at a tile's dash
        "από την αυλή",
    ]


def test_isolates_only_where_the_language_reads_right_to_left(persian: None) -> None:
    assert isolate("6-4 b") == "\u20666-4 b\u2069"
    assert isolate_name("alice") == "\u2068alice\u2069"
    set_language(LANGUAGES["el"])
    assert isolate("6-4 b") == "6-4 b" and isolate_name("alice") == "alice"


def test_visual_order_keeps_tiles_scores_and_labels_readable(persian: None) -> None:
    line = "بازیکن " + isolate_name("alice") + " کاشی " + isolate("6-4 b") + " را بازی کرد"
    shown = visual(line)
    assert not set(shown) & set(CONTROLS)
    assert "6-4 b" in shown and "alice" in shown  # left to right inside the Persian line
    assert shown.endswith("نکیزاب")  # the sentence's first word is at the right edge
    assert shown.index("6-4 b") < shown.index("alice")  # later words further left
    bare = visual("بازیکن کاشی 6-4 b را بازی کرد")
    assert "b 4-6" in bare  # without the isolate the tile and its end would swap: why we isolate


def test_display_lines_right_align_persian_and_leave_other_languages(persian: None) -> None:
    text = "دور " + isolate("3") + " دوباره میان بازیکنان باقی‌مانده پخش می‌شود"
    lines = display_lines(text, 24)
    assert len(lines) > 1 and all(width(line) == 24 for line in lines)
    assert all(line.startswith(" ") or width(line.lstrip()) == 24 for line in lines)
    set_bidi("terminal")  # the terminal reorders: logical order, as wrapped
    assert display_lines(text, 24) == wrap(text, 24)
    set_language(LANGUAGES["el"])
    set_bidi("cfnet")
    assert display_lines("Ο γύρος μοιράζεται ξανά", 12) == ["Ο γύρος", "μοιράζεται", "ξανά"]


@pytest.mark.parametrize(
    ("mode", "terminal", "environ", "resolved"),
    [
        ("auto", False, {}, "terminal"),  # a pipe or a file keeps logical order
        ("auto", True, {}, "cfnet"),  # xterm, the console, tmux: cfnet reorders
        ("auto", True, {"MLTERM": "3.9.3"}, "terminal"),
        ("auto", True, {"VTE_VERSION": "7600"}, "terminal"),  # GNOME Terminal, xfce4-terminal
        ("auto", True, {"VTE_VERSION": "5200"}, "cfnet"),  # VTE before bidi (0.58)
        ("auto", True, {"KONSOLE_VERSION": "230800"}, "terminal"),
        ("cfnet", False, {}, "cfnet"),
        ("terminal", True, {}, "terminal"),
    ],
)
def test_bidi_auto_asks_the_environment(
    mode: str, terminal: bool, environ: dict[str, str], resolved: str
) -> None:
    assert resolve(mode, terminal, environ) == resolved
    assert bidi_mode() == "terminal"  # resolving sets nothing


def test_an_unknown_bidi_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="auto, terminal, cfnet"):
        resolve("visual", True, {})


@pytest.mark.parametrize(
    ("code", "name"),
    [("en", "You"), ("tl", "Ikaw"), ("ms", "Anda"), ("el", "Εσείς"), ("fy", "Jo"), ("fa", "شما")],
)
def test_a_person_who_gives_no_name_is_named_in_their_language(code: str, name: str) -> None:
    """`cfnet play --offline` without --player: the local person's name is the reader's word
    for 'you', chosen when the game starts (a name is data from then on)."""
    set_language(LANGUAGES[code])
    try:
        chosen = your_name()
    finally:
        set_language(LANGUAGES[SOURCE])
    assert chosen == name and check_player(chosen) == name


@pytest.mark.parametrize(("value", "english", "persian"), [(2.5, "2.5", "۲٫۵"), (60.0, "60", "۶۰")])
def test_a_sentences_seconds_are_english_on_the_wire_and_persian_digits_on_screen(
    value: float, english: str, persian: str
) -> None:
    sentence = Sentence(N_("nothing received for {seconds} s"), seconds=value)
    assert sentence == f"nothing received for {english} s"
    set_language(LANGUAGES["fa"])
    try:
        assert said(sentence) == f"{persian} ثانیه چیزی نرسید"
    finally:
        set_language(LANGUAGES[SOURCE])


@pytest.mark.parametrize(
    ("total", "winner", "lines"),
    [
        (1, "Ο/Η bot2 κερδίζει με 1 πόντο", "1 πόντος"),
        (101, "Ο/Η bot2 κερδίζει με 101 πόντους", "101 πόντοι"),
    ],
)
def test_greek_says_the_winners_points_as_with_takes_them(
    total: int, winner: str, lines: str
) -> None:
    """Greek's "με" (with) takes the accusative: a winner wins "με 101 πόντους", while a score
    standing alone is "101 πόντοι"."""
    set_language(LANGUAGES["el"])
    try:
        assert winner_text((2,), (total + 5, total + 9, total), ["bot0", "bot1", "bot2"]) == winner
        assert points(total) == lines
    finally:
        set_language(LANGUAGES[SOURCE])
