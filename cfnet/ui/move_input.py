"""What a player types at the game screen: a move (by number or as tile and end) or a command.

`parse_input` turns a line into a legal `Move` or a `Command`, or raises `InputError` saying
what was wrong and what is allowed instead. `InputCompleter` completes commands, tiles in hand
and open-end labels.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NoReturn

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from cfnet.errors import describe
from cfnet.game.moves import DRAW, PASS, Draw, IllegalMoveError, Move, Pass, Play, parse_move, play
from cfnet.game.round import PlayerView
from cfnet.game.text import seat_name
from cfnet.game.tiles import Tile, TileParseError
from cfnet.lang import N_, _, isolate, said
from cfnet.lang.formatting import or_list
from cfnet.lang.typed import normalise, translated_commands

COMMANDS: dict[str, str] = {
    "draw": N_("draw from the yard"),
    "pass": N_("pass your turn"),
    "hint": N_("the computer's choice"),
    "scores": N_("the score table"),
    "log": N_("every event so far"),
    "help": N_("how to play"),
    "rules": N_("the complete rule book"),
    "next": N_("the next round"),
    "quit": N_("resign and leave the game (asks first)"),
}
"""The commands of the game screen, by their English word, with what each does (shown by
completion, in the language in effect)."""
ALIASES: dict[str, str] = {
    "d": "draw",
    "p": "pass",
    "?": "help",
    "\u061f": "help",  # the Persian question mark
    "exit": "quit",
    "q": "quit",
    "leave": "quit",
}


class InputError(ValueError):
    """A typed line that is no legal move or command here; the message says what is allowed."""


@dataclass(frozen=True, slots=True)
class Command:
    """A command other than a move: one of hint, scores, log, help, rules, next, quit."""

    name: str


def sorted_hand(tiles: Iterable[Tile]) -> list[Tile]:
    """A hand as shown: highest half first, then the other half, both descending."""
    return sorted(tiles, key=lambda t: (t.high, t.low), reverse=True)


def numbered_moves(view: PlayerView) -> list[Move]:
    """The legal moves in the order the screen numbers them (1, 2, ...): by tile as shown."""
    order = {tile: i for i, tile in enumerate(sorted_hand(view.hand))}
    moves = view.legal_moves()
    return sorted(
        moves, key=lambda m: (order.get(m.tile, -1), m.end) if isinstance(m, Play) else (99, "")
    )


def shown_move(move: Move) -> str:
    """A move as the screen lists it: a tile and its end (`9-3 a`, kept left to right), or the
    command word that draws or passes in the language in effect."""
    if isinstance(move, Draw):
        return translated_commands()["draw"]
    if isinstance(move, Pass):
        return translated_commands()["pass"]
    return isolate(str(move))


def allowed_now(moves: Sequence[Move]) -> str:
    """The moves as the error messages list them: '1) 9-3 a, 2) draw'."""
    return ", ".join(f"{n}) {shown_move(m)}" for n, m in enumerate(moves, start=1))


def parse_input(text: str, view: PlayerView | None, names: Sequence[str]) -> Move | Command:
    """The move or command `text` asks for, given the local seat's `view`; `InputError` if none.
    `text` may be in the player's script (`typed.normalise`): commands in the language in effect,
    digits and end labels as typed on a Greek or Persian keyboard."""
    words = normalise(text).lower().split()
    if not words:
        raise InputError(_("type a move number, a tile and an end like 9-3 b, or help"))
    word = ALIASES.get(words[0], words[0])
    if len(words) == 1 and word in COMMANDS and word not in ("draw", "pass"):
        return Command(word)
    waiting = view is None or (not view.public.is_over and view.public.turn != view.seat)
    if waiting and not _is_move_shaped(words, word):
        raise InputError(
            _(
                "{text!r} is not a move or a command: when your turn comes, type a move number,"
                " a tile and an end like 9-3 b, draw or pass; help, scores, log and quit work now"
            ).format(text=text.strip())
        )
    if view is None:
        raise InputError(
            _("the tiles are not dealt yet: wait (help, scores, log and quit work now)")
        )
    public = view.public
    if public.is_over:
        raise InputError(_("the round is over: press Enter (or type next) to go on"))
    if public.turn != view.seat:
        who = seat_name(names, public.turn)
        raise InputError(_("it is {name}'s turn, not yours: wait for your turn").format(name=who))
    if not view.hand or (public.drawn_pending and view.drawn is None):
        raise InputError(_("your tiles are being opened by the table: wait a moment"))
    moves = numbered_moves(view)
    choose = _("choose from: {moves}").format(moves=allowed_now(moves))
    if len(words) == 1 and words[0].isdecimal():
        number = int(words[0])
        if 1 <= number <= len(moves):
            return moves[number - 1]
        if len(words[0]) == 2:
            raise InputError(
                _(
                    "there is no move {number} (a tile is typed with a dash: {tile}): {choose}"
                ).format(number=number, tile=f"{words[0][0]}-{words[0][1]}", choose=choose)
            )
        raise InputError(
            _("there is no move {number}: {choose}").format(number=number, choose=choose)
        )
    if len(words) == 1 and word in ("draw", "pass"):
        return _draw_or_pass(DRAW if word == "draw" else PASS, view, moves, choose)
    try:
        tile, end = _typed_tile(words)
    except (TileParseError, IllegalMoveError):
        if len(moves) == 1:
            wrong = _(
                "{text!r} is not a move or a command: type 1 (your only move), a tile and an end"
                " like 9-3 b, draw, pass, or help"
            )
        else:
            wrong = _(
                "{text!r} is not a move or a command: type a move number, 1 to {count}, a tile"
                " and an end like 9-3 b, draw, pass, or help"
            )
        raise InputError(wrong.format(text=text.strip(), count=len(moves))) from None
    return _tile_move(tile, end, view, moves, choose)


def _typed_tile(words: list[str]) -> tuple[Tile, str | None]:
    """The tile `words` name and its end (None if none is given); `TileParseError` or
    `IllegalMoveError` if they name no tile."""
    if len(words) >= 2 and words[-1].isalpha():
        typed = parse_move(" ".join(words))  # two or more words: a Play or an error
        assert isinstance(typed, Play)
        return typed.tile, typed.end
    return Tile.parse(" ".join(words)), None


def _is_move_shaped(words: list[str], word: str) -> bool:
    """Whether `words` have the shape of a move (a number, draw, pass, a tile with or without
    an end), legal or not."""
    if len(words) == 1 and (words[0].isdecimal() or word in ("draw", "pass")):
        return True
    try:
        _typed_tile(words)
    except (TileParseError, IllegalMoveError):
        return False
    return True


def _draw_or_pass(move: Draw | Pass, view: PlayerView, moves: list[Move], choose: str) -> Move:
    if move in moves:
        return move
    _refuse(move, view, choose)


def _tile_move(
    tile: Tile, end: str | None, view: PlayerView, moves: list[Move], choose: str
) -> Move:
    places = [m.end for m in moves if isinstance(m, Play) and m.tile == tile]
    if end is None:
        if len(places) == 1:
            return play(tile, places[0])
        if places:
            options = or_list([isolate(f"{tile.label} {p}") for p in places])
            raise InputError(
                _("{tile} fits {ends}: say where, e.g. {options}").format(
                    tile=isolate(tile.label), ends=", ".join(places), options=options
                )
            )
        if tile in view.hand and view.drawn in (None, tile):
            requirement = said(view.public.requirement())
            raise InputError(
                _("{tile} fits no open end: {requirement}; {choose}").format(
                    tile=isolate(tile.label), requirement=requirement, choose=choose
                )
            )
    move = play(tile, end or "")  # without an end: a tile the engine refuses for what it is
    if move in moves:
        return move
    _refuse(move, view, choose)


def _refuse(move: Move, view: PlayerView, choose: str) -> NoReturn:
    """Raise InputError with the engine's reason why `move` is not allowed, and the choices."""
    try:
        view.check(move)
    except IllegalMoveError as error:
        why = describe(error)
        raise InputError(_("{error}; {choose}").format(error=why, choose=choose)) from None
    raise AssertionError(f"{move} passes the checks but is not a legal move")


