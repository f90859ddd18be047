"""The game screen driven through prompt_toolkit's pipe input, as keys typed by a person."""

from __future__ import annotations

import asyncio
import io
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import ColorDepth, DummyOutput, Output
from prompt_toolkit.output.vt100 import Vt100_Output

from cfnet.game.board import EndReason
from cfnet.game.moves import Play
from cfnet.game.round import PlayerView
from cfnet.game.rules import RuleOptions
from cfnet.game.text import columns
from cfnet.game.tiles import Tile
from cfnet.protocol.events import GameOver, RoundScored
from cfnet.seat.offline import OfflineSession
from cfnet.seat.session import GameAborted, GameLeft, Notice, Wait
from cfnet.ui.game_panes import newest_row
from cfnet.ui.game_screen import GameScreen

NAMES = ("Me", "Ada", "Bob")
STEP_TIMEOUT = 30.0  # generous: a loaded machine must not fail
COLOUR_CODE = re.compile(r"\x1b\[[0-9;]*(?:3[0-7]|4[0-7]|9[0-7]|38;5;\d+)[;m]")


class Player:
    """A person at the keyboard: types into the pipe and waits for the screen to catch up."""

    def __init__(self, screen: GameScreen, keys: PipeInput, session: OfflineSession) -> None:
        self.screen = screen
        self.keys = keys
        self.session = session

    async def until(self, condition: Callable[[], bool], what: str) -> None:
        end = time.monotonic() + STEP_TIMEOUT
        while time.monotonic() < end:
            if condition():
                return
            await asyncio.sleep(0.005)
        typed = self.screen.input.text
        screen = self.screen.text()
        raise AssertionError(f"timed out waiting for {what}; input {typed!r}; screen:\n{screen}")

    async def type(self, text: str, done: Callable[[], bool] | None = None) -> None:
        """Type `text`; wait until the screen has taken its lines and the rest (or `done`)."""
        lines = self.screen.lines_typed + text.count("\r")
        final = text.rsplit("\r", 1)[-1]

        def taken() -> bool:
            return self.screen.lines_typed >= lines and self.screen.input.text == final

        self.keys.send_text(text)
        await self.until(done or taken, f"typing {text!r}")

    def view(self) -> PlayerView:
        view = self.session.view
        assert view is not None
        return view

    def my_turn(self) -> bool:
        view = self.session.view
        return view is not None and self.session.waiting_for == (0,) and not view.public.is_over

    @property
    def feedback(self) -> str:
        return self.screen.feedback[1]


def tiles(text: str) -> list[Tile]:
    return [Tile.parse(word) for word in text.split()]


def run_screen(
    scenario: Callable[[Player], Awaitable[None]],
    rounds: int = 1,
    seed: int = 4,
    delay: float = 0.0,
    output: Output | None = None,
    color_depth: ColorDepth | None = None,
) -> int:
    """Run the screen on an offline session while `scenario` types; the screen's exit code."""

    async def main() -> int:
        with create_pipe_input() as keys:
            session = OfflineSession(NAMES, 0, RuleOptions(rounds=rounds), seed, delay=delay)
            screen = GameScreen(session, keys, output or DummyOutput(), color_depth)
            app = asyncio.get_running_loop().create_task(screen.run())
            player = Player(screen, keys, session)
            await player.until(lambda: session.view is not None, "the deal")
            await scenario(player)
            return await asyncio.wait_for(app, STEP_TIMEOUT)

    return asyncio.run(main())


async def play_first_moves_to_the_end(player: Player) -> None:
    """Type the first listed move at every turn until the round is over."""
    while player.session.game.round_scores == []:
        await player.until(
            lambda: player.my_turn() or player.view().public.is_over, "my turn or the end"
        )
        if player.my_turn():
            moves = len(player.view().public.moves)
            await player.type("1\r")
            await player.until(
                lambda m=moves: len(player.view().public.moves) > m,  # type: ignore[misc]
                "my move",
            )


