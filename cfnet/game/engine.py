"""The Chicken Foot rules as a deterministic state machine (RULES.md): moves, rounds, views, games.

Pure: no I/O, no clock, no randomness; the shuffle and the starting seat are inputs.
`PublicRound` is what every peer can check; `Round` adds the hands and the yard.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from cfnet.game.rules import (
    DOUBLE_BLANK_PENALTY,
    RuleOptions,
    check_players,
    hand_size,
    round_double,
    yard_floor,
)
from cfnet.game.tiles import ALL_TILES, TILES_PER_NUMBER, Tile, TileParseError, a_number, double

TOES = 3


class IllegalMoveError(ValueError):
    """A move the rules do not allow here; the message says why and what is allowed instead."""


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


# ---------------------------------------------------------------------------------------- moves


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


def line_label(index: int) -> str:
    """The label of the `index`-th line (0-based): a..z, then aa, ab, ..."""
    text = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        text = chr(97 + rest) + text
    return text


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
    raise IllegalMoveError(f"malformed move {data!r}: expected [play, tile, end], [draw] or [pass]")


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
            raise IllegalMoveError(str(error)) from None
    raise IllegalMoveError(
        f"{text.strip()!r} is not a move: type a tile and an end like '9-3 a', or draw, or pass"
    )


def starting_seat(round_number: int, players: int, draw_index: int) -> int:
    """Who starts: seat (r-1) % N draws first from the 55 tiles; the double lies at `draw_index`."""
    check_players(players)
    if not 0 <= draw_index < len(ALL_TILES):
        raise ValueError(f"draw index {draw_index}: must be 0..{len(ALL_TILES) - 1}")
    round_double(round_number)
    return (round_number - 1 + draw_index) % players


# ---------------------------------------------------------------------------------------- board


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


class PublicRound:
    """Everything public about a round: board, counts, turn; checks moves on public facts only."""

    __slots__ = (
        "_by_label",
        "_on_board",
        "_pips_on_board",
        "centre",
        "drawn_pending",
        "end_reason",
        "ends",
        "foot",
        "hand_counts",
        "initial_hand_counts",
        "initial_yard_count",
        "lines",
        "moves",
        "options",
        "passes_in_row",
        "players",
        "round_number",
        "starter",
        "toes_left",
        "trains",
        "trains_needed",
        "turn",
        "went_out",
        "yard_count",
        "yard_floor",
    )

    players: int
    round_number: int
    centre: Tile
    options: RuleOptions
    starter: int
    trains_needed: int
    turn: int
    lines: list[Line]
    trains: int
    foot: Tile | None
    toes_left: int
    hand_counts: list[int]
    yard_count: int
    yard_floor: int
    passes_in_row: int
    drawn_pending: bool
    end_reason: EndReason | None
    went_out: int | None
    moves: list[Move]
    ends: dict[str, int]
    initial_hand_counts: tuple[int, ...]
    initial_yard_count: int
    _by_label: dict[str, Line]
    _on_board: bytearray
    _pips_on_board: list[int]

    def __init__(
        self,
        players: int,
        round_number: int,
        starter: int,
        options: RuleOptions,
        hand_counts: Sequence[int] | None = None,
        yard_count: int | None = None,
    ) -> None:
        """A round at its start; hand and yard sizes default to a normal deal."""
        options.check(players)
        if round_number > options.rounds:
            raise ValueError(f"round {round_number}: this game has {options.rounds} rounds")
        self.centre = double(round_double(round_number))
        if not 0 <= starter < players:
            raise ValueError(f"starter {starter}: seats are 0..{players - 1}")
        size = hand_size(players)
        counts = [size] * players if hand_counts is None else list(hand_counts)
        yard = len(ALL_TILES) - 1 - size * players if yard_count is None else yard_count
        if len(counts) != players or min(counts) < 0 or yard < 0 or sum(counts) + yard > 54:
            raise ValueError(f"bad deal: hands {counts}, yard {yard}")
        self.players = players
        self.round_number = round_number
        self.options = options
        self.starter = starter
        self.trains_needed = options.trains_needed(players)
        self.turn = starter
        self.lines = []
        self.trains = 0
        self.foot = None
        self.toes_left = 0
        self.hand_counts = counts
        self.initial_hand_counts = tuple(counts)
        self.yard_count = self.initial_yard_count = yard
        self.yard_floor = yard_floor(players)
        self.passes_in_row = 0
        self.drawn_pending = False
        self.end_reason = None
        self.went_out = None
        self.moves = []
        self._by_label = {}
        self._on_board = bytearray(len(ALL_TILES))
        self._on_board[self.centre.index] = 1
        self._pips_on_board = [0] * TILES_PER_NUMBER
        self._pips_on_board[self.centre.low] = 1
        self._refresh_ends()

    # -- queries

    @property
    def phase(self) -> Phase:
        """OPENING until the centre has its trains, FOOT while a foot lacks toes, else MAIN."""
        if self.trains < self.trains_needed:
            return Phase.OPENING
        return Phase.FOOT if self.foot is not None else Phase.MAIN

    @property
    def drawable(self) -> int:
        """How many tiles may still be drawn (the yard above its floor)."""
        return max(0, self.yard_count - self.yard_floor)

    @property
    def is_over(self) -> bool:
        return self.end_reason is not None

    @property
    def next_label(self) -> str:
        """The label the next new line (train or toe) will get."""
        return line_label(len(self.lines))

    def line(self, label: str) -> Line:
        """The line labelled `label` (KeyError if none)."""
        return self._by_label[label]

    def on_board(self, tile: Tile) -> bool:
        return bool(self._on_board[tile.index])

    def tiles_on_board(self) -> list[Tile]:
        """The centre and every played tile, in tile-index order."""
        return [t for t in ALL_TILES if self._on_board[t.index]]

    def left_off_board(self, number: int) -> int:
        """How many tiles showing `number` are not on the board (each number is on ten)."""
        return TILES_PER_NUMBER - self._pips_on_board[number]

    def plays_of(self, tile: Tile) -> list[Play]:
        """Every place `tile` may be played now (ignores whose hand it is in)."""
        low, high = tile.low, tile.high
        return [play(tile, label) for label, n in self.ends.items() if n in (low, high)]

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
        cache = _PLAYS
        for tile in hand:
            low, high = tile.low, tile.high
            for label, n in items:
                if n in (low, high):
                    moves.append(cache.get((low, high, label)) or play(tile, label))
        if moves:
            return moves
        return [DRAW] if self.yard_count > self.yard_floor else [PASS]

    def describe_end(self) -> str:
        """Why the round ended, in words ('' while it goes on)."""
        if self.end_reason is EndReason.WENT_OUT:
            return f"seat {self.went_out} went out"
        if self.end_reason is EndReason.BLOCKED:
            return f"blocked: {self.players} passes in a row with the yard at its floor"
        if self.end_reason is EndReason.DEAD_FOOT and self.foot is not None:
            return f"dead foot: every tile with {a_number(self.foot.low)} is on the board"
        return ""

    def requirement(self) -> str:
        """What a play must be now, e.g. 'the foot on 5-5 needs 2 more tiles with a 5 (end e)'."""
        phase = self.phase
        if phase is Phase.OPENING:
            d = self.centre.low
            return (
                f"the centre {self.centre.label} has {self.trains} of {self.trains_needed} "
                f"trains: every tile must start a new train with {a_number(d)} "
                f"(end {self.next_label})"
            )
        if phase is Phase.FOOT:
            assert self.foot is not None
            more = "more " if self.toes_left < TOES else ""
            tiles = "tile" if self.toes_left == 1 else "tiles"
            return (
                f"the foot on {self.foot.label} needs {self.toes_left} {more}{tiles} "
                f"with {a_number(self.foot.low)} (end {self.next_label})"
            )
        ends = ", ".join(f"{label} ({n})" for label, n in self.ends.items())
        return f"a tile may go on any open end: {ends}"

    # -- moves

    def apply_public(self, move: Move, seat: int | None = None) -> None:
        """Apply `move` by the player to act, checking only public facts; IllegalMoveError."""
        self._check_public(move, seat)
        if isinstance(move, Play):
            self._do_play(move.tile, move.end)
        elif isinstance(move, Draw):
            self.yard_count -= 1
            self.hand_counts[self.turn] += 1
            self.drawn_pending = True
        else:
            self._do_pass()
        self.moves.append(move)

    def _check_public(self, move: Move, seat: int | None) -> None:
        if self.end_reason is not None:
            raise IllegalMoveError(f"the round is over ({self.describe_end()}): no more moves")
        if seat is not None and seat != self.turn:
            raise IllegalMoveError(f"it is seat {self.turn}'s turn, not seat {seat}'s: wait")
        if isinstance(move, Play):
            self._check_play(move.tile, move.end)
        elif isinstance(move, Draw):
            if self.drawn_pending:
                raise IllegalMoveError(
                    "you have already drawn this turn: play the drawn tile if it fits, else pass"
                )
            if self.yard_count <= self.yard_floor:
                raise IllegalMoveError(
                    f"the yard is at its floor ({self.yard_count} left, the last "
                    f"{self.yard_floor} are never drawn): you cannot draw; pass"
                )
        elif isinstance(move, Pass):
            if not self.drawn_pending and self.yard_count > self.yard_floor:
                raise IllegalMoveError(
                    f"you cannot pass while the yard has tiles to draw ({self.drawable}): "
                    "play a tile that fits, or draw"
                )
        else:
            raise IllegalMoveError(f"{move!r} is not a move: play a tile, draw or pass")

    def _check_play(self, tile: Tile, end: str) -> None:
        if not isinstance(tile, Tile) or not isinstance(end, str):
            raise IllegalMoveError(f"malformed play {tile!r} {end!r}: play a tile on an end label")
        if self._on_board[tile.index]:
            raise IllegalMoveError(f"{tile.label} is already on the board: play a tile you hold")
        number = self.ends.get(end)
        if number is not None and _fits(tile, number):
            return
        where = [p.end for p in self.plays_of(tile)]
        phase = self.phase
        if phase is not Phase.MAIN:
            if not where:
                raise IllegalMoveError(f"{tile.label} fits no open end: {self.requirement()}")
            raise IllegalMoveError(
                f"{tile.label} cannot go on {end}: {self.requirement()}; play it on {where[0]}"
            )
        if number is None:
            reason = f"there is no open end {end}"
            if end in self._by_label:
                reason = f"line {end} is closed by the foot at its end"
            elif end == self.next_label:
                reason = f"the centre has its {self.trains_needed} trains and takes no new one"
        else:
            reason = f"{tile.label} does not fit end {end}, which needs {a_number(number)}"
        if where:
            raise IllegalMoveError(f"{reason}; {tile.label} fits {', '.join(where)}")
        ends = ", ".join(f"{label} ({n})" for label, n in self.ends.items())
        raise IllegalMoveError(f"{reason}; {tile.label} fits no open end (open: {ends})")

    def _do_play(self, tile: Tile, end: str) -> None:
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
        seat = self.turn
        self.hand_counts[seat] -= 1
        self.passes_in_row = 0
        self.drawn_pending = False
        if not self.hand_counts[seat]:
            self.end_reason = EndReason.WENT_OUT
            self.went_out = seat
        elif self.foot is not None and pips[self.foot.low] == TILES_PER_NUMBER:
            self.end_reason = EndReason.DEAD_FOOT
        else:
            self.turn = (seat + 1) % self.players
        self._refresh_ends()

    def _do_pass(self) -> None:
        self.passes_in_row += 1
        self.drawn_pending = False
        if self.passes_in_row >= self.players and self.yard_count <= self.yard_floor:
            self.end_reason = EndReason.BLOCKED
            self.ends = {}
        else:
            self.turn = (self.turn + 1) % self.players

    def _refresh_ends(self) -> None:
        if self.end_reason is not None:
            self.ends = {}
        elif self.trains < self.trains_needed:
            self.ends = {line_label(len(self.lines)): self.centre.low}
        elif self.foot is not None:
            self.ends = {line_label(len(self.lines)): self.foot.low}
        else:
            self.ends = {line.label: line.end for line in self.lines if not line.closed}

    # -- copies, equality, plain data

    def copy(self) -> PublicRound:
        """An independent copy."""
        other = object.__new__(PublicRound)
        for name in PublicRound.__slots__:
            setattr(other, name, getattr(self, name))
        other.lines = [line.copy() for line in self.lines]
        other._by_label = {line.label: line for line in other.lines}
        other.hand_counts = list(self.hand_counts)
        other.moves = list(self.moves)
        other.ends = dict(self.ends)
        other._on_board = bytearray(self._on_board)
        other._pips_on_board = list(self._pips_on_board)
        return other

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in PublicRound.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PublicRound) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def to_plain(self) -> dict[str, Any]:
        """msgpack-able data: the start of the round and its public moves."""
        return {
            "players": self.players,
            "round": self.round_number,
            "starter": self.starter,
            "options": self.options.to_plain(),
            "hand_counts": list(self.initial_hand_counts),
            "yard_count": self.initial_yard_count,
            "moves": [move_to_plain(m) for m in self.moves],
        }

    @classmethod
    def from_plain(cls, data: Any) -> PublicRound:
        """The round `to_plain` described, replayed move by move (ValueError if invalid)."""
        fields = {"players", "round", "starter", "options", "hand_counts", "yard_count", "moves"}
        _expect_dict(data, fields, "public round")
        counts = data["hand_counts"]
        if not isinstance(counts, list) or not all(type(c) is int for c in counts):
            raise ValueError(f"malformed hand counts {counts!r}")
        public = cls(
            _int(data["players"]),
            _int(data["round"]),
            _int(data["starter"]),
            RuleOptions.from_plain(data["options"]),
            counts,
            _int(data["yard_count"]),
        )
        for move in _list(data["moves"]):
            public.apply_public(move_from_plain(move))
        return public


def _expect_dict(data: Any, fields: set[str], what: str) -> None:
    if not isinstance(data, dict) or set(data) != fields:
        raise ValueError(f"malformed {what}: expected the fields {sorted(fields)}")


def _int(value: Any) -> int:
    if type(value) is not int:
        raise ValueError(f"expected a whole number, got {value!r}")
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"expected a list, got {value!r}")
    return value


def _tiles(value: Any) -> list[Tile]:
    return [Tile.from_index(_int(i)) for i in _list(value)]


# ---------------------------------------------------------------------------------------- views


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What one seat may know: its own hand, its drawn tile, the public round (do not mutate)."""

    seat: int
    hand: tuple[Tile, ...]
    drawn: Tile | None
    public: PublicRound

    def legal_moves(self) -> list[Move]:
        """This seat's legal moves ([] when it is not its turn)."""
        if self.public.turn != self.seat:
            return []
        return self.public.legal_moves_for(self.hand, self.drawn)


