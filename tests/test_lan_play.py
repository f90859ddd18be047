"""`cfnet play` as a person uses it, keys typed through prompt_toolkit's pipe input: the table
browser (a real table advertised by mDNS on 127.0.0.1, joining it by address or with its code),
the lobby (others sitting down and leaving), and a whole round at a LAN table against computer
players that are `cfnet host`/`cfnet bot` processes on real loopback links."""

from __future__ import annotations

import asyncio
import io
import os
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from lan_helpers import LOOPBACK, Peer, cfnet_verify, unique, wait_all
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import ColorDepth, DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output
from test_screen import COLOUR_CODE

from cfnet.game.rules import RuleOptions
from cfnet.net import NET_VERSION
from cfnet.net.discovery import Discovery, TableInfo
from cfnet.net.joining import join_table
from cfnet.net.lobby import Seating
from cfnet.record.identity import Identity
from cfnet.seat.session import GameSession
from cfnet.ui.browser import BrowserScreen
from cfnet.ui.game_screen import GameScreen
from cfnet.ui.lan_client import LanClient, Settings
from cfnet.ui.lobby_screen import LobbyScreen
from cfnet.ui.page import LeftTable, Terminal

STEP_TIMEOUT = 30.0


class Person:
    """Types into the client's pipe input and waits (polling the screens) for what follows."""

    def __init__(self, client: LanClient, keys: PipeInput, task: asyncio.Task[int]) -> None:
        self.client = client
        self.keys = keys
        self.task = task

    async def until(self, condition: Callable[[], bool], what: str) -> None:
        end = time.monotonic() + STEP_TIMEOUT
        while not condition():
            if self.task.done() or time.monotonic() > end:
                screen = self.client.screen
                shown = screen.text() if screen is not None else "(no screen)"
                raise AssertionError(f"{what}: not seen; the screen:\n{shown}")
            await asyncio.sleep(0.01)

    async def sees(self, pattern: str, what: str) -> None:
        await self.until(lambda: re.search(pattern, self.text(), re.M) is not None, what)

    def text(self) -> str:
        screen = self.client.screen
        return "" if screen is None else screen.text()

    async def type(self, line: str) -> None:
        """Type one line and Enter; wait until the screen showing has taken it."""
        screen = self.client.screen
        assert screen is not None
        typed = screen.lines_typed
        self.keys.send_text(line + "\r")
        await self.until(lambda: screen.lines_typed > typed, f"the screen taking {line!r}")

    async def select(self, name: str) -> int:
        """Move the browser's selection to table `name` with the arrow keys (other tables may
        come and go meanwhile); its number."""
        browser = self.client.screen
        assert isinstance(browser, BrowserScreen)
        end = time.monotonic() + STEP_TIMEOUT
        while time.monotonic() < end:
            await self.until(lambda: any(t.name == name for t in browser.tables()), name)
            listed = browser.tables()
            chosen = [t.name for t in listed].index(name)
            instances = [t.instance for t in listed]
            here = instances.index(browser.selected) if browser.selected in instances else 0
            if here == chosen:
                return chosen + 1
            was = browser.selected
            self.keys.send_text("\x1b[B" if here < chosen else "\x1b[A")  # Down / Up
            await self.until(lambda: browser.selected != was, "the selection moving")  # noqa: B023
        raise AssertionError(f"could not select {name}")

    def game(self) -> GameScreen:
        screen = self.client.screen
        assert isinstance(screen, GameScreen), screen
        return screen


def run_client(home: Path, scenario: Callable[[Person], Awaitable[None]]) -> int:
    """`cfnet play --interface 127.0.0.1` on a pipe while `scenario` types; its exit code."""

    async def main() -> int:
        with create_pipe_input() as keys:
            terminal = Terminal(keys, DummyOutput())
            client = LanClient(Settings(LOOPBACK, home, "Me"), terminal)
            task = asyncio.get_running_loop().create_task(client.run())
            await scenario(Person(client, keys, task))
            async with asyncio.timeout(STEP_TIMEOUT):
                return await task

    return asyncio.run(main())


