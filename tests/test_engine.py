"""The engine against every clause of RULES.md, on hand-built positions.

Positions are built with `Round(players, round, starter, hands, yard, options)` (any hand sizes)
and reached by typed moves, so each test reads like a game record.
"""

from __future__ import annotations

import random

import pytest
from engine_helpers import replayed

from cfnet.game.board import EndReason, Line, Phase, PublicRound, line_label
from cfnet.game.bot_games import play_game, play_round
from cfnet.game.bots import GreedyBot
from cfnet.game.moves import (
    DRAW,
    PASS,
    IllegalMoveError,
    Play,
    move_from_plain,
    move_to_plain,
    parse_move,
    play,
)
from cfnet.game.round import Game, Round, starting_seat
from cfnet.game.rules import RuleOptions, hand_size
from cfnet.game.tiles import ALL_TILES, Tile, double


def line(public: PublicRound, label: str) -> Line:
    """The line labelled `label`."""
    return next(found for found in public.lines if found.label == label)


def tiles(text: str) -> list[Tile]:
    return [Tile.parse(word) for word in text.split()]


def make(
    *hands: str,
    yard: str = "",
    round_number: int = 1,
    starter: int = 0,
    options: RuleOptions | None = None,
) -> Round:
    """A round with these hands (seat 0 first) and yard (top first)."""
    return Round(len(hands), round_number, starter, [tiles(h) for h in hands], tiles(yard), options)


def go(game_round: Round, *moves: str) -> None:
    """Apply typed moves in turn order, each checked in full."""
    for text in moves:
        game_round.apply(parse_move(text))


def phase(game_round: Round) -> Phase:
    return game_round.public.phase


def full_deck(round_number: int) -> list[Tile]:
    centre = double(10 - round_number)
    return [t for t in ALL_TILES if t != centre]


# -- the game: round order, shorter games, totals and shared wins


def test_rounds_go_from_double_nine_down_to_double_blank() -> None:
    centres: list[Tile] = []
    play_game(
        [GreedyBot(), GreedyBot()],
        RuleOptions(),
        random.Random(3),
        lambda game, finished: centres.append(finished.public.centre),
    )
    assert centres == [double(n) for n in range(9, -1, -1)]


def test_rounds_option_plays_the_first_rounds_only() -> None:
    game = Game(3, RuleOptions(rounds=2))
    first = game.new_round(0, full_deck(1))
    assert first.public.centre == double(9)
    game.finish_round(play_round(first, [GreedyBot()] * 3))
    second = game.new_round(1, full_deck(2))
    assert second.public.centre == double(8) and second.public.round_number == 2
    game.finish_round(play_round(second, [GreedyBot()] * 3))
    assert game.is_over
    with pytest.raises(ValueError, match="game is over"):
        game.new_round(0, full_deck(3))


def test_game_totals_lowest_wins_and_ties_share_the_win() -> None:
    game = Game(3, RuleOptions(rounds=2), [[5, 3, 9], [2, 4, 0]])
    assert game.totals == (7, 7, 9) and game.is_over
    assert game.winners() == (0, 1)
    assert Game(2, RuleOptions(rounds=1), [[0, 12]]).winners() == (0,)


def test_finish_round_records_scores_only_for_the_right_finished_round() -> None:
    game = Game(2, RuleOptions(rounds=2))
    game_round = game.new_round(0, full_deck(1))
    with pytest.raises(ValueError, match="finished round 1"):
        game.finish_round(game_round)
    play_round(game_round, [GreedyBot(), GreedyBot()])
    assert game.finish_round(game_round) == game_round.scores()
    assert game.totals == game_round.scores() and game.round_number == 2
    with pytest.raises(ValueError, match="finished round 2"):
        game.finish_round(game_round)


# -- setting up a round


@pytest.mark.parametrize("players", range(2, 9))
def test_deal_gives_each_seat_its_slice_and_the_rest_is_the_yard(players: int) -> None:
    deck = full_deck(4)
    random.Random(players).shuffle(deck)
    game_round = Round.deal(players, 4, 0, deck)
    h = [21, 14, 11, 8, 7, 6, 5][players - 2]
    assert hand_size(players) == h
    assert [len(hand) for hand in game_round.hands] == [h] * players
    assert game_round.hands[1] == deck[h : 2 * h]
    assert game_round.yard == deck[players * h :]
    assert game_round.public.yard_count == 54 - players * h
    assert game_round.public.centre == double(6)


