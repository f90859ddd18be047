"""A cheating voter (protocol version 4, 4.6 "A timeout its author built past"): seat 3 stalls at
its shuffle_a, the others vote it out, but before any of them posts the timeout seat 3's late
entry comes and every seat builds on it. Seat 0, the cheater, kept the honest votes, and later
signs the timeout with them and sends it to one honest seat at a time. Before, a seat that did
not yet hold the place final took it and was left alone on its chain, and the others then timed
it out of theirs: an honest seat left the game (and conceded) for the cheater's act. Now a seat
that holds the cheater's entry after seat 3's refuses the timeout and passes on the chain that
disproves it; a seat that took it before that entry reached it goes back to that chain. What
must hold: every honest seat on one chain, none of them timed out, and the cheater named. In
memory, with the library's own tables."""

from __future__ import annotations

import pytest

from cfnet.errors import PeerProtocolError
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import TimeoutDisproved, VoteCast, drain
from cfnet.protocol.testing import Network, start_tables
from cfnet.protocol.wire import ABORT, TIMEOUT
from cfnet.record.entry import Entry

STALLER, CHEATER = 3, 0
TIMEOUT_S = 30


def _votes_kept_by_the_cheater(network: Network) -> tuple[int, list[bytes]]:
    """Seat 3 is due at its shuffle_a and its entries are lost; the other seats' deadlines pass
    and each votes, but the cheater's vote reaches nobody, so no honest seat holds a majority
    and only the cheater could post. Returns the place and the three votes' wires."""
    network.run(until=lambda: network.tables[0].due() == (STALLER, frozenset({"shuffle_a"})))
    place = len(network.tables[0].entries)
    others = range(len(network.tables))
    network.cut |= {(STALLER, t) for t in others} | {(CHEATER, t) for t in others}
    network.run(
        until=lambda: all(
            any(isinstance(e, VoteCast) for e in network.events[s]) for s in (0, 1, 2)
        )
    )
    votes = [e.vote for s in (0, 1, 2) for e in network.events[s] if isinstance(e, VoteCast)]
    assert {v.seq for v in votes} == {place}
    return place, sorted(v.wire for v in votes)


def _timeout(network: Network, place: int, votes: list[bytes]) -> Entry:
    """The cheater's timeout of seat 3 at `place`, signed after it built on seat 3's entry."""
    cheater = network.tables[CHEATER]
    assert cheater.local is not None
    body = {
        "blamed": STALLER,
        "code": TIMEOUT,
        "detail": f"did not post its shuffle_a within {TIMEOUT_S} s",
        "evidence": {"seq": place, "votes": votes},
    }
    prev = cheater.entries[place - 1].hash
    return cheater.local.sign(cheater.table_id, place, prev, ABORT, body)


def _one_chain_nobody_timed_out(network: Network) -> None:
    """Every honest seat ends on one chain, a finished game in which none of them left."""
    network.cut.clear()
    network.resync()
    network.run()
    network.resync()  # what the mesh's keepalive does: a seat that missed an entry asks again
    network.run()
    honest = [network.tables[s] for s in (1, 2, 3)]
    assert len({tuple(e.wire for e in t.entries) for t in honest}) == 1, "two chains"
    assert all(t.finished and t.aborted is None for t in honest)
    aborts = [e.body["blamed"] for e in honest[0].entries if e.kind == ABORT]
    assert not {1, 2, 3} & set(aborts), f"an honest seat was timed out: {aborts}"
    assert sorted(honest[0].rounds.seated) == [0, 1, 2, 3]


def _named(network: Network, seat: int, place: int) -> bool:
    """Seat `seat` found that the cheater signed the timeout at `place` after building past it."""
    return any(
        isinstance(e, TimeoutDisproved) and (e.author, e.seat, e.seq) == (CHEATER, STALLER, place)
        for e in network.events[seat] + drain(network.tables[seat].next_event)
    )


def test_a_seat_that_holds_the_cheaters_later_entry_refuses_its_timeout() -> None:
    network = start_tables(4, 41, RuleOptions(rounds=1), timeout=TIMEOUT_S)
    place, votes = _votes_kept_by_the_cheater(network)
    network.cut.clear()  # seat 3's entry comes late, and the cheater plays on
    network.resync()

    cut: list[bool] = []

    def split(network: Network) -> None:
        one, two = network.tables[1], network.tables[2]
        if one.finality.final >= place > two.finality.final and not cut:
            network.cut |= {(s, 2) for s in range(4)}  # seat 2 hears nothing more for now
            cut.append(True)

    network.watch = split
    network.run(until=lambda: bool(cut))
    assert cut, "seat 1 never held the stalled place final"
    network.watch = None
    two = network.tables[2]
    assert two.entries[place].seat == STALLER  # seat 2 built on the late entry
    abort = _timeout(network, place, votes)
    for seat in (2, 1):  # seat 2 holds the place built on, seat 1 holds it final
        with pytest.raises(PeerProtocolError, match="signed entry"):
            network.tables[seat].receive(abort.wire, network.now)
        assert network.tables[seat].entries[place].seat == STALLER
        assert _named(network, seat, place)
    _one_chain_nobody_timed_out(network)


def test_a_seat_that_took_the_timeout_goes_back_to_the_chain_that_disproves_it() -> None:
    network = start_tables(4, 41, RuleOptions(rounds=1), timeout=TIMEOUT_S)
    place, votes = _votes_kept_by_the_cheater(network)
    network.cut.clear()  # seat 3's entry comes late; seat 2 hears nothing after it for now
    two = network.tables[2]

    def hold_back(network: Network) -> None:
        if len(two.entries) > place:
            network.cut |= {(s, 2) for s in range(4)}

    network.watch = hold_back
    network.resync()
    one = network.tables[1]
    network.run(until=lambda: any(e.seat == CHEATER for e in one.entries[place + 1 :]))
    network.watch = None
    assert len(two.entries) == place + 1 and two.entries[place].seat == STALLER
    abort = _timeout(network, place, votes)
    two.receive(abort.wire, network.now)  # it holds nothing of the cheater after the place
    assert two.entries[place].wire == abort.wire
    with pytest.raises(PeerProtocolError, match="signed entry"):
        one.receive(abort.wire, network.now)
    assert _named(network, 1, place)
    _one_chain_nobody_timed_out(network)
    assert two.entries[place].seat == STALLER
    assert _named(network, 2, place)
