"""The public round (RULES.md): the board's lines and open ends, then turns, counts and the end.

Pure: no I/O, no clock, no randomness. `Board` is the geometry (the centre double, its trains,
feet and toes, which ends are open and what they need); `PublicRound` adds whose turn it is,
the hand and yard counts and how the round ends: everything every peer can check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from cfnet.game.moves import DRAW, PASS, Draw, IllegalMoveError, Move, Pass, Play, play
from cfnet.game.rules import RuleOptions, hand_size, round_double, yard_floor
from cfnet.game.tiles import ALL_TILES, TILES_PER_NUMBER, Tile, a_number, double
from cfnet.lang import N_, isolate
from cfnet.lang.sentence import Sentence

TOES = 3


class Phase(Enum):
    """OPENING: trains are being started; FOOT: a foot needs toes; MAIN: any open end."""

    OPENING = "opening"
    FOOT = "foot"
    MAIN = "main"


class EndReason(Enum):
    """Why a round ended."""

    WENT_OUT = "went out"
    BLOCKED = "blocked"
    DEAD_FOOT = "dead foot"


def line_label(index: int) -> str:
    """The label of the `index`-th line (0-based): a..z, then aa, ab, ..."""
    text = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        text = chr(97 + rest) + text
    return text


@dataclass(slots=True)
class Line:
    """A train on the centre or a toe of a foot: `tiles` from `root` outwards, open at `end`.

    `closed` once a double (a foot) lies at its end; the foot's toes are new lines.
    """

    label: str
    root: Tile
    tiles: list[Tile]
    end: int
    closed: bool = False

    def copy(self) -> Line:
        """An independent copy."""
        return Line(self.label, self.root, list(self.tiles), self.end, self.closed)


def _fits(tile: Tile, number: int) -> bool:
    return tile.low == number or tile.high == number


class Board:
    """The tiles on the table: the centre double, the lines grown from it, the open ends.

    `ends` maps each open end's label to the number a tile must show to go there."""

    __slots__ = (
        "_by_label",
        "_on_board",
        "_pips_on_board",
        "centre",
        "ends",
        "foot",
        "lines",
        "toes_left",
        "trains",
        "trains_needed",
    )

    centre: Tile
    trains_needed: int
    lines: list[Line]
    trains: int
    foot: Tile | None
    toes_left: int
    ends: dict[str, int]
    _by_label: dict[str, Line]
    _on_board: bytearray
    _pips_on_board: list[int]

    def __init__(self, centre: Tile, trains_needed: int) -> None:
        """An empty board: the centre double alone, waiting for `trains_needed` trains."""
        self.centre = centre
        self.trains_needed = trains_needed
        self.lines = []
        self.trains = 0
        self.foot = None
        self.toes_left = 0
        self._by_label = {}
        self._on_board = bytearray(len(ALL_TILES))
        self._on_board[centre.index] = 1
        self._pips_on_board = [0] * TILES_PER_NUMBER
        self._pips_on_board[centre.low] = 1
        self._refresh_ends()

    @property
    def phase(self) -> Phase:
        """OPENING until the centre has its trains, FOOT while a foot lacks toes, else MAIN."""
        if self.trains < self.trains_needed:
            return Phase.OPENING
        return Phase.FOOT if self.foot is not None else Phase.MAIN

    @property
    def next_label(self) -> str:
        """The label the next new line (train or toe) will get."""
        return line_label(len(self.lines))

    @property
    def foot_is_dead(self) -> bool:
        """An open foot lacks toes and every tile with its number is on the board."""
        foot = self.foot
        return foot is not None and self._pips_on_board[foot.low] == TILES_PER_NUMBER

    def on_board(self, tile: Tile) -> bool:
        return bool(self._on_board[tile.index])

    def left_off_board(self, number: int) -> int:
        """How many tiles showing `number` are not on the board (each number is on ten)."""
        return TILES_PER_NUMBER - self._pips_on_board[number]

    def plays_of(self, tile: Tile) -> list[Play]:
        """Every place `tile` may be played now (ignores whose hand it is in)."""
        low, high = tile.low, tile.high
        return [play(tile, label) for label, n in self.ends.items() if n in (low, high)]

    def requirement(self) -> Sentence:
        """What a play must be now, e.g. 'the foot on 5-5 needs 2 more tiles with a 5 (end e)'
        (said in the language in effect by `said`)."""
        phase = self.phase
        if phase is Phase.OPENING:
            return Sentence(
                N_(
                    "the centre {tile} has {count} of {needed} trains: every tile must start a"
                    " new train with {a_number} (end {end})"
                ),
                tile=isolate(self.centre.label),
                count=self.trains,
                needed=self.trains_needed,
                a_number=a_number(self.centre.low),
                end=isolate(self.next_label),
            )
        if phase is Phase.FOOT:
            assert self.foot is not None
            values = {
                "tile": isolate(self.foot.label),
                "count": self.toes_left,
                "a_number": a_number(self.foot.low),
                "end": isolate(self.next_label),
            }
            if self.toes_left < TOES:
                return Sentence.counted(
                    "the foot on {tile} needs {count} more tile with {a_number} (end {end})",
                    "the foot on {tile} needs {count} more tiles with {a_number} (end {end})",
                    self.toes_left,
                    **values,
                )
            return Sentence.counted(
                "the foot on {tile} needs {count} tile with {a_number} (end {end})",
                "the foot on {tile} needs {count} tiles with {a_number} (end {end})",
                self.toes_left,
                **values,
            )
        return Sentence(N_("a tile may go on any open end: {ends}"), ends=self._open_ends())

    def _open_ends(self) -> str:
        """The open ends and the number each needs: `a (9), b (2)`."""
        return ", ".join(f"{label} ({n})" for label, n in self.ends.items())

    def check_play(self, tile: Tile, end: str) -> None:
        """Raise IllegalMoveError unless `tile` may go on the open end `end` now."""
        if not isinstance(tile, Tile) or not isinstance(end, str):
            raise IllegalMoveError(
                Sentence(
                    N_("malformed play {tile} {end}: play a tile on an end label"),
                    tile=repr(tile),
                    end=repr(end),
                )
            )
        if self._on_board[tile.index]:
            raise IllegalMoveError(
                Sentence(
                    N_("{tile} is already on the board: play a tile you hold"), tile=tile.label
                )
            )
        number = self.ends.get(end)
        if number is not None and _fits(tile, number):
            return
        where = [p.end for p in self.plays_of(tile)]
        phase = self.phase
        if phase is not Phase.MAIN:
            if not where:
                raise IllegalMoveError(
                    Sentence(
                        N_("{tile} fits no open end: {requirement}"),
                        tile=tile.label,
                        requirement=self.requirement(),
                    )
                )
            raise IllegalMoveError(
                Sentence(
                    N_("{tile} cannot go on {end}: {requirement}; play it on {place}"),
                    tile=tile.label,
                    end=end,
                    requirement=self.requirement(),
                    place=where[0],
                )
            )
        if number is None:
            reason = Sentence(N_("there is no open end {end}"), end=end)
            if end in self._by_label:
                reason = Sentence(N_("line {end} is closed by the foot at its end"), end=end)
            elif end == self.next_label:
                reason = Sentence.counted(
                    "the centre has its {count} train and takes no new one",
                    "the centre has its {count} trains and takes no new one",
                    self.trains_needed,
                    count=self.trains_needed,
                )
        else:
            reason = Sentence(
                N_("{tile} does not fit end {end}, which needs {a_number}"),
                tile=tile.label,
                end=end,
                a_number=a_number(number),
            )
        if where:
            raise IllegalMoveError(
                Sentence(
                    N_("{reason}; {tile} fits {ends}"),
                    reason=reason,
                    tile=tile.label,
                    ends=", ".join(where),
                )
            )
        raise IllegalMoveError(
            Sentence(
                N_("{reason}; {tile} fits no open end (open: {ends})"),
                reason=reason,
                tile=tile.label,
                ends=self._open_ends(),
            )
        )

    def place(self, tile: Tile, end: str) -> None:
        """Lay `tile` on the open end `end` (checked by `check_play`) and open the new ends."""
        number = self.ends[end]
        self._on_board[tile.index] = 1
        pips = self._pips_on_board
        pips[tile.low] += 1
        if tile.high != tile.low:
            pips[tile.high] += 1
        free = tile.high if tile.low == number else tile.low
        line = self._by_label.get(end)
        if line is None:  # a new train on the centre, or a new toe on the open foot
            root = self.centre if self.foot is None else self.foot
            line = Line(end, root, [tile], free)
            self.lines.append(line)
            self._by_label[end] = line
            if self.foot is None:
                self.trains += 1
            else:
                self.toes_left -= 1
                if not self.toes_left:
                    self.foot = None
        else:
            line.tiles.append(tile)
            line.end = free
            if tile.low == tile.high:
                line.closed = True
                self.foot = tile
                self.toes_left = TOES
        self._refresh_ends()

    def _refresh_ends(self) -> None:
        if self.trains < self.trains_needed:
            self.ends = {line_label(len(self.lines)): self.centre.low}
        elif self.foot is not None:
            self.ends = {line_label(len(self.lines)): self.foot.low}
        else:
            self.ends = {line.label: line.end for line in self.lines if not line.closed}

    def _copy_board_to(self, other: Board) -> None:
        """Give `other` independent copies of this board's mutable parts."""
        other.lines = [line.copy() for line in self.lines]
        other._by_label = {line.label: line for line in other.lines}
        other.ends = dict(self.ends)
        other._on_board = bytearray(self._on_board)
        other._pips_on_board = list(self._pips_on_board)


