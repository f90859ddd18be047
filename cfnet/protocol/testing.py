"""In-memory tables: N peers, each with its own secrets, exchanging only signed entries through
the table state machine, with a virtual clock. Used by `cfnet selfplay --protocol`, the tests
and the benchmark. Reproducible: identities, table id and round seeds are derived from a seed
with SHAKE-256 (labels "cfnet/v1/sim-..."), bots are seeded."""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from cfnet.errors import PeerProtocolError
from cfnet.game.bots import Player, make_bot
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import Appended, Event, ProofHeld, TimeoutDisproved, VoteCast, drain
from cfnet.protocol.genesis import SeatInfo, make_genesis
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.table import Table
from cfnet.protocol.wire import DEFAULT_TIMEOUT, PROTOCOL_VERSION
from cfnet.record.entry import Entry
from cfnet.record.identity import Identity

Tamper = Callable[[Entry], list[tuple[bytes, frozenset[int] | None]]]
"""Rewrites one outgoing entry of a seat into (wire, recipients or None for all) deliveries."""

SeatFactory = Callable[[Identity, int, Callable[[int], bytes]], LocalSeat]
MAX_STEPS = 1_000_000


def derived(label: str, seed: int, *parts: int, size: int = 32) -> bytes:
    """SHAKE-256(label || seed || parts): reproducible bytes for simulated peers."""
    data = label.encode() + b"".join(x.to_bytes(8, "big") for x in (seed, *parts))
    return hashlib.shake_256(data).digest(size)


def sim_entropy(seed: int, seat: int) -> Callable[[int], bytes]:
    """A reproducible stream of secret bytes for one simulated seat."""
    counter = iter(range(1 << 62))
    return lambda n: derived("cfnet/v1/sim-entropy", seed, seat, next(counter), size=n)


def sim_identity(seed: int, seat: int) -> Identity:
    return Identity.from_seed(derived("cfnet/v1/sim-identity", seed, seat))


@dataclass
class Network:
    """Peers joined by perfect in-memory links; every peer echoes every entry it appends."""

    tables: list[Table]
    players: list[Player | None]
    tampers: Mapping[int, Tamper] = field(default_factory=dict)
    now: float = 0.0
    errors: list[tuple[int, PeerProtocolError]] = field(default_factory=list)
    events: list[list[Event]] = field(default_factory=list)
    watch: Callable[[Network], None] | None = None
    cut: set[tuple[int, int]] = field(default_factory=set)
    """Links (sender, receiver) that lose everything sent on them."""

    def __post_init__(self) -> None:
        self.events = [drain(t.next_event) for t in self.tables]

    def _take_events(self, seat: int) -> list[Event]:
        """The events seat `seat`'s table queued since the last call (kept in `events`)."""
        got = drain(self.tables[seat].next_event)
        self.events[seat] += got
        return got

    def run(self, until: Callable[[], bool] | None = None) -> None:
        """Play until every table is finished, nothing more can happen, or `until()` holds
        (checked between exchanges)."""
        for _ in range(MAX_STEPS):
            if until is not None and until():
                return
            if not self._step() and not self._advance_clock():
                return
        raise RuntimeError("the simulated table did not settle")

    def _step(self) -> bool:
        moved = False
        queue: deque[tuple[int, int, bytes]] = deque()
        for seat, (table, player) in enumerate(zip(self.tables, self.players, strict=True)):
            if player is not None and table.awaiting_local_move:
                table.choose(player.choose(table.view()))
            posted = table.entries_to_send(self.now)
            moved |= self._send_own(seat, self._take_events(seat), queue)
            for entry in posted:
                moved = True
                tamper = self.tampers.get(seat)
                for wire, to in tamper(entry) if tamper else [(entry.wire, None)]:
                    queue.extend(
                        (seat, t, wire) for t in to or range(len(self.tables)) if t != seat
                    )
        self._deliver(queue)
        return moved

    def _send_own(
        self, seat: int, events: list[Event], queue: deque[tuple[int, int, bytes]]
    ) -> bool:
        """Queue to every other peer what `seat` sends of its own accord on `events` (raised
        outside the exchanges): each stall vote it cast and each proof or disproof it holds;
        whether a proof was among them (the table moves on when the seat due posts it)."""
        proof = False
        for event in events:
            if isinstance(event, VoteCast):
                queue.extend((seat, t, event.vote.wire) for t in self._others(seat))
            elif isinstance(event, ProofHeld | TimeoutDisproved):
                proof = True
                queue.extend((seat, t, w) for w in _passed_on(event) for t in self._others(seat))
        return proof

    def resync(self) -> None:
        """What the mesh does when links come back: each peer answers every other's `sync`
        (its entries from the other's count - 1 on) and sends its own open stall vote and the
        disproof it holds again."""
        queue: deque[tuple[int, int, bytes]] = deque()
        for sender, table in enumerate(self.tables):
            vote = table.own_vote()
            for target, other in enumerate(self.tables):
                if target == sender:
                    continue
                start = max(0, min(len(other.entries), len(table.entries)) - 1)
                queue.extend((sender, target, e.wire) for e in table.entries[start:])
                if vote is not None:
                    queue.append((sender, target, vote.wire))
                if table.disproof is not None:
                    queue.extend((sender, target, wire) for wire in table.disproof.entries)
        self._deliver(queue)

    def send(self, sender: int, targets: Iterable[int], wire: bytes) -> None:
        """`sender` sends `wire` to `targets` over the links (not those cut), with the echoes
        it brings, as any entry travels."""
        self._deliver(deque((sender, target, wire) for target in targets))

    def _deliver(self, queue: deque[tuple[int, int, bytes]]) -> None:
        """Deliver the queue (and the echoes it brings) over the links not cut."""
        while queue:
            sender, target, wire = queue.popleft()
            if (sender, target) in self.cut:
                continue
            try:
                self.tables[target].receive(wire, self.now)
            except PeerProtocolError as error:
                self.errors.append((target, error))
                continue
            for event in self._take_events(target):
                for echo in _passed_on(event):
                    queue.extend((target, t, echo) for t in self._others(target))
            if self.watch is not None:
                self.watch(self)

    def _others(self, seat: int) -> list[int]:
        return [t for t in range(len(self.tables)) if t != seat]

    def _advance_clock(self) -> bool:
        deadlines = [d for t in self.tables if (d := t.get_timer()) is not None]
        if not deadlines:
            return False
        self.now = max(self.now, min(deadlines))
        queue: deque[tuple[int, int, bytes]] = deque()
        for seat, table in enumerate(self.tables):
            table.handle_timer(self.now)
            self._send_own(seat, self._take_events(seat), queue)
        self._deliver(queue)
        return True


