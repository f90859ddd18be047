"""Computer players: legal moves from a view only, seeded randomness, a sensible greedy."""

from __future__ import annotations

import random

import pytest

from cfnet.game.bot_games import play_game, selfplay
from cfnet.game.bots import BOT_STRATEGIES, GreedyBot, Player, RandomBot, make_bot
from cfnet.game.moves import Move, parse_move, play
from cfnet.game.round import PlayerView, Round
from cfnet.game.rules import RuleOptions
from cfnet.game.tiles import Tile


def tiles(text: str) -> list[Tile]:
    return [Tile.parse(word) for word in text.split()]


class Recorder:
    """Wraps a bot; checks each view it gets and that its answer is legal."""

    def __init__(self, inner: Player, seat: int) -> None:
        self.inner, self.seat, self.name = inner, seat, inner.name

    def choose(self, view: PlayerView) -> Move:
        assert type(view) is PlayerView and view.seat == self.seat
        move = self.inner.choose(view)
        assert move in view.legal_moves()
        return move


@pytest.mark.parametrize("strategy", BOT_STRATEGIES)
def test_bots_play_legal_moves_from_their_own_view(strategy: str) -> None:
    bots = [Recorder(make_bot(strategy, seat, rollouts=40), seat) for seat in range(4)]
    game = play_game(bots, RuleOptions(rounds=3), random.Random(2))
    assert game.is_over


def test_random_bot_is_reproducible_from_its_seed() -> None:
    def moves(seed: int) -> list[str]:
        played: list[str] = []
        game_round = Round(2, 1, 0, [tiles("9-5 9-4 9-3 9-2"), tiles("9-1 9-0")], tiles("1-1 2-2"))
        bot = RandomBot(seed)
        while not game_round.is_over:
            move = bot.choose(game_round.view(game_round.turn))
            played.append(str(move))
            game_round.apply(move)
        return played

    assert moves(7) == moves(7)
    assert len({tuple(moves(seed)) for seed in range(10)}) > 1


def test_greedy_sheds_heavy_tiles_first() -> None:
    game_round = Round(2, 1, 0, [tiles("9-1 9-8 9-4"), tiles("9-0")], tiles("1-1 2-2"))
    assert GreedyBot().choose(game_round.view(0)) == play(Tile.of(9, 8), "a")


def test_greedy_opens_a_foot_only_when_it_can_answer_it() -> None:
    def choice(hand: str) -> Move:
        game_round = Round(2, 1, 0, [tiles(f"9-5 {hand}"), tiles("9-0 0-1")], tiles("1-1 2-2"))
        for text in ("9-5 a", "9-0 b"):
            game_round.apply(parse_move(text))
        return GreedyBot().choose(game_round.view(0))

    assert choice("5-5 0-6 5-1") == play(Tile.of(5, 5), "a")
    assert choice("5-5 0-6 0-3") == play(Tile.of(0, 6), "b")


def test_make_bot_names_the_strategies() -> None:
    assert isinstance(make_bot("greedy", 1), GreedyBot)
    assert isinstance(make_bot("random", 1), RandomBot)
    with pytest.raises(ValueError, match="choose one of expert, greedy, random"):
        make_bot("clever", 1)


def test_greedy_beats_random() -> None:
    stats = selfplay(["greedy", "random"], 10, 4)
    assert stats.wins[0] > stats.wins[1]
    assert stats.mean_scores()[0] < stats.mean_scores()[1]
