"""`cfnet rules`: the complete rule book in the language in effect, the Markdown as it is in a
pipe, reflowed to the width and paged at a real terminal (tmux); English's is docs/rules.md
itself, so the two cannot drift."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cfnet.lang import _
from cfnet.lang.bidi import set_bidi, visual
from cfnet.lang.catalog import LOCALE_DIR, set_language
from cfnet.lang.languages import LANGUAGES, SOURCE
from cfnet.lang.rulebook import rule_book
from cfnet.lang.width import width
from cfnet.ui.rule_book import markdown_lines

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
CFNET = Path(sys.executable).parent / "cfnet"
NOTE = "The rule book is not yet translated into {language}; here it is in English."


def run_rules(*args: str, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LANG")}
    env.update(PYTHONIOENCODING="utf-8", **environ)
    return subprocess.run(
        [str(CFNET), "rules", *args], env=env, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip


def test_the_english_rule_book_is_docs_rules_md_itself() -> None:
    packaged = LOCALE_DIR / SOURCE / "rules.md"
    assert packaged.resolve() == RULES.resolve()  # a link: one text, nothing to keep in step
    assert rule_book(LANGUAGES[SOURCE]) == (RULES.read_text(encoding="utf-8"), True)


def test_in_a_pipe_the_rule_book_is_the_markdown_as_it_is() -> None:
    done = run_rules()
    assert (done.returncode, done.stdout, done.stderr) == (0, RULES.read_text(), "")


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != SOURCE])
def test_each_language_shows_its_own_rule_book_or_says_it_has_none_yet(code: str) -> None:
    done = run_rules("--lang", code)
    assert done.returncode == 0
    own = LOCALE_DIR / code / "rules.md"
    if own.exists():
        assert (done.stdout, done.stderr) == (own.read_text(encoding="utf-8"), "")
    else:
        set_language(LANGUAGES[code])
        try:
            note = _(NOTE).format(language=LANGUAGES[code].name)
        finally:
            set_language(LANGUAGES[SOURCE])
        assert note != NOTE.format(language=LANGUAGES[code].name)  # the note is translated
        assert (done.stdout, done.stderr) == (RULES.read_text(), note + "\n")


@pytest.mark.parametrize("code", list(LANGUAGES))
@pytest.mark.parametrize("columns", [60, 80])
def test_the_reflowed_book_fits_the_terminal_and_loses_no_word(code: str, columns: int) -> None:
    set_language(LANGUAGES[code])
    try:
        text, translated = rule_book(LANGUAGES[code])
        rtl = LANGUAGES[code].rtl and translated
        lines = markdown_lines(text, columns, rtl)
        set_bidi("cfnet")
        shown = markdown_lines(text, columns, rtl)
    finally:
        set_bidi("terminal")
        set_language(LANGUAGES[SOURCE])
    tables = [line for line in text.splitlines() if line.lstrip().startswith("|")]
    too_wide = [line for line in lines + shown if width(line) > columns and line not in tables]
    assert too_wide == []
    assert " ".join(lines).split() == text.split()
    assert (shown != lines) == rtl  # an English book shown in Persian stays left to right
    if rtl:
        assert shown != lines and all(width(line) == columns for line in shown if line.strip())


def _tmux(socket: str, *args: str) -> str:
    return subprocess.run(
        ["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=30, check=True
    ).stdout


def _wait_for(screen: Callable[[], str], found: Callable[[str], bool]) -> str:
    deadline = time.monotonic() + 60
    while True:
        text = screen()
        if found(text) or time.monotonic() > deadline:
            return text
        time.sleep(0.2)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("code", ["en", "fa"])
def test_at_a_terminal_the_book_is_paged(tmp_path: Path, code: str) -> None:
    socket = f"cfnet-rules-{os.getpid()}-{code}"
    command = f"{CFNET} rules --lang {code}; echo EXIT=$?; sleep 60"
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "PAGER", "MANPAGER")}
    env.update(LANG="C.UTF-8", TERM="xterm", CFNET_HOME=str(tmp_path))
    subprocess.run(
        ["tmux", "-u", "-L", socket, "new-session", "-d", "-x", "80", "-y", "24", command],
        env=env, check=True, timeout=30,
    )  # fmt: skip
    try:
        screen = lambda: _tmux(socket, "capture-pane", "-p")  # noqa: E731
        first = _wait_for(screen, lambda s: "Chicken Foot" in s or "EXIT=" in s)
        book, translated = rule_book(LANGUAGES[code])
        heading = book.splitlines()[0]
        if code == "fa" and translated:
            set_bidi("cfnet")  # tmux does no bidi: auto lets cfnet reorder
            try:
                heading = visual(heading, rtl=True)
            finally:
                set_bidi("terminal")
        assert heading.strip() in first, first
        assert "EXIT=" not in first  # the pager waits for the reader
        last_line = RULES.read_text().rstrip().splitlines()[-1].split()[-1]
        assert last_line not in first
        assert all(width(line) <= 80 for line in first.splitlines())
        if code == "fa" and not (LOCALE_DIR / "fa" / "rules.md").exists():
            set_language(LANGUAGES["fa"])
            set_bidi("cfnet")  # tmux does no bidi: auto lets cfnet reorder
            try:
                note = visual(_(NOTE).format(language=LANGUAGES["fa"].name))
            finally:
                set_bidi("terminal")
                set_language(LANGUAGES[SOURCE])
            assert any(line.strip() and line.strip() in note for line in first.splitlines())
            assert first.splitlines()[0].startswith(" ")  # right-aligned
        _tmux(socket, "send-keys", "q")
        after = _wait_for(screen, lambda s: "EXIT=" in s)
        assert "EXIT=0" in after
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], check=False, timeout=30)
