"""Protocol version 4: a seat that stops answering is timed out only by the signed stall votes
of a majority of the seats dealt in. A seat cut off from the others times nobody out: it waits,
and after the heal it takes the majority's chain. With 2 seats a stall ends the game unfinished.
In memory: peers joined by in-memory links, some of them cut and then healed."""

from __future__ import annotations

import pytest

from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import SeatLeft, Stalled, VoteCast
from cfnet.protocol.testing import Network, start_tables
from cfnet.protocol.verify import verify_entries
from cfnet.protocol.votes import needed
from cfnet.protocol.wire import TIMEOUT, TURN_KINDS

TIMEOUT_S = 30


def _isolate(network: Network, *sides: set[int]) -> None:
    """Cut every link between each of `sides` and the seats outside it, both ways."""
    for side in sides:
        _cut_off(network, side)


def _cut_off(network: Network, side: set[int]) -> None:
    """Cut every link between `side` and the other seats, both ways."""
    rest = set(range(len(network.tables))) - side
    network.cut |= {(a, b) for a in side for b in rest} | {(b, a) for a in side for b in rest}


def _heal(network: Network) -> None:
    network.cut.clear()
    network.resync()
    network.run()


def _left(network: Network, seat: int) -> list[tuple[int, str]]:
    return [(e.fault.seat, e.fault.code) for e in network.events[seat] if isinstance(e, SeatLeft)]


def _playing(seed: int, players: int = 4, rounds: int = 1) -> Network:
    network = start_tables(players, seed, RuleOptions(rounds=rounds), timeout=TIMEOUT_S)
    network.run(until=lambda: len(network.tables[0].entries) > 3 * players + 8)
    return network


def test_majorities_are_more_than_half_of_the_seats_dealt_in() -> None:
    assert [needed(n) for n in range(2, 9)] == [2, 2, 3, 3, 4, 4, 5]


def test_a_seat_cut_off_times_nobody_out_and_takes_the_majoritys_chain_after_the_heal() -> None:
    """Seat 3 is cut off from the 3 others for longer than the timeout: they vote it out (3 of
    4) and finish the game without it; seat 3 votes too, alone, times nobody out, and says it
    cannot reach a majority. Healed, it takes their chain: one log, one result, and it has left
    (as a seat timed out that may come back)."""
    network = _playing(7)
    _cut_off(network, {3})
    network.run()
    alone = network.tables[3]
    assert not alone.finished and _left(network, 3) == []
    (cast,) = [e for e in network.events[3] if isinstance(e, VoteCast)]
    assert (cast.votes, cast.needed) == (1, 3)
    assert "waiting: cannot reach a majority" in cast.describe([f"bot{s}" for s in range(4)])
    for seat in range(3):
        assert network.tables[seat].over and _left(network, seat) == [(3, TIMEOUT)]
    cut_off_log = [e.wire for e in alone.entries]
    cut_off_verdict = verify_entries(alone.entries)  # its log proves no other result
    assert cut_off_verdict.valid and not cut_off_verdict.finished
    _heal(network)
    logs = {tuple(e.wire for e in t.entries) for t in network.tables}
    assert len(logs) == 1
    (log,) = logs
    assert list(log[: len(cut_off_log) - 1]) == cut_off_log[:-1]  # at most its last entry went
    assert alone.departed and alone.over
    verdict = verify_entries(alone.entries)
    assert verdict.ok and "timed out by the votes of" in verdict.departures[0], verdict.departures


def test_two_of_four_cut_off_nobody_is_timed_out_and_the_game_goes_on_after_the_heal() -> None:
    for seed in (7, 8, 9):
        network = _playing(seed)
        _cut_off(network, {0, 1})
        network.run()
        assert not any(t.finished for t in network.tables)
        assert all(_left(network, seat) == [] for seat in range(4))
        assert any(isinstance(e, VoteCast) for events in network.events for e in events)
        _heal(network)
        assert all(t.over and not t.departed for t in network.tables), seed
        assert len({tuple(e.wire for e in t.entries) for t in network.tables}) == 1
        verdict = verify_entries(network.tables[0].entries)
        assert verdict.ok and verdict.departures == [], verdict.departures


def _heal_and_count(network: Network) -> tuple[float, list[VoteCast]]:
    """Heal every link and play on to the end: how many deadlines the clock moved on by since
    the heal, and the stall votes cast since."""
    healed, seen = network.now, [len(events) for events in network.events]
    _heal(network)
    cast = [
        e
        for events, before in zip(network.events, seen, strict=True)
        for e in events[before:]
        if isinstance(e, VoteCast)
    ]
    return (network.now - healed) / TIMEOUT_S, cast