def test_a_whole_round_typed_by_number_then_the_result() -> None:
    async def scenario(player: Player) -> None:
        screen = player.screen
        text = screen.text()
        assert "centre [9|9]" in text
        assert "Hand" in text
        await play_first_moves_to_the_end(player)
        await player.until(lambda: screen.game_end is not None, "the end of the game")
        text = screen.text()
        assert "Round 1 over" in text
        for seat, name in enumerate(NAMES):  # every hand revealed with its points
            score = player.session.game.round_scores[0][seat]
            assert re.search(rf"^{name} +{score} points?", text, re.M), text
        assert "Game over:" in text
        assert "Press Enter to leave" in text
        assert any(t.startswith("You played") for _, t in screen.log)
        await player.type("\r")

    assert run_screen(scenario) == 0


def test_wrong_inputs_are_explained_and_change_nothing() -> None:
    async def scenario(player: Player) -> None:
        await player.until(player.my_turn, "my turn")
        before = (player.view().public.copy(), player.view().hand, list(player.screen.log))
        await player.type("banana\r")
        assert "'banana' is not a move or a command" in player.feedback
        await player.type("42\r")
        assert player.feedback.startswith("✗ there is no move 42 (a tile is typed with a dash")
        await player.type("9-9 a\r")
        assert "9-9 is already on the board" in player.feedback
        missing = next(
            t
            for t in ("0-0", "1-0", "2-0", "3-0")
            if t not in [x.label for x in player.view().hand]
        )
        await player.type(f"{missing} a\r")
        assert f"you do not hold {missing}" in player.feedback
        await player.type("pass\r")
        assert "you cannot pass" in player.feedback
        after = (player.view().public.copy(), player.view().hand, list(player.screen.log))
        assert after == before
        await player.type("quit\r")
        await player.type("y\r")

    assert run_screen(scenario, seed=4) == 0


def test_quit_asks_first() -> None:
    async def scenario(player: Player) -> None:
        await player.type("quit\r")
        assert player.screen.confirming_quit
        assert "Leave the game?" in player.feedback
        await player.type("no\r")
        assert player.feedback == "Staying in the game."
        assert player.screen.app.is_running
        await player.type("\x03", lambda: player.screen.confirming_quit)  # Ctrl-C asks too
        await player.type("\x03", lambda: not player.screen.app.is_running)  # again: leave

    assert run_screen(scenario) == 0


def test_commands_hint_scores_help_log() -> None:
    async def scenario(player: Player) -> None:
        screen = player.screen
        await player.until(player.my_turn, "my turn")
        await player.type("hint\r")
        assert re.match(
            r"Hint: the computer would choose \d+\) (\d-\d [a-z]+|draw|pass): \w.+$",
            player.feedback,
        )
        await player.type("scores\r")
        assert "Scores" in screen.text()
        assert re.search(r"total +0 +0 +0", screen.text())
        await player.type("help\r")
        assert "How to play" in screen.text()
        await player.type("log\r")
        assert "Event log" in screen.text()
        assert "Round 1 begins" in screen.text()
        await player.type("\r")
        assert screen.panel is None
        assert "centre [9|9]" in screen.text()
        await player.type("next\r")
        assert "not over yet" in player.feedback
        await player.type("quit\ry\r")

    assert run_screen(scenario) == 0


def test_events_appear_while_the_player_types() -> None:
    async def scenario(player: Player) -> None:
        screen = player.screen
        await player.until(player.my_turn, "my turn")
        logged = len(screen.log)
        await player.type("1\r9-")  # a move, then half of the next while the others play
        await player.until(lambda: "Waiting for Ada" in screen.text(), "the status: Ada to move")
        await player.until(lambda: len(screen.log) >= logged + 3, "the others' moves")
        assert screen.input.text == "9-"
        assert any(text.startswith(("Ada ", "Bob ")) for _, text in screen.log[logged:])
        await player.type("\x15quit\ry\r")  # Ctrl-U clears the line

    assert run_screen(scenario, delay=0.05) == 0


def test_two_rounds_enter_deals_the_next() -> None:
    async def scenario(player: Player) -> None:
        screen = player.screen
        await play_first_moves_to_the_end(player)
        await player.until(lambda: screen.round_end is not None, "the round's end")
        assert "Press Enter for round 2" in screen.text()
        assert player.session.waiting_for == (0,)
        await player.type("\r")
        await player.until(lambda: player.view().public.round_number == 2, "round 2")
        assert screen.round_end is None
        assert "centre [8|8]" in screen.text()
        await player.type("quit\ry\r")

    assert run_screen(scenario, rounds=2) == 0