async def play_the_round(person: Person) -> None:
    """On each of my turns, wrong inputs first (the first time), then the first listed move;
    until the game is over."""
    tried = False
    while True:
        await person.until(
            lambda: (
                isinstance(person.client.screen, GameScreen)
                and (person.game()._ready() or person.game().game_end is not None)
            ),
            "my turn or the end",
        )
        screen = person.game()
        if screen.game_end is not None:
            return
        session = screen.session
        view = session.view
        assert view is not None
        before = (view.public.copy(), sorted(view.hand))
        if not tried:
            tried = True
            for wrong, answer in (
                ("banana", "'banana' is not a move or a command"),
                ("42", "there is no move 42"),
                ("9-9 a", "9-9 is already on the board"),
                ("pass", "you cannot pass"),
            ):
                await person.type(wrong)
                assert answer in screen.feedback[1], screen.feedback
            view = session.view
            assert view is not None
            assert (view.public, sorted(view.hand)) == before  # nothing changed
        moves = len(view.public.moves)
        await person.type("1")

        def moved(m: int = moves, session: GameSession = session) -> bool:
            view = session.view
            return view is None or len(view.public.moves) > m or view.public.is_over

        await person.until(moved, "my move taken")


async def the_end(person: Person) -> str:
    screen = person.game()
    await person.until(lambda: "log is saved in" in screen.text(), "the game's end")
    text = screen.text()
    assert "Round 1 over: " in text
    assert re.search(r"^Me +\d+ points?", text, re.M), text  # every hand revealed
    assert "audited: every shuffle, key and move checked" in text
    assert re.search(r"Game over: .+ with \d+ points?\b", text), text
    await person.type("")  # leave
    return text


def test_a_listed_table_is_joined_by_address_and_played_to_the_end(tmp_path: Path) -> None:
    name = unique("browse")
    host = Peer(
        tmp_path / "host",
        ["host", "--name", name, "--seats", "2", "--strategy", "greedy", "--rule", "rounds=1",
         "--interface", LOOPBACK, "--timeout", "20"],
    )  # fmt: skip

    async def scenario(person: Person) -> None:
        await person.until(lambda: isinstance(person.client.screen, BrowserScreen), "the browser")
        host.start()
        await person.sees(rf"^.  +\d+  {name[:22]} +greedy-\S+ +1/2 +1 round, 2 trains", "it")
        browser = person.client.screen
        assert isinstance(browser, BrowserScreen)
        (table,) = [t for t in browser.tables() if t.name == name]
        await person.select(name)
        assert f"host key {table.fingerprint} at 127.0.0.1:{table.port}" in person.text()
        await person.type("c nowhere")
        assert "'nowhere': give HOST:PORT" in browser.feedback[1]
        await person.type(f"c 127.0.0.1:{table.port}")
        await person.sees(r"^Join code \[none\]: $", "the question for a join code")
        await person.type("")  # none
        await play_the_round(person)
        await the_end(person)

    try:
        assert run_client(tmp_path / "me", scenario) == 0
        assert wait_all([host]) == [0]
    finally:
        host.kill()
    (mine,) = (tmp_path / "me").glob("tables/*/table.cflog")
    assert mine.read_bytes() == host.log_path().read_bytes()
    assert cfnet_verify(mine).returncode == 0


