"""The game's text: the board tree with labels, hands, what to do now, ends, scores, winners."""

from __future__ import annotations

import random
import re

from cfnet.game.board import EndReason
from cfnet.game.bot_games import play_game
from cfnet.game.bots import RandomBot
from cfnet.game.moves import DRAW, parse_move
from cfnet.game.round import Game, Round
from cfnet.game.rules import RuleOptions
from cfnet.game.text import (
    NAME_CHARS,
    TEXT_CHARS,
    WIDTH,
    clock,
    columns,
    describe_end,
    escaped,
    fit,
    fit_widths,
    instruction,
    kept_text,
    move_text,
    pad,
    render_board,
    render_hand,
    round_start,
    score_lines,
    score_table,
    seat_name,
    waiting_text,
    winner_text,
    wrapped,
)
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


def test_the_banner_says_what_to_do() -> None:
    game_round = Round(
        2, 1, 0, [tiles("9-5 5-5 5-1 8-8"), tiles("9-3 5-2 3-3")], tiles("0-0 1-0 2-0")
    )
    names = ("Ann", "Ben")
    assert instruction(game_round.view(0), names) == (
        "Your turn. The centre 9-9 has 0 of 2 trains: every tile must start a new train with a 9"
        " (end a)."
    )
    for text in ("9-5 a", "9-3 b", "5-5 a", "5-2 c"):
        game_round.apply(parse_move(text))
    assert instruction(game_round.view(0), names) == (
        "Your turn. Foot on 5-5: 1 of 3 toes; you must play a 5."
    )
    assert instruction(game_round.view(1), names) == (
        "Ann to play. Foot on 5-5: 1 of 3 toes; Ann must play a 5."
    )
    game_round.apply(parse_move("5-1 d"))
    assert instruction(game_round.view(1), names) == (
        "Your turn. Foot on 5-5: 2 of 3 toes; you must play a 5. No tile of yours fits: draw."
    )
    game_round.apply(DRAW)  # 0-0 fits nowhere
    assert instruction(game_round.view(1), names) == "You drew [0|0]: it fits nowhere; pass."
    assert describe_end(EndReason.WENT_OUT, 1, names) == "Ben went out"


def test_what_to_do_after_a_draw_and_at_the_floor() -> None:
    stuck = Round(2, 1, 0, [tiles("9-5 5-5 7-7"), tiles("9-3 8-8")], tiles("1-1 2-2 3-3 4-4"))
    for text in ("9-5 a", "9-3 b", "5-5 a"):
        stuck.apply(parse_move(text))
    assert instruction(stuck.view(1), ()).endswith("No tile of yours fits: draw.")
    stuck.apply(parse_move("draw"))
    assert instruction(stuck.view(1), ()) == "You drew [1|1]: it fits nowhere; pass."
    game_round = Round(2, 1, 0, [tiles("1-2"), tiles("9-3")], tiles("9-4 0-0 0-1"))
    assert "draw" in instruction(game_round.view(0), ())
    game_round.apply(parse_move("draw"))
    assert instruction(game_round.view(0), ()) == "You drew [9|4]: it fits a, so you must play it."
    at_floor = Round(2, 1, 0, [tiles("1-2"), tiles("9-3")], tiles("0-0 0-1"))
    assert instruction(at_floor.view(0), ()).endswith("the yard is at its floor: pass.")


def test_when_the_round_is_over() -> None:
    game_round = Round(2, 1, 0, [tiles("9-5"), tiles("9-3")], tiles("1-1 2-2"))
    game_round.apply(parse_move("9-5 a"))
    assert instruction(game_round.view(1), ()) == "Round over: seat 0 went out."
    assert instruction(game_round.view(1), ("Ann", "Ben")) == "Round over: Ann went out."
    assert describe_end(EndReason.BLOCKED, None) == "blocked: nobody could play or draw"
    assert describe_end(EndReason.DEAD_FOOT, None).startswith("dead foot: no tile is left")


def test_score_table_has_rounds_totals_and_winners() -> None:
    game = Game(3, RuleOptions(rounds=2), [[5, 3, 9], [2, 4, 0]])
    seats = ["seat 0", "seat 1", "seat 2"]
    assert score_lines(game, seats) == [
        "round  seat 0 seat 1 seat 2",
        "    1       5      3      9",
        "    2       2      4      0",
        "total       7      7      9",
    ]
    assert winner_text(game.winners(), game.totals, seats) == "seat 0 and seat 1 win with 7 points"
    assert winner_text((2,), (3, 2, 1), seats) == "seat 2 wins with 1 point"
    assert winner_text((2,), (3, 2, 1), seats, me=2) == "You win with 1 point"


def test_moves_as_events() -> None:
    assert move_text("Ann", parse_move("9-3 b")) == "Ann played 9-3 on b"
    assert move_text("You", DRAW, Tile.of(5, 3)) == "You drew [5|3]"
    assert move_text("Ann", DRAW) == "Ann drew a tile"
    assert move_text("Ann", parse_move("pass")) == "Ann passed"


