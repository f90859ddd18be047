"""Attack with real processes: rewind the chain, so that what the chain forgets the secrets
remember (issue 23; `test_rewinding_the_chain.py` has the same attacks in memory). An unmodified
`cfnet host` and `cfnet bot` (found by mDNS on 127.0.0.1) play against cheating seats built on
the library's own classes, in this process: each joins through the lobby, plays with a
`NetGame` whose table signs a second round-1 certificate and keeps it back; it goes on hearing
the game after it left, and once removed (or at the end) still listens to every peer with its
seat's key (a `Mesh` over an observer `Table`), so that it holds every entry it can get.

- One cheater resigns in round 2 (so the abandoned deal is audited and the honest seeds of
  (round 2, deal 0) are revealed), waits until round 2 is dealt again, then sends the second
  certificate. Version 3 cut the chain back to round 1's certificates and dealt round 2 again
  with the same, now public, seeds: live, all 21 tiles of both honest hands were open.
- Two colluders: one resigns at its round-1 certificate, the other sends its second
  certificate once round 2 is dealt without its partner and its keys are out.

In version 4 the certificates are final: the proof is taken at the head and nothing is rewound.
What the cheaters could open is counted as the issue counts it: the honest logs are replayed
with each honest seat's saved secrets, and at every entry the unplayed tiles of its hand whose
own key the cheaters held (in an entry they were given before they got anything later in the
chain, or from a seed they saw revealed) are counted."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from cheaters import in_round, open_tiles, resign
from lan_helpers import (
    CFNET,
    LOOPBACK,
    Peer,
    lobby_port,
    same_logs,
    table_peers,
    wait_all,
)
from test_lan_durability import Seat, quiet

from cfnet.deck.sra import SeatSecrets
from cfnet.disk.store import TableStore, load_identity
from cfnet.errors import PeerProtocolError
from cfnet.net.joining import join_table
from cfnet.net.lobby import Seating, SeatTaken, TableOpened
from cfnet.net.mesh import Mesh
from cfnet.net.roster import Roster
from cfnet.protocol.events import drain
from cfnet.protocol.local_seat import LocalSeat, SeatRound
from cfnet.protocol.schedule import Step
from cfnet.protocol.table import Table
from cfnet.protocol.wire import (
    ABORT,
    CERTIFY,
    DEAL,
    EQUIVOCATION,
    PLAY,
    RESIGN,
    REVEAL,
    YARD_KEY,
    unpack,
)
from cfnet.record.entry import Entry, decode_entry
from cfnet.seat.net_game import NetGame

DEADLINE = 120.0  # for any one step of a game on a busy machine: never reached when it works
TIMEOUT = 60  # the table's: nobody stalls here, so no deadline is ever judged


class Cheat(Table):
    """A cheating seat's table: it plays as an honest one, but signs a second round-1
    certificate for its place (another head) and keeps it back (`held`); every entry it is
    given goes to `arrivals` (shared by colluders). `act` says what it does besides."""

    def __init__(
        self, genesis: bytes, local: LocalSeat | None = None, now: float = 0.0, *,
        arrivals: list[bytes],
    ) -> None:  # fmt: skip
        super().__init__(genesis, local, now)
        self.arrivals = arrivals
        self.held: list[Entry] = []
        self.done = False  # `act` has acted...
        self.then: list[Entry] = []  # ...when its chain was this

    def receive(self, wire: bytes, now: float) -> None:
        self.arrivals.append(wire)
        super().receive(wire, now)

    def entries_to_send(self, now: float) -> list[Entry]:
        extra: list[Entry] = []
        if not self.done:
            extra = self.act()
            if self.done:
                self.then = list(self.entries)
        posted = super().entries_to_send(now)
        local = self.local
        assert local is not None
        for entry in posted:
            if entry.kind == CERTIFY and entry.body["round"] == 1 and not self.held:
                twin = resign(local.identity, entry, body={**entry.body, "head": bytes(32)})
                self.held.append(twin)
        return posted + extra

    def act(self) -> list[Entry]:
        """What it does now besides playing (sets `done` once it did it): entries to send."""
        return []


class ResignsThenSends(Cheat):
    """Resigns in round 2, once two moves are made; once round 2 is dealt again without it,
    sends its second round-1 certificate to every peer."""

    def act(self) -> list[Entry]:
        if not self.departed and in_round(self, 2, moves=2):
            self.resign()
        elif self.departed and in_round(self, 2, deal=1):
            self.done = True
            return self.held[:1]
        return []


class ResignsAtItsCertificate(Cheat):
    """Resigns when it is due to certify round 1."""

    def act(self) -> list[Entry]:
        if self.step is Step.CERTIFY and self.due() == (self.me, frozenset({CERTIFY})):
            self.resign()
            self.done = True
        return []


class SendsItsSecondCertificateInRound2(Cheat):
    """Sends its second round-1 certificate to every peer once round 2's turns are on."""

    def act(self) -> list[Entry]:
        if self.held and in_round(self, 2):
            self.done = True
            return [self.held[0]]
        return []


