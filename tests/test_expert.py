"""The expert player: legal moves only, only its own view, sound inference, beats random."""

from __future__ import annotations

import random
import re
import subprocess
import sys

import pytest
from engine_helpers import replayed
from hypothesis import given, settings
from hypothesis import strategies as st

from cfnet.game.bot_games import play_game
from cfnet.game.bot_rollouts import FAST_INDEX, PLAYABLE, mask_of
from cfnet.game.bots import RandomBot, make_bot
from cfnet.game.expert_bot import ExpertBot, explain, hidden_slots, sample_deal
from cfnet.game.moves import Move, parse_move, play
from cfnet.game.round import PlayerView, Round
from cfnet.game.rules import RuleOptions
from cfnet.game.tiles import ALL_TILES, Tile, double
from cfnet.ui.browser import computer_players


def tiles(text: str) -> list[Tile]:
    return [Tile.parse(word) for word in text.split()]


def dealt(players: int, round_number: int, seed: int) -> Round:
    rng = random.Random(seed)
    deck = [t for t in ALL_TILES if t != double(10 - round_number)]
    rng.shuffle(deck)
    return Round.deal(players, round_number, rng.randrange(players), deck, RuleOptions())


def public_only(view: PlayerView) -> PlayerView:
    """The same view rebuilt from public data alone: no object that knows a hidden tile."""
    public = replayed(view.public)
    return PlayerView(view.seat, view.hand, view.drawn, public)


class Checked:
    """An expert whose every move must be legal, and the same from a view rebuilt from public
    data (so it depends on nothing but the view)."""

    def __init__(self, seat: int) -> None:
        self.name = "expert"
        self.bot = ExpertBot(seat, rollouts=30)
        self.moves = 0

    def choose(self, view: PlayerView) -> Move:
        move = self.bot.choose(view)
        assert move in view.legal_moves()
        assert self.bot.choose(public_only(view)) == move
        self.moves += 1
        return move


def test_the_expert_plays_only_legal_moves_from_its_own_view() -> None:
    experts = [Checked(seat) for seat in (0, 2)]
    players = [experts[0], RandomBot(1), experts[1], RandomBot(3)]
    game = play_game(players, RuleOptions(rounds=2), random.Random(5))
    assert game.is_over and all(expert.moves > 10 for expert in experts)


def test_the_hidden_tiles_do_not_change_the_expert_s_move() -> None:
    """Two deals that differ only in tiles the expert cannot see: the same move."""
    original = dealt(4, 1, 8)
    hidden = [t for seat in (1, 2, 3) for t in original.hands[seat]] + original.yard
    bot = ExpertBot(7, rollouts=200)
    chosen = bot.choose(Round(4, 1, 0, original.hands, original.yard).view(0))
    for seed in range(3):
        random.Random(seed).shuffle(hidden)
        hands = [original.hands[0], hidden[:11], hidden[11:22], hidden[22:33]]
        assert bot.choose(Round(4, 1, 0, hands, hidden[33:]).view(0)) == chosen


def test_same_seed_and_rollouts_same_move() -> None:
    game_round = dealt(2, 1, 3)
    view = game_round.view(game_round.turn)
    moves = {ExpertBot(4, rollouts=100).choose(view) for _ in range(3)}
    assert len(moves) == 1