def test_a_wait_and_a_round_start_in_words() -> None:
    assert [clock(s) for s in (105, 104.2, 9, 0, -3)] == ["1:45", "1:45", "0:09", "0:00", "0:00"]
    assert waiting_text("bob", 105, None) == "waiting for bob: thinking, 1:45 left"
    assert waiting_text("bob", 108, 12.7) == "waiting for bob: link down 12 s, 1:48 left"
    assert round_start(3, "Ann") == "round 3: Ann starts"
    assert round_start(3, "Ann", Tile(7, 7), 10) == "round 3 of 10: centre [7|7], Ann starts"


def test_text_from_a_peer_is_escaped_and_capped() -> None:
    for raw, shown in (
        ("a\x1b[2Jb", "a\\x1b[2Jb"),
        ("\r\n\t\x00\x7f\x85\x9b", "\\r\\n\\t\\x00\\x7f\\x85\\x9b"),  # C0, DEL, C1
        ("\u202aA\u202eB\u2066C\u2069", "\\u202aA\\u202eB\\u2066C\\u2069"),  # overrides, isolates
        ("\u200e\u200f\u061c", "\\u200e\\u200f\\u061c"),  # the bidi marks
        ("Zoë 名前 ok", "Zoë 名前 ok"),  # printable text is left as it is
    ):
        assert escaped(raw) == shown
    assert escaped("ab\x1b", 4) == "ab…"  # a cut never splits an escape
    assert len(escaped("x" * 1000)) == TEXT_CHARS
    assert seat_name(["bob\x1b[8m"], 0) == "bob\\x1b[8m"
    assert seat_name(["b" * 60], 0) == "b" * (NAME_CHARS - 1) + "…"
    assert seat_name([], 3) == "seat 3"


def test_widths_are_display_columns() -> None:
    assert columns("名前") == 4 and columns("é") == 1 and columns("e\u0301") == 1
    assert fit("名前名前", 5) == "名前…" and columns(fit("名前名前", 5)) <= 5
    assert fit("alice", 5) == "alice" and fit("alice", 4) == "ali…"
    assert pad("名前", 6) == "名前  " and pad("ab", 4, right=True) == "  ab"
    assert fit_widths([4, 20, 30], 40, 6) == [4, 18, 18]  # the widest cut first
    assert fit_widths([4, 20, 30], 60, 6) == [4, 20, 30]  # whole, when they fit
    rows = wrapped("play 9-3 on b, or 9-5 on a, or draw a tile from the yard", 12)
    assert all(columns(row) <= 12 for row in rows)
    assert any("9-3" in row for row in rows) and any("9-5" in row for row in rows)


def test_hands_and_boards_wrap_by_tile_within_the_width() -> None:
    rounds: list[Round] = []
    bots = [RandomBot(seat) for seat in range(4)]
    play_game(bots, RuleOptions(rounds=2), random.Random(8), lambda g, r: rounds.append(r))
    hand = tiles("9-3 8-8 7-5 6-6 5-5 4-4 3-3 2-2 1-1 0-0 9-9 8-7 6-5 4-3 2-1")
    for width in (60, 80, 120):
        rows = render_hand(hand, width).splitlines()
        assert all(columns(row) <= width for row in rows)
        assert all(re.fullmatch(r"(\[\d\|\d\] )*\[\d\|\d\]", row) for row in rows)  # whole
        for finished in rounds:
            for row in render_board(finished.public, width).splitlines():
                assert columns(row) <= width, row
                assert re.fullmatch(r"[^\[\]]*(\[\d\|\d\][^\[\]]*)*", row), row


def test_score_tables_show_whole_names_and_cut_only_for_room() -> None:
    names = ["expert-bot-the-first", "greedy-lucy", "名前の長い人"]
    game = Game(3, RuleOptions(rounds=2), [[5, 3, 9], [2, 4, 0]])
    wide = score_lines(game, names, 120)
    assert all(name in wide[0] for name in names)  # no more `expert-b`, `greedy-l`
    narrow = score_lines(game, names, 50)
    assert all(columns(row) <= 50 for row in narrow)
    assert "expert-bot-the-fi…" in narrow[0]  # the longest is cut, the others fit whole
    assert "greedy-lucy" in narrow[0] and "名前の長い人" in narrow[0]
    assert narrow[-1].split() == ["total", "7", "7", "9"]
    table = score_table(names, [(1, (5, 3, 9), (0, 2))], (5, 3, 9))
    assert table[1].split() == ["1", "5", "3*", "9"]
    assert table[-1].startswith("* sat the round out (the player had left the game)")


def test_went_out_and_left_the_game_are_different_words() -> None:
    assert kept_text((), True) == "(went out)"
    assert kept_text((), False) == "(left the game: not dealt in)"
    assert kept_text(tiles("9-3"), True) == "[9|3]"
