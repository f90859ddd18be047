"""A whole game played in Greek and one in Persian at a real terminal (an 80x24 tmux pane), the
moves and commands typed in the language's own script: Greek end labels (`9-3 β`), Persian
digits and the letters on the keys of the end labels (`۹-۳ ذ`), the commands in the language
(help, rules, hint, quit), and the screen answering in the language throughout."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cfnet.lang.bidi_marks import CONTROLS

CFNET = Path(sys.executable).parent / "cfnet"
DEADLINE = 120.0  # generous: a loaded machine must not fail
GREEK_KEYS = dict(zip("abcdefghijklmnoprstuvwxyz", "αβψδεφγηιξκλμνοπρστθωςχυζ", strict=True))
PERSIAN_KEYS = dict(zip("abcdefghijklmnopqrstuvwxyz", "شذزیثبلاهتنمپدخحضقسفعرصطغظ", strict=True))
PERSIAN_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
_STRIP = str.maketrans("", "", CONTROLS)


@dataclass(frozen=True)
class Words:
    """What one language's game screen says and what its player types."""

    code: str
    status: str  # the status bar, with the move count as its group 1
    my_turn: str
    moves: str  # the head of the moves row
    draw: str
    pass_: str
    help: str
    help_shown: str
    rules: str
    rules_shown: str
    hint: str
    hint_shown: str
    wrong: str
    wrong_said: str
    quit: str
    asked: str
    no: str
    stayed: str
    round_over: str
    game_over: str
    summary: str
    keys: dict[str, str]
    digits: bool  # moves are typed with the language's own digits


GREEK = Words(
    "el", r"Γύρος 1/1 · κίνηση (\d+) ·", "▶ Η σειρά σας", "Κινήσεις", "τράβα", "πάσο",
    "βοήθεια", "Πώς παίζεται", "κανόνες", "οι κανόνες που παίζει το cfnet", "συμβουλή",
    "Συμβουλή: ο υπολογιστής θα διάλεγε", "μπανάνα", "δεν είναι κίνηση ούτε εντολή", "έξοδος",
    "Να φύγετε από το παιχνίδι;", "όχι", "Μένετε στο παιχνίδι", "Ο γύρος 1 τελείωσε",
    "Τέλος παιχνιδιού", "παίχτηκαν 1 γύρος", GREEK_KEYS, False,
)  # fmt: skip
PERSIAN = Words(
    "fa", r"دور ۱/۱ · حرکت ([۰-۹]+) ·", "▶ نوبت شما", "حرکت‌ها", "بکش", "پاس", "راهنما",
    "روش بازی", "قوانین", "قوانینی که cfnet اجرا می‌کند", "پیشنهاد",
    "پیشنهاد: رایانه این را انتخاب می‌کرد", "موز", "نه حرکت است نه فرمان", "خروج",
    "از بازی بیرون می‌روید؟", "نه", "در بازی می‌مانید", "دور ۱ تمام شد", "پایان بازی",
    "۱ دور بازی شد", PERSIAN_KEYS, True,
)  # fmt: skip


class Pane:
    """cfnet in an 80x24 tmux pane of a tmux server of its own."""

    def __init__(self, work: Path, command: str) -> None:
        self.socket = f"cfnet-langs-{os.getpid()}-{time.monotonic_ns()}"
        self.work = work
        shell = f"cd '{work}' && TERM=xterm-256color {command}; echo $? > '{work}/rc'; sleep 60"
        self.tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", "play", shell)

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-u", "-L", self.socket, *args],
                              capture_output=True, text=True, check=True)  # fmt: skip
        return done.stdout

    def screen(self) -> str:
        """The pane's text, without the bidi controls (tmux keeps them or not)."""
        return self.tmux("capture-pane", "-p", "-t", "play").translate(_STRIP)

    def wait_for(self, pattern: str, what: str) -> re.Match[str]:
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            found = re.search(pattern, self.screen(), re.M)
            if found:
                return found
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what} (/{pattern}/); the screen:\n"
                             f"{self.screen()}")  # fmt: skip

    def type(self, line: str) -> None:
        self.tmux("send-keys", "-t", "play", "-l", "--", line)
        self.tmux("send-keys", "-t", "play", "Enter")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, check=False)


@pytest.fixture(params=[GREEK, PERSIAN], ids=["el", "fa"])
def game(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Words, Pane]]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    words: Words = request.param
    pane = Pane(tmp_path, f"'{CFNET}' play --offline --players 3 --seed 11 --delay 0 "
                f"--rule rounds=1 --lang {words.code} --bidi terminal")  # fmt: skip
    yield words, pane
    pane.close()


def typed_move(words: Words, move: str) -> str:
    """A listed move (`9-3 a`, or the word for draw or pass) as its player types it."""
    if move in (words.draw, words.pass_):
        return move
    tile, end = move.split()
    if words.digits:
        tile = tile.translate(PERSIAN_DIGITS)
    return f"{tile} {''.join(words.keys[letter] for letter in end)}"


def test_a_whole_game_typed_in_the_languages_own_script(game: tuple[Words, Pane]) -> None:
    words, pane = game
    move_re = rf"{words.moves} *1\) (\d-\d [a-z]+|{words.draw}|{words.pass_})"
    pane.wait_for(words.status, "the status bar")
    pane.type(words.wrong)
    pane.wait_for(f"'{words.wrong}'.*{words.wrong_said}", "the error, in the language")
    pane.type(words.help)
    pane.wait_for(words.help_shown, "the help")
    pane.type(words.rules)
    pane.wait_for(words.rules_shown, "the rule book")
    pane.type("")
    pane.type(words.quit)
    pane.wait_for(words.asked, "the quit question")
    pane.type(words.no)
    pane.wait_for(words.stayed, "staying")
    turns = 0
    game_deadline = time.monotonic() + 10 * DEADLINE
    while not re.search(words.round_over, pane.screen(), re.M):
        assert time.monotonic() < game_deadline, f"the round did not end:\n{pane.screen()}"
        screen = pane.screen()
        listed = re.search(move_re, screen, re.M)
        if words.my_turn not in screen or listed is None:
            time.sleep(0.05)
            continue
        before = pane.wait_for(words.status, "the move count").group(1)
        if turns == 0:
            pane.type(words.hint)
            pane.wait_for(words.hint_shown, "the hint")
        pane.type(typed_move(words, listed.group(1)))
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            screen = pane.screen()
            count = re.search(words.status, screen, re.M)
            if re.search(words.round_over, screen, re.M) or (
                count is not None and count.group(1) != before
            ):
                turns += 1
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"move {listed.group(1)!r} was not taken:\n{pane.screen()}")
    assert turns > 0
    pane.wait_for(words.game_over, "the game's end")
    pane.type("")
    pane.wait_for(words.summary, "the summary after leaving")
    rc = pane.work / "rc"
    end = time.monotonic() + DEADLINE
    while not (rc.exists() and rc.read_text().strip()) and time.monotonic() < end:
        time.sleep(0.05)
    assert rc.read_text().strip() == "0"