def test_hosting_from_the_browser_the_lobby_and_a_round(tmp_path: Path) -> None:
    async def scenario(person: Person) -> None:
        await person.until(lambda: isinstance(person.client.screen, BrowserScreen), "the browser")
        await person.type("h")
        for answer, question in (
            ("", r"^Table name \[Me's table\]: $"),
            ("9", r"^Seats, 2 to 8 \[4\]: $"),
            ("4", r"^✗ '9': seats is a number from 2 to 8"),  # and asked again
            ("rounds=11", r"^Rules \[defaults\]: $"),
            ("rounds=1", r"^✗ rounds=11: choose 1..10"),
            ("", r"^Join code \[none\]: $"),
        ):
            await person.sees(question, f"the question {question}")
            if question.startswith(r"^Rules"):  # what start_trains' N is, with the seats given
                note = "start_trains=N..8, the trains the centre needs before other plays, where"
                words = " ".join(person.text().split())
                assert f"{note} N is the number of players (4 here)" in words, words
            await person.type(answer)
        await person.sees(r"^Computer players, 0 to 3 \[0\]: $", "the last question")
        await person.type("1")
        await person.until(lambda: isinstance(person.client.screen, LobbyScreen), "the lobby")
        lobby = person.client.screen
        assert isinstance(lobby, LobbyScreen)
        me = Identity.load_or_create(tmp_path / "me" / "identity.key")
        await person.sees(rf"^  0  Me +{me.fingerprint}  \(host, you\)$", "my seat")
        await person.sees(r"^  1  bot1 +[a-z2-7-]{19}$", "the computer player")
        await person.sees(r"^  2  \(free for \d+:\d\d\)$", "a free seat, and how long it waited")
        await person.sees(r"^Waiting for 2 more players\.$", "how many are missing")
        await person.sees(r"^Each seat has 120 s to answer \(the table's timeout\)\.$", "it")
        port = int(re.findall(r"open on 127\.0\.0\.1:(\d+)", person.text())[0])

        # someone sits down, and leaves again
        guest = Identity.generate()

        async def prepare(genesis: bytes, seat: int, known: dict[int, tuple[str, int]]) -> int:
            raise AssertionError("the guest leaves before the start")

        sitting = asyncio.create_task(
            join_table(guest, "Guest", LOOPBACK, port, prepare, say=lambda text: None)
        )
        await person.sees(rf"^  2  Guest +{guest.fingerprint}$", "the guest seated")
        await person.sees(r"^Waiting for 1 more player\.$", "one more missing")
        sitting.cancel()
        await asyncio.gather(sitting, return_exceptions=True)
        await person.sees(r"^  2  \(free for \d+:\d\d\)$", "the guest's seat free again")
        await person.sees(r"Guest left the table", "the guest leaving, in the messages")

        await person.type("dance")
        assert "'dance' is not a lobby command: type bot, start or leave" in person.text()
        await person.type("")  # an empty Enter does nothing: no error
        assert "✗" not in person.text() and isinstance(person.client.screen, LobbyScreen)
        await person.type("start")  # fill the free seats with computer players
        await play_the_round(person)
        text = await the_end(person)
        assert re.search(r"^bot2 +\d+ points?", text, re.M)
        assert re.search(r"^bot3 +\d+ points?", text, re.M)

    assert run_client(tmp_path / "me", scenario) == 0
    (log,) = (tmp_path / "me").glob("tables/*/table.cflog")
    assert cfnet_verify(log).returncode == 0


def test_the_lobby_knows_its_computer_players_by_their_keys() -> None:
    """A person who calls himself bot1 is not taken for the computer player on its way: the
    lobby screen knows the computer players the host started by their keys, not their names."""
    me, bot, person = Identity.generate(), Identity.generate(), Identity.generate()

    async def scenario() -> str:
        with create_pipe_input() as keys:
            screen = LobbyScreen(Terminal(keys, DummyOutput()), "table 'Kitchen'")
            never: asyncio.Future[Seating] = asyncio.get_running_loop().create_future()
            shown = asyncio.create_task(screen.seat(never, None, me.public, [bot.public]))
            screen.roster([("Me", me.public), ("bot1", person.public)], 4)
            async with asyncio.timeout(10):
                while not screen.app.is_running:
                    await asyncio.sleep(0.01)
            text = screen.text()
            keys.send_text("leave\r")
            with pytest.raises(LeftTable):
                await shown
            return text

    text = asyncio.run(scenario())
    assert f"  1  bot1{' ' * 21}{person.fingerprint}" in text
    assert "  2  (free: a computer player is coming)" in text
    assert "  3  (free)" in text


def test_a_table_with_a_code_and_leaving_the_lobby(tmp_path: Path) -> None:
    name = unique("code")
    host = Peer(
        tmp_path / "host",
        ["host", "--name", name, "--seats", "3", "--strategy", "greedy", "--code", "sesame",
         "--interface", LOOPBACK],
    )  # fmt: skip
    host.start()

    async def scenario(person: Person) -> None:
        await person.sees(rf"^.  +\d+  {name[:22]} +greedy-\S+ +1/3 .* yes$", "the coded table")
        number = await person.select(name)
        await person.type("")  # join the selected table
        await person.sees(r"^Join code for '.*': $", "the question for the code")
        await person.type("")
        assert "this table needs its join code" in person.text()
        asked = person.client.screen
        await person.type("guess")
        await person.until(
            lambda: (
                isinstance(person.client.screen, BrowserScreen)
                and person.client.screen is not asked
            ),
            "back in the browser",
        )
        assert re.search(
            r"^✗ the table at 127\.0\.0\.1:\d+ refused us: handshake failed: wrong join code$",
            person.text(),
            re.MULTILINE,
        )
        number = await person.select(name)
        await person.type(str(number))
        await person.type("sesame")
        await person.sees(r"^  1  Me +\S+  \(you\)$", "my seat in the lobby")
        await person.sees(r"^Waiting for 1 more player\.$", "one seat still free")
        await person.type("bot")
        assert "not a lobby command: type leave" in person.text()  # a guest seats no one
        await person.type("leave")
        await person.sees(r"^You left the table\.$", "back in the browser")
        await person.until(lambda: "Me left the table" in host.output(), "the host freeing my seat")
        await person.type("q")

    try:
        assert run_client(tmp_path / "me", scenario) == 0
    finally:
        host.kill()


