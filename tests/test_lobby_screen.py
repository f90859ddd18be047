"""The lobby screen as a person meets it, driven through prompt_toolkit's pipe input: `help`,
how long each free seat has waited (the host's screen), giving up the table with one key, and
whole names laid out for the terminal's width."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from cfnet.game.text import columns
from cfnet.net.lobby import Seating
from cfnet.record.identity import Identity
from cfnet.ui.lobby_screen import LobbyScreen
from cfnet.ui.page import LeftTable, Terminal

LONG = "Ada Lovelace of the Analytical Engine co"  # 40 characters, the most a name may have
DEADLINE = 30.0


async def until(condition: Callable[[], bool], what: str, screen: LobbyScreen) -> None:
    async with asyncio.timeout(DEADLINE):
        while not condition():
            await asyncio.sleep(0.01)
    assert condition(), f"{what}; the lobby:\n{screen.text()}"


def in_lobby(hosting: bool, scenario: Callable[[LobbyScreen, PipeInput], Awaitable[None]]) -> None:
    """Show the lobby of a 4-seat table with me and a guest of 40 characters seated; run
    `scenario`; the person must have left by its end (LeftTable)."""
    me, guest = Identity.generate().public, Identity.generate().public

    async def main() -> None:
        with create_pipe_input() as keys:
            screen = LobbyScreen(Terminal(keys, DummyOutput()), "table 'Kitchen'", 60)
            never: asyncio.Future[Seating] = asyncio.get_running_loop().create_future()
            add_bot = (lambda: Identity.generate().public) if hosting else None
            shown = asyncio.create_task(screen.seat(never, add_bot, me))
            screen.roster([("Me", me), (LONG, guest)], 4)
            await until(lambda: screen.app.is_running, "the lobby shown", screen)
            await scenario(screen, keys)
            with pytest.raises(LeftTable):
                await asyncio.wait_for(shown, DEADLINE)

    asyncio.run(main())


def rows(screen: LobbyScreen, width: int, height: int) -> list[str]:
    return ["".join(t[1] for t in row) for row in screen.frame(width, height)]


def test_the_host_sees_how_long_each_free_seat_has_waited_and_gives_up_in_one_key() -> None:
    async def scenario(screen: LobbyScreen, keys: PipeInput) -> None:
        text = screen.text()
        assert re.search(r"^  2  \(free for 0:0\d\)$", text, re.M), text
        assert re.search(r"^  3  \(free for 0:0\d\)$", text, re.M), text
        assert "Ctrl-C: give up the table" in screen.toolbar()
        keys.send_text("help\r")
        await until(lambda: screen.lines_typed == 1, "help taken", screen)
        assert screen.feedback[1].startswith("bot seats a computer player in a free seat; start ")
        assert "leave, or Ctrl-C in one key, gives up the table" in screen.feedback[1]
        keys.send_text("dance\r")
        await until(lambda: screen.lines_typed == 2, "dance taken", screen)
        assert (
            "'dance' is not a lobby command: type bot, start or leave (help says what each does)"
            in (screen.feedback[1])
        )
        keys.send_text("\x03")  # Ctrl-C: the table is given up at once, nothing asked

    in_lobby(True, scenario)


def test_a_free_seat_counts_its_wait_from_when_it_was_freed() -> None:
    async def scenario(screen: LobbyScreen, keys: PipeInput) -> None:
        screen._free_since = {seat: since - 125 for seat, since in screen._free_since.items()}
        assert re.search(r"^  2  \(free for 2:0\d\)$", screen.text(), re.M)
        names = screen.names
        screen.roster([*names, ("Cy", Identity.generate().public)], 4)  # seat 2 taken
        screen.roster(names, 4)  # and freed again: it waits from now
        assert re.search(r"^  2  \(free for 0:0\d\)$", screen.text(), re.M)
        assert re.search(r"^  3  \(free for 2:0\d\)$", screen.text(), re.M)  # never taken
        keys.send_text("leave\r")

    in_lobby(True, scenario)


def test_a_guest_has_help_and_no_host_commands() -> None:
    async def scenario(screen: LobbyScreen, keys: PipeInput) -> None:
        assert re.search(r"^  2  \(free\)$", screen.text(), re.M)
        keys.send_text("?\r")
        await until(lambda: screen.lines_typed == 1, "? taken", screen)
        assert screen.feedback[1] == (
            "leave, or Ctrl-C in one key, gives up your seat; rules shows the rule book; help shows"
            " this."
        )
        keys.send_text("bot\r")
        await until(lambda: screen.lines_typed == 2, "bot taken", screen)
        assert screen.feedback[1] == (
            "✗ 'bot' is not a lobby command: type leave (help says what it does)"
        )
        keys.send_text("leave\r")

    in_lobby(False, scenario)


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_lobby_lays_out_for_the_width_with_whole_names(width: int) -> None:
    async def scenario(screen: LobbyScreen, keys: PipeInput) -> None:
        drawn = rows(screen, width, 18)
        assert len(drawn) == 18
        assert all(columns(row) <= width for row in drawn), drawn
        (guest,) = [row for row in drawn if row.startswith("  1  ")]
        if width >= 80:
            assert f"  1  {LONG} " in guest  # whole: it fits
        else:
            assert LONG not in guest and "…" in guest  # cut, for room
        assert re.fullmatch(r"  1  .+ [a-z2-7]{4}(-[a-z2-7]{4}){3}", guest)  # the key is kept
        small = " ".join(" ".join(rows(screen, 50, 18)).split())
        assert "needs a terminal of at least 60 columns" in small
        keys.send_text("leave\r")

    in_lobby(True, scenario)
