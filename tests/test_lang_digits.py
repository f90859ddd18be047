"""Numbers in the reader's digits: in Persian, every count, seat, round, score and number of
seconds a person reads is written in Persian digits (۰-۹); what is typed or is notation keeps
its Latin digits (tiles and end labels, the board's pips, rule options, addresses, keys, file
names, commands)."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path

from lan_helpers import CFNET
from test_expert import tiles

from cfnet.game.expert_bot import explain
from cfnet.game.moves import play
from cfnet.game.round import Round
from cfnet.game.rules import RuleOptions
from cfnet.game.text import clock
from cfnet.game.tiles import Tile
from cfnet.lang.catalog import set_language
from cfnet.lang.languages import LANGUAGES, SOURCE
from cfnet.lang.sentence import said
from cfnet.net.discovery import TableInfo
from cfnet.net.reasons import LOCKED_OUT, heard

NOTATION = re.compile(
    r"\u2066[^\u2069]*\u2069"  # an isolated tile or end label
    r"|\[\d\|\d\]|-> \d"  # a tile and a pip on the board
    r"|\w+=\w+"  # a rule option as typed
    r"|\d+(?:\.\d+){3}:\d+"  # an address
    r"|[a-z2-7]{4}(?:-[a-z2-7]{4}){3}"  # a key's fingerprint
    r"|\S*/\S*"  # a file
    r"|demo-[0-9a-f]{6}"  # the demo table's name
)


def latin_numbers(text: str) -> list[str]:
    """The lines of `text` holding a Latin digit outside notation."""
    return [line for line in text.splitlines() if re.search(r"[0-9]", NOTATION.sub("", line))]


def test_the_demo_in_persian_writes_its_numbers_in_persian_digits(tmp_path: Path) -> None:
    seed = str(int.from_bytes(os.urandom(6), "big"))  # unique: other runs share loopback mDNS
    (tmp_path / "tmp").mkdir()
    environ = {**os.environ, "TMPDIR": str(tmp_path / "tmp"), "TERM": "dumb", "LANGUAGE": "fa"}
    done = subprocess.run(
        [*CFNET, "demo", "--players", "2", "--rounds", "1", "--delay", "0", "--seed", seed],
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "مانده" in done.stdout and "۱" in done.stdout  # Persian words and digits
    assert latin_numbers(done.stdout) == [], done.stdout


def test_a_hosts_refusal_is_english_on_the_wire_and_persian_digits_on_screen() -> None:
    wire = "the table refuses every joiner for 30 s more: too many wrong join codes were tried"
    wire += " (someone may be guessing its code)"
    sentence = heard(wire)
    assert sentence == wire and sentence.template == LOCKED_OUT  # type: ignore[attr-defined]
    set_language(LANGUAGES["fa"])
    try:
        shown = said(sentence)
    finally:
        set_language(LANGUAGES[SOURCE])
    assert "۳۰" in shown and latin_numbers(shown) == [] and "table" not in shown


def test_a_tables_timeout_is_said_in_the_readers_words_and_digits() -> None:
    table = TableInfo(
        "Kitchen", bytes(16), "ana", "abcd-efgh-ijkl-mn23", RuleOptions(), 3, 1, False
    )
    timed = replace(table, timeout=120)
    assert (timed.timeout_text, table.timeout_text) == ("120 s", "?")
    set_language(LANGUAGES["fa"])
    try:
        assert timed.timeout_text == "۱۲۰ ثانیه"
    finally:
        set_language(LANGUAGES[SOURCE])


def test_selfplay_in_persian_writes_its_statistics_in_persian() -> None:
    environ = {**os.environ, "LANGUAGE": "fa"}
    done = subprocess.run(
        [*CFNET, "selfplay", "--games", "2", "--seed", "3"],
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    typed = re.sub(r"seed \d+", "", done.stdout)  # the seed, as typed
    assert latin_numbers(typed) == [], done.stdout
    assert not re.search(r"went out|blocked|dead foot|games/s", done.stdout), done.stdout
    assert "پای مرده" in done.stdout


def test_a_clock_is_in_persian_digits() -> None:
    """The lobby's 'free for 0:09' and the game screen's '1:45 left to move'."""
    set_language(LANGUAGES["fa"])
    try:
        assert (clock(105), clock(9)) == ("۱:۴۵", "۰:۰۹")
    finally:
        set_language(LANGUAGES[SOURCE])
    assert clock(105) == "1:45"


def test_a_hints_counts_are_in_persian_digits_and_its_pips_as_typed() -> None:
    game_round = Round(
        2, 1, 0, [tiles("9-8 9-2 5-5 5-1"), tiles("9-0 0-1 3-3 4-4")], tiles("1-1 2-2 6-6")
    )
    move = play(Tile.of(9, 8), "a")
    margins = [(move, 4.0), (play(Tile.of(9, 2), "a"), 1.5)]
    set_language(LANGUAGES["fa"])
    try:
        persian = explain(game_round.view(0), move, margins, 120)
    finally:
        set_language(LANGUAGES[SOURCE])
    assert "+۲٫۵" in persian and "۱۲۰" in persian and "5ها" in persian, persian
