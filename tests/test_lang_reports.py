"""What `cfnet verify` and `cfnet replay --plain` print, and the replay viewer and the watcher's
screen, in the reader's language: `LANGUAGE=fa cfnet verify LOG` and `cfnet --lang el replay
--plain LOG` say the same facts as English (the same numbers, tiles and players) with no English
sentence left, for a valid game, a game with a cheater removed, and games where a seat was
timed out by the others' votes (at the end, and before it: a departure); the viewer and the
watcher's screen fit 80x24 and 60x20 in every language at every position of such a game."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_verify import _withholding_certify

from cfnet.errors import describe
from cfnet.game.board import PublicRound
from cfnet.game.moves import DRAW, IllegalMoveError
from cfnet.game.rules import RuleOptions
from cfnet.lang import width
from cfnet.lang.bidi import set_bidi
from cfnet.lang.bidi_marks import CONTROLS
from cfnet.lang.catalog import set_language
from cfnet.lang.languages import LANGUAGES, SOURCE
from cfnet.record.logfile import write_log
from cfnet.review.timeline import Timeline, read_timeline
from cfnet.ui.styles import Frame
from cfnet.ui.viewer import Viewer
from cfnet.ui.watching import Watching

CFNET = Path(sys.executable).parent / "cfnet"
VECTORS = Path(__file__).parent / "vectors"
SIZES = ((80, 24), (60, 20))
DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")
FACT = re.compile(r"[0-9a-f]{32}|bot\d|\d+-\d+|\d+")
"""A table id, a player, a tile, a number: what a report says, in any language."""
LOGGED = re.compile(r"did not post its \w+ within \d+ s|played \S+ but its position \d+ holds \S+")
"""A fault's detail as the log holds it (the words of the seat that posted it): shown as is."""
NEUTRAL = {"cfnet", "verify", "replay", "bad", "entry", "timeout", "rounds", "start_trains"}
NEUTRAL |= {"double_blank_50", "off", "on", "draw", "pass"}
"""Words kept as typed in every language: commands, a fault's code, rule options, a move in
the notation every language accepts (`9-3 a`, `draw`, `pass`)."""
QUOTED = re.compile(r"'[^']*'|[0-9a-f]{32}")
"""A table's name as the log holds it, and its id."""


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A valid game, one with a cheater removed, one whose last certificate a seat withheld
    (timed out by the votes of the others: a note), and one where that happened in round 1 of
    2 (a departure: the game goes on)."""
    folder = tmp_path_factory.mktemp("reports")
    found = {
        "valid": VECTORS / "game-2p-seed1.cfnlog",
        "removed": VECTORS / "removal-3p-seed6.cfnlog",
    }
    for name, at_end in (("voted-out-at-the-end", True), ("voted-out-and-on", False)):
        found[name] = folder / f"{name}.cflog"
        write_log(
            found[name],
            _withholding_certify(rounds=1 if at_end else 2, at_end=at_end).tables[0].entries,
        )
    return found


def cfnet(*args: str, **environ: str) -> str:
    """What the real `cfnet` prints (stdout and stderr) with no locale but `environ`'s."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
    }
    env.update(PYTHONIOENCODING="utf-8", **environ)
    done = subprocess.run(
        [str(CFNET), *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout + done.stderr


def facts(text: str) -> Counter[str]:
    """The numbers, tiles, players and ids `text` states, whatever its language and digits."""
    plain = text.translate(DIGITS).translate({ord(c): None for c in CONTROLS})
    return Counter(FACT.findall(plain))


def words(text: str) -> set[str]:
    """The words of `text` (3 letters or more), but for what the log holds: a table's name and
    id, a fault's detail."""
    return set(re.findall(r"[A-Za-z][A-Za-z_0-9]{2,}", QUOTED.sub(" ", LOGGED.sub(" ", text))))


def english_left(text: str, english: str) -> set[str]:
    """The words of `english` still in `text`, but for the players' names and what is typed in
    every language."""
    players = {word for word in words(english) if word.startswith("bot")}
    return (words(text) & words(english)) - NEUTRAL - players


CASES = ["valid", "removed", "voted-out-at-the-end", "voted-out-and-on"]


@pytest.mark.parametrize("case", CASES)
def test_verify_in_persian_says_what_english_says(logs: dict[str, Path], case: str) -> None:
    english = cfnet("verify", str(logs[case]))
    persian = cfnet("verify", str(logs[case]), LANGUAGE="fa")
    assert english_left(persian, english) == set(), persian
    assert facts(persian) == facts(english), (persian, english)
    assert "بازی" in persian or "دور" in persian  # Persian words, not only the facts
    if case.startswith("voted-out"):
        assert "timed out by the votes of" in english and "با رأی" in persian


@pytest.mark.parametrize("case", CASES)
def test_replay_in_greek_says_what_english_says(logs: dict[str, Path], case: str) -> None:
    english = cfnet("replay", "--plain", str(logs[case]))
    greek = cfnet("--lang", "el", "replay", "--plain", str(logs[case]))
    assert english_left(greek, english) == set(), greek
    assert facts(greek) == facts(english), (greek, english)
    assert "γύρος" in greek or "γύρου" in greek


@pytest.fixture(params=[code for code in LANGUAGES], ids=list(LANGUAGES))
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    set_language(LANGUAGES[request.param])
    set_bidi("cfnet" if LANGUAGES[request.param].rtl else "terminal")
    yield request.param
    set_bidi("terminal")
    set_language(LANGUAGES[SOURCE])


def _timeline(path: Path) -> Timeline:
    with path.open("rb") as f:
        return read_timeline(f, str(path))


ENGLISH = re.compile(r"\b(the|of|round|move|yard|seat|over|hands|left|drawable|live)\b")
"""English words a screen in a language of another script must not show (the log's own words,
a fault's detail, are taken out first)."""


def screens(timeline: Timeline, keys: PipeInput) -> Iterator[tuple[str, int, int]]:
    """Every line the viewer and the watcher's screen draw of `timeline`, at every position,
    with the hands hidden and shown, at each size: (line, columns, position)."""
    output = DummyOutput()
    for viewer in (
        Viewer(timeline, "replay 'Kitchen'", input=keys, output=output),
        Watching(timeline, "watching 'Kitchen'", follow=True, input=keys, output=output),
    ):
        viewer.status = "✓"
        for cursor in range(len(timeline.positions)):
            viewer.cursor = cursor
            for hands in (False, True):
                viewer.show_hands = hands
                for columns, rows in SIZES:
                    content = Frame(viewer.frame).create_content(columns, rows)
                    for i in range(content.line_count):
                        yield "".join(t[1] for t in content.get_line(i)), columns, cursor


def test_the_viewer_and_the_watchers_screen_fit_in_every_language(
    logs: dict[str, Path], language: str
) -> None:
    script = language in ("el", "fa")  # a language whose letters are not English ones
    wide, english = [], []
    with create_pipe_input() as keys:
        for case in ("removed", "voted-out-and-on"):
            for line, columns, at in screens(_timeline(logs[case]), keys):
                if width(line) > columns:
                    wide.append(f"{case} at {at}, {columns} columns: {line!r}")
                if script and ENGLISH.search(LOGGED.sub(" ", line.replace("'Kitchen'", ""))):
                    english.append(f"{case} at {at}: {line!r}")
    assert wide == []
    assert english == []


@pytest.mark.parametrize("case", ["removed", "voted-out-at-the-end", "voted-out-and-on"])
def test_verify_json_is_the_same_in_every_language(logs: dict[str, Path], case: str) -> None:
    english = cfnet("verify", "--json", str(logs[case]))
    assert all(
        cfnet("verify", "--json", str(logs[case]), LANGUAGE=code) == english
        for code in ("el", "fa")
    )


def test_the_engines_reason_is_english_on_the_wire_and_the_readers_language_on_screen() -> None:
    public = PublicRound(2, 1, 0, RuleOptions())
    with pytest.raises(IllegalMoveError) as refused:
        public.apply_public(DRAW, 1)
    english = str(refused.value)
    assert english == "it is seat 0's turn, not seat 1's: wait"
    set_language(LANGUAGES["el"])
    try:
        assert str(refused.value) == english  # what a blame or an abort carries
        assert describe(refused.value) == "είναι η σειρά της θέσης 0, όχι της θέσης 1: περιμένετε"
    finally:
        set_language(LANGUAGES[SOURCE])


@pytest.mark.parametrize("damage", ["torn", "json", "header"])
def test_a_damaged_log_is_described_in_the_readers_language(tmp_path: Path, damage: str) -> None:
    """Why a log cannot be read (the log file's own reasons: a torn record, JSON text, a damaged
    record header) is said in Persian, its byte and entry numbers in Persian digits."""
    whole = (VECTORS / "game-2p-seed1.cfnlog").read_bytes()
    damaged = {
        "torn": whole[:100],
        "json": b'{"format": "cfnet-record"}',
        "header": whole[:8] + b"\xff" * 12,
    }[damage]
    log = tmp_path / "damaged.cflog"
    log.write_bytes(damaged)
    english = cfnet("verify", str(log)).replace(str(log), "")
    persian = cfnet("verify", str(log), LANGUAGE="fa").replace(str(log), "")
    assert "byte 8" in english or "byte 0" in english, english
    commands = {"JSON", "export", "import", "check"}  # cfnet export, cfnet import-check
    assert english_left(persian, english) - commands == set(), persian
    assert "بایت" in persian and facts(persian) == facts(english), (persian, english)
    assert not re.search(r"[0-9]", persian), persian