@pytest.mark.parametrize(("seed", "side"), [(1, {0, 2}), (2, {0, 2}), (3, {0, 1}), (7, {0, 3})])
def test_after_a_two_and_two_split_heals_no_step_waits_for_a_deadline(
    seed: int, side: set[int]
) -> None:
    """Split 2 and 2 until both sides have voted (against a seat across the cut, each at its
    own place), then healed: a seat that voted lets its vote go when the entry it waited for
    comes, and plays its own turns at once. So the game finishes without one deadline more and
    without one vote more (before, a voter held back its turn until half of the seats had
    signed after the late entry: with the seats taking turns across the cut, every step waited
    out a deadline and drew new votes, 81 deadlines for seed 1), and nobody is timed out."""
    network = _playing(seed)
    _cut_off(network, side)
    network.run()
    assert any(isinstance(e, VoteCast) for e in network.events[min(side)])
    assert any(isinstance(e, VoteCast) for e in network.events[min({0, 1, 2, 3} - side)])
    deadlines, cast = _heal_and_count(network)
    assert (deadlines, cast) == (0, [])
    assert all(t.over and not t.departed for t in network.tables)
    assert all(_left(network, seat) == [] for seat in range(4))
    assert len({tuple(e.wire for e in t.entries) for t in network.tables}) == 1
    verdict = verify_entries(network.tables[0].entries)
    assert verdict.ok and verdict.departures == [], verdict.departures


def _due_to_play(network: Network, seat: int) -> None:
    """Play on until `seat` is due for a turn (draw, pass or play)."""
    network.run(until=lambda: network.tables[0].due() == (seat, TURN_KINDS))


def test_votes_of_seats_cut_off_one_by_one_are_no_majority_once_the_entry_comes() -> None:
    """Seat 2 is due; seats 0 and 1 are each cut off alone (from everyone) while seats 2 and 3
    stay linked: seat 2 plays, seat 3 takes it, and seats 0 and 1 each vote against seat 2 at
    that place. Healed, their two votes meet: 2 of the 3 needed, and the entry they waited for
    has come, so both let their votes go and play on; nobody is timed out, no deadline more."""
    network = _playing(11)
    _due_to_play(network, 2)
    place = len(network.tables[0].entries)
    _isolate(network, {0}, {1})
    network.run()
    for seat in (0, 1):
        (cast,) = [e for e in network.events[seat] if isinstance(e, VoteCast)]
        assert (cast.vote.seq, cast.seat, cast.votes, cast.needed) == (place, 2, 1, 3)
    assert network.tables[3].entries[place].seat == 2  # seat 3 holds seat 2's entry there
    deadlines, cast = _heal_and_count(network)
    assert (deadlines, cast) == (0, [])
    assert all(len(network.tables[s].ballot.tally(place)) <= 2 for s in range(4))
    assert all(_left(network, seat) == [] for seat in range(4))
    assert all(t.over and not t.departed for t in network.tables)
    assert len({tuple(e.wire for e in t.entries) for t in network.tables}) == 1
    assert verify_entries(network.tables[0].entries).departures == []


def test_votes_of_a_majority_cut_off_one_by_one_time_out_the_seat_that_really_stalled() -> None:
    """Seat 2 is due and really stalls (it never moves), while seats 0 and 1 are each cut off
    alone; seat 3, linked to seat 2 only, votes too. No seat holds more than its own vote
    until the heal; then the three votes for the same place meet, a real majority (each of
    the three waited out its deadline for seat 2 there), and seat 2 is timed out by them:
    one log, the same verdict everywhere, nobody else blamed."""
    network = _playing(11)
    _due_to_play(network, 2)
    place = len(network.tables[0].entries)
    network.players[2] = None  # seat 2 never chooses a move
    _isolate(network, {0}, {1})
    network.run()
    for seat in (0, 1, 3):
        (cast,) = [e for e in network.events[seat] if isinstance(e, VoteCast)]
        assert (cast.vote.seq, cast.seat, cast.votes, cast.needed) == (place, 2, 1, 3)
    assert not any(_left(network, seat) for seat in range(4))
    _heal(network)
    for seat in range(4):
        assert _left(network, seat) == [(2, TIMEOUT)]
    assert len({tuple(e.wire for e in t.entries) for t in network.tables}) == 1
    verdict = verify_entries(network.tables[0].entries)
    assert verdict.ok, verdict.problem
    (departure,) = verdict.departures
    assert departure.startswith("departure: entry ") and "seat 2 (bot2) did not post" in departure
    assert "timed out by the votes of seat 0 (bot0), seat 1 (bot1), seat 3 (bot3)" in departure


