"""Text rendering: the board tree with labels, hands, banners and the score table."""

from __future__ import annotations

import random

from cfnet.game.bots import RandomBot
from cfnet.game.engine import Game, Round, parse_move
from cfnet.game.practice import play_game
from cfnet.game.rules import RuleOptions
from cfnet.game.text import WIDTH, render_banner, render_board, render_hand, render_scores
from cfnet.game.tiles import Tile


def tiles(text: str) -> list[Tile]:
    return [Tile.parse(word) for word in text.split()]


def position(*moves: str, yard: str = "1-1 2-2 3-3 4-4") -> Round:
    """Two players: trains a (9-5) and b (9-3), then `moves`."""
    hands = [tiles("9-5 5-5 5-2 6-4 1-0"), tiles("9-3 5-1 5-4 0-2 0-3")]
    game_round = Round(2, 1, 0, hands, tiles(yard))
    for text in ("9-5 a", "9-3 b", *moves):
        game_round.apply(parse_move(text))
    return game_round


def test_board_is_a_tree_with_trains_feet_toes_and_labels() -> None:
    board = render_board(position("5-5 a", "5-1 c").public)
    assert board.splitlines() == [
        "centre [9|9]  (2 of 2 trains)",
        "├─ a: [9|5][5|5]  foot: 1 of 3 toes",
        "│  ├─ c: [5|1]  -> 1 (after the foot)",
        "│  └─ d: new toe, needs a 5",
        "└─ b: [9|3]  -> 3 (after the foot)",
    ]


def test_board_in_the_opening_offers_the_next_train() -> None:
    game_round = Round(2, 1, 0, [tiles("9-5"), tiles("9-3")], tiles("1-1 2-2"))
    assert render_board(game_round.public).splitlines() == [
        "centre [9|9]  (0 of 2 trains)",
        "└─ a: new train, needs a 9",
    ]


def test_long_boards_wrap_within_80_columns() -> None:
    rounds: list[Round] = []
    bots = [RandomBot(seat) for seat in range(2)]
    play_game(bots, RuleOptions(rounds=3), random.Random(5), lambda g, r: rounds.append(r))
    for finished in rounds:
        board = render_board(finished.public)
        assert all(len(row) <= WIDTH for row in board.splitlines())
        for line in finished.public.lines:
            assert f" {line.label}: " in board
        assert render_hand(finished.hands[0]).count("[") == len(finished.hands[0])


def test_hand_shows_tiles_high_half_first() -> None:
    assert render_hand(tiles("3-9 5-5 0-1")) == "[9|3] [5|5] [1|0]"
    assert render_hand([]) == "(no tiles)"
    assert all(len(row) <= WIDTH for row in render_hand(tiles("9-3") * 30).splitlines())


def test_banner_says_what_to_do() -> None:
    foot = position("5-5 a", "5-1 c")
    banner = render_banner(foot.view(0))
    assert "Round 1, centre [9|9] | yard 4 (2 drawable) | hands 0:3 1:3" in banner
    assert "Foot on 5-5: 1 of 3 toes; you must play a 5. You can play: 5-2 d." in banner
    assert "Seat 0 to play; the foot on 5-5 needs 2 more tiles" in render_banner(foot.view(1))
    assert "You can play: 5-5 a, 5-2 a." in render_banner(position().view(0))
    stuck = Round(2, 1, 0, [tiles("9-5 5-5 7-7"), tiles("9-3 8-8")], tiles("1-1 2-2 3-3 4-4"))
    for text in ("9-5 a", "9-3 b", "5-5 a"):
        stuck.apply(parse_move(text))
    assert "No tile of yours fits: draw." in render_banner(stuck.view(1))
    stuck.apply(parse_move("draw"))
    assert "You drew [1|1]: it fits nowhere; pass." in render_banner(stuck.view(1))
    stuck.apply(parse_move("pass"))
    stuck.apply(parse_move("draw"))
    assert "You drew [2|2]: it fits nowhere" in render_banner(stuck.view(0))


def test_banner_for_a_drawn_tile_that_fits_and_at_the_floor() -> None:
    game_round = Round(2, 1, 0, [tiles("1-2"), tiles("9-3")], tiles("9-4 0-0 0-1"))
    assert "draw" in render_banner(game_round.view(0))
    game_round.apply(parse_move("draw"))
    assert "You drew [9|4]: it fits a, so you must play it there." in render_banner(
        game_round.view(0)
    )
    at_floor = Round(2, 1, 0, [tiles("1-2"), tiles("9-3")], tiles("0-0 0-1"))
    assert "the yard is at its floor: pass." in render_banner(at_floor.view(0))


def test_banner_when_the_round_is_over() -> None:
    game_round = Round(2, 1, 0, [tiles("9-5"), tiles("9-3")], tiles("1-1 2-2"))
    game_round.apply(parse_move("9-5 a"))
    assert render_banner(game_round.view(1)).endswith("Round over: seat 0 went out.")
    assert all(len(row) <= WIDTH for row in render_banner(position().view(0)).splitlines())


def test_score_table_has_rounds_totals_and_winners() -> None:
    game = Game(3, RuleOptions(rounds=2), [[5, 3, 9], [2, 4, 0]])
    assert render_scores(game).splitlines() == [
        "round   seat 0  seat 1  seat 2",
        "    1        5       3       9",
        "    2        2       4       0",
        "total        7       7       9",
        "winners: seat 0, seat 1 (lowest total)",
    ]
    assert "winner" not in render_scores(Game(3, RuleOptions(rounds=3), [[1, 2, 3]]))
