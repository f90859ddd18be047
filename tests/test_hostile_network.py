"""Honest seats on a hostile network: entries are delayed, reordered and duplicated, a seat is
cut off from everyone for up to 2.5 timeouts now and then (what it sends and what is sent to it
meanwhile is lost; the keepalive `sync` brings the chain back once it is linked again), and any
entry ever signed is replayed to any peer at any moment, as a peer or a router in the middle
may do. Whatever the schedule, no honest seat is ever blamed for a cheat, live or by `verify`
of any peer's chain: a seat cut off may be timed out, which is a departure, not a blame. Stall
votes go to every peer (and again with each `sync`), and only a majority's votes time a seat
out, so a seat cut off never times the others out: whatever the schedule, no two peers' logs
verify with different results, and once every link is back every peer holds the same chain."""

from __future__ import annotations

import contextlib
import heapq
import random
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfnet.errors import PeerProtocolError
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import Aborted, Appended, Event, FaultFound, SeatLeft, VoteCast, drain
from cfnet.protocol.testing import start_tables
from cfnet.protocol.verify import verify_entries
from cfnet.protocol.wire import RESIGN, TIMEOUT

TIMEOUT_S = 60
SYNC_EVERY = 7.0  # how often each peer asks every other for what follows its head
GIVE_UP = 20_000.0  # virtual seconds: far beyond any honest game of one round


@dataclass
class Schedule:
    """The network's choices, from one seed: delays, duplicates, replays."""

    rng: random.Random
    replay: float  # chance, per delivery, that an old entry is replayed too
    cuts: list[tuple[float, float, int]]  # (from, until, seat): the seat is cut off meanwhile
    deliveries: list[tuple[float, int, int, bytes]] = field(default_factory=list)
    signed: list[bytes] = field(default_factory=list)
    order: int = 0

    def cut_off(self, now: float, *seats: int) -> bool:
        """Whether one of `seats` is cut off at `now`."""
        return any(start <= now < end and seat in seats for start, end, seat in self.cuts)

    def send(self, now: float, sender: int, target: int, wire: bytes) -> None:
        """Queue `wire` for `target` (lost if either end is cut off): within 3 s, maybe twice."""
        if self.cut_off(now, sender, target):
            return
        for _ in range(2 if self.rng.random() < 0.1 else 1):
            self.order += 1
            heapq.heappush(
                self.deliveries, (now + self.rng.uniform(0, 3), self.order, target, wire)
            )


def _blame(event: Event) -> str | None:
    """What `event` blames a seat for, unless it is a departure (a timeout, a resignation)."""
    if isinstance(event, FaultFound | Aborted | SeatLeft):
        fault = event.fault
        if fault.code not in (TIMEOUT, RESIGN):
            return f"{fault.code} of seat {fault.seat}: {fault.detail}"
    return None


def play_on_a_hostile_network(players: int, seed: int, cuts: int, replay: float) -> None:
    network = start_tables(players, seed, RuleOptions(rounds=1), timeout=TIMEOUT_S)
    tables, bots = network.tables, network.players
    rng = random.Random(seed)
    windows = []
    for _ in range(cuts):
        start = rng.uniform(0, 400)
        windows.append((start, start + rng.uniform(0.3, 2.5) * TIMEOUT_S, rng.randrange(players)))
    net = Schedule(rng, replay, windows)
    blames: list[str] = []
    now, next_sync = 0.0, SYNC_EVERY
    departed = False

    def handle(seat: int) -> None:
        nonlocal departed
        for event in drain(tables[seat].next_event):
            departed = departed or isinstance(event, SeatLeft | Aborted)
            if (blame := _blame(event)) is not None:
                blames.append(f"seat {seat} found {blame}")
            if isinstance(event, Appended | VoteCast):  # sent on, as the mesh does
                wire = event.entry.wire if isinstance(event, Appended) else event.vote.wire
                for target in range(players):
                    if target != seat:
                        net.send(now, seat, target, wire)

    def receive(seat: int, wire: bytes) -> None:
        if net.cut_off(now, seat):
            return
        with contextlib.suppress(PeerProtocolError):  # refused: proves nothing
            tables[seat].receive(wire, now)
        handle(seat)

    while now < GIVE_UP:
        for seat, (table, bot) in enumerate(zip(tables, bots, strict=True)):
            if bot is not None and table.awaiting_local_move:
                table.choose(bot.choose(table.view()))
            for entry in table.entries_to_send(now):
                net.signed.append(entry.wire)
            handle(seat)  # sent with the echoes: Appended
        if all(t.finished for t in tables) and not net.deliveries:
            break
        timers = [t for table in tables if (t := table.get_timer()) is not None]
        due = min([*timers, next_sync, *(d[0] for d in net.deliveries[:1])])
        now = max(now, due)
        while net.deliveries and net.deliveries[0][0] <= now:
            _, _, target, wire = heapq.heappop(net.deliveries)
            receive(target, wire)
            if net.signed and net.rng.random() < replay:
                receive(net.rng.randrange(players), net.rng.choice(net.signed[-30:]))
        if now >= next_sync:  # each peer's keepalive sync: the others answer from its head on
            next_sync = now + SYNC_EVERY
            for asker in range(players):
                for other in range(players):
                    if other != asker and not net.cut_off(now, asker, other):
                        held = min(len(tables[asker].entries), len(tables[other].entries))
                        for entry in tables[other].entries[max(0, held - 1) :]:
                            receive(asker, entry.wire)
                        if (vote := tables[other].own_vote()) is not None:
                            receive(asker, vote.wire)
        for seat, table in enumerate(tables):
            table.handle_timer(now)
            handle(seat)
    for seat in range(players):  # at last, a hostile peer hands each every entry ever signed
        for wire in net.signed:
            receive(seat, wire)
    assert not blames, blames
    results = set()
    for table in tables:
        verdict = verify_entries(table.entries)
        assert verdict.blamed is None, verdict
        if verdict.finished and verdict.table is not None:
            results.add((verdict.table.game.totals, verdict.table.game.winners()))
    assert len(results) <= 1, results  # one game, never two
    if not departed:
        assert all(table.finished for table in tables), f"not finished after {now:.0f} s"
        assert len({tuple(e.wire for e in table.entries) for table in tables}) == 1
        assert verify_entries(tables[0].entries).ok


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(3, 4),
    seed=st.integers(0, 10_000),
    cuts=st.integers(0, 3),
    replay=st.sampled_from([0.0, 0.2]),
)
def test_no_schedule_of_a_hostile_network_blames_an_honest_seat(
    players: int, seed: int, cuts: int, replay: float
) -> None:
    play_on_a_hostile_network(players, seed, cuts, replay)