def render_once(color_depth: ColorDepth | None) -> str:
    """What the screen writes to a real 80x24 VT100 terminal, until it is left."""
    stream = io.StringIO()
    output = Vt100_Output(stream, lambda: Size(rows=24, columns=80), term="xterm-256color")

    async def scenario(player: Player) -> None:
        await player.until(lambda: "Moves" in stream.getvalue(), "the first frame")
        await player.type("quit\ry\r")

    assert run_screen(scenario, output=output, color_depth=color_depth) == 0
    return stream.getvalue()


def test_colour_when_the_terminal_has_it() -> None:
    written = render_once(ColorDepth.DEPTH_8_BIT)
    assert COLOUR_CODE.search(written)
    for part in ("Round 1/1", "tiles", "points", "Hand", "Moves", "events"):
        assert part in written


def test_plain_text_without_colour(monkeypatch: Any) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    written = render_once(None)
    assert not COLOUR_CODE.search(written)
    assert "Hand" in written
    assert "Moves" in written


@pytest.mark.parametrize("depth", [ColorDepth.DEPTH_1_BIT])
def test_monochrome_depth_is_plain(depth: ColorDepth) -> None:
    assert not COLOUR_CODE.search(render_once(depth))


def test_notices_and_an_abort_reach_the_screen() -> None:
    async def scenario(player: Player) -> None:
        screen = player.screen
        screen.on_event(Notice("waiting for Bob (his link dropped)"))
        assert screen.log[-1] == ("class:info", "waiting for Bob (his link dropped)")
        screen.on_event(GameAborted("Bob signed two different moves for one turn"))
        assert "Game aborted: Bob signed two different moves" in screen.text()
        await player.type("quit\r")  # a finished game is left without a question

    assert run_screen(scenario) == 0


def test_a_seat_timed_out_is_told_the_game_goes_on_and_how_to_come_back() -> None:
    comeback = "`cfnet resume --table friday` deals you in again at the next round that starts"

    async def scenario(player: Player) -> None:
        screen = player.screen
        await player.until(lambda: player.session.view is not None, "the deal")
        reason = "you left the game: seat 1 (Ada) claims seat 0 (Me) did not post its play"
        screen.on_event(GameLeft(reason, "were timed out of", comeback))
        text = " ".join(screen.text().split())
        assert f"You were timed out of the game. The game goes on without you: {comeback}." in text
        assert "Out of the game" in text and "Game over" not in text and "aborted" not in text
        assert "Hand (left the game: not dealt in)" in text and "Moves " not in text
        assert screen.log[-2][1].startswith("You left the game: seat 1 (Ada) claims seat 0")
        await player.type("1\r")
        assert player.feedback == "✗ the game is over for you: press Enter to leave"
        await player.type("\r")  # Enter leaves

    assert run_screen(scenario) == 0


def test_leave_is_quit_in_the_game_too() -> None:
    async def scenario(player: Player) -> None:
        await player.type("leave\r")
        assert "Leave the game?" in player.feedback
        await player.type("n\r")
        assert player.feedback == "Staying in the game."
        await player.type("leave\r")
        await player.type("leave\r", lambda: not player.screen.app.is_running)  # yes, leave

    assert run_screen(scenario) == 0


def test_one_point_is_singular_on_the_result_screen() -> None:
    async def scenario(player: Player) -> None:
        screen = player.screen
        hands = ((), (Tile.of(1, 0),), (Tile.of(1, 1),))
        scores = (0, 1, 2)
        screen.on_event(
            RoundScored(
                1, 0, hands, (), hands, (), scores, scores, EndReason.WENT_OUT, 0, (0, 1, 2)
            )
        )
        screen.on_event(GameOver((3, 1, 2), (1,)))
        text = screen.text()
        assert re.search(r"^Me +0 points +\(went out\)$", text, re.M), text
        assert re.search(r"^Ada +1 point +\[1\|0\]$", text, re.M), text
        assert re.search(r"^Bob +2 points +\[1\|1\]$", text, re.M), text
        assert "Game over: Ada wins with 1 point." in text
        assert "pts" not in text and "1 points" not in text
        await player.type("\r")

    assert run_screen(scenario) == 0


