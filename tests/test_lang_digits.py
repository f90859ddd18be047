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

from cfnet.game.rules import RuleOptions
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
