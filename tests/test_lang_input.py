"""A Greek or Persian player at the game screen and the lobby: moves typed in their own script
(digits and end labels as their keyboard types them), commands in their language and in
English, and the rule book in their language inside the game and the lobby."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from prompt_toolkit.input import PipeInput
from test_lobby_screen import in_lobby, until
from test_play_input import MAIN, OPENING, STUCK, complete, error, parse
from test_screen import Player, run_screen

from cfnet.game.moves import DRAW, play
from cfnet.game.tiles import Tile
from cfnet.lang.catalog import set_language
from cfnet.lang.languages import LANGUAGES, SOURCE
from cfnet.ui.lobby_screen import LobbyScreen
from cfnet.ui.move_input import Command


@pytest.fixture
def greek() -> Iterator[None]:
    set_language(LANGUAGES["el"])
    yield
    set_language(LANGUAGES[SOURCE])


@pytest.fixture
def persian() -> Iterator[None]:
    set_language(LANGUAGES["fa"])
    yield
    set_language(LANGUAGES[SOURCE])


@pytest.mark.usefixtures("persian")
def test_a_persian_player_types_moves_and_commands_in_persian() -> None:
    view = OPENING.view(0)
    assert parse("۱", view) == play(Tile.of(9, 3), "a")  # move 1, a Persian digit
    assert parse("۹-۳ ش", view) == play(Tile.of(9, 3), "a")  # ش is on the A key
    assert parse("۲-۹", view) == play(Tile.of(9, 2), "a")
    assert parse("پیشنهاد", view) == Command("hint")
    assert parse("قوانین", None) == Command("rules")
    assert parse("؟", None) == Command("help")  # the Persian question mark
    assert parse("hint", view) == Command("hint")  # English works as well
    assert "نمی\u200cتوانید بکشید: 9-3 با a جور است" in error("بکش", view)  # the engine's reason
    assert error("۵", view).startswith("حرکتِ 5 وجود ندارد: یکی را انتخاب کنید: 1) ")
    assert parse("بکش", STUCK.view(0)) == DRAW


@pytest.mark.usefixtures("greek")
def test_a_greek_player_types_moves_and_commands_in_greek() -> None:
    view = MAIN.view(0)
    assert parse("7-3 β", view) == play(Tile.of(7, 3), "b")  # β is on the B key
    assert parse("7-3 Α", view) == play(Tile.of(7, 3), "a")
    assert parse("ΣΚΟΡ", view) == Command("scores")
    assert parse("κανονες", view) == Command("rules")  # without its accent
    assert parse("τράβα", STUCK.view(0)) == DRAW
    assert error("7-3", view) == "το 7-3 ταιριάζει στο a, b: πείτε πού, π.χ. 7-3 a ή 7-3 b"
    assert "το 'μπανάνα' δεν είναι κίνηση ούτε εντολή" in error("μπανάνα", view)


@pytest.mark.usefixtures("greek")
def test_completion_offers_the_commands_in_the_language() -> None:
    assert complete("τ", None) == ["τράβα"]
    assert complete("κ", None) == ["κανόνες"]
    assert complete("9-2 ", MAIN.view(0)) == ["a", "b"]
    assert "βοήθεια" in complete("", None)


def test_in_greek_the_game_screen_shows_the_rule_book_and_leaves_on_yes(greek: None) -> None:
    async def scenario(player: Player) -> None:
        screen = player.screen
        await player.type("κανόνες\r")
        assert screen.panel == "rules"
        text = screen.text()
        assert "οι κανόνες που παίζει το cfnet" in text
        assert "Απόφαση" in text  # the house decisions are in the book
        await player.type("\r")
        assert screen.panel is None
        await player.type("έξοδος\r")
        assert screen.confirming_quit
        await player.type("ναι\r", lambda: not screen.app.is_running)

    assert run_screen(scenario) == 0


def test_the_persian_lobby_shows_the_rule_book_and_seats_a_bot_in_persian() -> None:
    set_language(LANGUAGES["fa"])

    async def scenario(screen: LobbyScreen, keys: PipeInput) -> None:
        keys.send_text("قوانین\r")
        await until(lambda: screen.reading_rules, "the rule book shown", screen)
        body = "\n".join("".join(t[1] for t in row) for row in screen.body(80)[0])
        assert "قوانینی که cfnet اجرا می‌کند" in body
        rows = ["".join(t[1] for t in row) for row in screen.frame(80, 22)]
        assert any("۰ سطر بالا" in row and "PgUp/PgDn" in row for row in rows)
        keys.send_text("\x1b[6~")  # PgDn: the next page
        await until(lambda: screen._top > 0, "the next page", screen)
        keys.send_text("\x1b")  # Esc: back to the seats
        await until(lambda: not screen.reading_rules, "back to the seats", screen)
        keys.send_text("رایانه\r")
        await until(lambda: len(screen._bots) == 1, "a computer player on its way", screen)
        keys.send_text("خروج\r")

    try:
        in_lobby(True, scenario)
    finally:
        set_language(LANGUAGES[SOURCE])