def test_a_seat_that_drew_holds_none_of_the_numbers_then_open() -> None:
    # seat 1 cannot start a train on 9 and draws 2-2 (which does not fit either): it passes
    game_round = Round(
        3,
        1,
        0,
        [tiles("9-5 9-4 1-1"), tiles("3-1 4-2 5-0"), tiles("9-0 6-6")],
        tiles("2-2 7-7 8-8"),
    )
    for text in ("9-5 a", "draw", "pass", "9-0 b"):
        game_round.apply(parse_move(text))
    view = game_round.view(0)
    slots = hidden_slots(view)
    # its kept draw and its three dealt tiles lack a 9; seat 2 never drew nor passed
    assert [(s.seat, s.count, s.void) for s in slots] == [(1, 1, 1 << 9), (1, 3, 1 << 9), (2, 1, 0)]
    unseen = [
        FAST_INDEX[t] for t in ALL_TILES if not view.public.on_board(t) and t not in view.hand
    ]
    for seed in range(20):
        hands, yard = sample_deal(unseen, slots, random.Random(seed))
        seat_1 = [mask for seat, mask in hands if seat == 1]
        assert sum(mask.bit_count() for mask in seat_1) == 4
        assert not any(mask & PLAYABLE[1 << 9] for mask in seat_1)
        assert len(yard) == len(unseen) - 5


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 8), st.integers(1, 10), st.integers(0, 2**32), st.integers(0, 200))
def test_the_real_hands_always_fit_what_the_expert_infers(
    players: int, round_number: int, seed: int, stop: int
) -> None:
    game_round = dealt(players, round_number, seed)
    bots = [RandomBot(seed + seat) for seat in range(players)]
    for _ in range(stop):
        if game_round.is_over:
            return
        game_round.apply(bots[game_round.turn].choose(game_round.view(game_round.turn)))
    if game_round.is_over:
        return
    slots = hidden_slots(game_round.view(game_round.turn))
    for seat in range(players):
        mine = sorted((s for s in slots if s.seat == seat), key=lambda s: -s.void.bit_count())
        assert sum(s.count for s in mine) == (
            0 if seat == game_round.turn else len(game_round.hands[seat])
        )
        real = mask_of(game_round.hands[seat])
        for i, group in enumerate(mine):  # voids are nested: Hall's condition, strictest first
            stricter = sum(s.count for s in mine[: i + 1])
            assert (real & ~PLAYABLE[group.void]).bit_count() >= stricter


def test_the_expert_beats_random_over_paired_games() -> None:
    totals = {"expert": 0, "random": 0}
    for seed in range(2):
        for expert_seat in (0, 1):
            players = [make_bot("random", seed), make_bot("random", seed)]
            players[expert_seat] = make_bot("expert", seed, rollouts=150)
            game = play_game(players, RuleOptions(rounds=2), random.Random(seed))
            totals["expert"] += game.totals[expert_seat]
            totals["random"] += game.totals[1 - expert_seat]
    assert totals["expert"] < totals["random"]


def test_the_hint_says_why() -> None:
    game_round = Round(
        2, 1, 0, [tiles("9-8 9-2 5-5 5-1"), tiles("9-0 0-1 3-3 4-4")], tiles("1-1 2-2 6-6")
    )
    view = game_round.view(0)
    move = play(Tile.of(9, 8), "a")
    margins = [(move, 4.0), (play(Tile.of(9, 2), "a"), 1.5)]
    assert explain(view, move, margins, 120) == (
        "keeps the 5s for your foot; 9-8 is the heaviest that fits "
        "(+2.5 points a round over 9-2, 120 deals)"
    )
    advice = ExpertBot(1, rollouts=200).advise(view)
    assert advice.move in view.legal_moves() and advice.reason


def test_the_host_form_takes_a_strategy_for_its_computer_players() -> None:
    assert computer_players("2 expert", 3) == (2, "expert")
    assert computer_players("1", 3) == (1, "greedy")
    with pytest.raises(ValueError, match="'clever': a computer player is one of expert, greedy"):
        computer_players("1 clever", 3)
    with pytest.raises(ValueError, match="computer players is a number from 0 to 3"):
        computer_players("4 expert", 3)


def test_selfplay_seats_experts_with_a_rollout_budget() -> None:
    command = [sys.executable, "-m", "cfnet", "selfplay", "--players", "2", "--games", "1"]
    command += ["--bots", "expert,random", "--rollouts", "40", "--rule", "rounds=1"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^ +0  expert ", done.stdout, re.M)
