"""Cheating seats for the zoo: a LocalSeat wrapper that rewrites the seat's own outgoing entries
before signing them with its own key, and network tampers that change what is delivered; and
honest seats that record every secret they ever gave away (`Recording`), to count the tiles of
their hands that the other seats could open before they were played (`exposed`)."""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import Any

from cfnet.deck.sra import SeatSecrets
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import Event, FaultFound, SeatLeft
from cfnet.protocol.local_seat import LocalSeat, SeatRound
from cfnet.protocol.schedule import Step
from cfnet.protocol.table import Table
from cfnet.protocol.testing import Network, Tamper, start_tables
from cfnet.protocol.verify import Verdict, verify_entries
from cfnet.protocol.wire import PROTOCOL_VERSION, RESIGN, TIMEOUT, Fault, unpack
from cfnet.record.codec import encode_canonical
from cfnet.record.entry import Entry, sign_entry
from cfnet.record.identity import Identity

Rewrite = Callable[["Cheater", str, dict[str, Any]], tuple[str, dict[str, Any]] | None]


class Recording(LocalSeat):
    """An honest seat that records every position key it released (in any entry it signed,
    on any chain) and every key a seed it revealed gives: what the others may hold."""

    def __init__(self, identity: Identity, seat: int, entropy: Callable[[int], bytes]) -> None:
        super().__init__(identity, seat, entropy)
        self.given: set[bytes] = set()
        self._tags: dict[bytes, int] = {}  # each secret seed used -> the round tag it was for

    def seed(self, round_number: int) -> bytes:
        seed = super().seed(round_number)
        self._tags[seed] = round_number
        return seed

    def deal_seed(self, table_id: bytes, tag: int, after: bytes) -> bytes:
        seed = super().deal_seed(table_id, tag, after)
        self._tags[seed] = tag
        return seed

    def sign(
        self, table_id: bytes, seq: int, prev: bytes, kind: str, body: dict[str, Any]
    ) -> Entry:
        if kind == "deal":
            self.given.update(unpack(body["keys"]))
        elif kind in ("yard_key", "play"):
            self.given.add(body["key"])
        elif kind == "reveal":
            seed = body["seed"]
            secrets = SeatSecrets.derive(seed, table_id, self._tags[seed], self.seat)
            self.given.update(secrets.position_keys)
        return super().sign(table_id, seq, prev, kind, body)


def open_tiles(table: Table, given: Callable[[SeatRound], Container[bytes]]) -> int:
    """How many unplayed tiles of `table`'s local hand (dealt or drawn) the other seats could
    open now, when they hold the local seat's own keys `given(its round)`: every other seat's
    key for a dealt tile is public, so a tile is open to them as soon as the local seat's own
    key for its position is out."""
    seat = table.rounds.seat
    playing = table.step is Step.TURNS and not table.finished  # the reveal opens what is left
    if seat is None or table.departed or not playing:
        return 0
    checks = seat.checks
    positions = {*checks.dealt_positions(seat.me), *seat.mine} - checks.played
    own, keys = seat.secrets.position_keys, given(seat)
    return sum(1 for p in positions if own[p] in keys)


def exposed(table: Table) -> int:
    """How many unplayed tiles of `table`'s local hand the other seats could open now, from
    the keys a `Recording` seat gave away anywhere (0 for another seat)."""
    local = table.local
    return open_tiles(table, lambda _: local.given) if isinstance(local, Recording) else 0


def track_exposure(network: Network, honest: Sequence[int]) -> dict[int, int]:
    """Watch `network` from now on: the most tiles of each honest seat's hand that were ever
    open to the others at once (the dict fills in as the network runs)."""
    worst = dict.fromkeys(honest, 0)

    def watch(net: Network) -> None:
        for seat in honest:
            worst[seat] = max(worst[seat], exposed(net.tables[seat]))

    network.watch = watch
    return worst