# ---------------------------------------------------------------------------------------- round


class Round:
    """Full information: the public round plus every hand and the yard (top first)."""

    __slots__ = ("_initial", "drawn", "hands", "public", "yard")

    public: PublicRound
    hands: list[list[Tile]]
    yard: list[Tile]
    drawn: Tile | None
    _initial: tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...]]

    def __init__(
        self,
        players: int,
        round_number: int,
        starter: int,
        hands: Sequence[Sequence[Tile]],
        yard: Sequence[Tile],
        options: RuleOptions | None = None,
    ) -> None:
        """A round starting from these hands and yard (any sizes; tests build positions so)."""
        options = RuleOptions() if options is None else options
        self.public = PublicRound(
            players, round_number, starter, options, [len(h) for h in hands], len(yard)
        )
        seen = [self.public.centre, *yard]
        for hand in hands:
            seen.extend(hand)
        if len(set(seen)) != len(seen) or not all(isinstance(t, Tile) for t in seen):
            raise ValueError("a round's hands, yard and centre must be distinct tiles")
        self.hands = [list(hand) for hand in hands]
        self.yard = list(yard)
        self.drawn = None
        self._initial = (tuple(tuple(h) for h in hands), tuple(yard))

    @classmethod
    def deal(
        cls,
        players: int,
        round_number: int,
        starter: int,
        deck: Sequence[Tile],
        options: RuleOptions | None = None,
    ) -> Round:
        """Deal the 54 non-centre tiles in `deck` order: seat s gets deck[s*h:(s+1)*h]."""
        centre = double(round_double(round_number))
        if len(deck) != len(ALL_TILES) - 1 or set(deck) != set(ALL_TILES) - {centre}:
            raise ValueError(f"a round-{round_number} deck is the 54 tiles other than {centre}")
        h = hand_size(players)
        hands = [deck[s * h : (s + 1) * h] for s in range(players)]
        return cls(players, round_number, starter, hands, deck[players * h :], options)

    @property
    def turn(self) -> int:
        return self.public.turn

    @property
    def is_over(self) -> bool:
        return self.public.end_reason is not None

    def legal_moves(self) -> list[Move]:
        """The legal moves of the player to act."""
        return self.public.legal_moves_for(self.hands[self.public.turn], self.drawn)

    def view(self, seat: int) -> PlayerView:
        """What `seat` may see."""
        public = self.public
        drawn = self.drawn if public.turn == seat else None
        return PlayerView(seat, tuple(self.hands[seat]), drawn, public)

    def apply(self, move: Move, seat: int | None = None) -> Tile | None:
        """Apply the move of the player to act with every check; returns the tile a Draw drew."""
        public = self.public
        if public.end_reason is None and (seat is None or seat == public.turn):
            self._check_private(move)
        hand = self.hands[public.turn]
        public.apply_public(move, seat)
        if isinstance(move, Play):
            hand.remove(move.tile)
            self.drawn = None
            return None
        if isinstance(move, Draw):
            self.drawn = self.yard.pop(0)
            hand.append(self.drawn)
            return self.drawn
        self.drawn = None
        return None

    def _check_private(self, move: Move) -> None:
        hand = self.hands[self.public.turn]
        drawn = self.drawn
        if isinstance(move, Play):
            if drawn is not None and move.tile != drawn:
                raise IllegalMoveError(
                    f"you drew {drawn.label}: play it if it fits, else pass; "
                    f"no other tile may be played this turn"
                )
            if move.tile not in hand:
                raise IllegalMoveError(f"you do not hold {move.tile.label}: play a tile you hold")
            return
        if drawn is not None:
            places = self.public.plays_of(drawn)
            if places and isinstance(move, Pass):
                raise IllegalMoveError(
                    f"the {drawn.label} you drew fits {', '.join(p.end for p in places)}: "
                    "you must play it"
                )
            return
        for tile in hand:
            places = self.public.plays_of(tile)
            if places:
                what = "draw" if isinstance(move, Draw) else "pass"
                raise IllegalMoveError(
                    f"you cannot {what}: {tile.label} fits {places[0].end}, and you must play "
                    "when you can"
                )

    def scores(self) -> tuple[int, ...]:
        """Each seat's points: 0 for the seat that went out, else its hand's total."""
        public = self.public
        blank = DOUBLE_BLANK_PENALTY if public.options.double_blank_50 else 0
        return tuple(
            0 if seat == public.went_out else hand_points(hand, blank)
            for seat, hand in enumerate(self.hands)
        )

    def copy(self) -> Round:
        """An independent copy."""
        other = object.__new__(Round)
        other.public = self.public.copy()
        other.hands = [list(h) for h in self.hands]
        other.yard = list(self.yard)
        other.drawn = self.drawn
        other._initial = self._initial
        return other

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Round)
            and self.public == other.public
            and (self.hands, self.yard, self.drawn, self._initial)
            == (other.hands, other.yard, other.drawn, other._initial)
        )

    __hash__ = None  # type: ignore[assignment]

    def to_plain(self) -> dict[str, Any]:
        """msgpack-able data: the starting hands and yard, and every move."""
        public = self.public
        hands, yard = self._initial
        return {
            "players": public.players,
            "round": public.round_number,
            "starter": public.starter,
            "options": public.options.to_plain(),
            "hands": [[t.index for t in hand] for hand in hands],
            "yard": [t.index for t in yard],
            "moves": [move_to_plain(m) for m in public.moves],
        }

    @classmethod
    def from_plain(cls, data: Any) -> Round:
        """The round `to_plain` described, replayed with every check (ValueError if invalid)."""
        fields = {"players", "round", "starter", "options", "hands", "yard", "moves"}
        _expect_dict(data, fields, "round")
        game_round = cls(
            _int(data["players"]),
            _int(data["round"]),
            _int(data["starter"]),
            [_tiles(hand) for hand in _list(data["hands"])],
            _tiles(data["yard"]),
            RuleOptions.from_plain(data["options"]),
        )
        for move in _list(data["moves"]):
            game_round.apply(move_from_plain(move))
        return game_round


