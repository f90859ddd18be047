"""One seat tries to time another out alone (protocol version 4): a `timeout` abort must carry
the stall votes of more than half of the seats dealt in, its author's among them. Too few
votes, a forged vote, a vote of the staller or of a seat that left, a vote counted twice: the
abort does not hold, live and in `verify` alike (at the head it is its author's bad entry),
and a stray vote is refused and counts for nothing."""

from __future__ import annotations

from typing import Any

import pytest

from cfnet.errors import PeerProtocolError
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import FaultFound, SeatLeft, drain
from cfnet.protocol.table import Table
from cfnet.protocol.testing import Network, sim_identity, start_tables
from cfnet.protocol.verify import verify_entries
from cfnet.protocol.wire import ABORT, BAD_ENTRY, STALL, TIMEOUT
from cfnet.record.entry import Entry, sign_entry

STALLER = 3


def _stalling() -> Network:
    """4 seats; seat 3 is due (its shuffle_a) and will never post."""
    network = start_tables(4, 41, RuleOptions(rounds=1), timeout=30)
    network.run(until=lambda: network.tables[0].due() == (STALLER, frozenset({"shuffle_a"})))
    return network


def _vote(table: Table, by: Table, staller: int = STALLER, **body: Any) -> Entry:
    """`by`'s stall vote against `staller` for the head of `table`'s chain."""
    local = by.local
    assert local is not None
    seq = len(table.entries)
    return local.sign(table.table_id, seq, table.head, STALL, {"seat": staller, **body})


def _timeout(table: Table, poster: Table, votes: list[bytes]) -> Entry:
    """`poster`'s timeout abort against seat 3 at the head of `table`, carrying `votes`."""
    local = poster.local
    assert local is not None
    seq = len(table.entries)
    body = {
        "blamed": STALLER,
        "code": TIMEOUT,
        "detail": "did not post its shuffle_a within 30 s",
        "evidence": {"seq": seq, "votes": votes},
    }
    return local.sign(table.table_id, seq, table.head, ABORT, body)


def _refused_live_and_offline(network: Network, abort: Entry, why: str) -> None:
    """The honest seats 1 and 2 and `verify` all blame the abort's author (seat 0), and nobody
    times seat 3 out."""
    for table in network.tables[1:3]:
        table.receive(abort.wire, network.now + 31)
        events = drain(table.next_event)
        assert not any(isinstance(e, SeatLeft) for e in events)
        (found,) = [e for e in events if isinstance(e, FaultFound)]
        assert (found.fault.seat, found.fault.code) == (0, BAD_ENTRY)
        assert why in found.fault.detail, found.fault.detail
    verdict = verify_entries([*network.tables[1].entries[:-1], abort])
    assert verdict.blamed == 0 and why in verdict.problem, verdict.problem
    assert verdict.departures == []


def test_one_seats_own_vote_alone_does_not_time_out_another() -> None:
    network = _stalling()
    host = network.tables[0]
    abort = _timeout(host, host, [_vote(host, host).wire])
    _refused_live_and_offline(network, abort, "1 of the 4 seats dealt in voted")


def test_a_timeout_with_no_votes_at_all_does_not_hold() -> None:
    network = _stalling()
    host = network.tables[0]
    local = host.local
    assert local is not None
    seq = len(host.entries)
    body = {"blamed": STALLER, "code": TIMEOUT, "detail": "late", "evidence": {"seq": seq}}
    abort = local.sign(host.table_id, seq, host.head, ABORT, body)
    _refused_live_and_offline(network, abort, "malformed abort")


def test_two_votes_of_four_seats_are_too_few() -> None:
    network = _stalling()
    host, other = network.tables[0], network.tables[1]
    votes = sorted([_vote(host, host).wire, _vote(host, other).wire])
    _refused_live_and_offline(network, _timeout(host, host, votes), "2 of the 4 seats")