class Cheater(LocalSeat):
    """A seat whose entries pass through `rewrite` until it has changed `times` of them;
    `cheated_at` is the seq of the last changed entry."""

    def __init__(
        self,
        identity: Identity,
        seat: int,
        entropy: Callable[[int], bytes],
        rewrite: Rewrite,
        times: int = 1,
    ) -> None:
        super().__init__(identity, seat, entropy)
        self.rewrite = rewrite
        self.times = times
        self.table: Table | None = None
        self.cheated_at: int | None = None

    def sign(
        self, table_id: bytes, seq: int, prev: bytes, kind: str, body: dict[str, Any]
    ) -> Entry:
        if self.times:
            changed = self.rewrite(self, kind, dict(body))
            if changed is not None:
                kind, body = changed
                self.cheated_at = seq
                self.times -= 1
        return super().sign(table_id, seq, prev, kind, body)


def plays_the_next_tile(c: Cheater, kind: str, body: dict[str, Any]) -> Any:
    """A `play` that names the tile after the one its position holds (id + 1, mod 55): a tile
    the seat does not hold, otherwise the entry an honest seat would sign."""
    return (kind, {**body, "tile": (body["tile"] + 1) % 55}) if kind == "play" else None


def run(
    players: int,
    seed: int,
    cheat: int,
    rewrite: Rewrite | None = None,
    tamper: Callable[[Network], Tamper] | None = None,
    rounds: int = 1,
    bots: Sequence[str] = ("greedy",),
    times: int = 1,
    version: int = PROTOCOL_VERSION,
) -> tuple[Network, Cheater | None]:
    """A game of protocol `version` in which seat `cheat` rewrites its entries and/or tampers
    with deliveries."""

    def factory(identity: Identity, seat: int, entropy: Callable[[int], bytes]) -> LocalSeat:
        if seat == cheat and rewrite is not None:
            return Cheater(identity, seat, entropy, rewrite, times)
        return Recording(identity, seat, entropy)

    options = RuleOptions(rounds=rounds)
    network = start_tables(players, seed, options, bots, factory, timeout=60, version=version)
    cheater = network.tables[cheat].local
    if isinstance(cheater, Cheater):
        cheater.table = network.tables[cheat]
    if tamper is not None:
        network.tampers = {cheat: tamper(network)}
    network.run()
    return network, cheater if isinstance(cheater, Cheater) else None


def named(table: Table, events: Sequence[Event]) -> Fault | None:
    """The fault for which `table` named a seat: the abort that ended its game, else its last
    removal of a seat proven to cheat (None: it named nobody)."""
    if table.aborted is not None:
        return table.aborted
    removals = [
        e.fault for e in events if isinstance(e, SeatLeft) and e.fault.code not in (RESIGN, TIMEOUT)
    ]
    return removals[-1] if removals else None


def proven(verdict: Verdict) -> int | None:
    """The seat a verdict proves cheated: to blame, or removed (None: nobody)."""
    if verdict.blamed is not None:
        return verdict.blamed
    return verdict.removed[-1] if verdict.removed else None