def hand_points(hand: Sequence[Tile], double_blank: int = 0) -> int:
    """The points a hand scores; `double_blank` is what 0-0 counts (0, or 50 with the option)."""
    return sum(t.value if t.high else double_blank for t in hand)


# ---------------------------------------------------------------------------------------- game


class Game:
    """A game of `options.rounds` rounds: per-round scores, totals and the winners."""

    __slots__ = ("options", "players", "round_scores")

    def __init__(
        self,
        players: int,
        options: RuleOptions | None = None,
        round_scores: Sequence[Sequence[int]] = (),
    ) -> None:
        self.options = RuleOptions() if options is None else options
        self.options.check(players)
        self.players = players
        self.round_scores: list[tuple[int, ...]] = []
        for scores in round_scores:
            if len(scores) != players or not all(type(s) is int and s >= 0 for s in scores):
                raise ValueError(f"bad round scores {scores!r} for {players} players")
            self.round_scores.append(tuple(scores))
        if len(self.round_scores) > self.options.rounds:
            raise ValueError(f"{len(self.round_scores)} rounds scored of {self.options.rounds}")

    @property
    def round_number(self) -> int:
        """The number of the next round to play (1-based)."""
        return len(self.round_scores) + 1

    @property
    def is_over(self) -> bool:
        return len(self.round_scores) >= self.options.rounds

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(column) for column in zip(*self.round_scores, strict=True)) or (
            (0,) * self.players
        )

    def winners(self) -> tuple[int, ...]:
        """The seats with the lowest total (all of them share the win)."""
        totals = self.totals
        best = min(totals)
        return tuple(seat for seat, total in enumerate(totals) if total == best)

    def new_round(self, starter: int, deck: Sequence[Tile]) -> Round:
        """Deal the next round from `deck` (the 54 tiles other than its centre double)."""
        if self.is_over:
            raise ValueError("the game is over: no more rounds")
        return Round.deal(self.players, self.round_number, starter, deck, self.options)

    def finish_round(self, game_round: Round) -> tuple[int, ...]:
        """Record a finished round's scores and return them."""
        public = game_round.public
        if public.round_number != self.round_number or not public.is_over:
            raise ValueError(f"only a finished round {self.round_number} can be recorded")
        scores = game_round.scores()
        self.round_scores.append(scores)
        return scores

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (self.players, self.options, self.round_scores) == (
            other.players,
            other.options,
            other.round_scores,
        )

    __hash__ = None  # type: ignore[assignment]

    def to_plain(self) -> dict[str, Any]:
        """msgpack-able data: players, options and each scored round."""
        return {
            "players": self.players,
            "options": self.options.to_plain(),
            "scores": [list(s) for s in self.round_scores],
        }

    @classmethod
    def from_plain(cls, data: Any) -> Game:
        """The game `to_plain` described (ValueError if malformed)."""
        _expect_dict(data, {"players", "options", "scores"}, "game")
        scores = [_list(s) for s in _list(data["scores"])]
        return cls(_int(data["players"]), RuleOptions.from_plain(data["options"]), scores)