class HearsTheGameOut(NetGame):
    """A seat's game that goes on hearing the game once the seat has left it (it stops when
    the seat is removed or the game is over)."""

    def _stopped(self) -> bool:
        table = self.table
        out = table.departed and not table.removed and not table.finished
        return super()._stopped() and not (out and self._fatal is None)


class Listener:
    """A seat out of the game that still listens: its mesh links to every peer (with the
    seat's key, where the seat listened), its chain (an observer `Table`, brought up to date
    by `sync`); every entry it is given goes to `arrivals`; it echoes nothing."""

    def __init__(self, game: NetGame) -> None:
        cheat = game.table
        assert isinstance(cheat, Cheat)
        self.cheat = cheat
        entries = cheat.entries
        self.table = Table(entries[0].wire)
        for entry in entries[1:]:
            self.table.receive(entry.wire, 0.0)
        drain(self.table.next_event)
        self.arrivals = cheat.arrivals
        self.keys = [info.key for info in game.table.seats]
        self.mesh = Mesh(
            game.identity, self.table.table_id, self.keys, self, self._deliver, retry=(0.05, 0.5)
        )

    def count(self) -> int:
        return len(self.table.entries)

    def since(self, count: int) -> Sequence[bytes]:
        return [entry.wire for entry in self.table.entries[count:]]

    def _deliver(self, wire: bytes, sender: bytes) -> bool:
        self.arrivals.append(wire)
        with contextlib.suppress(PeerProtocolError):
            self.table.receive(wire, time.monotonic())
        drain(self.table.next_event)
        return False

    async def start(self, addresses: dict[int, tuple[str, int]], me: int) -> None:
        await self.mesh.start(LOOPBACK, addresses[me][1])
        for seat, (host, port) in addresses.items():
            if seat != me:
                self.mesh.set_address(self.keys[seat], host, port)


async def out_then_listen(seat: Seat, seating: Seating) -> Listener:
    """Play `seat`'s game (seated by `seating`) until it is removed or the game is over; then
    listen on (started) till the end."""
    game = seat.seated(seating.addresses)
    async with asyncio.timeout(2 * DEADLINE):
        code = await game.run()
    assert code != 1, f"the cheater's game failed: {game.result}"
    listener = Listener(game)
    await listener.start(seating.addresses, seating.seat)
    return listener


async def sit(seat: Seat, name: str, port: int) -> asyncio.Task[Seating]:
    """`seat` joins the table whose lobby listens on `port`; returns once it is on the roster
    (the game starts when the table is full: the task then gives the seating)."""
    seated = asyncio.Event()

    def on_event(roster: TableOpened | SeatTaken | Roster) -> None:
        if isinstance(roster, Roster) and any(
            key == seat.identity.public for _, key in roster.names
        ):
            seated.set()

    join = join_table(
        seat.identity, name, LOOPBACK, port, seat.prepare, say=quiet, on_event=on_event
    )
    task = asyncio.create_task(join)
    async with asyncio.timeout(DEADLINE):
        await asyncio.wait(
            [task, asyncio.create_task(seated.wait())], return_when="FIRST_COMPLETED"
        )
    if task.done():
        task.result()  # raises what went wrong
    return task


async def open_table(peers: Sequence[Peer]) -> int:
    """Start the host; its lobby port once it prints it."""
    peers[0].start()
    end = time.monotonic() + DEADLINE
    while not (port := lobby_port(peers[0])):
        assert time.monotonic() < end and peers[0].process is not None, peers[0].output()
        assert peers[0].process.poll() is None, peers[0].output()
        await asyncio.sleep(0.05)
    return port


@dataclass
class Exposure:
    """What the cheaters' keys opened of an honest seat's hands: the most unplayed tiles open
    at once with what they held by then (`worst`), and with all they held by the end
    (`witness`: the count sees the hands, since each deal's reveal gives its seeds)."""

    worst: int = 0
    witness: int = 0
    keys: set[bytes] = field(default_factory=set)
    seeds: dict[int, list[bytes]] = field(default_factory=dict)