def _passed_on(event: Event) -> list[bytes]:
    """What a peer sends every other peer on `event`: an entry it appended (its echo), the
    two entries of a proof it holds (so that the seat due holds it too), and the chain of a
    disproof (so that a peer that took the timeout goes back to it)."""
    if isinstance(event, Appended):
        return [event.entry.wire]
    if isinstance(event, ProofHeld):
        entries: list[bytes] = event.fault.evidence["entries"]
        return entries
    if isinstance(event, TimeoutDisproved):
        return list(event.entries)
    return []


def start_tables(
    players: int,
    seed: int,
    options: RuleOptions | None = None,
    bots: Sequence[str] = ("greedy",),
    seats: SeatFactory | None = None,
    timeout: int = DEFAULT_TIMEOUT,
    version: int = PROTOCOL_VERSION,
) -> Network:
    """A network of `players` simulated peers at one new table of protocol `version` (nothing
    posted yet)."""
    options = RuleOptions() if options is None else options
    identities = [sim_identity(seed, s) for s in range(players)]
    infos = [SeatInfo(f"bot{s}", identities[s].public) for s in range(players)]
    table_id = derived("cfnet/v1/sim-table", seed, size=16)
    genesis = make_genesis(identities[0], table_id, "selfplay", options, infos, timeout, version)
    factory = seats or (lambda identity, seat, entropy: LocalSeat(identity, seat, entropy))
    tables = [
        Table(genesis.wire, factory(identities[s], s, sim_entropy(seed, s))) for s in range(players)
    ]
    bot_players: list[Player | None] = [
        make_bot(bots[s % len(bots)], seed * 1009 + s) for s in range(players)
    ]
    return Network(tables, bot_players)


def play_protocol_game(
    players: int,
    seed: int,
    options: RuleOptions | None = None,
    bots: Sequence[str] = ("greedy",),
    version: int = PROTOCOL_VERSION,
) -> Network:
    """A complete game between `players` honest simulated peers."""
    network = start_tables(players, seed, options, bots, version=version)
    network.run()
    return network