def test_a_seat_that_hears_nobody_times_nobody_out() -> None:
    """Seat 0 hears nobody (the others hear it): its vote against the seat due is 1 of the 2
    needed. Seats 1 and 2 time seat 0 out when it is due (2 of 3) and finish; seat 0 never
    times anyone out (in version 3 it did: tests/test_table_api.py)."""
    network = start_tables(3, 9, RuleOptions(rounds=1), timeout=TIMEOUT_S)
    network.run(until=lambda: network.tables[0].due() == (1, frozenset({"shuffle_b"})))
    network.cut = {(1, 0), (2, 0)}
    network.run()
    assert _left(network, 0) == [] and not network.tables[0].finished
    for seat in (1, 2):
        assert network.tables[seat].over and _left(network, seat) == [(0, TIMEOUT)]


def test_with_two_seats_a_stall_ends_the_game_unfinished_a_win_for_nobody() -> None:
    network = start_tables(2, 31, RuleOptions(rounds=3), timeout=TIMEOUT_S)
    network.run(until=lambda: network.tables[0].game.round_number == 2)
    network.tampers = {1: lambda entry: []}  # seat 1's entries reach nobody from now on
    network.run()
    host = network.tables[0]
    (stalled,) = [e for e in network.events[0] if isinstance(e, Stalled)]
    assert stalled.seat == 1
    assert "the game ends unfinished, a win for nobody" in stalled.describe(["bot0", "bot1"])
    assert not host.finished and host.aborted is None and host.get_timer() is None
    verdict = verify_entries(host.entries)
    assert verdict.valid and not verdict.finished and verdict.blamed is None
    assert verdict.due == 1


def test_a_seat_that_left_after_a_majority_timed_it_out_can_come_back() -> None:
    network = _playing(7, rounds=2)
    _cut_off(network, {3})
    network.run(until=lambda: 3 not in network.tables[0].rounds.seated)
    network.cut.clear()
    network.resync()
    alone = network.tables[3]
    network.run(until=lambda: alone.departed)
    request = alone.return_request()
    for table in network.tables[:3]:
        table.receive(request.wire, network.now)
    network.run()
    assert all(t.over for t in network.tables)
    assert network.tables[0].game.round_seated[-1] == (0, 1, 2, 3)
    assert verify_entries(network.tables[0].entries).ok


@pytest.mark.parametrize("votes_first", [False, True])
def test_every_seat_cut_off_alone_one_game_whichever_comes_first(votes_first: bool) -> None:
    """Every link is cut while seat 3 is due: seat 3 plays alone, and seats 0, 1 and 2 each
    vote against it at that place, each alone. Healed, what decides is what a voter holds when
    the votes meet: if seat 3's entry has reached the voters, they let their votes go and
    nobody is timed out (before, the three votes still timed seat 3 out after the heal); if the
    three votes meet at seat 0 first, seat 3 was late for a majority and seat 0's timeout, with
    those votes, replaces seat 3's entry wherever it has come. Either way: one log, the same
    verdict everywhere, nobody else left, and no deadline waited out after the heal."""
    network = _playing(12)
    _due_to_play(network, 3)
    place = len(network.tables[0].entries)
    _isolate(network, {0}, {1}, {2})
    network.run()
    votes = [network.tables[s].own_vote() for s in range(3)]
    assert all(v is not None and v.seq == place for v in votes)
    late = network.tables[3].entries[place]
    assert late.seat == 3
    network.cut.clear()
    if votes_first:
        for vote in votes[1:]:
            network.tables[0].receive(vote.wire, network.now)  # type: ignore[union-attr]
        network.run(until=lambda: len(network.tables[0].entries) > place)
        assert network.tables[0].entries[place].kind == "abort"
    else:
        for seat in range(3):
            network.tables[seat].receive(late.wire, network.now)
    deadlines, _ = _heal_and_count(network)
    assert deadlines == 0
    expected = [(3, TIMEOUT)] if votes_first else []
    assert all(_left(network, seat) == expected for seat in range(4))
    assert len({tuple(e.wire for e in t.entries) for t in network.tables}) == 1
    verdict = verify_entries(network.tables[0].entries)
    assert verdict.ok and len(verdict.departures) == len(expected), verdict.departures