class InputCompleter(Completer):
    """Completes the first word (commands, tiles in hand, move numbers) and an end after a tile."""

    def __init__(self, get_view: Callable[[], PlayerView | None]) -> None:
        self._get_view = get_view

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        before = document.text_before_cursor.lower()
        words = before.split()
        typing = "" if not words or before[-1:].isspace() else words[-1]
        done = [normalise(word) for word in (words if not typing else words[:-1])]
        for text, meta in self.candidates(done):
            if text.startswith(typing):
                yield Completion(text, -len(typing), display_meta=meta)

    def candidates(self, done: Sequence[str]) -> list[tuple[str, str]]:
        """What may follow the words `done` already typed, with a short description each."""
        view = self._get_view()
        if not done:
            tiles = [] if view is None else sorted_hand(view.hand)
            found = [(t.label, _("tile")) for t in tiles]
            words = translated_commands()
            return found + [(words[name], _(what)) for name, what in COMMANDS.items()]
        if view is None or len(done) != 1:
            return []
        try:
            tile = Tile.parse(done[0])
        except TileParseError:
            return []
        ends = view.public.ends
        fitting = [label for label, n in ends.items() if tile.has(n)]
        needs = _("open end, needs {number}")
        return [(label, needs.format(number=ends[label])) for label in fitting or list(ends)]
