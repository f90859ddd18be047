"""Persian as each kind of terminal gets it: the players table keeps every count under its
name whichever way a line is laid out, a terminal that does bidi is told each line's direction
(VTE lays lines out by it, mlterm gets embeddings in place of the isolates it draws as boxes),
and a terminal cfnet reorders for gets no control characters at all."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest
from test_screen import NAMES, Player, run_screen

from cfnet.lang import isolate, isolate_name, width
from cfnet.lang.bidi import set_bidi, set_terminal, terminal_line, vte_paragraphs, written
from cfnet.lang.bidi_marks import CONTROLS, FSI, LRE, LRI, LRM, PDF, PDI, RLE, RLM
from cfnet.lang.catalog import set_language
from cfnet.lang.languages import LANGUAGES, SOURCE
from cfnet.ui.styles import Frame

VTE = {"VTE_VERSION": "7003"}
MLTERM = {"MLTERM": "3.9.0"}


@pytest.fixture
def persian() -> Iterator[None]:
    set_language(LANGUAGES["fa"])
    yield
    set_bidi("terminal")
    set_terminal(False, {})
    set_language(LANGUAGES[SOURCE])


def _shown(text: str) -> str:
    """A line as a person sees its cells (the controls take none)."""
    return text.translate(str.maketrans("", "", CONTROLS))


def _players_rows(columns: int) -> list[str]:
    """The game screen's players table (names, tiles, points) as the terminal gets it."""
    rows: list[str] = []

    async def scenario(player: Player) -> None:
        content = Frame(lambda w, h: player.screen.frame(w, h - 1)).create_content(columns, 24)
        lines = ["".join(t[1] for t in content.get_line(i)) for i in range(content.line_count)]
        rows.extend(lines[1:4])
        await player.type("\x03", lambda: player.screen.confirming_quit)
        await player.type("\x03", lambda: not player.screen.app.is_running)

    run_screen(scenario)
    return rows


@pytest.mark.parametrize(
    ("bidi", "environ"), [("cfnet", {}), ("terminal", VTE), ("terminal", MLTERM)]
)
def test_each_count_stays_under_its_name_in_persian(
    persian: None, bidi: str, environ: dict[str, str]
) -> None:
    set_bidi("cfnet" if bidi == "cfnet" else "terminal")
    set_terminal(True, environ)
    heads, counts, points = (_shown(row) for row in _players_rows(80))
    assert all(width(row) <= 80 for row in (heads, counts, points))
    ends = [width(heads[: heads.index(name) + len(name)]) for name in NAMES]
    assert ends == sorted(ends, reverse=True)  # read from the right: You first, beside the heads
    for row in (counts, points):
        figures = list(re.finditer(r"\S+", row))[: len(NAMES)]
        number_ends = [width(row[: figure.end()]) for figure in figures]
        # each figure ends in the column its name ends in (the heads of the rows at the right)
        assert sorted(number_ends) == sorted(ends), (heads, row)


def test_a_terminal_that_does_bidi_is_told_each_lines_direction(persian: None) -> None:
    set_terminal(True, VTE)
    sentence = isolate_name("Ada") + " " + isolate("9-8") + " را روی " + isolate("a") + " بازی کرد"
    row = terminal_line([sentence])
    assert row == [" " + RLM + sentence]  # begins with a name, yet reads right to left
    table_row = terminal_line(["   ۱۱   ۱۰", isolate(" مهره‌ها")])
    assert table_row[0].startswith(" " + LRM)  # a table row is one left-to-right span
    assert written(sentence) == RLM + sentence  # plain output: a real terminal keeps a first mark


def test_mlterm_gets_embeddings_for_isolates_each_followed_by_the_lines_mark(
    persian: None,
) -> None:
    set_terminal(True, MLTERM)
    sentence = isolate_name("Ada") + " " + isolate("9-8") + " را " + isolate_name("علی")
    (row,) = terminal_line([sentence])
    assert not set(row) & {LRI, FSI, PDI}
    assert row == f" {RLM}{LRE}Ada{PDF}{RLM} {LRE}9-8{PDF}{RLM} را {RLE}علی{PDF}{RLM}"


def test_nothing_is_added_for_a_pipe_an_old_terminal_or_a_left_to_right_language(
    persian: None,
) -> None:
    sentence = isolate_name("Ada") + " بازی کرد"
    set_terminal(False, VTE)  # a pipe
    assert terminal_line([sentence]) == [sentence] and written(sentence) == sentence
    set_bidi("cfnet")  # xterm: cfnet put the line in visual order; no control is left
    set_terminal(True, {})
    assert terminal_line([sentence]) == [_shown(sentence)]
    set_bidi("terminal")
    set_terminal(True, VTE)
    set_language(LANGUAGES["el"])
    assert terminal_line(["Η σειρά σας"]) == ["Η σειρά σας"]


def test_vte_lays_out_lines_by_their_first_letter_while_cfnet_runs_in_persian() -> None:
    assert vte_paragraphs(VTE) == ("\x1b[?2501h", "\x1b[?2501l")
    assert vte_paragraphs(MLTERM) == ("", "") and vte_paragraphs({"VTE_VERSION": "5200"}) == (
        "",
        "",
    )
    outputs = {}
    for code in ("fa", "el"):
        leader, follower = pty.openpty()
        env = {**os.environ, **VTE, "LANGUAGE": code}
        process = subprocess.run(
            [sys.executable, "-m", "cfnet", "--version"],
            stdout=follower,
            stderr=subprocess.PIPE,
            env=env,
            timeout=120,
            check=True,
        )
        os.close(follower)
        assert process.returncode == 0
        outputs[code] = _read_all(leader)
    assert outputs["fa"].startswith(b"\x1b[?2501h") and outputs["fa"].endswith(b"\x1b[?2501l")
    assert b"\x1b[?2501" not in outputs["el"]


def _read_all(fd: int) -> bytes:
    """What a closed terminal's other end still holds."""
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the writer is gone and everything was read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)