def _take(wire: bytes, keys: set[bytes], seeds: dict[int, list[bytes]]) -> None:
    """The position keys and revealed seeds in an entry the cheaters were given."""
    entry = decode_entry(wire)
    body = entry.body
    if entry.kind == DEAL:
        keys.update(unpack(body["keys"]))
    elif entry.kind in (PLAY, YARD_KEY):
        keys.add(body["key"])
    elif entry.kind == REVEAL:
        seeds.setdefault(entry.seat, []).append(body["seed"])


def _held(keys: set[bytes], seeds: dict[int, list[bytes]]) -> Callable[[SeatRound], set[bytes]]:
    """An honest seat's own keys for its round that the cheaters hold: given, or derived from
    a seed of that seat they saw revealed (tried for this round and deal)."""

    def held(seat: SeatRound) -> set[bytes]:
        checks = seat.checks
        derived = (
            SeatSecrets.derive(seed, checks.table_id, checks.tag, seat.me).position_keys
            for seed in seeds.get(seat.me, [])
        )
        return keys.union(*derived)

    return held


def exposure(home: Path, entries: Sequence[Entry], arrivals: Sequence[bytes]) -> Exposure:
    """Replay the honest seat at `home` along its log `entries` with its saved secrets; count
    what the cheaters, given `arrivals` in this order, could open of its hands."""
    store = TableStore.open(home, entries[0].table_id)
    try:
        saved = store.load()
    finally:
        store.close()
    table = Table(entries[0].wire, LocalSeat.from_plain(load_identity(home), saved.secrets))
    first: dict[bytes, int] = {}  # each wire's first arrival
    for index, wire in enumerate(arrivals):
        first.setdefault(wire, index)
    cut = [len(arrivals)] * len(entries)  # got before anything after entry s of the chain
    for s in range(len(entries) - 2, -1, -1):
        cut[s] = min(cut[s + 1], first.get(entries[s + 1].wire, len(arrivals)))
    result, every_key, every_seed = Exposure(), set[bytes](), dict[int, list[bytes]]()
    for wire in arrivals:
        _take(wire, every_key, every_seed)
    taken = 0
    for s, entry in enumerate(entries[1:], 1):
        table.receive(entry.wire, 0.0)
        drain(table.next_event)
        for wire in arrivals[taken : cut[s]]:
            _take(wire, result.keys, result.seeds)
        taken = max(taken, cut[s])
        result.worst = max(result.worst, open_tiles(table, _held(result.keys, result.seeds)))
        result.witness = max(result.witness, open_tiles(table, _held(every_key, every_seed)))
    return result


def check_honest_end(
    honest: Sequence[Peer], codes: list[int], cheat: Cheat, before: Sequence[Entry]
) -> list[Entry]:
    """Every honest process finished one game (exit 0), with the same log, which still holds
    `before` (the chain when the second certificate was sent: nothing was rewound) and the
    proof at the head; the cheaters opened no tile of an honest hand (`exposure`); `cfnet
    verify` on each log says valid, a complete game, with `cheat` disqualified in the words
    the process said live, and the result it had live. The log."""
    assert codes == [0] * len(honest), codes
    log = same_logs(honest)
    assert [e.wire for e in log[: len(before)]] == [e.wire for e in before]
    (proof,) = [e for e in log if e.kind == ABORT and e.body["code"] == EQUIVOCATION]
    assert proof.body["blamed"] == cheat.me and proof.seq >= len(before)  # at the head
    verifying = [  # meanwhile (on another core)
        [verify(peer.log_path(), *options) for options in ([], ["--json"])] for peer in honest
    ]
    for peer in honest:
        seen = exposure(peer.home, log, cheat.arrivals)
        assert seen.worst == 0 and seen.witness > 0, (peer.home.name, seen.worst, seen.witness)
    for peer, (text, plain) in zip(honest, verifying, strict=True):
        live = peer.output()
        (said,) = [
            line.removeprefix("fault: ")
            for line in live.splitlines()
            if line.removeprefix("fault: ").startswith(f"seat {cheat.me} (")
            and "disqualified" in line
        ]
        over = re.search(r"^game over: totals \[([\d, ]*)\]; winners?: (.*)$", live, re.MULTILINE)
        assert over is not None, live
        out = verified(text)
        assert "valid: a complete game" in out, out
        assert f": {said}" in out, (said, out)
        verdict = json.loads(verified(plain))
        assert verdict["removed"] == [cheat.me], verdict
        assert verdict["totals"] == [int(t) for t in over[1].split(", ")], (verdict, over[0])
        assert verdict["winners"] == [int(w) for w in re.findall(r"seat (\d+) \(", over[2])]
    return log


