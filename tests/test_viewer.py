"""The full-screen replay viewer driven through prompt_toolkit's pipe input, on a real log."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from cfnet.cli.commands.replay import start_position
from cfnet.cli.main import main
from cfnet.game.moves import Draw, Play
from cfnet.review.timeline import Timeline, read_timeline
from cfnet.ui.move_input import sorted_hand
from cfnet.ui.viewer import Viewer

RIGHT, LEFT, PAGE_UP, PAGE_DOWN = "\x1b[C", "\x1b[D", "\x1b[5~", "\x1b[6~"
HOME, END = "\x1b[H", "\x1b[F"


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete 2-round game between 3 in-memory peers through the full protocol."""
    path = tmp_path_factory.mktemp("viewer") / "game.cflog"
    args = ["selfplay", "--protocol", "--players", "3", "--seed", "2", "--rule", "rounds=2"]
    assert main([*args, "--log", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def timeline(log: Path) -> Timeline:
    with log.open("rb") as f:
        return read_timeline(f, str(log))


async def until(viewer: Viewer, condition: Callable[[], bool], what: str) -> None:
    for _ in range(2000):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"timed out waiting for {what}; screen:\n{viewer.text()}")


def run_viewer(
    timeline: Timeline, scenario: Callable[[Viewer, PipeInput], Awaitable[None]], at: int = 0
) -> None:
    async def main() -> None:
        with create_pipe_input() as keys:
            viewer = Viewer(timeline, "test", at=at, input=keys, output=DummyOutput())
            running = asyncio.create_task(viewer.run())
            await scenario(viewer, keys)
            keys.send_text("q")
            assert await asyncio.wait_for(running, 30) == 0

    asyncio.run(main())


def test_stepping_across_a_round_boundary(timeline: Timeline) -> None:
    second = timeline.round_starts()[1]

    async def scenario(viewer: Viewer, keys: PipeInput) -> None:
        assert "round 1/2 · move 0" in viewer.text()
        keys.send_text(PAGE_DOWN)
        await until(viewer, lambda: viewer.cursor == second, "round 2's start")
        assert "round 2/2 · move 0" in viewer.text()
        assert "centre [8|8]" in viewer.text()
        keys.send_text(LEFT)
        await until(viewer, lambda: viewer.cursor == second - 1, "round 1's last move")
        text = viewer.text()
        assert "round 1/2" in text and "Round 1 over:" in text
        assert "total" in text  # round 1's scores
        scored = timeline.rounds[0]
        assert "Hands as revealed" in text
        for name, points in zip(timeline.names, scored.scores, strict=True):
            assert re.search(rf"{name} +{points} pts", text), text  # each hand kept
        keys.send_text(RIGHT + RIGHT)
        await until(viewer, lambda: viewer.cursor == second + 1, "round 2's first move")
        first = timeline.describe(timeline.positions[second + 1])
        assert first in viewer.text()
        keys.send_text(PAGE_UP)
        await until(viewer, lambda: viewer.cursor == second, "back to round 2's start")

    run_viewer(timeline, scenario)


def test_jumping_to_the_end_and_the_start(timeline: Timeline) -> None:
    last = len(timeline.positions) - 1

    async def scenario(viewer: Viewer, keys: PipeInput) -> None:
        keys.send_text(END)
        await until(viewer, lambda: viewer.cursor == last, "the end")
        text = viewer.text()
        assert "Round 2 over:" in text
        final = timeline.rounds[-1].totals
        assert all(f"({total})" in text for total in final)  # every player's final total
        assert timeline.describe(timeline.positions[last]) in text
        keys.send_text(HOME)
        await until(viewer, lambda: viewer.cursor == 0, "the start")

    run_viewer(timeline, scenario)


def test_toggling_the_hands_of_a_revealed_round(timeline: Timeline) -> None:
    dealt = timeline.rounds[0].dealt

    async def scenario(viewer: Viewer, keys: PipeInput) -> None:
        assert "Hands at this move" not in viewer.text()
        keys.send_text("h")
        await until(viewer, lambda: viewer.show_hands, "the hands shown")
        text = viewer.text()
        for hand in dealt:  # sorted as the game screen sorts a hand: highest half first
            assert " ".join(str(tile) for tile in sorted_hand(hand)[:8]) in text
        keys.send_text(RIGHT)
        await until(viewer, lambda: viewer.cursor == 1, "the first move")
        first = timeline.positions[1]
        change = {Play: -1, Draw: 1}.get(type(first.move), 0)  # a play, a draw or a pass
        hands = timeline.hands(first)
        assert hands is not None and sum(map(len, hands)) == sum(map(len, dealt)) + change
        keys.send_text("h")
        await until(viewer, lambda: not viewer.show_hands, "the hands hidden")
        assert "Hands at this move" not in viewer.text()

    run_viewer(timeline, scenario)


def test_round_and_to_open_the_viewer_there(timeline: Timeline) -> None:
    at = start_position(timeline, 2, 5)
    position = timeline.positions[at]
    assert (position.round_number, position.index) == (2, 5)
    whole = start_position(timeline, None, 30)
    assert timeline.positions[whole].number == 30
    with pytest.raises(ValueError, match="this game has rounds 1 to 2"):
        start_position(timeline, 3, None)

    async def scenario(viewer: Viewer, keys: PipeInput) -> None:
        assert "round 2/2 · move 5" in viewer.text()

    run_viewer(timeline, scenario, at=at)


def test_a_pipe_and_plain_print_todays_text(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--plain", str(log)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("table 'selfplay'")
    assert "game over:" in text


def test_live_the_viewer_follows_the_newest_move_until_stepped_back(log: Path) -> None:
    from cfnet.record.logfile import read_log

    entries = read_log(log)
    growing = Timeline(entries[0].wire)
    rest = iter(entries[1:])

    def feed(count: int) -> None:
        for _, entry in zip(range(count), rest, strict=False):
            growing.take(entry)

    async def main() -> None:
        with create_pipe_input() as keys:
            viewer = Viewer(growing, "live", follow=True, input=keys, output=DummyOutput())
            running = asyncio.create_task(viewer.run())
            assert "waiting for the first deal" in viewer.text()
            feed(60)
            await until(viewer, lambda: len(growing.positions) > 3, "some moves")
            assert viewer.position == growing.positions[-1] and "· live" in viewer.text()
            keys.send_text(LEFT)
            await until(viewer, lambda: not viewer.follow, "stepping back")
            held = viewer.cursor
            feed(20)
            assert viewer.position == growing.positions[held]  # it stays where it was put
            keys.send_text(END)
            await until(viewer, lambda: viewer.follow, "following again")
            feed(len(entries))
            assert viewer.position == growing.positions[-1]
            assert "Round 2 over:" in viewer.text()
            keys.send_text("q")
            assert await asyncio.wait_for(running, 30) == 0

    asyncio.run(main())


@pytest.fixture(scope="module")
def left_and_back(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3-seat, 2-round game in which the seat due resigns in round 1 (the round is dealt
    again without it) and asks to come back, dealt in again from round 2."""
    from cfnet.game.rules import RuleOptions
    from cfnet.protocol.testing import start_tables
    from cfnet.record.logfile import write_log

    network = start_tables(3, 21, RuleOptions(rounds=2), timeout=60)
    first = network.tables[0]

    def moves() -> int:
        return 0 if first.public is None else len(first.public.moves)

    network.run(until=lambda: moves() >= 4)
    due = first.due()
    assert due is not None
    network.tables[due[0]].resign()
    network.run(until=lambda: first.rounds.deal == 1 and moves() > 0)  # dealt again
    request = network.tables[due[0]].return_request()
    for table in network.tables:
        if table.me != due[0]:
            table.receive(request.wire, network.now)
    network.run()
    assert first.over
    path = tmp_path_factory.mktemp("departure") / "left.cflog"
    write_log(path, first.entries)
    return path


def test_the_viewer_steps_through_a_departure_a_deal_again_and_a_return(
    left_and_back: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "--plain", str(left_and_back)]) == 0
    plain = capsys.readouterr().out
    told = [line for line in plain.splitlines() if "resigned:" in line or "is back:" in line]
    assert len(told) == 2, plain  # what `replay --plain` says of the departure and the return
    with left_and_back.open("rb") as f:
        timeline = read_timeline(f, str(left_and_back))
    notes = [i for i, p in enumerate(timeline.positions) if p.note]
    assert len(notes) == 2
    for line, at in zip(told, notes, strict=True):
        assert timeline.positions[at].note.endswith(line)  # the same words, with the entry
    left = notes[0]
    again = timeline.positions[left + 1]  # the next step: round 1 dealt again without it
    assert (again.round_number, again.index, again.move) == (1, 0, None)
    assert len(again.public.seated) == 2
    starts = [timeline.positions[i].round_number for i in timeline.round_starts()]
    assert starts == [1, 1, 2]  # the deal left, the deal again, round 2

    async def scenario(viewer: Viewer, keys: PipeInput) -> None:
        keys.send_text(RIGHT * left)
        await until(viewer, lambda: viewer.cursor == left, "the departure")
        text = viewer.text()
        assert " ".join(told[0].split()[:3]) in text  # the banner says who left
        assert "round 1 is dealt again among" in " ".join(text.split())
        keys.send_text(RIGHT)
        await until(viewer, lambda: viewer.cursor == left + 1, "the deal again")
        assert "round 1/2 · move 0" in viewer.text()
        assert re.search(r" left \(0\)", viewer.text())  # the leaver sits the deal out
        keys.send_text(END)
        await until(viewer, lambda: viewer.cursor == len(timeline.positions) - 1, "the end")
        assert "· live" not in viewer.text()  # a finished file is not live

    run_viewer(timeline, scenario)