def test_forged_votes_do_not_count() -> None:
    """Votes that name seats 1 and 2 but are signed by another key."""
    network = _stalling()
    host = network.tables[0]
    forged = [
        sign_entry(
            sim_identity(99, s),
            host.table_id,
            len(host.entries),
            host.head,
            s,
            STALL,
            {"seat": STALLER},
        ).wire
        for s in (1, 2)
    ]
    votes = sorted([_vote(host, host).wire, *forged])
    abort = _timeout(host, host, votes)
    _refused_live_and_offline(network, abort, "the signature is not seat")


def test_one_vote_twice_counts_once_and_a_vote_with_another_body_not_at_all() -> None:
    network = _stalling()
    host, other = network.tables[0], network.tables[1]
    mine, theirs = _vote(host, host).wire, _vote(host, other).wire
    twice = _timeout(host, host, sorted([mine, theirs, theirs]))
    _refused_live_and_offline(network, twice, "not each once")
    network = _stalling()
    host, other, third = network.tables[0], network.tables[1], network.tables[2]
    mine, theirs = _vote(host, host).wire, _vote(host, other).wire
    odd = _vote(host, third, extra=1).wire
    _refused_live_and_offline(
        network, _timeout(host, host, sorted([mine, theirs, odd])), "a stall body has the fields"
    )


def test_the_stallers_own_vote_and_a_vote_against_another_seat_do_not_count() -> None:
    network = _stalling()
    host, other, stalled = network.tables[0], network.tables[1], network.tables[STALLER]
    own = _vote(host, stalled, staller=STALLER)
    votes = sorted([_vote(host, host).wire, _vote(host, other).wire, own.wire])
    _refused_live_and_offline(network, _timeout(host, host, votes), "has no vote on seat 3")
    network = _stalling()
    host, other, third = network.tables[0], network.tables[1], network.tables[2]
    wrong = _vote(host, third, staller=1)  # seat 1 is not the seat due
    votes = sorted([_vote(host, host).wire, _vote(host, other).wire, wrong.wire])
    _refused_live_and_offline(network, _timeout(host, host, votes), "names seat 1, not 3")


def test_a_vote_of_a_seat_that_left_is_refused_and_does_not_count() -> None:
    """Seat 2 resigned: at the next place its vote is not a vote of a seat dealt in."""
    network = start_tables(4, 42, RuleOptions(rounds=1), timeout=30)
    tables = network.tables
    network.run(until=lambda: tables[0].due() == (2, frozenset({"shuffle_a"})))
    tables[2].resign()
    network.run(until=lambda: 2 not in tables[0].rounds.seated and tables[0].due() is not None)
    due = tables[0].due()
    assert due is not None and due[0] != 2
    staller = due[0]
    voters = [t for t in tables if t.me not in (2, staller)]
    gone = _vote(tables[0], tables[2], staller=staller)
    with pytest.raises(PeerProtocolError, match="has no vote"):
        voters[0].receive(gone.wire, network.now)
    votes = sorted([_vote(tables[0], t, staller=staller).wire for t in voters[:1]] + [gone.wire])
    local = voters[0].local
    assert local is not None
    seq = len(tables[0].entries)
    body = {
        "blamed": staller,
        "code": TIMEOUT,
        "detail": "late",
        "evidence": {"seq": seq, "votes": votes},
    }
    abort = local.sign(tables[0].table_id, seq, tables[0].head, ABORT, body)
    verdict = verify_entries([*tables[0].entries, abort])
    assert verdict.blamed == voters[0].me and "has no vote" in verdict.problem, verdict.problem


def test_a_stray_vote_is_refused_live() -> None:
    network = _stalling()
    host, other = network.tables[0], network.tables[1]
    with pytest.raises(PeerProtocolError, match="no vote on seat 3"):
        host.receive(_vote(host, network.tables[STALLER]).wire, network.now)
    with pytest.raises(PeerProtocolError, match="not 3"):
        host.receive(_vote(host, other, staller=2).wire, network.now)
    assert host.ballot.held == {}
