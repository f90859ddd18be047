"""A cheating voter (protocol version 4, 4.6 "One game, never two", the case it leaves open):
seat 3 stalls at its shuffle_a, the others vote it out, but before any of them posts the
timeout seat 3's late entry comes and every seat builds on it. Seat 0, the cheater, kept the
honest votes; once seat 1 holds that place final and seat 2 does not yet, it signs the timeout
with them and sends it to seat 2 alone. Today seat 1 refuses it (the place is final) and seat 2
takes it: the honest seats are on two chains, and no heal joins them; the others then time
seat 2 out of theirs, so an honest seat leaves the game (and concedes) for the cheater's act.
What must hold: every honest seat on one chain, none of them timed out. (Its cheater signed an
entry after seat 3's and then the timeout that replaces it, with the same `prev`: a proof no
honest voter gives, 4.6 "Voter discipline"; using it needs a rule that brings a seat back
from a timeout so disproven, not yet written.) In memory, with the library's own tables."""

from __future__ import annotations

import pytest

from cfnet.errors import PeerProtocolError
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import SeatLeft, VoteCast
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


@pytest.mark.xfail(
    strict=True,
    reason="open: a voter that signed after the staller's entry can later split the honest "
    "seats with the old votes (protocol.md 4.6, 'One game, never two')",
)
def test_a_cheater_cannot_split_the_honest_seats_with_old_votes() -> None:
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
    assert network.tables[2].entries[place].seat == STALLER  # seat 2 built on the late entry
    abort = _timeout(network, place, votes)
    network.tables[2].receive(abort.wire, network.now)
    assert network.tables[2].entries[place].wire == abort.wire  # seat 2 took it
    with pytest.raises(PeerProtocolError, match="final"):
        network.tables[1].receive(abort.wire, network.now)  # seat 1 holds the place final
    network.cut.clear()
    network.resync()
    network.run()
    honest = [network.tables[s] for s in (1, 2, 3)]
    assert len({tuple(e.wire for e in t.entries) for t in honest}) == 1, "two chains"
    left = [e.fault.seat for s in (1, 2, 3) for e in network.events[s] if isinstance(e, SeatLeft)]
    assert 2 not in left, "the honest seat 2 was timed out"