def test_went_out_and_left_the_game_are_told_apart() -> None:
    """An empty hand at a round's end is either a seat that went out or one that had left the
    game and was not dealt in: the result says which, in words that mean one thing each."""

    async def scenario(player: Player) -> None:
        screen = player.screen
        left = ((), (Tile.of(1, 0),), ())
        scores = (0, 1, 12)
        screen.on_event(
            RoundScored(1, 0, left, (), left, (), scores, scores, EndReason.WENT_OUT, 0, (0, 1))
        )
        text = screen.text()
        assert re.search(r"^Me +0 points +\(went out\)$", text, re.M), text
        assert re.search(r"^Bob +12 points +\(left the game: not dealt in\)$", text, re.M), text
        assert "(out)" not in text
        await player.type("quit\ry\r")

    assert run_screen(scenario) == 0


def test_tab_completes_and_up_recalls_earlier_lines() -> None:
    async def scenario(player: Player) -> None:
        await player.until(player.my_turn, "my turn")
        await player.type("9\t", lambda: player.screen.input.text == "9-")  # the common part

        def a_tile() -> bool:
            return re.fullmatch(r"9-\d", player.screen.input.text) is not None

        await player.type("\t", a_tile)  # then the tiles in turn
        tile = player.screen.input.text
        await player.type(" \t", lambda: player.screen.input.text == f"{tile} a")
        await player.type("\x15banana\r")
        # the input reloads its history after each line, in the background: wait for it, as a
        # person's slower fingers do
        await player.until(lambda: player.screen.input.working_index >= 1, "the history")
        await player.type("\x1b[A", lambda: player.screen.input.text == "banana")  # Up
        await player.type("\x15quit\ry\r")

    assert run_screen(scenario) == 0


def test_results_stay_up_when_the_table_deals_on_by_itself() -> None:
    async def scenario(player: Player) -> None:
        screen = player.screen
        await play_first_moves_to_the_end(player)
        await player.until(lambda: screen.round_end is not None, "the round's end")
        player.session.ready()  # as a protocol table does without asking the screen
        await player.until(lambda: screen.round_end is None, "the next deal")
        assert screen.panel == "round"
        assert "Round 1 over" in screen.text()
        assert "The next round has begun: Enter shows the board" in player.feedback
        await player.type("\r")
        assert screen.panel is None
        assert "centre [8|8]" in screen.text()
        assert "The next round has begun" not in screen.text()  # said, and done: cleared
        await player.type("quit\ry\r")

    assert run_screen(scenario, rounds=2) == 0


def test_the_board_follows_its_newest_tile() -> None:
    async def scenario(player: Player) -> None:
        screen = player.screen
        rows = 4  # a board pane shorter than the board

        def tall() -> bool:
            lines = ["".join(t[1] for t in row) for row in screen._main_lines()]
            low = newest_row(lines, player.view().public.moves) >= rows
            return low or player.view().public.is_over

        while not tall():
            await player.until(lambda: player.my_turn() or tall(), "my turn or a tall board")
            if player.my_turn():
                await player.type("1\r")
        # The computer players think in a thread: check when the board stands still (they wait
        # for my move), so that no new tile moves the pane between the checks and the scroll.
        await player.until(
            lambda: player.my_turn() or player.view().public.is_over, "a board at rest"
        )
        lines = screen._main_lines()
        public = player.view().public
        focus = newest_row(["".join(t[1] for t in row) for row in lines], public.moves)
        assert focus >= rows  # the newest tile lies below a pane showing the top
        top = screen._clamp(len(lines), rows)
        assert top <= focus < top + rows
        last = next(m.tile for m in reversed(public.moves) if isinstance(m, Play))
        shown = "".join(t[1] for t in lines[focus])
        assert f"[{last.high}|{last.low}]" in shown or f"[{last.low}|{last.high}]" in shown
        await player.type("\x1b[5~", lambda: not screen._follow)  # PgUp: the player scrolls
        assert screen._clamp(len(lines), rows) == max(0, top - 5)
        await player.type("quit\ry\r")

    assert run_screen(scenario, seed=7, delay=0.0) == 0