def test_deal_rejects_a_deck_that_is_not_the_other_54_tiles() -> None:
    with pytest.raises(ValueError, match="54 tiles other than"):
        Round.deal(4, 1, 0, full_deck(2))


def test_who_starts_counts_draws_from_the_rounds_first_drawer() -> None:
    assert starting_seat(1, 4, 0) == 0
    assert starting_seat(2, 4, 0) == 1
    assert starting_seat(1, 4, 5) == 1
    assert starting_seat(3, 3, 54) == (2 + 54) % 3
    assert {starting_seat(1, 8, i) for i in range(55)} == set(range(8))
    with pytest.raises(ValueError, match=r"0\.\.54"):
        starting_seat(1, 4, 55)


def test_the_starter_moves_first() -> None:
    game_round = make("1-2", "9-3", "4-5", yard="0-1 0-2", starter=1)
    assert game_round.turn == 1
    assert game_round.legal_moves() == [play(Tile.of(9, 3), "a")]


# -- the opening


def test_opening_every_turn_starts_a_new_train_on_the_centre() -> None:
    game_round = make("9-3 3-4 9-6", "9-5 5-1", "9-0 0-1", yard="2-2 1-1")
    public = game_round.public
    assert phase(game_round) is Phase.OPENING and public.ends == {"a": 9}
    go(game_round, "9-3 a")
    assert public.ends == {"b": 9}
    assert line(public, "a").end == 3
    with pytest.raises(IllegalMoveError, match="5-1 fits no open end: the centre 9-9 has 1 of 3"):
        go(game_round, "5-1 a")
    with pytest.raises(IllegalMoveError, match=r"9-5 cannot go on a: .* play it on b"):
        go(game_round, "9-5 a")
    go(game_round, "9-5 b", "9-0 c")
    assert phase(game_round) is Phase.MAIN
    assert public.ends == {"a": 3, "b": 5, "c": 0}


def test_no_double_in_the_opening_and_a_player_may_start_several_trains() -> None:
    options = RuleOptions(start_trains=4)
    game_round = make("9-3 9-4 9-5", "9-1 1-1", yard="0-1 0-2 0-3", options=options)
    go(game_round, "9-3 a")
    with pytest.raises(IllegalMoveError, match="1-1 fits no open end"):
        go(game_round, "1-1 b")
    go(game_round, "9-1 b", "9-4 c")
    assert phase(game_round) is Phase.OPENING  # 3 of 4 trains
    assert game_round.legal_moves() == [DRAW]  # seat 1 has only 1-1
    go(game_round, "draw", "pass", "9-5 d")
    assert phase(game_round) is Phase.MAIN and game_round.public.trains == 4


def test_start_trains_must_be_between_players_and_eight() -> None:
    with pytest.raises(ValueError, match=r"choose 3\.\.8"):
        make("1-2", "1-3", "1-4", options=RuleOptions(start_trains=2))


def test_no_new_train_once_the_opening_is_done() -> None:
    game_round = make("9-3 9-4", "9-5 5-1", yard="0-1 0-2 0-3")
    go(game_round, "9-3 a", "9-5 b")
    assert game_round.public.ends == {"a": 3, "b": 5}
    no_train = "the centre has its 2 trains and takes no new one; 9-4 fits no open end"
    with pytest.raises(IllegalMoveError, match=no_train):
        go(game_round, "9-4 c")
    assert game_round.legal_moves() == [DRAW]


# -- a turn: play when able, draw only when unable, a fitting drawn tile is played


def test_must_play_when_able() -> None:
    game_round = make("9-3 1-2", "9-5", yard="0-1 0-2 0-3")
    with pytest.raises(IllegalMoveError, match="cannot draw: 9-3 fits a, and you must play"):
        go(game_round, "draw")
    with pytest.raises(IllegalMoveError, match="cannot pass: 9-3 fits a, and you must play"):
        go(game_round, "pass")
    one_left = r"cannot pass while the yard has a tile to draw \(1\)"
    with pytest.raises(IllegalMoveError, match=one_left):
        game_round.public.apply_public(PASS)  # what a peer can check without the hand
    at_floor = make("9-3 1-2", "9-5", yard="0-1 0-2")
    with pytest.raises(IllegalMoveError, match="cannot pass: 9-3 fits a"):
        go(at_floor, "pass")
    with pytest.raises(IllegalMoveError, match="you do not hold 9-4"):
        go(game_round, "9-4 a")


