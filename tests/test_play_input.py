"""Typed input at the game screen: every kind of line, right and wrong, and tab completion."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from cfnet.game.moves import DRAW, PASS, Move, parse_move, play
from cfnet.game.round import PlayerView, Round
from cfnet.game.tiles import Tile
from cfnet.ui.move_input import (
    COMMANDS,
    Command,
    InputCompleter,
    InputError,
    numbered_moves,
    parse_input,
    sorted_hand,
)

NAMES = ("Ann", "Ben")


def tiles(text: str) -> list[Tile]:
    return [Tile.parse(word) for word in text.split()]


def position(hand: str, other: str, yard: str, *moves: str) -> Round:
    """A two-seat round-1 position (centre 9-9, two trains) after `moves` in turn order."""
    game_round = Round(2, 1, 0, [tiles(hand), tiles(other)], tiles(yard))
    for text in moves:
        game_round.apply(parse_move(text))
    return game_round


OPENING = position("9-3 9-2 8-1 7-3 5-5", "9-7 4-4 6-1", "0-0 1-0 2-0 3-0")
MAIN = position("9-3 9-2 8-1 7-3 5-5", "9-7 4-4 6-1", "0-0 1-0 2-0 3-0", "9-3 a", "9-7 b")
STUCK = position("9-3 8-1 5-5", "9-7 4-4 6-1", "0-0 1-0 2-0 3-0", "9-3 a", "9-7 b")


def parse(text: str, view: PlayerView | None) -> Move | Command:
    return parse_input(text, view, NAMES)


def error(text: str, view: PlayerView | None) -> str:
    with pytest.raises(InputError) as caught:
        parse_input(text, view, NAMES)
    return str(caught.value)


def test_hand_and_moves_are_numbered_in_shown_order() -> None:
    assert sorted_hand(tiles("1-1 9-2 5-5 9-3 0-0")) == tiles("9-3 9-2 5-5 1-1 0-0")
    assert numbered_moves(OPENING.view(0)) == [play(Tile.of(9, 3), "a"), play(Tile.of(9, 2), "a")]


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("1", play(Tile.of(9, 3), "a")),
        (" 2 ", play(Tile.of(9, 2), "a")),
        ("9-3 a", play(Tile.of(9, 3), "a")),
        ("3-9 A", play(Tile.of(9, 3), "a")),
        ("[9|3] a", play(Tile.of(9, 3), "a")),
        ("9-3", play(Tile.of(9, 3), "a")),
    ],
)
def test_moves_by_number_or_by_tile(text: str, move: Move) -> None:
    assert parse(text, OPENING.view(0)) == move


@pytest.mark.parametrize(
    ("word", "name"),
    [
        *[("help", "help"), ("?", "help"), ("HINT", "hint"), ("scores", "scores")],
        *[("log", "log"), ("quit", "quit"), ("q", "quit"), ("exit", "quit"), ("next", "next")],
    ],
)
def test_commands_work_whenever(word: str, name: str) -> None:
    for view in (OPENING.view(0), OPENING.view(1), None):
        assert parse(word, view) == Command(name)
    assert set(COMMANDS) >= {"hint", "scores", "log", "help", "quit", "draw", "pass"}


def test_wrong_inputs_say_what_is_wrong_and_what_is_allowed() -> None:
    view = OPENING.view(0)
    assert "is not a move or a command" in error("banana", view)
    assert "is not a move or a command" in error("²", view)
    assert "is not a move or a command" in error("x a", view)  # tile and end, no tile
    assert "draw, pass, or help" in error("banana", view)
    assert "type a move number" in error("   ", view)
    assert error("5", view) == "there is no move 5: choose from: 1) 9-3 a, 2) 9-2 a"
    assert "cannot go on b" in error("9-3 b", view)
    assert "play it on a" in error("9-3 b", view)
    assert "8-1 fits no open end" in error("8-1", view)
    assert "choose from: 1) 9-3 a, 2) 9-2 a" in error("8-1 a", view)
    assert "you do not hold 7-7" in error("7-7 a", view)
    assert "9-9 is already on the board" in error("9-9 a", view)
    assert "you cannot draw: 9-3 fits a" in error("draw", view)
    assert "you cannot pass: 9-3 fits a" in error("p", view)


def test_the_only_move_is_named_as_such() -> None:
    view = position("9-3 8-1 5-5", "9-7 4-4 6-1", "0-0 1-0 2-0 3-0").view(0)
    assert len(numbered_moves(view)) == 1
    said = error("banana", view)
    assert "type 1 (your only move), a tile and an end like 9-3 b" in said
    assert "(1-1)" not in said
    assert "type a move number, 1 to 2, a tile" in error("banana", OPENING.view(0))


def test_when_it_is_not_your_turn_only_commands_work() -> None:
    assert error("1", OPENING.view(1)) == "it is Ann's turn, not yours: wait for your turn"
    assert "it is Ann's turn" in error("draw", OPENING.view(1))
    assert "not dealt yet" in error("9-3 a", None)


@pytest.mark.parametrize("view", [OPENING.view(1), None], ids=["not your turn", "not dealt"])
def test_a_line_that_is_no_move_says_so_whoever_is_to_play(view: PlayerView | None) -> None:
    said = error("banana", view)
    assert said.startswith("'banana' is not a move or a command: when your turn comes, type")
    assert "help, scores, log and quit work now" in said
    assert "not a move or a command" in error("x a", view)
    assert "not a move or a command" not in error("9-3 a", view)
    assert "not a move or a command" not in error("7", view)


def test_a_tile_that_fits_two_ends_needs_the_end() -> None:
    view = MAIN.view(0)
    assert numbered_moves(view) == [play(Tile.of(7, 3), "a"), play(Tile.of(7, 3), "b")]
    assert error("7-3", view) == "7-3 fits a, b: say where, e.g. 7-3 a or 7-3 b"
    assert parse("7-3 b", view) == play(Tile.of(7, 3), "b")
    assert parse("2", view) == play(Tile.of(7, 3), "b")
    assert "there is no open end z" in error("7-3 z", view)
    assert "there is no move 93" in error("93", view)


def test_draw_then_the_drawn_tile_or_pass() -> None:
    game_round = position("9-3 8-1 5-5", "9-7 4-4 6-1", "7-2 1-0 2-0 3-0", "9-3 a", "9-7 b")
    view = game_round.view(0)
    assert numbered_moves(view) == [DRAW]
    assert parse("d", view) == DRAW
    assert parse("1", view) == DRAW
    assert error("pass", view) == (
        "you cannot pass while the yard has tiles to draw (2): play a tile that fits, or draw;"
        " choose from: 1) draw"
    )
    game_round.apply(DRAW)
    view = game_round.view(0)
    assert view.drawn == Tile.of(7, 2)
    assert parse("1", view) == play(Tile.of(7, 2), "b")
    assert parse("7-2", view) == play(Tile.of(7, 2), "b")
    assert error("pass", view) == "the 7-2 you drew fits b: you must play it; choose from: 1) 7-2 b"
    assert "you have already drawn this turn" in error("draw", view)
    assert "you drew 7-2: play it if it fits, else pass" in error("8-1 a", view)


def test_a_misfit_draw_and_the_floor_mean_pass() -> None:
    game_round = position("9-3 8-1 5-5", "9-7 4-4 6-1", "0-0 1-0 2-0", "9-3 a", "9-7 b")
    game_round.apply(DRAW)
    assert numbered_moves(game_round.view(0)) == [PASS]
    assert parse("pass", game_round.view(0)) == PASS
    game_round.apply(PASS)  # Ben holds 6-1 and 4-4: nothing fits 3 or 7, the yard is at 2
    view = game_round.view(1)
    assert numbered_moves(view) == [PASS]
    assert "the yard is at its floor (2 left, the last 2 are never drawn)" in error("draw", view)


def test_after_the_round_moves_are_refused() -> None:
    game_round = position("9-3", "9-7 4-4", "0-0 1-0 2-0 3-0")
    game_round.apply(parse_move("9-3 a"))
    assert game_round.is_over
    assert "the round is over: press Enter" in error("1", game_round.view(0))
    assert parse("next", game_round.view(0)) == Command("next")


def complete(text: str, view: PlayerView | None) -> list[str]:
    completer = InputCompleter(lambda: view)
    found = completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
    return [c.text for c in found]


def test_completion_of_tiles_commands_and_ends() -> None:
    view = MAIN.view(0)
    assert complete("", view) == ["9-2", "8-1", "7-3", "5-5", *COMMANDS]
    assert complete("9", view) == ["9-2"]
    assert complete("h", view) == ["hint", "help"]
    assert complete("q", view) == ["quit"]
    assert complete("7-3 ", view) == ["a", "b"]
    assert complete("7-3 b", view) == ["b"]
    assert complete("8-1 ", view) == ["a", "b"]  # fits nowhere: every open end is offered
    assert complete("banana ", view) == []
    assert complete("", None) == list(COMMANDS)
    assert complete("7-3 a ", view) == []


def test_completion_in_the_opening_offers_the_new_train() -> None:
    assert complete("9-3 ", OPENING.view(0)) == ["a"]
    assert complete("x", STUCK.view(0)) == []
