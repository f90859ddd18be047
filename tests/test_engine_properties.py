"""Properties of random rounds and games with random rule options and player counts."""

from __future__ import annotations

import random

import msgpack
from engine_helpers import replayed
from hypothesis import given, settings
from hypothesis import strategies as st

from cfnet.game.board import PublicRound, line_label
from cfnet.game.bot_games import play_game
from cfnet.game.bots import RandomBot
from cfnet.game.moves import (
    DRAW,
    PASS,
    IllegalMoveError,
    Move,
    move_from_plain,
    move_to_plain,
    play,
)
from cfnet.game.round import Game, Round
from cfnet.game.rules import RuleOptions
from cfnet.game.tiles import ALL_TILES, double


@st.composite
def options_for(draw: st.DrawFn, players: int) -> RuleOptions:
    return RuleOptions(
        rounds=draw(st.integers(1, 10)),
        start_trains=draw(st.one_of(st.none(), st.integers(players, 8))),
        double_blank_50=draw(st.booleans()),
    )


@st.composite
def dealt_rounds(draw: st.DrawFn) -> Round:
    players = draw(st.integers(2, 8))
    options = draw(options_for(players))
    round_number = draw(st.integers(1, options.rounds))
    centre = double(10 - round_number)
    deck = draw(st.permutations([t for t in ALL_TILES if t != centre]))
    seated = sorted(draw(st.sets(st.integers(0, players - 1), min_size=2)))  # after departures
    starter = draw(st.sampled_from(seated))
    return Round.deal(players, round_number, starter, deck, options, seated)


def through_plain(data: object) -> object:
    """`data` after a msgpack round trip (proves it is plain data)."""
    return msgpack.unpackb(msgpack.packb(data), strict_map_key=False)


def check_conserved(game_round: Round) -> None:
    public = game_round.public
    on_board = [public.centre] + [t for line in public.lines for t in line.tiles]
    assert sorted(on_board) == [t for t in ALL_TILES if public.on_board(t)]
    everywhere = on_board + game_round.yard + [t for hand in game_round.hands for t in hand]
    assert sorted(everywhere) == list(ALL_TILES)
    assert [len(hand) for hand in game_round.hands] == public.hand_counts
    assert len(game_round.yard) == public.yard_count


def check_views(game_round: Round) -> None:
    for seat, hand in enumerate(game_round.hands):
        view = game_round.view(seat)
        assert list(view.hand) == hand
        others = {t for s, h in enumerate(game_round.hands) if s != seat for t in h}
        assert others.isdisjoint(view.hand) and set(game_round.yard).isdisjoint(view.hand)
        assert view.drawn is None or (seat == game_round.turn and view.drawn in hand)
        assert set(view.__slots__) == {"seat", "hand", "drawn", "public"}
        assert not hasattr(view.public, "hands") and not hasattr(view.public, "yard")


def illegal_candidates(game_round: Round, rng: random.Random, legal: list[Move]) -> list[Move]:
    """A sample of moves that are not legal now: other tiles, other ends, draw, pass."""
    labels = [line_label(i) for i in range(len(game_round.public.lines) + 2)]
    hand = game_round.hands[game_round.turn]
    moves: list[Move] = [play(t, rng.choice(labels)) for t in rng.sample(ALL_TILES, 6)]
    moves += [play(t, label) for t in rng.sample(hand, min(2, len(hand))) for label in labels]
    moves += [DRAW, PASS]
    return [m for m in moves if m not in legal]


@settings(max_examples=100, deadline=None)
@given(dealt_rounds(), st.randoms(use_true_random=False))
def test_random_rounds_keep_every_invariant(game_round: Round, rng: random.Random) -> None:
    start = game_round.copy()
    public = PublicRound(
        game_round.public.players,
        game_round.public.round_number,
        game_round.public.starter,
        game_round.public.options,
        seated=game_round.public.seated,
    )
    for _ in range(2000):
        check_conserved(game_round)
        check_views(game_round)
        assert public == game_round.public
        legal = game_round.legal_moves()
        if game_round.is_over:
            break
        assert legal
        assert legal == game_round.view(game_round.turn).legal_moves()
        for move in legal:  # every legal move applies
            game_round.copy().apply(move)
        for move in illegal_candidates(game_round, rng, legal):
            before = game_round.copy()
            try:
                game_round.apply(move)
            except IllegalMoveError as error:
                assert str(error)
            else:
                raise AssertionError(f"{move} was accepted but is not among {legal}")
            assert game_round == before  # a refused move changes nothing
        move = rng.choice(legal)
        assert move_from_plain(through_plain(move_to_plain(move))) == move
        seat = game_round.turn
        game_round.apply(move, seat=seat)
        public.apply_public(move, seat=seat)
    assert game_round.is_over and public.is_over
    scores = game_round.scores()
    assert len(scores) == game_round.public.players and min(scores) >= 0
    assert Round.from_plain(through_plain(game_round.to_plain())) == game_round
    assert replayed(public) == public
    again = start
    for move in game_round.public.moves:
        again.apply(move)
    assert again == game_round


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 8).flatmap(lambda n: st.tuples(st.just(n), options_for(n))), st.integers())
def test_random_games_end_and_round_trip(setup: tuple[int, RuleOptions], seed: int) -> None:
    players, options = setup
    bots = [RandomBot(seed + seat) for seat in range(players)]
    game = play_game(bots, options, random.Random(seed))
    assert game.is_over and len(game.round_scores) == options.rounds
    assert set(game.winners()) <= set(range(players))


@settings(max_examples=30, deadline=None)
@given(dealt_rounds(), st.randoms(use_true_random=False), st.integers(0, 60))
def test_plain_round_trip_mid_round(game_round: Round, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if game_round.is_over:
            break
        game_round.apply(rng.choice(game_round.legal_moves()))
    copy = Round.from_plain(through_plain(game_round.to_plain()))
    assert copy == game_round and copy.public == game_round.public
    assert copy.to_plain() == game_round.to_plain()


@settings(max_examples=100, deadline=None)
@given(dealt_rounds(), st.integers(0, 2**32))
def test_a_seat_not_dealt_in_never_moves_and_scores_the_highest(
    game_round: Round, seed: int
) -> None:
    rng = random.Random(seed)
    public = game_round.public
    out = set(range(public.players)) - set(public.seated)
    while not game_round.is_over:
        assert public.turn not in out
        game_round.apply(rng.choice(game_round.legal_moves()))
    assert all(not game_round.hands[s] for s in out)
    game = Game(public.players, public.options)
    for _ in range(public.round_number - 1):
        game.round_scores.append((0,) * public.players)
        game.round_seated.append(tuple(range(public.players)))
    scores = game.finish_round(game_round)
    highest = max(scores[s] for s in public.seated)
    assert all(scores[s] == highest for s in out)
    assert game.round_seated[-1] == public.seated
