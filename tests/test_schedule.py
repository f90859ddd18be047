"""The schedule is the table of protocol.md 4.2, and a table's events come from one queue."""

from __future__ import annotations

import re
from pathlib import Path

from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import Appended, GameOver, RoundScored, RoundStarted, drain
from cfnet.protocol.schedule import SCHEDULE, YARD_KEYS, Schedule, Step
from cfnet.protocol.table import Table
from cfnet.protocol.testing import play_protocol_game

SPEC = Path(__file__).resolve().parent.parent / "protocol.md"
ROWS = {
    "acceptance": Step.ACCEPT,
    "phase A": Step.SHUFFLE_A,
    "phase B": Step.SHUFFLE_B,
    "deal": Step.DEAL,
    "turns": Step.TURNS,
    "reveal": Step.REVEAL,
    "certify": Step.CERTIFY,
}


def _spec_rows() -> dict[str, tuple[str, frozenset[str]]]:
    """protocol.md 4.2's table: step -> (due seats, kinds)."""
    section = SPEC.read_text().split("### 4.2 The schedule")[1].split("###")[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] not in ("step", "---"):
            rows[cells[0]] = (cells[1], frozenset(re.findall(r"`(\w+)`", cells[2])))
    return rows


def test_the_schedule_is_the_table_of_protocol_md() -> None:
    rows = _spec_rows()
    for name, step in ROWS.items():
        seats, kinds = rows[name]
        phase = SCHEDULE[step]
        if step is Step.TURNS:
            assert phase.first is None and kinds == phase.kinds, name
        else:
            assert phase.first is not None
            first = phase.first
            if step is Step.ACCEPT:  # every seat
                assert seats.startswith(f"{first}, {first + 1}, ..., N-1"), name
            else:  # the seats dealt in
                assert seats.startswith(f"S_{first}, S_{first + 1}, ..., S_{{k-1}}"), name
            assert kinds == phase.kinds, name
    assert rows["after a `draw`"][1] >= YARD_KEYS
    order = list(ROWS.values())
    assert [SCHEDULE[s].then for s in order] == [*order[1:], Step.DONE]


def test_each_seat_in_order_then_the_next_step() -> None:
    schedule = Schedule(3)
    assert [schedule.due()[0], schedule.count(), schedule.due()[0], schedule.count()] == [
        1,
        False,
        2,
        True,
    ]
    assert schedule.advance() is Step.SHUFFLE_A and schedule.due() == (0, frozenset({"shuffle_a"}))


def test_events_come_from_one_queue_in_order() -> None:
    """An observer fed a whole log: `receive` returns nothing; `next_event` gives the genesis
    first, then every entry appended, in chain order, with the round and game events, then
    None once the queue is empty."""
    entries = play_protocol_game(2, 3, RuleOptions(rounds=1)).tables[0].entries
    table = Table(entries[0].wire)
    for entry in entries[1:]:
        assert table.receive(entry.wire, 0.0) is None  # type: ignore[func-returns-value]
    events = drain(table.next_event)
    assert table.next_event() is None
    assert [e.entry for e in events if isinstance(e, Appended)] == entries
    kinds = [type(e) for e in events if not isinstance(e, Appended)]
    assert kinds[0] is RoundStarted and kinds[-2:] == [RoundScored, GameOver]


def test_a_round_among_fewer_seats_walks_only_them() -> None:
    """After a departure the seats dealt in post in their order; the others are never due."""
    schedule = Schedule(4)
    for _ in range(3):
        schedule.count()
    schedule.advance()
    schedule.next_round((0, 2, 3))
    due = []
    while True:
        due.append(schedule.due()[0])
        if schedule.count():
            break
    assert due == [0, 2, 3] and schedule.advance() is Step.SHUFFLE_B
