"""Attack: rewind the chain, so that what the chain forgets the secrets remember (issue 23).

One cheating seat signs two certificates for round 1 and keeps one back; in round 2 it
resigns, so every honest seat reveals its seed of the abandoned deal; then it sends the second
certificate. In version 3 an honest peer posted the equivocation abort at round 1's
certificates, the chain was cut back there and round 2 was dealt again as deal 0, with the same
seeds, now public: every honest hand was open before its first play. Two colluding seats did
it without a seed published: one resigns at round 1's certificates, the other equivocates its
certificate once round 2's keys are out; after the cut the seats dealt in differ, and the keys
an honest seat released for a colluder's positions cover its new hand (14 of 14 tiles).

In version 4 round 1's certificates are final once every seat built on them: the proof is
taken at the head, nothing is rewound, and each deal's secrets are bound to the chain entry it
starts after. `track_exposure` counts, at every delivery, the unplayed tiles of each honest
hand whose own key that seat ever gave away (the others' keys of a dealt tile are public)."""

from __future__ import annotations

from typing import Any

import pytest
from cheaters import Recording, in_round, resign, track_exposure

from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import Disqualified, FaultFound, ProofHeld, SeatLeft, Stalled
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.schedule import Step
from cfnet.protocol.testing import Network, start_tables
from cfnet.protocol.verify import verify_entries
from cfnet.protocol.wire import EQUIVOCATION, RESIGN, TIMEOUT
from cfnet.record.entry import Entry

CHEAT = 1


def _table(players: int, seed: int, version: int) -> Network:
    def factory(identity: Any, seat: int, entropy: Any) -> LocalSeat:
        return Recording(identity, seat, entropy)

    options = RuleOptions(rounds=2)
    return start_tables(players, seed, options, seats=factory, timeout=60, version=version)


