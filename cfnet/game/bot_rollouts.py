"""A fast, unchecked Chicken Foot round for search rollouts; `cfnet.game.board` is its reference.

Tiles are small ints ordered by value (bit i of a hand is tile `FAST_TILES[i]`, so the highest
set bit is the heaviest tile), hands are int bitmasks, open ends are counts per number, and moves
are applied without re-checking legality. Lines are not labelled: two ends showing the same
number are the same choice, so a play is (tile, number of the end it goes on).
Pure: the only randomness is the `random.Random` a rollout is given.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from cfnet.game.board import TOES, PublicRound
from cfnet.game.moves import Draw, Move, Play
from cfnet.game.rules import DOUBLE_BLANK_PENALTY
from cfnet.game.tiles import ALL_TILES, TILES_PER_NUMBER, Tile

FAST_TILES: tuple[Tile, ...] = tuple(sorted(ALL_TILES, key=lambda t: (t.value, t.high)))
FAST_INDEX: dict[Tile, int] = {tile: i for i, tile in enumerate(FAST_TILES)}
LOW: tuple[int, ...] = tuple(t.low for t in FAST_TILES)
HIGH: tuple[int, ...] = tuple(t.high for t in FAST_TILES)
VALUE: tuple[int, ...] = tuple(t.value for t in FAST_TILES)
BLANK = FAST_INDEX[Tile(0, 0)]
# NUMBER_MASK[n]: the tiles showing n; PLAYABLE[m]: the tiles showing a number in the bitmask m
NUMBER_MASK: tuple[int, ...] = tuple(
    sum(1 << i for i, t in enumerate(FAST_TILES) if t.has(n)) for n in range(TILES_PER_NUMBER)
)


def _playable() -> tuple[int, ...]:
    """PLAYABLE, each mask's entry made from the mask without its lowest number."""
    table = [0]
    for m in range(1, 1 << TILES_PER_NUMBER):
        lowest = m & -m
        table.append(table[m ^ lowest] | NUMBER_MASK[lowest.bit_length() - 1])
    return tuple(table)


PLAYABLE: tuple[int, ...] = _playable()
DRAW_MOVE = -1
PASS_MOVE = -2


def fast_play(tile: int, number: int) -> int:
    """The fast move 'play fast tile `tile` on an end showing `number`'."""
    return tile << 4 | number


def mask_of(tiles: Sequence[Tile]) -> int:
    """The bitmask of these tiles."""
    mask = 0
    for tile in tiles:
        mask |= 1 << FAST_INDEX[tile]
    return mask


def mask_points(mask: int, blank: int) -> int:
    """The points of a hand bitmask; 0-0 counts `blank`."""
    total = blank if mask >> BLANK & 1 else 0
    while mask:
        low = mask & -mask
        total += VALUE[low.bit_length() - 1]
        mask ^= low
    return total