def test_draw_only_when_unable_and_a_drawn_tile_that_fits_must_be_played() -> None:
    game_round = make("1-2 3-4", "9-5", yard="9-8 0-0 0-1 0-2")
    assert game_round.legal_moves() == [DRAW]
    assert game_round.apply(DRAW) == Tile.of(9, 8)
    assert game_round.public.drawn_pending and game_round.turn == 0
    assert game_round.legal_moves() == [play(Tile.of(9, 8), "a")]
    with pytest.raises(IllegalMoveError, match="the 9-8 you drew fits a: you must play it"):
        go(game_round, "pass")
    with pytest.raises(IllegalMoveError, match="you drew 9-8: play it"):
        go(game_round, "1-2 a")
    with pytest.raises(IllegalMoveError, match="already drawn"):
        go(game_round, "draw")
    go(game_round, "9-8 a")
    assert game_round.turn == 1 and game_round.hands[0] == tiles("1-2 3-4")


def test_a_drawn_tile_that_does_not_fit_means_pass() -> None:
    game_round = make("1-2 3-4", "9-5", yard="0-0 0-1 0-2 0-3")
    go(game_round, "draw")
    assert game_round.legal_moves() == [PASS]
    with pytest.raises(IllegalMoveError, match="0-0 fits no open end"):
        go(game_round, "0-0 a")
    go(game_round, "pass")
    assert game_round.turn == 1 and game_round.public.passes_in_row == 1
    assert game_round.hands[0] == tiles("1-2 3-4 0-0")


@pytest.mark.parametrize(("players", "floor"), [(2, 2), (3, 1), (8, 1)])
def test_the_yard_floor_is_never_drawn(players: int, floor: int) -> None:
    hands = ["1-2", "2-3", "2-4", "2-5", "2-6", "2-7", "2-8", "3-4"][:players]
    yard = " ".join(["0-1", "0-2", "0-3"][: floor + 1])
    game_round = make(*hands, yard=yard)
    assert game_round.public.drawable == 1
    go(game_round, "draw", "pass")
    assert game_round.public.yard_count == floor and game_round.public.drawable == 0
    assert game_round.legal_moves() == [PASS]
    never = f"the last {floor} {'is' if floor == 1 else 'are'} never drawn"
    with pytest.raises(IllegalMoveError, match=never):
        go(game_round, "draw")


# -- the chicken foot


def foot_round(extra0: str = "6-4 0-1", extra1: str = "0-2 0-3") -> Round:
    """Two players; trains a (9-5 -> 5) and b (9-3 -> 3); seat 0 to play 5-5 on a."""
    game_round = make(f"9-5 5-5 5-2 {extra0}", f"9-3 5-1 5-4 {extra1}", yard="1-1 2-2 3-3 4-4")
    go(game_round, "9-5 a", "9-3 b")
    return game_round


def test_a_double_opens_a_foot_that_takes_three_toes_before_anything_else() -> None:
    game_round = foot_round()
    public = game_round.public
    go(game_round, "5-5 a")
    assert game_round.turn == 1  # a double ends the turn like any tile
    assert phase(game_round) is Phase.FOOT and public.foot == double(5)
    assert public.ends == {"c": 5} and line(public, "a").closed
    go(game_round, "5-1 c")
    assert public.toes_left == 2 and public.ends == {"d": 5}
    with pytest.raises(
        IllegalMoveError,
        match=r"^6-4 fits no open end: the foot on 5-5 needs 2 more tiles with a 5 \(end d\)$",
    ):
        go(game_round, "6-4 d")
    go(game_round, "5-2 d", "5-4 e")
    assert phase(game_round) is Phase.MAIN and public.foot is None
    assert public.ends == {"b": 3, "c": 1, "d": 2, "e": 4}
    assert [line.root for line in public.lines] == [double(9)] * 2 + [double(5)] * 3


