"""The fast rollout engine agrees with the checked engine: same legal moves, same states."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from cfnet.game.board import PublicRound
from cfnet.game.bot_rollouts import (
    DRAW_MOVE,
    FAST_INDEX,
    FAST_TILES,
    PASS_MOVE,
    PLAYABLE,
    FastRound,
    mask_of,
    to_fast,
)
from cfnet.game.moves import DRAW, PASS, Draw, Move, Play, play
from cfnet.game.round import Round
from cfnet.game.rules import RuleOptions
from cfnet.game.tiles import ALL_TILES, TILES_PER_NUMBER, Tile, double


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


def reference_rollout(game_round: Round, rng: random.Random, greed: float) -> None:
    """The rollout policy as `FastRound.rollout` states it, played on the checked engine with
    the same draws from `rng`."""
    drew = False
    while not game_round.is_over:
        public = game_round.public
        legal = game_round.legal_moves()
        plays = [m for m in legal if isinstance(m, Play)]
        if not plays:
            move = legal[0]  # the draw, or the pass
            drew = isinstance(move, Draw)
            game_round.apply(move)
            continue
        tiles = sorted({m.tile for m in plays}, key=FAST_INDEX.__getitem__)  # lightest first
        fits = {t: {public.ends[m.end] for m in plays if m.tile == t} for t in tiles}
        if drew:  # a tile drawn in the rollout that fits is played at once
            tile = tiles[0]
            number = tile.low if tile.low in fits[tile] else tile.high
        else:
            if len(tiles) == 1 or rng.random() < greed:
                tile = tiles[-1]
                hand = game_round.hands[public.turn]
                if tile.is_double and len(tiles) > 1 and sum(t.has(tile.low) for t in hand) == 1:
                    tile = tiles[-2]  # keep a double its owner cannot answer
            else:
                tile = tiles[rng.randrange(len(tiles))]
            a, b = tile.low, tile.high
            both = a != b and b in fits[tile]
            number = a if a in fits[tile] and (not both or rng.random() < 0.5) else b
        drew = False
        game_round.apply(next(m for m in plays if m.tile == tile and public.ends[m.end] == number))


@settings(max_examples=150, deadline=None)
@given(dealt_rounds(), st.integers(0, 2**32), st.floats(0, 1), st.integers(0, 40))
def test_a_rollout_plays_its_policy_on_the_checked_engine(
    game_round: Round, seed: int, greed: float, moves_before: int
) -> None:
    """The fast rollout (inlined for speed) plays only legal moves and ends where the checked
    engine ends with the same policy and the same random draws."""
    chooser = random.Random(seed)
    for _ in range(moves_before):
        if game_round.is_over:
            break
        game_round.apply(chooser.choice(game_round.legal_moves()))
    fast = fast_of(game_round)
    assert snapshot(fast.copy()) == snapshot(fast)
    fast_rng, reference_rng = random.Random(seed), random.Random(seed)
    scores = fast.rollout(fast_rng, greed)
    reference_rollout(game_round, reference_rng, greed)
    assert scores == list(game_round.scores())
    assert fast_rng.getstate() == reference_rng.getstate()
    finished = fast_of(game_round)
    for name in ("hands", "yard", "pips", "ends", "over", "went_out"):
        assert getattr(fast, name) == getattr(finished, name), name


def test_tile_masks_round_trip() -> None:
    assert tiles_of(mask_of(list(ALL_TILES))) == list(FAST_TILES)
    assert [t.value for t in FAST_TILES] == sorted(t.value for t in ALL_TILES)


def test_the_playable_tiles_of_every_set_of_open_numbers() -> None:
    """PLAYABLE[m] holds exactly the tiles showing a number of the set `m` (bit n: number n)."""
    assert len(PLAYABLE) == 1 << TILES_PER_NUMBER
    for m in range(1 << TILES_PER_NUMBER):
        shown = {n for n in range(TILES_PER_NUMBER) if m >> n & 1}
        expected = [t for t in FAST_TILES if t.low in shown or t.high in shown]
        assert tiles_of(PLAYABLE[m]) == expected