class FastRound:
    """A round with every hand known, kept as small ints for speed (see the module doc)."""

    __slots__ = (
        "blank",
        "centre",
        "drawn",
        "ends",
        "floor",
        "foot",
        "hands",
        "main_mask",
        "next_seat",
        "over",
        "passes",
        "pips",
        "players",
        "seated",
        "toes_left",
        "trains_left",
        "turn",
        "went_out",
        "yard",
    )

    players: int
    seated: int
    next_seat: list[int]
    hands: list[int]
    yard: list[int]
    ends: list[int]
    main_mask: int
    trains_left: int
    foot: int
    toes_left: int
    pips: list[int]
    turn: int
    passes: int
    floor: int
    over: bool
    went_out: int
    blank: int
    centre: int
    drawn: int

    @classmethod
    def build(
        cls,
        public: PublicRound,
        hands: Sequence[Sequence[Tile]],
        yard: Sequence[Tile],
        drawn: Tile | None = None,
    ) -> FastRound:
        """The round `public` describes with these hands and yard (top of the yard first)."""
        state = object.__new__(cls)
        state.players = public.players
        state.seated = len(public.seated)
        state.next_seat = [
            public.after(s) if s in public.seated else s for s in range(public.players)
        ]
        state.hands = [mask_of(hand) for hand in hands]
        state.yard = [FAST_INDEX[t] for t in reversed(yard)]
        ends = [0] * TILES_PER_NUMBER
        for line in public.lines:
            if not line.closed:
                ends[line.end] += 1
        state.ends = ends
        state.main_mask = sum(1 << n for n in range(TILES_PER_NUMBER) if ends[n])
        state.trains_left = max(0, public.trains_needed - public.trains)
        state.foot = -1 if public.foot is None else public.foot.low
        state.toes_left = public.toes_left
        state.pips = [TILES_PER_NUMBER - public.left_off_board(n) for n in range(TILES_PER_NUMBER)]
        state.turn = public.turn
        state.passes = public.passes_in_row
        state.floor = public.yard_floor
        state.over = public.end_reason is not None
        state.went_out = -1 if public.went_out is None else public.went_out
        state.blank = DOUBLE_BLANK_PENALTY if public.options.double_blank_50 else 0
        state.centre = public.centre.low
        state.drawn = -1 if drawn is None or not public.drawn_pending else FAST_INDEX[drawn]
        return state

    def copy(self) -> FastRound:
        """An independent copy."""
        other = object.__new__(FastRound)
        other.players, other.seated, other.next_seat = self.players, self.seated, self.next_seat
        other.hands, other.yard = self.hands[:], self.yard[:]
        other.ends, other.pips = self.ends[:], self.pips[:]
        other.main_mask, other.trains_left = self.main_mask, self.trains_left
        other.foot, other.toes_left, other.centre = self.foot, self.toes_left, self.centre
        other.turn, other.passes, other.floor = self.turn, self.passes, self.floor
        other.over, other.went_out, other.blank = self.over, self.went_out, self.blank
        other.drawn = self.drawn
        return other

    # -- queries

    def open_mask(self) -> int:
        """The numbers a play may match now, as a bitmask."""
        if self.trains_left:
            return 1 << self.centre
        if self.foot >= 0:
            return 1 << self.foot
        return self.main_mask

    def legal_moves(self) -> list[int]:
        """The player to act's legal fast moves (one per tile and end number)."""
        if self.over:
            return []
        opened = self.open_mask()
        if self.drawn >= 0:
            plays = self._plays(1 << self.drawn, opened)
            return plays or [PASS_MOVE]
        plays = self._plays(self.hands[self.turn], opened)
        if plays:
            return plays
        return [DRAW_MOVE] if len(self.yard) > self.floor else [PASS_MOVE]

    @staticmethod
    def _plays(hand: int, opened: int) -> list[int]:
        moves: list[int] = []
        mask = hand & PLAYABLE[opened]
        while mask:
            low = mask & -mask
            tile = low.bit_length() - 1
            mask ^= low
            a, b = LOW[tile], HIGH[tile]
            if opened >> a & 1:
                moves.append(tile << 4 | a)
            if a != b and opened >> b & 1:
                moves.append(tile << 4 | b)
        return moves

    def scores(self) -> list[int]:
        """Each seat's points (0 for the seat that went out)."""
        blank = self.blank
        return [
            0 if seat == self.went_out else mask_points(hand, blank)
            for seat, hand in enumerate(self.hands)
        ]

    # -- moves (unchecked)

    def apply(self, move: int) -> None:
        """Apply a legal fast move of the player to act (not checked)."""
        if move >= 0:
            self.play(move >> 4, move & 15)
        elif move == DRAW_MOVE:
            tile = self.yard.pop()
            self.hands[self.turn] |= 1 << tile
            self.drawn = tile
        else:
            self.pass_turn()

    def play(self, tile: int, number: int) -> None:
        """The player to act plays `tile` on an end showing `number`."""
        a, b = LOW[tile], HIGH[tile]
        free = b if a == number else a
        seat = self.turn
        hand = self.hands[seat] & ~(1 << tile)
        self.hands[seat] = hand
        pips = self.pips
        pips[a] += 1
        if a != b:
            pips[b] += 1
        ends = self.ends
        if self.trains_left:
            self.trains_left -= 1
            ends[free] += 1
            self.main_mask |= 1 << free
        elif self.foot >= 0:
            self.toes_left -= 1
            if not self.toes_left:
                self.foot = -1
            ends[free] += 1
            self.main_mask |= 1 << free
        else:
            ends[number] -= 1
            if not ends[number]:
                self.main_mask &= ~(1 << number)
            if a == b:
                self.foot = a
                self.toes_left = TOES
            else:
                ends[free] += 1
                self.main_mask |= 1 << free
        self.passes = 0
        self.drawn = -1
        if not hand:
            self.over = True
            self.went_out = seat
        elif self.foot >= 0 and pips[self.foot] == TILES_PER_NUMBER:
            self.over = True
        else:
            self.turn = self.next_seat[seat]

    def pass_turn(self) -> None:
        """The player to act passes."""
        self.passes += 1
        self.drawn = -1
        if self.passes >= self.seated and len(self.yard) <= self.floor:
            self.over = True
        else:
            self.turn = self.next_seat[self.turn]

    # -- rollouts

    def rollout(self, rng: random.Random, greed: float) -> list[int]:
        """Play to the end of the round with a noisy heavy-first policy; returns the scores.

        Each turn the heaviest playable tile is played with probability `greed`, else any
        playable tile; a double is played first only when its owner holds another of its number.
        A drawn tile that fits is played at once. This is `play` and `pass_turn` inlined, with
        the state in locals: the rollouts are most of the expert's time.
        """
        if self.drawn >= 0 and self.legal_moves() == [PASS_MOVE]:
            self.pass_turn()  # the tile drawn before the rollout does not fit
        if self.over:
            return self.scores()
        hands, yard, ends, pips = self.hands, self.yard, self.ends, self.pips
        floor, seated, next_seat, centre = self.floor, self.seated, self.next_seat, self.centre
        trains_left, foot, toes_left = self.trains_left, self.foot, self.toes_left
        main_mask, seat, passes = self.main_mask, self.turn, self.passes
        rand, randrange = rng.random, rng.randrange
        low_of, high_of, playable, number_mask = LOW, HIGH, PLAYABLE, NUMBER_MASK
        while True:
            hand = hands[seat]
            if trains_left:
                opened = 1 << centre
            elif foot >= 0:
                opened = 1 << foot
            else:
                opened = main_mask
            mask = hand & playable[opened]
            if mask:
                if mask & (mask - 1) == 0 or rand() < greed:
                    tile = mask.bit_length() - 1
                    a = low_of[tile]
                    if (
                        a == high_of[tile]
                        and hand & number_mask[a] == 1 << tile
                        and mask != 1 << tile
                    ):
                        tile = (mask & ~(1 << tile)).bit_length() - 1
                else:
                    pick = randrange(mask.bit_count())
                    while pick:
                        mask &= mask - 1
                        pick -= 1
                    tile = (mask & -mask).bit_length() - 1
                a, b = low_of[tile], high_of[tile]
                if opened >> a & 1 and (a == b or not opened >> b & 1 or rand() < 0.5):
                    number = a
                else:
                    number = b
            elif len(yard) > floor and playable[opened] >> yard[-1] & 1:
                tile = yard.pop()
                hand |= 1 << tile
                a, b = low_of[tile], high_of[tile]
                number = a if opened >> a & 1 else b
            else:
                if len(yard) > floor:
                    hands[seat] = hand | 1 << yard.pop()
                passes += 1
                if passes >= seated and len(yard) <= floor:
                    break
                seat = next_seat[seat]
                continue
            # play `tile` (ends a, b) on an end showing `number`
            free = b if a == number else a
            hand &= ~(1 << tile)
            hands[seat] = hand
            pips[a] += 1
            if a != b:
                pips[b] += 1
            if trains_left:
                trains_left -= 1
                ends[free] += 1
                main_mask |= 1 << free
            elif foot >= 0:
                toes_left -= 1
                if not toes_left:
                    foot = -1
                ends[free] += 1
                main_mask |= 1 << free
            else:
                ends[number] -= 1
                if not ends[number]:
                    main_mask &= ~(1 << number)
                if a == b:
                    foot = a
                    toes_left = TOES
                else:
                    ends[free] += 1
                    main_mask |= 1 << free
            passes = 0
            if not hand:
                self.went_out = seat
                break
            if foot >= 0 and pips[foot] == TILES_PER_NUMBER:
                break
            seat = next_seat[seat]
        self.over = True
        self.turn, self.passes, self.drawn = seat, passes, -1
        self.trains_left, self.foot, self.toes_left = trains_left, foot, toes_left
        self.main_mask = main_mask
        return self.scores()


def to_fast(move: Move, public: PublicRound) -> int:
    """The fast move for an engine move legal in `public`."""
    if isinstance(move, Play):
        return fast_play(FAST_INDEX[move.tile], public.ends[move.end])
    return DRAW_MOVE if isinstance(move, Draw) else PASS_MOVE