def verify(path: Path, *options: str) -> subprocess.Popen[str]:
    """`cfnet verify [options] path`, started."""
    command = [*CFNET, "verify", *options, str(path)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def verified(process: subprocess.Popen[str]) -> str:
    """What a `verify` process printed; it must exit 0 (a valid game)."""
    try:
        out, _ = process.communicate(timeout=DEADLINE)
    finally:
        process.kill()
    assert process.returncode == 0, out
    return out


async def _late_certificate(tmp: Path) -> tuple[list[Peer], list[int], Cheat, list[Entry]]:
    """Seat 1 cheats at a 3-seat table (host, cheater, bot): the honest peers, their exit
    codes, the cheater's table and the chain when it sent its second certificate."""
    arrivals: list[bytes] = []
    peers = table_peers(tmp, "rewind", seats=3, rounds=2, timeout=TIMEOUT)
    honest = peers[:2]  # the host (seat 0) and a bot (seat 2)
    eve = Seat(
        tmp / "eve",
        game_class=HearsTheGameOut,
        table_class=partial(ResignsThenSends, arrivals=arrivals),
    )
    try:
        joining = await sit(eve, "eve", await open_table(peers))
        honest[1].start()
        async with asyncio.timeout(DEADLINE):
            seating = await joining
        assert seating.seat == 1
        listener = await out_then_listen(eve, seating)
        cheat = listener.cheat
        assert cheat.done and cheat.departed
        try:
            codes = await asyncio.to_thread(wait_all, honest)
        finally:
            await listener.mesh.close()
    finally:
        for peer in peers:
            peer.kill()
    return honest, codes, cheat, cheat.then


def test_a_late_second_certificate_after_a_resign_opens_no_honest_tile_live(
    tmp_path: Path,
) -> None:
    honest, codes, cheat, before = asyncio.run(_late_certificate(tmp_path))
    revealed = {e.seat for e in before if e.kind == REVEAL and e.body["round"] == 2}
    assert revealed == {0, 2}, "the abandoned deal was audited: the honest seeds were out"
    check_honest_end(honest, codes, cheat, before)


async def _collusion(tmp: Path) -> tuple[list[Peer], list[int], list[Cheat]]:
    """Seats 1 and 2 collude at a 4-seat table (host, the two, a bot): the honest peers,
    their exit codes and the colluders' tables."""
    arrivals: list[bytes] = []
    peers = table_peers(tmp, "collude", seats=4, rounds=2, timeout=TIMEOUT)
    honest = peers[:2]  # the host (seat 0) and a bot (seat 3)
    sends = partial(SendsItsSecondCertificateInRound2, arrivals=arrivals)
    resigns = partial(ResignsAtItsCertificate, arrivals=arrivals)
    cheats = [
        Seat(tmp / "mallory", table_class=sends, game_class=HearsTheGameOut),
        Seat(tmp / "trudy", table_class=resigns, game_class=HearsTheGameOut),
    ]
    try:
        port = await open_table(peers)
        joining = [await sit(cheat, cheat.home.name, port) for cheat in cheats]
        honest[1].start()
        async with asyncio.timeout(DEADLINE):
            seatings = await asyncio.gather(*joining)
        assert [s.seat for s in seatings] == [1, 2]
        outs = (out_then_listen(c, s) for c, s in zip(cheats, seatings, strict=True))
        listeners = await asyncio.gather(*outs)
        try:
            tables = [listener.cheat for listener in listeners]
            assert all(t.done for t in tables)
            assert tables[0].removed and tables[1].departed and tables[1].finished
            codes = await asyncio.to_thread(wait_all, honest)
        finally:
            for listener in listeners:
                await listener.mesh.close()
    finally:
        for peer in peers:
            peer.kill()
    return honest, codes, tables


def test_two_colluders_across_a_redeal_open_no_honest_tile_live(tmp_path: Path) -> None:
    honest, codes, (sender, _) = asyncio.run(_collusion(tmp_path))
    before = sender.then
    dealt = {e.seat for e in before if e.kind == DEAL and e.body["round"] == 2}
    assert dealt == {0, 1, 3}, "round 2 was dealt without the partner, its keys out"
    log = check_honest_end(honest, codes, sender, before)
    (first,) = [e for e in log if e.kind == CERTIFY and e.seat == 1 and e.body["round"] == 1]
    after = log[first.seq + 1]
    assert (after.seat, after.kind) == (2, RESIGN), "the partner resigned at its certificate"
