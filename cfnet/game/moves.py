"""Moves: play a tile on an open end, draw, pass; how they are typed and written as plain data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cfnet.game.tiles import ALL_TILES, Tile, TileParseError
from cfnet.lang import N_
from cfnet.lang.sentence import Sentence


class IllegalMoveError(ValueError):
    """A move the rules do not allow here; the message says why and what is allowed instead."""


@dataclass(frozen=True, slots=True)
class Play:
    """Play `tile` on the open end labelled `end`."""

    tile: Tile
    end: str

    def __str__(self) -> str:
        return f"{self.tile.label} {self.end}"


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one tile from the yard (only when no tile fits)."""

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass (only when nothing fits and nothing may be drawn, or after drawing a misfit)."""

    def __str__(self) -> str:
        return "pass"


Move = Play | Draw | Pass
DRAW = Draw()
PASS = Pass()
_PLAYS: dict[tuple[int, int, str], Play] = {}


def play(tile: Tile, end: str) -> Play:
    """The interned `Play(tile, end)` (moves are compared by value; interning saves time)."""
    key = (tile.low, tile.high, end)
    move = _PLAYS.get(key)
    if move is None:
        move = _PLAYS[key] = Play(tile, end)
    return move


def move_to_plain(move: Move) -> list[Any]:
    """`["play", tile_index, end]`, `["draw"]` or `["pass"]`."""
    if isinstance(move, Play):
        return ["play", move.tile.index, move.end]
    return ["draw"] if isinstance(move, Draw) else ["pass"]


def move_from_plain(data: Any) -> Move:
    """The move `move_to_plain` made; raises `IllegalMoveError` on anything else."""
    if data == ["draw"]:
        return DRAW
    if data == ["pass"]:
        return PASS
    if (
        isinstance(data, list)
        and len(data) == 3
        and data[0] == "play"
        and type(data[1]) is int
        and 0 <= data[1] < len(ALL_TILES)
        and isinstance(data[2], str)
        and data[2].isascii()
        and data[2].isalpha()
        and data[2].islower()
        and len(data[2]) <= 3
    ):
        return play(ALL_TILES[data[1]], data[2])
    raise IllegalMoveError(
        Sentence(
            N_("malformed move {data}: expected [play, tile, end], [draw] or [pass]"),
            data=repr(data),
        )
    )


def parse_move(text: str) -> Move:
    """Read a typed move: `9-3 a` (tile, then end label), `draw`/`d`, `pass`/`p`."""
    words = text.strip().lower().split()
    if words in (["draw"], ["d"]):
        return DRAW
    if words in (["pass"], ["p"]):
        return PASS
    if len(words) >= 2 and words[-1].isalpha():
        try:
            return play(Tile.parse(" ".join(words[:-1])), words[-1])
        except TileParseError as error:
            raise IllegalMoveError(*error.args) from None
    raise IllegalMoveError(
        Sentence(
            N_("{text} is not a move: type a tile and an end like '9-3 a', or draw, or pass"),
            text=repr(text.strip()),
        )
    )
