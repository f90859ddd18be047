"""The timeline of positions the viewer and `cfnet watch` show, when an abort supersedes a move
it showed already (a live watcher sees the move, then the abort that drops it)."""

from __future__ import annotations

from cfnet.protocol.table import Table
from cfnet.protocol.testing import start_tables
from cfnet.protocol.wire import ABORT, DRAW, OUT_OF_TURN, PASS, PLAY, Fault
from cfnet.review.timeline import Timeline


def test_a_move_an_abort_supersedes_leaves_the_timeline() -> None:
    network = start_tables(3, seed=11, timeout=60)
    observer = network.tables[0]

    def a_move_is_due() -> bool:
        public, due = observer.public, observer.due()
        return (
            public is not None
            and len(public.moves) >= 3
            and due is not None
            and due[1] <= {PLAY, DRAW, PASS}
        )

    network.run(until=a_move_is_due)
    due = observer.due()
    assert due is not None
    h = due[0]
    x, y = [s for s in range(3) if s != h]
    seq = len(observer.entries)
    hand = network.tables[h]
    player = network.players[h]
    if hand.awaiting_local_move:
        assert player is not None
        hand.choose(player.choose(hand.view()))
    (h_entry,) = hand.entries_to_send(network.now)

    timeline = Timeline(observer.entries[0].wire)
    for entry in observer.entries[1:]:
        assert timeline.take(entry)
    before = list(timeline.positions)
    assert timeline.take(h_entry)
    assert len(timeline.positions) == len(before) + 1  # the move is shown

    x_local = network.tables[x].local
    assert x_local is not None
    x_entry = x_local.sign(observer.table_id, seq, h_entry.prev, h_entry.kind, dict(h_entry.body))
    y_table: Table = network.tables[y]
    y_local = y_table.local
    assert y_local is not None
    fault = Fault(x, OUT_OF_TURN, "out of turn", None, {"entry": x_entry.wire})
    y_abort = y_local.sign(observer.table_id, seq, h_entry.prev, ABORT, fault.abort_body())
    timeline.take(y_abort)
    assert timeline.table.entries[-1] == y_abort
    *kept, removal = timeline.positions
    assert kept == before  # the superseded move is gone
    assert removal.move is None and removal.public is before[-1].public  # the board as it stood
    assert removal.note.startswith(f"departure: entry {seq}: seat {x} (bot{x}) is removed")
    assert "round 1 is dealt again among" in removal.note
    assert timeline.verdict().removed == [x]  # proven to cheat by y's abort: the game goes on