def test_the_foot_locks_every_other_end() -> None:
    game_round = make("9-5 5-5 3-1", "9-3 3-2 5-0", yard="1-1 2-2 4-4")
    go(game_round, "9-5 a", "9-3 b", "5-5 a")
    with pytest.raises(IllegalMoveError, match="3-2 fits no open end: the foot on 5-5 needs 3"):
        go(game_round, "3-2 b")
    assert game_round.legal_moves() == [play(Tile.of(5, 0), "c")]


def test_a_dead_foot_ends_the_round_at_once() -> None:
    """Every other 5 is on the board when 5-5 is played: nobody can ever play again."""
    game_round = make(
        "9-5 5-1 1-2 2-5 5-3 3-4 4-5 0-0",
        "9-0 0-5 5-6 6-7 7-5 5-8 5-5 1-1",
        yard="2-2 3-3 4-4",
    )
    go(game_round, "9-5 a", "9-0 b", "5-1 a", "0-5 b", "1-2 a", "5-6 b", "2-5 a", "6-7 b")
    go(game_round, "5-3 a", "7-5 b", "3-4 a", "5-8 b", "4-5 a")
    assert not game_round.is_over
    go(game_round, "5-5 a")
    public = game_round.public
    assert public.end_reason is EndReason.DEAD_FOOT and public.went_out is None
    assert public.left_off_board(5) == 0
    assert game_round.scores() == (0, 2)
    with pytest.raises(IllegalMoveError, match=r"round is over \(dead foot"):
        go(game_round, "pass")


def dying_foot(yard: str, extra1: str = "") -> Round:
    """A foot on 5-5 (line b) that can get only two toes: 5-4 and 5-8 are the last 5s."""
    game_round = make(
        "9-5 5-1 1-2 2-5 5-3 3-4 5-4 0-0",
        f"9-0 0-5 5-6 6-7 7-5 5-5 1-1 {extra1}",
        yard=yard,
    )
    go(game_round, "9-5 a", "9-0 b", "5-1 a", "0-5 b", "1-2 a", "5-6 b", "2-5 a", "6-7 b")
    go(game_round, "5-3 a", "7-5 b", "3-4 a", "5-5 b")
    return game_round


def test_a_foot_that_cannot_be_finished_goes_on_while_its_number_is_off_the_board() -> None:
    game_round = dying_foot(yard="2-2 3-3", extra1="5-8")
    go(game_round, "5-4 c")
    assert not game_round.is_over and game_round.public.left_off_board(5) == 1
    go(game_round, "5-8 d")
    assert game_round.public.end_reason is EndReason.DEAD_FOOT


def test_blocked_after_n_passes_in_a_row_at_the_floor() -> None:
    game_round = dying_foot(yard="5-8 2-2")  # the last 5 lies in the yard's floor
    go(game_round, "5-4 c", "pass")
    assert not game_round.is_over and game_round.public.passes_in_row == 1
    go(game_round, "pass")
    assert game_round.public.end_reason is EndReason.BLOCKED
    assert game_round.scores() == (0 + 0, 2)  # seat 0 holds 0-0, seat 1 holds 1-1


def test_passes_block_only_once_the_yard_is_at_its_floor() -> None:
    game_round = make("9-1 0-0", "9-2 3-3", "9-4 5-5", yard="6-6 7-7 8-8 3-6 0-3")
    go(game_round, "9-1 a", "9-2 b", "9-4 c")
    go(game_round, "draw", "pass", "draw", "pass", "draw", "pass")
    assert not game_round.is_over and game_round.public.passes_in_row == 3
    go(game_round, "draw", "pass")  # the yard is now at its floor: the last 3 passes block
    assert game_round.public.passes_in_row == 4
    assert game_round.public.end_reason is EndReason.BLOCKED


# -- going out and scoring


def test_going_out_on_a_double_ends_the_round_at_once() -> None:
    game_round = make("9-5 5-5", "9-3 3-1", yard="1-1 2-2")
    go(game_round, "9-5 a", "9-3 b", "5-5 a")
    public = game_round.public
    assert public.end_reason is EndReason.WENT_OUT and public.went_out == 0
    assert public.foot == double(5)  # the foot it opened stays open
    assert game_round.scores() == (0, 4)