class PublicRound(Board):
    """Everything public about a round: the board, counts, turn; checks moves on public facts."""

    __slots__ = (
        "drawn_pending",
        "end_reason",
        "hand_counts",
        "initial_hand_counts",
        "initial_yard_count",
        "moves",
        "options",
        "passes_in_row",
        "players",
        "round_number",
        "seated",
        "starter",
        "turn",
        "went_out",
        "yard_count",
        "yard_floor",
    )

    players: int
    round_number: int
    seated: tuple[int, ...]
    options: RuleOptions
    starter: int
    turn: int
    hand_counts: list[int]
    yard_count: int
    yard_floor: int
    passes_in_row: int
    drawn_pending: bool
    end_reason: EndReason | None
    went_out: int | None
    moves: list[Move]
    initial_hand_counts: tuple[int, ...]
    initial_yard_count: int

    def __init__(
        self,
        players: int,
        round_number: int,
        starter: int,
        options: RuleOptions,
        hand_counts: Sequence[int] | None = None,
        yard_count: int | None = None,
        seated: Sequence[int] | None = None,
    ) -> None:
        """A round at its start; hand and yard sizes default to a normal deal. `seated`: the
        seats dealt in, ascending (default all; the others sit the round out, RULES.md "When a
        player leaves"): the hand size, trains, yard floor and turn order are theirs."""
        options.check(players)
        if round_number > options.rounds:
            raise ValueError(f"round {round_number}: this game has {options.rounds} rounds")
        centre = double(round_double(round_number))
        order = tuple(range(players)) if seated is None else tuple(seated)
        if list(order) != sorted(set(order)) or not set(order) <= set(range(players)):
            raise ValueError(f"seated {order}: distinct seats of 0..{players - 1}, ascending")
        k = len(order)
        options.check(k)
        if starter not in order:
            raise ValueError(f"starter {starter}: the seats dealt in are {order}")
        size = hand_size(k)
        counts = (
            [size if s in order else 0 for s in range(players)]
            if hand_counts is None
            else list(hand_counts)
        )
        yard = len(ALL_TILES) - 1 - size * k if yard_count is None else yard_count
        if len(counts) != players or min(counts) < 0 or yard < 0 or sum(counts) + yard > 54:
            raise ValueError(f"bad deal: hands {counts}, yard {yard}")
        super().__init__(centre, options.trains_needed(k))
        self.players = players
        self.seated = order
        self.round_number = round_number
        self.options = options
        self.starter = starter
        self.turn = starter
        self.hand_counts = counts
        self.initial_hand_counts = tuple(counts)
        self.yard_count = self.initial_yard_count = yard
        self.yard_floor = yard_floor(k)
        self.passes_in_row = 0
        self.drawn_pending = False
        self.end_reason = None
        self.went_out = None
        self.moves = []

    # -- queries

    @property
    def drawable(self) -> int:
        """How many tiles may still be drawn (the yard above its floor)."""
        return max(0, self.yard_count - self.yard_floor)

    @property
    def is_over(self) -> bool:
        return self.end_reason is not None

    def legal_moves_for(self, hand: Sequence[Tile], drawn: Tile | None = None) -> list[Move]:
        """The legal moves of the player to act holding `hand` (with `drawn` if just drawn)."""
        if self.end_reason is not None:
            return []
        if self.drawn_pending:
            if drawn is None:
                raise ValueError("the player to act has just drawn: pass the drawn tile")
            drawn_plays: list[Move] = [*self.plays_of(drawn)]
            return drawn_plays or [PASS]
        items = list(self.ends.items())
        moves: list[Move] = []
        for tile in hand:
            low, high = tile.low, tile.high
            for label, n in items:
                if n in (low, high):
                    moves.append(play(tile, label))
        if moves:
            return moves
        return [DRAW] if self.yard_count > self.yard_floor else [PASS]

    # -- moves

    def check(self, move: Move, seat: int | None = None) -> None:
        """Raise IllegalMoveError unless `move` by the player to act (`seat`, if given) is
        allowed by the public facts (it does not know the hands)."""
        if self.end_reason is not None:
            raise IllegalMoveError(
                Sentence(
                    N_("the round is over ({reason}): no more moves"),
                    reason=self.end_reason.value,
                )
            )
        if seat is not None and seat != self.turn:
            raise IllegalMoveError(
                Sentence(
                    N_("it is seat {turn}'s turn, not seat {seat}'s: wait"),
                    turn=self.turn,
                    seat=seat,
                )
            )
        if isinstance(move, Play):
            self.check_play(move.tile, move.end)
        elif isinstance(move, Draw):
            if self.drawn_pending:
                raise IllegalMoveError(
                    Sentence(
                        N_(
                            "you have already drawn this turn: play the drawn tile if it fits,"
                            " else pass"
                        )
                    )
                )
            if self.yard_count <= self.yard_floor:
                raise IllegalMoveError(
                    Sentence.counted(
                        "the yard is at its floor ({left} left, the last {count} is never"
                        " drawn): you cannot draw; pass",
                        "the yard is at its floor ({left} left, the last {count} are never"
                        " drawn): you cannot draw; pass",
                        self.yard_floor,
                        left=self.yard_count,
                        count=self.yard_floor,
                    )
                )
        elif isinstance(move, Pass):
            if not self.drawn_pending and self.yard_count > self.yard_floor:
                raise IllegalMoveError(
                    Sentence.counted(
                        "you cannot pass while the yard has a tile to draw ({count}): play a"
                        " tile that fits, or draw",
                        "you cannot pass while the yard has tiles to draw ({count}): play a"
                        " tile that fits, or draw",
                        self.drawable,
                        count=self.drawable,
                    )
                )
        else:
            raise IllegalMoveError(
                Sentence(N_("{move} is not a move: play a tile, draw or pass"), move=repr(move))
            )

    def apply_public(self, move: Move, seat: int | None = None) -> None:
        """Apply `move` by the player to act, checking only public facts; IllegalMoveError."""
        self.check(move, seat)
        if isinstance(move, Play):
            self._do_play(move.tile, move.end)
        elif isinstance(move, Draw):
            self.yard_count -= 1
            self.hand_counts[self.turn] += 1
            self.drawn_pending = True
        else:
            self._do_pass()
        self.moves.append(move)

    def _do_play(self, tile: Tile, end: str) -> None:
        self.place(tile, end)
        seat = self.turn
        self.hand_counts[seat] -= 1
        self.passes_in_row = 0
        self.drawn_pending = False
        if not self.hand_counts[seat]:
            self._end(EndReason.WENT_OUT)
            self.went_out = seat
        elif self.foot_is_dead:
            self._end(EndReason.DEAD_FOOT)
        else:
            self.turn = self.after(seat)

    def after(self, seat: int) -> int:
        """The seated seat whose turn follows `seat`'s."""
        seated = self.seated
        if len(seated) == self.players:
            return (seat + 1) % self.players
        return seated[(seated.index(seat) + 1) % len(seated)]

    def _do_pass(self) -> None:
        self.passes_in_row += 1
        self.drawn_pending = False
        if self.passes_in_row >= len(self.seated) and self.yard_count <= self.yard_floor:
            self._end(EndReason.BLOCKED)
        else:
            self.turn = self.after(self.turn)

    def _end(self, reason: EndReason) -> None:
        self.end_reason = reason
        self.ends = {}

    # -- copies, equality

    def at_start(self) -> PublicRound:
        """A new public round at this round's start: the same deal, no move made yet."""
        return PublicRound(
            self.players,
            self.round_number,
            self.starter,
            self.options,
            self.initial_hand_counts,
            self.initial_yard_count,
            self.seated,
        )

    def copy(self) -> PublicRound:
        """An independent copy."""
        other = object.__new__(PublicRound)
        for name in _SLOTS:
            setattr(other, name, getattr(self, name))
        self._copy_board_to(other)
        other.hand_counts = list(self.hand_counts)
        other.moves = list(self.moves)
        return other

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _SLOTS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PublicRound) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]


_SLOTS = Board.__slots__ + PublicRound.__slots__