class TimedSession(OfflineSession):
    """A practice table whose wait the test sets, as a LAN table's deadline and links give it."""

    timed: Wait | None = None

    @property
    def wait(self) -> Wait | None:
        return self.timed


def test_the_banner_says_how_a_wait_stands_and_counts_down_the_last_seconds() -> None:
    async def main() -> None:
        with create_pipe_input() as keys:
            session = TimedSession(NAMES, 0, RuleOptions(rounds=1), 4, delay=0.0)
            screen = GameScreen(session, keys, DummyOutput(), None)
            app = asyncio.get_running_loop().create_task(screen.run())
            player = Player(screen, keys, session)
            await player.until(lambda: session.view is not None, "the deal")

            def banner() -> str:  # the banner's words, however they wrap
                return " ".join(screen.text().split("Hand")[0].split())

            session.timed = Wait(2, 108.2, 12.4)
            await player.until(
                lambda: "Waiting for Bob: link down 12 s, 1:49 left." in banner(), ""
            )
            session.timed = Wait(1, 65.0)
            await player.until(lambda: "Waiting for Ada: thinking, 1:05 left." in banner(), "Ada")
            session.timed = Wait(0, 90.0)
            await player.until(lambda: "left" not in banner(), "no countdown before the last 30 s")
            session.timed = Wait(0, 24.5)
            await player.until(lambda: "0:25 left to move." in banner(), "the countdown")
            await player.type("quit\ry\r")
            await asyncio.wait_for(app, STEP_TIMEOUT)

    asyncio.run(main())


LONG_NAMES = ("Me", "Ada Lovelace of the Analytical Engine co", "Bob", "名前の長いプレイヤー")


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)], ids=["60x20", "80x24", "120x40"])
def test_the_screen_lays_out_for_the_terminal_with_whole_names(size: tuple[int, int]) -> None:
    """Every row within the width, tiles never split, the names whole where the width has room
    for them (a 40-character name and a wide-character one) and cut with '…' only where not."""
    width, height = size

    async def main() -> None:
        with create_pipe_input() as keys:
            session = OfflineSession(LONG_NAMES, 0, RuleOptions(rounds=1), 4, delay=0.0)
            screen = GameScreen(session, keys, DummyOutput(), None)
            app = asyncio.get_running_loop().create_task(screen.run())
            player = Player(screen, keys, session)
            await player.until(player.my_turn, "my turn")
            for panel in ("", "scores\r", "help\r"):
                if panel:
                    await player.type(panel)
                rows = ["".join(t[1] for t in row) for row in screen.frame(width, height - 1)]
                assert len(rows) == height - 1  # the input line is the terminal's last row
                for row in rows:
                    assert columns(row) <= width, (width, row)
                    cut = re.sub(r"\[\d\|\d\]", "", row)
                    assert "[" not in cut and "]" not in cut, row  # no tile split
                text = "\n".join(rows)
                if not panel:
                    assert re.search(r"^Hand  \[", text, re.M) and "Moves 1)" in text
                if panel == "scores\r" or not panel:
                    shown = [n for n in LONG_NAMES if n in text]
                    assert shown == list(LONG_NAMES) if width >= 120 else "Bob" in shown
                    if width == 60:
                        assert "…" in text  # the longest names cut, for room
            await player.type("quit\ry\r")
            await asyncio.wait_for(app, STEP_TIMEOUT)

    asyncio.run(main())


def test_a_terminal_too_small_is_told_what_the_screen_needs() -> None:
    async def scenario(player: Player) -> None:
        screen = player.screen
        narrow = " ".join(t[1] for row in screen.frame(59, 23) for t in row)
        assert "needs a terminal of at least 60 columns and 20 rows" in " ".join(narrow.split())
        assert "this one has 59 columns and 24 rows" in " ".join(narrow.split())
        low = " ".join(t[1] for row in screen.frame(80, 11) for t in row)
        assert "this one has 80 columns and 12 rows" in " ".join(low.split())
        assert "[" not in low  # no part of the game squeezed in
        await player.type("quit\ry\r")

    assert run_screen(scenario) == 0