def test_going_out_with_a_foot_open() -> None:
    game_round = make("9-5 5-5 1-1", "9-3 5-1", yard="2-2 3-3")
    go(game_round, "9-5 a", "9-3 b", "5-5 a", "5-1 c")
    assert game_round.public.went_out == 1 and game_round.public.toes_left == 2
    assert game_round.scores() == (2, 0)


@pytest.mark.parametrize(("blank_50", "expected"), [(False, (0, 6)), (True, (50, 6))])
def test_scoring_double_blank_counts_50_with_the_option(
    blank_50: bool, expected: tuple[int, int]
) -> None:
    options = RuleOptions(double_blank_50=blank_50)
    game_round = make("9-1 0-0", "9-2 3-3", yard="4-4 5-5", options=options)
    go(game_round, "9-1 a", "9-2 b", "pass", "pass")
    assert game_round.public.end_reason is EndReason.BLOCKED
    assert game_round.scores() == expected


def test_the_seat_that_went_out_scores_zero_and_the_others_their_pips() -> None:
    game_round = make("9-5", "9-3 8-6 0-0", "9-1 4-4", yard="1-2", options=RuleOptions(rounds=1))
    go(game_round, "9-5 a")
    assert game_round.scores() == (0, 26, 18)


# -- moves, labels, messages


def test_line_labels_run_a_to_z_then_aa() -> None:
    assert [line_label(i) for i in (0, 1, 25, 26, 27, 51, 52)] == [
        "a",
        "b",
        "z",
        "aa",
        "ab",
        "az",
        "ba",
    ]


def test_parse_move_reads_typed_moves() -> None:
    assert parse_move("9-3 a") == Play(Tile.of(3, 9), "a")
    assert parse_move(" [3|9]  ab ") == play(Tile.of(3, 9), "ab")
    assert parse_move("d") == DRAW and parse_move("Pass") == PASS
    with pytest.raises(IllegalMoveError, match="not a move"):
        parse_move("9-3")
    with pytest.raises(IllegalMoveError, match="not a tile"):
        parse_move("x a")


def test_moves_round_trip_through_plain_data() -> None:
    for move in (play(Tile.of(9, 3), "b"), DRAW, PASS):
        assert move_from_plain(move_to_plain(move)) == move
    assert move_to_plain(play(Tile.of(9, 3), "b")) == ["play", Tile.of(3, 9).index, "b"]
    for bad in (["play", 55, "a"], ["play", 1, "A"], ["jump"], "draw", ["play", True, "a"]):
        with pytest.raises(IllegalMoveError, match="malformed move"):
            move_from_plain(bad)


def test_a_tile_on_the_board_cannot_be_played_again_and_turns_are_checked() -> None:
    game_round = make("9-5 1-2", "9-3 5-6", yard="1-1 2-2 3-3")
    public = game_round.public.copy()
    public.apply_public(play(Tile.of(9, 5), "a"))
    with pytest.raises(IllegalMoveError, match="9-5 is already on the board"):
        public.apply_public(play(Tile.of(9, 5), "b"))
    with pytest.raises(IllegalMoveError, match="seat 1's turn, not seat 0's"):
        public.apply_public(play(Tile.of(9, 3), "b"), seat=0)
    public.apply_public(play(Tile.of(9, 3), "b"), seat=1)
    with pytest.raises(IllegalMoveError, match="does not fit end a, which needs a 5; 2-1 fits no"):
        public.apply_public(play(Tile.of(1, 2), "a"))


def test_a_wrong_end_says_where_the_tile_fits() -> None:
    game_round = make("9-5 3-6", "9-3 0-0", yard="1-1 2-2 4-4")
    go(game_round, "9-5 a", "9-3 b")
    with pytest.raises(IllegalMoveError, match="does not fit end a, which needs a 5; 6-3 fits b"):
        go(game_round, "3-6 a")


def test_public_round_replays_what_the_full_round_does() -> None:
    game_round = foot_round()
    public = replayed(game_round.public)
    assert public == game_round.public
    go(game_round, "5-5 a")
    public.apply_public(play(Tile.of(5, 5), "a"))
    assert public == game_round.public and public.copy() == public
