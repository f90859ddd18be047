"""Every screen drawn in every language at 80x24 and 60x20: the game screen (board, help, scores,
event log, rule book, the round's result, the game's end), the lobby (host and guest, the rule
book) and the table browser (the list, the host form, help), each line as a terminal gets it
(the frame's escaping and, for Persian, cfnet's own bidi as well as the terminal's) no wider
than the terminal, measured in display cells."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_screen import Player, play_first_moves_to_the_end, run_screen

from cfnet.lang import width
from cfnet.lang.bidi import set_bidi, set_terminal
from cfnet.lang.catalog import set_language
from cfnet.lang.languages import LANGUAGES, SOURCE
from cfnet.net.discovery import Discovery
from cfnet.record.identity import Identity
from cfnet.ui.browser import BrowserScreen
from cfnet.ui.lobby_screen import LobbyScreen
from cfnet.ui.page import Terminal
from cfnet.ui.styles import Frame

SIZES = ((80, 24), (60, 20))
LONG = "Ada Lovelace of the Analytical Engine co"  # 40 characters, the most a name may have
TERMINALS = {
    "terminal": {},
    "cfnet": {},
    "vte": {"VTE_VERSION": "7003"},
    "mlterm": {"MLTERM": "3.9"},
}
"""How a terminal gets the text: logical order; reordered by cfnet; with a direction mark before
each row (a VTE terminal), and embeddings for isolates (mlterm)."""
CASES = [(code, bidi) for code in LANGUAGES for bidi in TERMINALS]
CASES = [case for case in CASES if case[1] == "terminal" or LANGUAGES[case[0]].rtl]


@pytest.fixture(params=CASES, ids=[f"{code}-{bidi}" for code, bidi in CASES])
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    code, bidi = request.param
    set_language(LANGUAGES[code])
    set_bidi("cfnet" if bidi == "cfnet" else "terminal")
    set_terminal(True, TERMINALS[bidi])
    yield code
    set_bidi("terminal")
    set_terminal(False, {})
    set_language(LANGUAGES[SOURCE])


def overflowing(draw: Callable[[int, int], object], what: str) -> list[str]:
    """The lines of `draw` (a screen's frame) wider than the terminal, at each size, as the
    terminal gets them."""
    wide = []
    for columns, rows in SIZES:
        content = Frame(draw).create_content(columns, rows)  # type: ignore[arg-type]
        for i in range(content.line_count):
            line = "".join(t[1] for t in content.get_line(i))
            if width(line) > columns:
                wide.append(f"{what} {columns}x{rows}: {line!r} ({width(line)} cells)")
    return wide


def test_the_game_screen_fits_in_every_language(language: str) -> None:
    wide: list[str] = []

    def check(player: Player, what: str) -> None:
        screen = player.screen
        wide.extend(overflowing(lambda w, h: screen.frame(w, h - 1), what))
        wide.extend(f"{what} toolbar" for w, _ in SIZES if width(screen.toolbar(w)) > w)

    async def scenario(player: Player) -> None:
        screen = player.screen
        await player.until(player.my_turn, "my turn")
        await player.type("hint\r")
        check(player, "board and hint")
        for panel in ("help", "scores", "log", "rules"):
            await player.type(f"{panel}\r")
            assert screen.panel == panel
            check(player, panel)
        await player.type("\r")
        await player.type("banana\r")
        check(player, "an error")
        await play_first_moves_to_the_end(player)
        await player.until(lambda: screen.game_end is not None, "the end of the game")
        check(player, "the game's end")
        await player.type("\r")

    assert run_screen(scenario) == 0
    assert wide == []


def test_the_lobby_fits_in_every_language(language: str) -> None:
    me, guest = Identity.generate().public, Identity.generate().public
    wide: list[str] = []
    with create_pipe_input() as keys:
        for hosting in (True, False):
            screen = LobbyScreen(Terminal(keys, DummyOutput()), "table 'Kitchen'", 60)
            screen._add_bot = (lambda: Identity.generate().public) if hosting else None
            screen.me = me
            screen.roster([("Me", me), (LONG, guest)], 4)
            screen.say("Ben joined seat 2")
            screen.command("help")
            wide += overflowing(screen.frame, f"lobby (host: {hosting})")
            wide += [f"toolbar {w}" for w, _ in SIZES if width(screen.toolbar(w)) > w]
            screen.command("dance")
            wide += overflowing(screen.frame, "lobby error")
            screen.command("rules")
            assert screen.reading_rules
            wide += overflowing(screen.frame, "lobby rule book")
    assert wide == []


def test_the_browser_fits_in_every_language(language: str) -> None:
    async def main() -> list[str]:
        wide: list[str] = []
        with create_pipe_input() as keys:
            async with Discovery("127.0.0.1") as looking:
                screen = BrowserScreen(looking, LONG, Terminal(keys, DummyOutput()), "eth0")
                screen.browser.tables.clear()  # other tests' tables are not this test's
                wide += overflowing(screen.frame, "empty list")
                screen.command("help")
                wide += overflowing(screen.frame, "help")
                screen.command("h")
                for answer in ("", "4", "", ""):  # name, seats, rules, code: then bots
                    wide += overflowing(screen.frame, f"host form ({screen.question})")
                    assert screen.question is not None
                    screen.question.answer(answer or screen.question.default)
                wide += overflowing(screen.frame, "host form, computer players")
                wide += [f"toolbar {w}" for w, _ in SIZES if width(screen.toolbar(w)) > w]
        return wide

    assert asyncio.run(main()) == []
