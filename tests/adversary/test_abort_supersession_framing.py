"""Two colluding seats try to frame an honest seat through abort supersession (issue: framing by
abort supersession). X posts out of turn where honest H is due; Y aborts blaming X at that seq,
which drops H's move; X then posts a bytewise-smaller abort at the same seq that names H as out
of turn, with H's dropped move as evidence. Who was due at a seq depends only on the chain before
it, so X's abort is refused everywhere, live and offline alike, and H is never blamed."""

from __future__ import annotations

import contextlib

import pytest
from cheaters import named, proven

from cfnet.errors import PeerProtocolError
from cfnet.protocol.events import FaultFound, drain
from cfnet.protocol.table import Table
from cfnet.protocol.testing import start_tables
from cfnet.protocol.verify import verify_entries
from cfnet.protocol.wire import ABORT, OUT_OF_TURN, Fault
from cfnet.record.entry import Entry

PLAYERS = 4


def _abort(table: Table, seq: int, blamed: int, evidence: Entry, detail: str) -> Entry:
    """An out-of-turn abort signed by `table`'s seat at `seq`, linked to entry seq-1."""
    local = table.local
    assert local is not None
    fault = Fault(blamed, OUT_OF_TURN, detail, None, {"entry": evidence.wire})
    return local.sign(table.table_id, seq, table.entries[seq - 1].hash, ABORT, fault.abort_body())


@pytest.mark.parametrize("order", ["h y x", "h x y", "y x", "x y", "x h y"])
def test_a_smaller_abort_cannot_turn_the_due_seats_move_into_an_out_of_turn_entry(
    order: str,
) -> None:
    network = start_tables(PLAYERS, seed=11, timeout=60)
    # Play into the first round's turns; the seat due next is the honest H.
    network.run(until=lambda: len(network.tables[0].entries) > 4 * PLAYERS)
    observer = network.tables[0]
    due = observer.due()
    assert due is not None
    h = due[0]
    x, y = [s for s in range(PLAYERS) if s != h][:2]
    others = [s for s in range(PLAYERS) if s not in (x, y)]
    seq = len(observer.entries)

    # H posts its real move.
    hand = network.tables[h]
    player = network.players[h]
    if hand.awaiting_local_move:
        assert player is not None
        hand.choose(player.choose(hand.view()))
    (h_entry,) = hand.entries_to_send(network.now)
    assert h_entry.seq == seq

    # X posts something out of turn at the same seq; Y aborts blaming X (a true claim).
    x_local = network.tables[x].local
    assert x_local is not None
    x_entry = x_local.sign(observer.table_id, seq, h_entry.prev, h_entry.kind, dict(h_entry.body))
    y_abort = _abort(network.tables[y], seq, x, x_entry, "out of turn")
    # X's abort blames H with H's own move, and is made bytewise smaller than Y's.
    x_abort = next(
        a
        for i in range(10_000)
        if (a := _abort(network.tables[x], seq, h, h_entry, f"h{i}")).wire < y_abort.wire
    )

    honest = [network.tables[s] for s in others]
    wires = {"h": h_entry.wire, "y": y_abort.wire, "x": x_abort.wire}
    for table in honest:
        assert table.me is not None
        for name in order.split():
            if not (name == "h" and table.me == h):
                with contextlib.suppress(PeerProtocolError):  # a refused abort proves nothing
                    table.receive(wires[name], network.now)
                network.events[table.me] += drain(table.next_event)
    network.run()  # the honest seats post what follows (an abort of their own, if any)

    for table in honest:
        assert table.me is not None
        fault = named(table, network.events[table.me])
        assert fault is not None and fault.seat == x, f"seat {table.me} named {fault}"
        for event in network.events[table.me]:
            if isinstance(event, FaultFound):
                assert event.fault.seat != h
    assert len({b"".join(e.wire for e in t.entries) for t in honest}) == 1
    verdict = verify_entries(honest[0].entries)
    assert proven(verdict) == x, verdict.problem
