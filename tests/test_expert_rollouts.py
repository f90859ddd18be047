"""The fast rollout engine agrees with the checked engine: same legal moves, same states."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from cfnet.game.board import PublicRound
from cfnet.game.bot_rollouts import (
    DRAW_MOVE,
    FAST_TILES,
    PASS_MOVE,
    FastRound,
    mask_of,
    to_fast,
)
from cfnet.game.moves import DRAW, PASS, Move, play
from cfnet.game.round import Round
from cfnet.game.rules import RuleOptions
from cfnet.game.tiles import ALL_TILES, Tile, double


def tiles_of(mask: int) -> list[Tile]:
    """The tiles in a bitmask, lightest first."""
    out: list[Tile] = []
    while mask:
        low = mask & -mask
        out.append(FAST_TILES[low.bit_length() - 1])
        mask ^= low
    return out


def from_fast(move: int, public: PublicRound) -> Move:
    """An engine move for a fast move legal in `public` (the first end showing its number)."""
    if move == DRAW_MOVE:
        return DRAW
    if move == PASS_MOVE:
        return PASS
    tile, number = FAST_TILES[move >> 4], move & 15
    end = next(label for label, n in public.ends.items() if n == number)
    return play(tile, end)


@st.composite
def dealt_rounds(draw: st.DrawFn) -> Round:
    players = draw(st.integers(2, 8))
    options = RuleOptions(
        rounds=10,
        start_trains=draw(st.one_of(st.none(), st.integers(players, 8))),
        double_blank_50=draw(st.booleans()),
    )
    round_number = draw(st.integers(1, 10))
    centre = double(10 - round_number)
    deck = draw(st.permutations([t for t in ALL_TILES if t != centre]))
    seated = sorted(draw(st.sets(st.integers(0, players - 1), min_size=2)))  # after departures
    starter = draw(st.sampled_from(seated))
    return Round.deal(players, round_number, starter, deck, options, seated)


def snapshot(state: FastRound) -> tuple[object, ...]:
    return tuple(getattr(state, name) for name in FastRound.__slots__)


def fast_of(game_round: Round) -> FastRound:
    return FastRound.build(game_round.public, game_round.hands, game_round.yard, game_round.drawn)


@settings(max_examples=150, deadline=None)
@given(dealt_rounds(), st.integers(0, 2**32))
def test_fast_round_follows_the_checked_engine_move_by_move(game_round: Round, seed: int) -> None:
    rng = random.Random(seed)
    fast = fast_of(game_round)
    while not game_round.is_over:
        public = game_round.public
        legal = game_round.legal_moves()
        assert sorted(fast.legal_moves()) == sorted({to_fast(m, public) for m in legal})
        move = rng.choice(legal)
        assert from_fast(to_fast(move, public), public) in legal
        fast.apply(to_fast(move, public))
        game_round.apply(move)
        assert snapshot(fast) == snapshot(fast_of(game_round))
    assert fast.over and fast.legal_moves() == []
    assert fast.scores() == list(game_round.scores())


@settings(max_examples=100, deadline=None)
@given(dealt_rounds(), st.integers(0, 2**32), st.floats(0, 1))
def test_a_rollout_ends_the_round_with_every_tile_accounted_for(
    game_round: Round, seed: int, greed: float
) -> None:
    fast = fast_of(game_round)
    scores = fast.rollout(random.Random(seed), greed)
    assert fast.over
    held = [t for hand in fast.hands for t in tiles_of(hand)]
    yard = [FAST_TILES[i] for i in fast.yard]
    assert len(set(held + yard)) == len(held + yard)
    board = set(ALL_TILES) - set(held) - set(yard)
    assert fast.pips == [sum(t.has(n) for t in board) for n in range(10)]
    assert scores == fast.scores()
    seated = game_round.public.seated
    assert (fast.went_out >= 0) == (min(fast.hands[s].bit_count() for s in seated) == 0)


def test_tile_masks_round_trip() -> None:
    assert tiles_of(mask_of(list(ALL_TILES))) == list(FAST_TILES)
    assert [t.value for t in FAST_TILES] == sorted(t.value for t in ALL_TILES)