def render_browser(color_depth: ColorDepth | None) -> str:
    """What the browser writes to an 80x24 VT100 terminal until `q` leaves it."""

    async def main() -> str:
        stream = io.StringIO()
        output = Vt100_Output(stream, lambda: Size(rows=24, columns=80), term="xterm-256color")
        with create_pipe_input() as keys:
            async with Discovery(LOOPBACK) as discovery:
                screen = BrowserScreen(discovery, "Me", Terminal(keys, output, color_depth))
                task = asyncio.get_running_loop().create_task(screen.run())
                while "q quit" not in stream.getvalue():
                    await asyncio.sleep(0.01)
                keys.send_text("q\r")
                async with asyncio.timeout(STEP_TIMEOUT):
                    assert await task is None
        return stream.getvalue()

    return asyncio.run(main())


def test_the_browser_in_colour_and_plain(monkeypatch: pytest.MonkeyPatch) -> None:
    assert COLOUR_CODE.search(render_browser(ColorDepth.DEPTH_8_BIT))
    monkeypatch.setenv("NO_COLOR", "1")
    written = render_browser(None)
    assert "tables on the LAN" in written
    assert not COLOUR_CODE.search(written)


def test_a_table_of_another_version_is_listed_dimmed_and_not_joined() -> None:
    future = TableInfo(
        unique("future"), os.urandom(16), "bob", Identity.generate().fingerprint, RuleOptions(),
        4, 1, False, port=9, version=NET_VERSION + 1,
    )  # fmt: skip
    needs = f"needs cfnet protocol v{NET_VERSION + 1}"

    async def main() -> None:
        with create_pipe_input() as keys:
            async with Discovery(LOOPBACK) as hosting, Discovery(LOOPBACK) as looking:
                await hosting.advertise(future, [LOOPBACK])
                screen = BrowserScreen(looking, "Me", Terminal(keys, DummyOutput()))
                task = asyncio.get_running_loop().create_task(screen.run())
                await screen.browser.wait_for(lambda t: t.table_id == future.table_id, 30)
                (row,) = [row for row in screen.body()[0] if future.name in row[0][1]]
                assert re.search(rf" 1/4 +{needs} +$", row[0][1]), row
                assert "class:more" in row[0][0].split()  # dimmed
                number = [t.table_id for t in screen.tables()].index(future.table_id) + 1
                keys.send_text(f"{number}\r")
                async with asyncio.timeout(STEP_TIMEOUT):
                    while screen.lines_typed == 0:  # polled: prompt_toolkit sets no event
                        await asyncio.sleep(0.01)
                assert screen.feedback == (
                    "class:error",
                    f"✗ table {future.name!r} {needs} and this cfnet speaks v{NET_VERSION}: "
                    "it cannot be joined (update cfnet, or choose another table)",
                )
                assert screen.question is None and not task.done()  # still browsing
                keys.send_text("q\r")
                async with asyncio.timeout(STEP_TIMEOUT):
                    assert await task is None

    asyncio.run(main())


def test_a_listed_table_is_watched_from_the_browser(tmp_path: Path) -> None:
    name = unique("watch")
    seen: list[str] = []
    host = Peer(
        tmp_path / "host",
        ["host", "--name", name, "--seats", "2", "--strategy", "greedy", "--rule", "rounds=1",
         "--interface", LOOPBACK, "--timeout", "20", "--bots", "1"],
    )  # fmt: skip

    async def scenario(person: Person) -> None:
        await person.until(lambda: isinstance(person.client.screen, BrowserScreen), "the browser")
        host.start()
        await person.select(name)
        await person.type("w")
        await person.until(lambda: person.client.watching is not None, "watching")
        spectator = person.client.watching
        assert spectator is not None
        await person.until(lambda: spectator.finished, "the watched game's end")
        person.keys.send_text("q")
        seen.extend(spectator.final_lines())

    try:
        assert run_client(tmp_path / "me", scenario) == 0
        assert wait_all([host]) == [0]
    finally:
        host.kill()
    verify = cfnet_verify(host.log_path())
    assert verify.returncode == 0
    assert "\n".join(seen[2:]) == verify.stdout.rstrip()  # after the final board
    assert "Me (" in host.output() and "is watching" in host.output()
