"""The table browser laid out for the terminal's width, on tables found by mDNS on 127.0.0.1:
every row within the width, a 40-character table name whole where there is room for it, and
on a narrow terminal the rules of the selected table under the list instead of a column; and
a language chosen in it, spoken at once and remembered for the next start."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from lan_helpers import unique
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cfnet.disk.language import remembered_language
from cfnet.game.rules import RuleOptions
from cfnet.game.text import columns
from cfnet.lang import language
from cfnet.lang.catalog import set_language
from cfnet.lang.languages import ENVIRONMENT, LANGUAGES, SOURCE
from cfnet.net.discovery import Discovery, TableInfo
from cfnet.record.identity import Identity
from cfnet.ui.browser import BrowserScreen
from cfnet.ui.page import Terminal

LOOPBACK = "127.0.0.1"


async def _drawn(name: str) -> dict[int, list[str]]:
    """The browser's frame at 60, 80 and 120 columns with the table `name` listed, selected
    (60 rows: room for other tests' tables listed on the same loopback)."""
    table = TableInfo(name, os.urandom(16), "alice", Identity.generate().fingerprint,
                      RuleOptions(rounds=3), 4, 1, False, port=9, timeout=45)  # fmt: skip
    with create_pipe_input() as keys:
        async with Discovery(LOOPBACK) as hosting, Discovery(LOOPBACK) as looking:
            await hosting.advertise(table, [LOOPBACK])
            screen = BrowserScreen(looking, "Me", Terminal(keys, DummyOutput()))
            await screen.browser.wait_for(lambda t: t.table_id == table.table_id, 30)
            screen.selected = table.instance
            return {
                width: ["".join(t[1] for t in row) for row in screen.frame(width, 60)]
                for width in (60, 80, 120)
            }


@pytest.fixture(scope="module")
def drawn() -> tuple[str, dict[int, list[str]]]:
    name = unique("a table with a name of forty chars")[:40]
    assert len(name) == 40
    return name, asyncio.run(_drawn(name))


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_browser_lays_out_for_the_width(
    drawn: tuple[str, dict[int, list[str]]], width: int
) -> None:
    name, frames = drawn
    rows = frames[width]
    assert len(rows) == 60 and all(columns(row) <= width for row in rows), rows
    (listed,) = [row for row in rows if row.startswith("▶")]
    text = "\n".join(rows)
    if width >= 120:
        assert f"  {name} alice" in listed  # whole: there is room
    else:
        assert name not in listed and "…" in listed  # cut for room, the rest of the row kept
        assert listed.rstrip().endswith("1/4") or "3 rounds" in listed
    if width < 80:  # no rules column: the rules come under the list
        assert "   rules: 3 rounds, " in text and "RULES" not in text
    else:
        assert "RULES" in rows[1] and "3 rounds, " in listed
    assert "each seat has 45 s to answer" in text


def test_a_language_chosen_in_the_browser_is_spoken_and_remembered(tmp_path: Path) -> None:
    async def main() -> None:
        with create_pipe_input() as keys:
            async with Discovery(LOOPBACK) as looking:
                screen = BrowserScreen(looking, "Me", Terminal(keys, DummyOutput()), home=tmp_path)
                shown = asyncio.create_task(screen.run())
                keys.send_text("l xx\r")
                await _until(lambda: "unknown language 'xx'" in screen.feedback[1])
                assert "el (Ελληνικά)" in screen.feedback[1]  # the languages are listed
                keys.send_text("l\r")
                await _until(lambda: screen.question is not None)
                assert screen.question is not None and screen.question.default == "en"
                keys.send_text("el\r")
                await _until(lambda: language().code == "el")
                keys.send_text("q\r")
                await asyncio.wait_for(shown, 30)

    try:
        asyncio.run(main())
    finally:
        set_language(LANGUAGES[SOURCE])
    assert remembered_language(tmp_path) == "el"
    environ = {k: v for k, v in os.environ.items() if k not in ENVIRONMENT}
    started = subprocess.run(
        [sys.executable, "-m", "cfnet", "games", "--home", str(tmp_path), "--help"],
        capture_output=True, text=True, env=environ, check=True,
    )  # fmt: skip
    assert started.stdout.startswith("χρήση: cfnet games")  # the next start speaks Greek


async def _until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(30):
        while not condition():
            await asyncio.sleep(0.01)