def assert_caught(network: Network, cheat: int, code: str | None = None) -> int:
    """Every honest seat named `cheat` for one fault: it removed it for cheating (the game then
    went on without it, or its result stood, `cheat` disqualified), or, when that left no game
    to play, ended with an abort naming it (a `timeout` claim: a departure). No honest seat
    blamed an honest seat, all hold the same log, and `verify` on it names `cheat` (removed, to
    blame, or in the timeout claim it reports). Returns the fault's entry seq."""
    honest = [t for t in network.tables if t.me != cheat]
    faults: list[Fault] = []
    for table in honest:
        assert table.me is not None
        events = network.events[table.me]
        left = [e.fault for e in events if isinstance(e, SeatLeft) and e.fault.seat == cheat]
        ended = table.aborted if table.aborted is not None else None
        fault = left[-1] if left else ended  # the last: an abort may supersede a resign
        assert fault is not None, f"seat {table.me} neither removed seat {cheat} nor aborted"
        assert fault.seat == cheat, fault
        if code is not None:
            assert fault.code == code, fault
        faults.append(fault)
        for event in events:
            if isinstance(event, FaultFound):
                assert event.fault.seat == cheat, f"seat {table.me} blamed {event.fault}"
        if left and fault.code != TIMEOUT:
            assert table.finished and table.aborted is None, table.aborted
            assert cheat in table.game.disqualified and cheat not in table.game.winners()
    assert len({(f.code, f.seq) for f in faults}) == 1, faults
    assert len({b"".join(e.wire for e in t.entries) for t in honest}) == 1
    verdict = verify_entries(honest[0].entries)
    fault = faults[0]
    if fault.code == TIMEOUT:  # offline, only the poster's claim: nobody is proven at fault
        assert verdict.blamed is None, verdict.problem
        said = verdict.problem + " ".join(verdict.departures)
        assert f"seat {cheat} (bot{cheat})" in said, said
    elif cheat in verdict.removed:  # removed: the game's result stands without it
        assert verdict.ok, verdict.problem
        assert any("is removed and disqualified" in line for line in verdict.departures) or (
            "is removed and disqualified" in verdict.note
        ), (verdict.departures, verdict.note)
    else:
        assert not verdict.ok and verdict.blamed == cheat, verdict.problem
    return -1 if fault.seq is None else fault.seq


def assert_timed_out(network: Network, stalled: int) -> SeatLeft:
    """Every honest seat saw `stalled` timed out (a departure, blaming nobody) and went on
    without it, blamed no honest seat, and holds the same log; `verify` on that log blames
    nobody and reports the departure. Returns the departure."""
    honest = [t for t in network.tables if t.me != stalled]
    left: list[SeatLeft] = []
    for table in honest:
        assert table.me is not None
        assert table.aborted is None and stalled not in table.rounds.seated
        events = network.events[table.me]
        left += [e for e in events if isinstance(e, SeatLeft)]
        for event in events:
            if isinstance(event, FaultFound):
                assert event.fault.seat == stalled, f"seat {table.me} blamed {event.fault}"
    assert {(e.fault.seat, e.fault.code) for e in left} == {(stalled, TIMEOUT)}
    assert len({b"".join(e.wire for e in t.entries) for t in honest}) == 1
    verdict = verify_entries(honest[0].entries)
    assert verdict.valid and verdict.blamed is None, verdict.problem
    said = (  # from version 4 a timeout is proven by a majority's votes, not one seat's claim
        f"seat {stalled} (bot{stalled}) did not post"
        if honest[0].votes
        else f"claims seat {stalled} (bot{stalled})"
    )
    assert said in verdict.departures[0], verdict.departures
    assert honest[0].votes == ("timed out by the votes of" in verdict.departures[0])
    return left[0]


def resign(identity: Identity, entry: Entry, **changes: Any) -> Entry:
    """`entry` with some fields changed, signed again by `identity`."""
    fields: dict[str, Any] = {
        "table_id": entry.table_id,
        "seq": entry.seq,
        "prev": entry.prev,
        "seat": entry.seat,
        "kind": entry.kind,
        "body": dict(entry.body),
    }
    fields.update(changes)
    return sign_entry(identity, **fields)


def bad_signature(entry: Entry) -> bytes:
    """`entry`'s wire with one bit of the signature flipped."""
    signature = bytes([entry.signature[0] ^ 1]) + entry.signature[1:]
    return encode_canonical([entry.signed, signature])


def in_round(table: Table, number: int, moves: int = 0, deal: int | None = None) -> bool:
    """`table` is in round `number`'s turns (of deal `deal`, if given), `moves` made."""
    r, public = table.round, table.public
    return (
        r is not None
        and r.number == number
        and table.step is Step.TURNS
        and public is not None
        and len(public.moves) >= moves
        and (deal is None or table.rounds.deal == deal)
    )
