"""The tile set and the rule options."""

import pytest

from cfnet.game.rules import (
    RuleOptionError,
    RuleOptions,
    hand_size,
    round_double,
    rule_options,
    yard_floor,
)
from cfnet.game.tiles import ALL_TILES, Tile, TileParseError, a_number, double


def test_double_nine_set_has_55_distinct_tiles_with_stable_indexes() -> None:
    assert len(set(ALL_TILES)) == 55
    assert all(Tile.from_index(t.index) == t for t in ALL_TILES)
    assert sum(t.is_double for t in ALL_TILES) == 10
    assert double(9).value == 18 and double(0).value == 0


@pytest.mark.parametrize("text", ["9-3", "3-9", "[9|3]", "9 3", "93", " 9-3 "])
def test_tile_parse_accepts_the_usual_spellings(text: str) -> None:
    assert Tile.parse(text) == Tile.of(3, 9)
    assert str(Tile.parse(text)) == "[9|3]"


@pytest.mark.parametrize("text", ["", "9", "10-3", "a-b", "9-3-1"])
def test_tile_parse_rejects_junk_with_a_hint(text: str) -> None:
    with pytest.raises(TileParseError, match="tile"):
        Tile.parse(text)


def test_each_number_is_on_ten_tiles() -> None:
    for n in range(10):
        assert sum(t.has(n) for t in ALL_TILES) == 10


def test_hand_sizes_floor_and_round_doubles() -> None:
    assert [hand_size(n) for n in range(2, 9)] == [21, 14, 11, 8, 7, 6, 5]
    assert yard_floor(2) == 2 and all(yard_floor(n) == 1 for n in range(3, 9))
    assert [round_double(r) for r in range(1, 11)] == list(range(9, -1, -1))


def test_rule_options_parse_check_and_round_trip() -> None:
    opts = RuleOptions().with_assignment("rounds=3").with_assignment("double_blank_50=on")
    opts = opts.with_assignment("start_trains=6")
    assert opts == RuleOptions(rounds=3, start_trains=6, double_blank_50=True)
    assert RuleOptions.from_plain(opts.to_plain()) == opts
    opts.check(4)
    with pytest.raises(RuleOptionError, match=r"choose 7\.\.8"):
        opts.check(7)
    with pytest.raises(RuleOptionError, match="not a rule option"):
        RuleOptions().with_assignment("speed=3")
    with pytest.raises(RuleOptionError, match=r"1\.\.10"):
        RuleOptions(rounds=11).check(2)


def test_numbers_in_sentences_take_the_right_article() -> None:
    assert [a_number(n) for n in (5, 8, 0)] == ["a 5", "an 8", "a 0"]


def test_rule_assignments_from_the_command_line() -> None:
    assert rule_options(["rounds=2", "start_trains=5"], 4) == RuleOptions(2, 5)
    with pytest.raises(RuleOptionError, match=r"choose 2\.\.8"):
        rule_options(["start_trains=1"], 2)