def _hold_second_certificate(network: Network, cheat: int) -> list[Entry]:
    """From now on, `cheat`'s round-1 certificate is sent as usual, and a second one, for the
    same place, is signed and kept back (returned in the list, once signed)."""
    held: list[Entry] = []
    identity = network.tables[cheat].local.identity  # type: ignore[union-attr]

    def tamper(entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        if entry.kind == "certify" and entry.body["round"] == 1 and not held:
            held.append(resign(identity, entry, body={**entry.body, "head": bytes(32)}))
        return [(entry.wire, None)]

    network.tampers = {cheat: tamper}
    return held


def _late_certificate_after_a_resign(players: int, version: int) -> tuple[Network, dict[int, int]]:
    network = _table(players, 40 + players, version)
    honest = [s for s in range(players) if s != CHEAT]
    worst = track_exposure(network, honest)
    held = _hold_second_certificate(network, CHEAT)
    first = network.tables[honest[0]]
    network.run(until=lambda: in_round(network.tables[honest[0]], 2, moves=2))
    assert held, "the cheater signed its second certificate in round 1"
    network.tables[CHEAT].resign()
    network.run(until=lambda: first.rounds.deal == 1 and first.step is Step.TURNS)
    for seat in honest:  # the round is dealt again; now the second certificate comes
        network.tables[seat].receive(held[0].wire, network.now)
    network.run()
    return network, worst


@pytest.mark.parametrize("players", [3, 4])
def test_a_late_second_certificate_after_a_resign_rewinds_nothing(players: int) -> None:
    network, worst = _late_certificate_after_a_resign(players, 4)
    honest = [t for t in network.tables if t.me != CHEAT]
    assert worst == dict.fromkeys((t.me for t in honest), 0), worst
    for table in honest:
        events = network.events[table.me or 0]
        assert not any(isinstance(e, FaultFound) for e in events)
        assert [e.fault.seat for e in events if isinstance(e, ProofHeld)] == [CHEAT]
        (gone,) = [e for e in events if isinstance(e, Disqualified)]
        assert (gone.fault.seat, gone.fault.code) == (CHEAT, EQUIVOCATION)
        left = [e.fault for e in events if isinstance(e, SeatLeft)]
        assert [(f.seat, f.code) for f in left] == [(CHEAT, RESIGN)]  # nobody else left
        assert table.over and table.aborted is None
        assert CHEAT in table.game.disqualified and CHEAT not in table.game.winners()
        assert len(table.game.round_scores) == 2
    assert len({tuple(e.wire for e in t.entries) for t in honest}) == 1
    verdict = verify_entries(honest[0].entries)
    assert verdict.ok and verdict.removed == [CHEAT], verdict.problem
    assert "which had left, is disqualified" in verdict.departures[-1], verdict.departures


@pytest.mark.parametrize("players", [3, 4])
def test_in_version_3_the_late_certificate_opened_every_honest_hand(players: int) -> None:
    """What the attack did to version 3 (the issue's 42 of 42 tiles): kept as a witness that
    `track_exposure` sees it."""
    _, worst = _late_certificate_after_a_resign(players, 3)
    hand = 7 if players == 3 else 6  # the hand size for the seats dealt in again
    assert all(count >= hand for count in worst.values()), worst


def _collusion(version: int) -> tuple[Network, dict[int, int]]:
    """Seats 0 and 2 collude at a 4-seat table: 0 certifies round 1 twice (one kept back), 2
    resigns at its certificate; round 2 is dealt among 0, 1, 3 and its keys released; then 0
    sends its second certificate (a version-3 peer then deals round 2 again among 1, 2, 3:
    seat 1's place moves, and its hand is at the positions it had released keys for)."""
    network = _table(4, 51, version)
    honest = [1, 3]
    worst = track_exposure(network, honest)
    held = _hold_second_certificate(network, 0)
    first = network.tables[1]
    network.run(until=lambda: first.step is Step.CERTIFY and first.due() == (2, {"certify"}))
    network.tables[2].resign()
    network.run(until=lambda: in_round(network.tables[1], 2))
    assert first.rounds.seated == (0, 1, 3) and held
    for seat in (1, 2, 3):  # seat 2 passes it on too
        network.tables[seat].receive(held[0].wire, network.now)
    network.run()
    return network, worst


def test_two_colluders_across_a_redeal_open_no_honest_tile() -> None:
    network, worst = _collusion(4)
    assert worst == {1: 0, 3: 0}, worst
    for seat in (1, 3):
        table = network.tables[seat]
        assert table.over and table.game.disqualified == {0}
        assert table.game.round_seated[0] == (0, 1, 2, 3)  # round 1 stands as it was played
    assert network.tables[1].entries == network.tables[3].entries
    assert verify_entries(network.tables[1].entries).ok


def test_in_version_3_the_colluders_opened_honest_hands() -> None:
    _, worst = _collusion(3)
    assert any(count > 0 for count in worst.values()), worst


def _cheater_stalls_when_due(players: int) -> tuple[list[int], Network]:
    """A cheater whose proof is held stalls when it is due, so that no honest seat is due to
    post the proof (version 4: the seat due posts a held proof; a stall is timed out by a
    majority's stall votes): play until it is due in round 2's turns; it stops moving and its
    second round-1 certificate reaches every honest seat. The honest seats, and the network
    once the game settles."""
    network = _table(players, 60 + players, 4)
    honest = [s for s in range(players) if s != CHEAT]
    held = _hold_second_certificate(network, CHEAT)
    cheat = network.tables[CHEAT]
    network.run(
        until=lambda: in_round(network.tables[CHEAT], 2, moves=1) and cheat.awaiting_local_move
    )
    assert held, "the cheater signed its second certificate in round 1"
    network.players[CHEAT] = None  # it stalls
    for seat in honest:
        network.tables[seat].receive(held[0].wire, network.now)
    network.run()
    return honest, network


@pytest.mark.parametrize("players", [3, 4])
def test_a_cheater_that_stalls_is_timed_out_and_then_disqualified(players: int) -> None:
    honest, network = _cheater_stalls_when_due(players)
    tables = [network.tables[s] for s in honest]
    for table in tables:
        events = network.events[table.me or 0]
        assert [e.fault.seat for e in events if isinstance(e, ProofHeld)] == [CHEAT]
        left = [e.fault for e in events if isinstance(e, SeatLeft)]
        assert [(f.seat, f.code) for f in left] == [(CHEAT, TIMEOUT)]
        (gone,) = [e for e in events if isinstance(e, Disqualified)]
        assert (gone.fault.seat, gone.fault.code) == (CHEAT, EQUIVOCATION)
        assert table.over and table.aborted is None
        assert CHEAT in table.game.disqualified and CHEAT not in table.game.winners()
    assert len({tuple(e.wire for e in t.entries) for t in tables}) == 1
    verdict = verify_entries(tables[0].entries)
    assert verdict.ok and verdict.removed == [CHEAT], verdict.problem


def test_in_a_2_seat_game_the_proof_held_ends_it_not_the_stall() -> None:
    honest, network = _cheater_stalls_when_due(2)
    (table,) = [network.tables[s] for s in honest]
    events = network.events[table.me or 0]
    assert [e.fault.seat for e in events if isinstance(e, ProofHeld)] == [CHEAT]
    assert not any(isinstance(e, Stalled) for e in events)  # a proof needs no majority
    assert table.finished and table.game.disqualified == {CHEAT}
    assert table.game.winners() == (table.me,)
    verdict = verify_entries(table.entries)
    assert verdict.ok and verdict.removed == [CHEAT], verdict.problem
