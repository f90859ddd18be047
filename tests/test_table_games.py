"""Complete protocol games for every table size: identical logs, valid, scored as the engine."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from table_helpers import chain, logs

from cfnet.game.round import Round
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import GameOver, RoundScored
from cfnet.protocol.testing import play_protocol_game
from cfnet.protocol.verify import verify_entries

BOTS = [("greedy",), ("random",), ("greedy", "random")]


def _check_game(players: int, rounds: int, seed: int) -> None:
    network = play_protocol_game(players, seed, RuleOptions(rounds=rounds), ("greedy", "random"))
    assert network.errors == []
    assert all(t.over and t.aborted is None for t in network.tables)
    assert len(logs(network)) == 1, "every peer ends with the same log"
    verdict = verify_entries(chain(network))
    assert verdict.ok, verdict.problem
    for seat in range(players):
        scored = [e for e in network.events[seat] if isinstance(e, RoundScored)]
        over = [e for e in network.events[seat] if isinstance(e, GameOver)]
        assert [e.round_number for e in scored] == list(range(1, rounds + 1))
        assert len(over) == 1
        for event in scored:
            engine = Round(players, event.round_number, event.starter, event.dealt, event.yard)
            for move in event.moves:
                engine.apply(move)
            assert engine.is_over
            assert engine.scores() == event.scores
            assert [list(h) for h in event.left] == engine.hands
        totals = tuple(map(sum, zip(*(e.scores for e in scored), strict=True)))
        assert over[0].totals == totals == verdict.table.game.totals  # type: ignore[union-attr]


@pytest.mark.parametrize("players", range(2, 9))
def test_one_round_game(players: int) -> None:
    _check_game(players, 1, seed=players)


def test_full_four_seat_game() -> None:
    _check_game(4, 10, seed=11)


def test_same_seed_same_log() -> None:
    first = play_protocol_game(3, 5, RuleOptions(rounds=1))
    second = play_protocol_game(3, 5, RuleOptions(rounds=1))
    assert logs(first) == logs(second)


@settings(max_examples=6, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), bots=st.sampled_from(BOTS))
def test_any_seed_gives_a_valid_game(players: int, seed: int, bots: tuple[str, ...]) -> None:
    network = play_protocol_game(players, seed, RuleOptions(rounds=1), bots)
    assert all(t.over for t in network.tables) and len(logs(network)) == 1
    assert verify_entries(chain(network)).ok
