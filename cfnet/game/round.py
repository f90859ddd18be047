"""A whole round and a whole game (RULES.md): every hand and the yard, views, scores, totals.

Pure: no I/O, no clock, no randomness; the shuffle and the starting seat are inputs.
`Round` adds the hands and the yard to the `PublicRound`; a `PlayerView` is what one seat sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cfnet.game.board import PublicRound
from cfnet.game.moves import (
    Draw,
    IllegalMoveError,
    Move,
    Pass,
    Play,
    move_from_plain,
    move_to_plain,
)
from cfnet.game.rules import (
    DOUBLE_BLANK_PENALTY,
    RuleOptions,
    check_players,
    hand_size,
    round_double,
)
from cfnet.game.tiles import ALL_TILES, Tile, double
from cfnet.lang import N_
from cfnet.lang.sentence import Sentence


def starting_seat(
    round_number: int, players: int, draw_index: int, seated: Sequence[int] | None = None
) -> int:
    """Who starts: of the k seats dealt in (`seated`, default all), the one at place (r-1) % k
    draws first from the 55 tiles, and the double lies at `draw_index`."""
    order = tuple(range(players)) if seated is None else tuple(seated)
    check_players(len(order))
    if not 0 <= draw_index < len(ALL_TILES):
        raise ValueError(f"draw index {draw_index}: must be 0..{len(ALL_TILES) - 1}")
    round_double(round_number)
    return order[(round_number - 1 + draw_index) % len(order)]


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


def check_hand(public: PublicRound, hand: Sequence[Tile], drawn: Tile | None, move: Move) -> None:
    """Raise IllegalMoveError if the player to act, holding `hand` (with `drawn` just drawn),
    may not make `move`: a tile not held, another tile after a draw, a draw or pass while a tile
    fits. (The public checks are `PublicRound.check`.)"""
    if isinstance(move, Play):
        if drawn is not None and move.tile != drawn:
            raise IllegalMoveError(
                Sentence(
                    N_(
                        "you drew {tile}: play it if it fits, else pass; no other tile may be"
                        " played this turn"
                    ),
                    tile=drawn.label,
                )
            )
        if move.tile not in hand and not public.on_board(move.tile):  # else: the public check
            raise IllegalMoveError(
                Sentence(N_("you do not hold {tile}: play a tile you hold"), tile=move.tile.label)
            )
        return
    if drawn is not None:
        places = public.plays_of(drawn)
        if places and isinstance(move, Pass):
            raise IllegalMoveError(
                Sentence(
                    N_("the {tile} you drew fits {ends}: you must play it"),
                    tile=drawn.label,
                    ends=", ".join(p.end for p in places),
                )
            )
        return
    for tile in hand:
        places = public.plays_of(tile)
        if places:
            why = (
                N_("you cannot draw: {tile} fits {end}, and you must play when you can")
                if isinstance(move, Draw)
                else N_("you cannot pass: {tile} fits {end}, and you must play when you can")
            )
            raise IllegalMoveError(Sentence(why, tile=tile.label, end=places[0].end))


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

    def check(self, move: Move) -> None:
        """Raise IllegalMoveError unless this seat may make `move` now (the checks `Round.apply`
        makes, on what this seat knows)."""
        public = self.public
        if public.end_reason is None and public.turn == self.seat:
            check_hand(public, self.hand, self.drawn, move)
        public.check(move, self.seat)


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
        seated: Sequence[int] | None = None,
    ) -> None:
        """A round starting from these hands and yard (any sizes; tests build positions so);
        `seated`: the seats dealt in (default all)."""
        options = RuleOptions() if options is None else options
        self.public = PublicRound(
            players, round_number, starter, options, [len(h) for h in hands], len(yard), seated
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
        seated: Sequence[int] | None = None,
    ) -> Round:
        """Deal the 54 non-centre tiles in `deck` order: the i-th seat of `seated` (default
        all) gets deck[i*h:(i+1)*h]; a seat not dealt in holds nothing."""
        centre = double(round_double(round_number))
        if len(deck) != len(ALL_TILES) - 1 or set(deck) != set(ALL_TILES) - {centre}:
            raise ValueError(f"a round-{round_number} deck is the 54 tiles other than {centre}")
        order = tuple(range(players)) if seated is None else tuple(seated)
        h = hand_size(len(order))
        hands: list[Sequence[Tile]] = [() for _ in range(players)]
        for place, seat in enumerate(order):
            hands[seat] = deck[place * h : (place + 1) * h]
        yard = deck[len(order) * h :]
        return cls(players, round_number, starter, hands, yard, options, order)

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
            check_hand(public, self.hands[public.turn], self.drawn, move)
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
            "seated": list(public.seated),
        }

    @classmethod
    def from_plain(cls, data: Any) -> Round:
        """The round `to_plain` described, replayed with every check (ValueError if invalid);
        without `seated` (written before departures existed), every seat was dealt in."""
        fields = {"players", "round", "starter", "options", "hands", "yard", "moves"}
        if isinstance(data, dict) and "seated" in data:
            fields.add("seated")
        _expect_dict(data, fields, "round")
        game_round = cls(
            _int(data["players"]),
            _int(data["round"]),
            _int(data["starter"]),
            [_tiles(hand) for hand in _list(data["hands"])],
            _tiles(data["yard"]),
            RuleOptions.from_plain(data["options"]),
            [_int(seat) for seat in _list(data["seated"])] if "seated" in fields else None,
        )
        for move in _list(data["moves"]):
            game_round.apply(move_from_plain(move))
        return game_round


def hand_points(hand: Sequence[Tile], double_blank: int = 0) -> int:
    """The points a hand scores; `double_blank` is what 0-0 counts (0, or 50 with the option)."""
    return sum(t.value if t.high else double_blank for t in hand)


def absent_scores(scores: Sequence[int], seated: Sequence[int]) -> tuple[int, ...]:
    """`scores` with each seat not in `seated` given the highest score of those in it."""
    highest = max(scores[s] for s in seated)
    return tuple(score if s in seated else highest for s, score in enumerate(scores))


class Game:
    """A game of `options.rounds` rounds: per-round scores, totals and the winners."""

    __slots__ = ("conceded", "disqualified", "options", "players", "round_scores", "round_seated")

    def __init__(
        self,
        players: int,
        options: RuleOptions | None = None,
        round_scores: Sequence[Sequence[int]] = (),
        round_seated: Sequence[tuple[int, ...]] = (),
        disqualified: frozenset[int] = frozenset(),
        conceded: frozenset[int] = frozenset(),
    ) -> None:
        """`round_seated`: the seats dealt in each scored round (default: all of them);
        `disqualified`: the seats removed for cheating, ranked last whatever their totals;
        `conceded`: the seats that left a game ended because fewer than 2 were left, ranked
        below every seat still seated whatever their totals (RULES.md, "leaving concedes")."""
        self.options = RuleOptions() if options is None else options
        self.options.check(players)
        self.players = players
        self.disqualified = disqualified
        self.conceded = conceded - disqualified
        everyone = tuple(range(players))
        self.round_seated = list(round_seated) + [everyone] * (
            len(round_scores) - len(round_seated)
        )
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

    def ranking(self) -> tuple[tuple[int, ...], ...]:
        """The seats from first to last, in groups that share a place: the seats still seated
        by total (lowest first), then those that conceded by total, then the disqualified."""
        totals = self.totals
        order: list[tuple[int, ...]] = []
        for group in (self._seated(), sorted(self.conceded), sorted(self.disqualified)):
            for total in sorted({totals[seat] for seat in group}):
                order.append(tuple(seat for seat in group if totals[seat] == total))
        return tuple(order)

    def _seated(self) -> list[int]:
        out = self.disqualified | self.conceded
        return [seat for seat in range(self.players) if seat not in out]

    def winners(self) -> tuple[int, ...]:
        """The first group of `ranking` (they share the win): the seats still seated with the
        lowest total, a seat that conceded or was disqualified never among them while one is
        still seated."""
        return self.ranking()[0]

    def disqualify(self, seat: int) -> None:
        """`seat` was removed for cheating: it is ranked last (RULES.md)."""
        self.disqualified = self.disqualified | {seat}

    def new_round(self, starter: int, deck: Sequence[Tile]) -> Round:
        """Deal the next round from `deck` (the 54 tiles other than its centre double)."""
        if self.is_over:
            raise ValueError("the game is over: no more rounds")
        return Round.deal(self.players, self.round_number, starter, deck, self.options)

    def finish_round(self, game_round: Round) -> tuple[int, ...]:
        """Record a finished round's scores and return them; a seat that sat the round out
        scores the highest score of the seats that played it (RULES.md)."""
        public = game_round.public
        if public.round_number != self.round_number or not public.is_over:
            raise ValueError(f"only a finished round {self.round_number} can be recorded")
        scores = absent_scores(game_round.scores(), public.seated)
        self.round_scores.append(scores)
        self.round_seated.append(public.seated)
        return scores

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (
            self.players,
            self.options,
            self.round_scores,
            self.disqualified,
            self.conceded,
        ) == (other.players, other.options, other.round_scores, other.disqualified, other.conceded)

    __hash__ = None  # type: ignore[assignment]
