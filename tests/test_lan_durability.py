"""Durability at the end of a LAN game, on 127.0.0.1: an abort that supersedes entries is stored
before it is sent; resync brings a peer holding a longer or different chain to the same abort;
nothing is echoed after the end but the final chain; a seat killed between the lobby's `start`
and `go` resumes (as the computer player it was) and the game goes on, whatever its key and
even if its `ready` was lost: it knows where the host listens from `start`."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import re
import shutil
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from cheaters import Cheater, plays_the_next_tile, resign
from lan_helpers import LOOPBACK, Peer, cfnet_verify

from cfnet.disk.store import TableMeta, TableStore, list_tables, load_identity, prepare_home
from cfnet.game.bots import GreedyBot
from cfnet.game.rules import RuleOptions
from cfnet.net.joining import join_table
from cfnet.net.lobby import HostLobby
from cfnet.net.mesh import Mesh
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.table import Table
from cfnet.protocol.wire import ABORT, EQUIVOCATION, SHUFFLE_A, pack, unpack
from cfnet.protocol.wire import TIMEOUT as LATE
from cfnet.record.entry import Entry, decode_entry
from cfnet.record.identity import Identity
from cfnet.record.logfile import read_log
from cfnet.seat.net_game import NetGame
from cfnet.seat.session import GameLeft

TIMEOUT = 6  # the table's timeout: also how long a resumed, finished peer lingers


def quiet(text: str) -> None:
    """Lobby lines are not needed here."""


class Seat:
    """An in-process computer seat, built as `cfnet host/join` builds one (the lobby's
    `prepare`): its own state directory, store, table and `NetGame`."""

    def __init__(
        self,
        home: Path,
        table_class: Callable[[bytes, LocalSeat, float], Table] = Table,
        store_class: type[TableStore] = TableStore,
        local_class: Callable[[Identity, int], LocalSeat] = LocalSeat,
        game_class: type[NetGame] = NetGame,
    ) -> None:
        self.home = prepare_home(home)
        self.identity = load_identity(self.home)
        self.game: NetGame | None = None
        self.table_class = table_class
        self.store_class = store_class
        self.local_class = local_class
        self.game_class = game_class

    async def prepare(self, genesis: bytes, seat: int, known: dict[int, tuple[str, int]]) -> int:
        local = self.local_class(self.identity, seat)
        table = self.table_class(genesis, local, time.monotonic())
        meta = TableMeta(
            table.table_id, table.name, seat, table.players, table.options, strategy="greedy"
        )
        store = self.store_class.create(self.home, meta)
        store.append(table.entries[0])
        self.game = self.game_class(self.identity, table, store, player=GreedyBot())
        port = await self.game.listen(LOOPBACK)
        store.save_meta(replace(meta, addresses={**known, seat: (LOOPBACK, port)}))
        return port

    def seated(self, addresses: dict[int, tuple[str, int]]) -> NetGame:
        game = self.game
        assert game is not None
        game.store.save_meta(replace(game.store.meta, addresses=addresses))
        game.set_addresses(addresses)
        return game


async def open_lobby(host: Seat, seats: int, timeout: int = TIMEOUT) -> tuple[HostLobby, int]:
    lobby = HostLobby(
        host.identity,
        None,
        name="durability",
        player="host",
        seats=seats,
        options=RuleOptions(rounds=1),
        timeout=timeout,
        code=None,
        interface=LOOPBACK,
        say=quiet,
    )
    return lobby, await lobby.open()


async def seat_in_order(
    host: Seat, joiners: Sequence[Seat], timeout: int = TIMEOUT
) -> list[NetGame]:
    """Seat `host` and then `joiners` in this order (seat i+1 is joiners[i]); their games."""
    lobby, port = await open_lobby(host, 1 + len(joiners), timeout)
    joins = []
    for number, joiner in enumerate(joiners, 1):
        join = join_table(joiner.identity, f"p{number}", LOOPBACK, port, joiner.prepare, say=quiet)
        joins.append(asyncio.create_task(join))
        while len(lobby._joiners) < number:  # the next one sits once this one has its seat
            await asyncio.sleep(0.01)
    seating = await lobby.seat_all(host.prepare)
    await lobby.close()
    await asyncio.gather(*joins)
    return [seat.seated(seating.addresses) for seat in (host, *joiners)]


# ---------------------------------------------------------------------- an abort that supersedes


def equivocate(game: NetGame, twins: list[bytes]) -> None:
    """`game`'s seat sends two different, validly signed decks for its first shuffle."""
    post = game.mesh.post

    def cheat(wire: bytes) -> None:
        post(wire)
        entry = decode_entry(wire)
        if entry.kind == SHUFFLE_A and not twins:
            deck = unpack(entry.body["deck"])
            other = resign(
                game.identity, entry, body={**entry.body, "deck": pack(deck[1:] + deck[:1])}
            )
            twins.extend([wire, other.wire])
            post(other.wire)

    game.mesh.post = cheat  # type: ignore[method-assign]


def crash_image_when_aborting(game: NetGame, home: Path, image: Path, sent: list[bytes]) -> None:
    """As `game` sends its abort: note what is on disk then, and copy its state directory (what
    a crash right after sending leaves)."""
    post = game.mesh.post

    def check(wire: bytes) -> None:
        if decode_entry(wire).kind == ABORT:
            sent.append(wire)
            sent.append(read_log(game.log_path)[-1].wire)
            shutil.copytree(home, image)
        post(wire)

    game.mesh.post = check  # type: ignore[method-assign]


async def _equivocation_game(
    tmp: Path,
) -> tuple[list[NetGame], list[int], list[bytes], list[bytes]]:
    seats = [
        Seat(tmp / f"h{i}") for i in range(2)
    ]  # removing the cheater ends the game: seat 0 wins
    games = await seat_in_order(seats[0], seats[1:])
    twins: list[bytes] = []
    sent: list[bytes] = []
    equivocate(games[1], twins)
    crash_image_when_aborting(games[0], seats[0].home, tmp / "image", sent)
    async with asyncio.timeout(60):
        codes = await asyncio.gather(*(game.run() for game in games))
    return games, list(codes), twins, sent


def test_an_abort_that_supersedes_entries_is_stored_before_it_is_sent(tmp_path: Path) -> None:
    games, codes, twins, sent = asyncio.run(_equivocation_game(tmp_path))
    assert codes == [0, 0]  # the cheater removed, the seat still seated wins (leaving concedes)
    logs = [game.log_path.read_bytes() for game in games]
    assert logs[0] == logs[1]
    final = read_log(games[0].log_path)
    abort = final[-1]
    assert (abort.kind, abort.seat, abort.body["blamed"]) == (ABORT, 0, 1)
    assert abort.body["code"] == EQUIVOCATION
    assert abort.seq == decode_entry(twins[0]).seq  # seat 0 held one of the twins there
    # When seat 0 sent its abort, the log on disk already ended with it.
    assert sent == [abort.wire, abort.wire]
    # After the end only the final chain is echoed: not the superseded twins, not junk.
    game = games[0]

    async def echoed(wires: list[bytes]) -> list[bool]:
        return [await game._deliver(wire, b"") for wire in wires]

    assert not any(asyncio.run(echoed([*twins, b"\x92\xc4\x01x\xc4\x01y", b"junk"])))
    assert all(asyncio.run(echoed([abort.wire, final[1].wire])))
    # A crash right after sending, then `cfnet resume` (the seat stays a computer player).
    image = Peer(tmp_path / "image", ["resume", "--interface", LOOPBACK])
    image.start()
    assert image.wait(30) == 0, image.output()  # the game's result, as before the crash
    assert image.log_path().read_bytes() == logs[0]
    assert "resuming table 'durability'" in image.output()


# ---------------------------------------------------------------------- a cheating client


def _cheating_client(identity: Identity, seat: int) -> LocalSeat:
    """A modified cfnet whose first play names a tile it does not hold (signed by its seat)."""
    return Cheater(identity, seat, os.urandom, plays_the_next_tile)


async def _game_with_a_cheater(tmp: Path) -> tuple[list[NetGame], list[int]]:
    seats = [Seat(tmp / "h0"), Seat(tmp / "h1", local_class=_cheating_client), Seat(tmp / "h2")]
    games = await seat_in_order(seats[0], seats[1:])
    async with asyncio.timeout(120):
        codes = await asyncio.gather(*(game.run() for game in games))
    return games, list(codes)


def test_a_cheating_client_is_removed_and_the_others_finish_over_real_links(
    tmp_path: Path,
) -> None:
    """Three seats over real TCP links, seat 1 a modified client that lies about a tile it
    plays: both honest seats remove it at once, deal the round again between them and finish
    the game with identical logs that `cfnet verify` finds valid, seat 1 disqualified; the
    cheating client itself stops, told it was removed."""
    games, codes = asyncio.run(_game_with_a_cheater(tmp_path))
    assert codes == [0, 3, 0]
    honest = [games[0], games[2]]
    assert honest[0].log_path.read_bytes() == honest[1].log_path.read_bytes()
    for game in honest:
        assert game.table.over and game.table.game.disqualified == {1}
        assert game.table.game.round_seated == [(0, 2)]
    cheater = games[1].table
    assert cheater.removed and not cheater.finished
    result = games[1].result
    assert isinstance(result, GameLeft) and result.comeback is None  # it never comes back
    assert result.reason.startswith(
        "you were removed from the game: seat 1 (p1) is removed and disqualified"
    )
    verdict = cfnet_verify(honest[0].log_path)
    assert verdict.returncode == 0, verdict.stdout
    assert re.search(
        r"^departure: entry \d+: seat 1 \(p1\) is removed and disqualified", verdict.stdout, re.M
    )
    assert "seat 1 (p1) is disqualified: removed for cheating" in verdict.stdout


# ---------------------------------------------------------------------- a store that fails


class FullDisk(TableStore):
    """A store whose disk fills up when its seat appends an entry of its own (the genesis
    aside): `append` raises OSError and writes nothing."""

    def append(self, entry: Entry, *, durable: bool = True) -> bool:
        if entry.seq > 0 and entry.seat == self.meta.seat:
            raise OSError(errno.ENOSPC, "No space left on device (test)")
        return super().append(entry, durable=durable)


async def _unstored_entry_game(tmp: Path) -> tuple[list[NetGame], list[int]]:
    """Seats 0 and 1 play; seat 2's store fails on its first own entry (its accept, posted
    when seat 1's arrives). Then its link to seat 0 is cut: seat 0 resyncs from it."""
    seats = [Seat(tmp / "h0"), Seat(tmp / "h1"), Seat(tmp / "h2", store_class=FullDisk)]
    games = await seat_in_order(seats[0], seats[1:], timeout=5)
    playing = [asyncio.create_task(game.run()) for game in games[:2]]
    failing = games[2]  # not playing: it answers what the mesh delivers
    async with asyncio.timeout(30):
        while failing._fatal is None:
            await asyncio.sleep(0.01)
        await failing.mesh.disconnect(games[0].identity.public, "test: resync")
        codes = await asyncio.gather(*playing)
    await failing.close()
    failing.store.close()
    return games, list(codes)


def test_an_entry_the_store_failed_to_save_never_reaches_a_peer(tmp_path: Path) -> None:
    games, codes = asyncio.run(_unstored_entry_game(tmp_path))
    assert codes == [3, 3]
    stored = {entry.wire for entry in read_log(games[2].log_path)}
    assert len(games[2].table.entries) > len(stored)  # its table holds the unsaved accept
    final = read_log(games[0].log_path)
    assert [e.seq for e in final if e.seat == 2 and e.wire not in stored] == []
    abort = final[-1]
    assert (abort.kind, abort.body["blamed"], abort.body["code"]) == (ABORT, 2, LATE)


# ---------------------------------------------------------------------- the table fails on an entry


class Faulty(Table):
    """A table with a bug: it raises on the first entry of seat 0 it is given."""

    failed = False

    def receive(self, wire: bytes, now: float) -> None:
        if not self.failed and decode_entry(wire).seat == 0:
            self.failed = True
            raise RuntimeError("test: a bug in the table")
        super().receive(wire, now)


async def _faulty_table_game(tmp: Path) -> list[int]:
    seats = [Seat(tmp / "h0"), Seat(tmp / "h1", table_class=Faulty), Seat(tmp / "h2")]
    games = await seat_in_order(seats[0], seats[1:])
    async with asyncio.timeout(60):
        return list(await asyncio.gather(*(game.run() for game in games)))


def test_a_table_failing_on_an_entry_refuses_it_and_keeps_the_link(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="cfnet.net"):
        codes = asyncio.run(_faulty_table_game(tmp_path))
    # Refused with its traceback logged; the entry came again by seat 2's echo.
    refused = [r for r in caplog.records if "the table failed on it" in r.getMessage()]
    assert len(refused) == 1 and refused[0].levelno == logging.WARNING
    assert refused[0].exc_info is not None and "a bug in the table" in caplog.text
    assert codes == [0, 0, 0]


# ---------------------------------------------------------------------- resync to the same abort


class Chain:
    """A mesh's view of a log: opaque entries (the mesh never looks inside)."""

    def __init__(self, wires: list[bytes]) -> None:
        self.wires = wires

    def count(self) -> int:
        return len(self.wires)

    def since(self, count: int) -> Sequence[bytes]:
        return self.wires[count:]


def receiver(into: list[bytes]) -> Callable[[bytes, bytes], bool]:
    """A mesh's `deliver` that notes each entry and takes none (so none is echoed)."""

    def deliver(wire: bytes, key: bytes) -> bool:
        into.append(wire)
        return False

    return deliver


async def _resync(left: list[bytes], right: list[bytes]) -> tuple[list[bytes], list[bytes]]:
    """Link two meshes holding `left` and `right`; what each was sent by the other."""
    keys = [Identity.generate(), Identity.generate()]
    got: tuple[list[bytes], list[bytes]] = ([], [])
    meshes = [
        Mesh(identity, bytes(16), [k.public for k in keys], Chain(wires), receiver(into))
        for identity, wires, into in zip(keys, (left, right), got, strict=True)
    ]
    ports = [await mesh.start(LOOPBACK) for mesh in meshes]
    for mesh, other, port in zip(meshes, reversed(keys), reversed(ports), strict=True):
        mesh.set_address(other.public, LOOPBACK, port)
    async with asyncio.timeout(10):
        while not (got[0] and got[1]):
            await asyncio.sleep(0.01)
    await asyncio.gather(*(mesh.finish(1.0) for mesh in meshes))
    return got


def test_resync_gives_a_peer_with_a_longer_chain_the_earlier_abort() -> None:
    shared = [b"genesis", b"accept 1"]
    early = [*shared, b"abort at 2"]
    longer = [*shared, b"play 2", b"play 3", b"abort at 4"]
    to_early, to_longer = asyncio.run(_resync(early, longer))
    assert to_longer == [b"abort at 2"]  # by count alone it would get nothing
    # The chains differ at early's last entry: it gets longer's entries from there on (it
    # keeps its own earlier abort and refuses them).
    assert to_early == [b"play 2", b"play 3", b"abort at 4"]
    # A seat that stored an entry it never sent (it died) while the others claimed its turn and
    # played on, as they do after a timeout claim: it gets the claim and all that followed.
    to_dead, to_alive = asyncio.run(
        _resync([*shared, b"unsent 2"], [*shared, b"claim at 2", b"reveal 3", b"deal 4"])
    )
    assert to_dead == [b"claim at 2", b"reveal 3", b"deal 4"]  # its last entry alone: useless
    assert to_alive == [b"unsent 2"]
    # Same length, different last entry (two aborts at one seq): each gets the other's.
    to_a, to_b = asyncio.run(_resync([*shared, b"abort A"], [*shared, b"abort B"]))
    assert (to_a, to_b) == ([b"abort B"], [b"abort A"])
    # A prefix gets what follows it (the longer side gets the shorter one's last entry again).
    to_short, to_full = asyncio.run(_resync(shared[:1], [*shared, b"abort"]))
    assert (to_short, to_full) == ([b"accept 1", b"abort"], [b"genesis"])


# ---------------------------------------------------------------------- killed before `go`


def bot_home(home: Path, low: bool) -> bytes:
    """Make `home` a state directory whose identity key starts with a byte below 0x80 (`low`)
    or not (so keys on either side of it are quick to find); that key."""
    while True:
        key = load_identity(prepare_home(home)).public
        if (key[0] < 0x80) == low:
            return key
        shutil.rmtree(home)


def identity_beside(key: bytes, smaller: bool) -> Identity:
    """A new identity whose key sorts before `key` (`smaller`: it dials `key` in the mesh)
    or after it (`key` dials it)."""
    while True:
        identity = Identity.generate()
        if (identity.public < key) == smaller:
            return identity


async def until(condition: Callable[[], bool], what: str, deadline: float = 60.0) -> None:
    """Poll `condition()` every 20 ms until it holds; AssertionError after `deadline` s."""
    try:
        async with asyncio.timeout(deadline):
            while not condition():
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


def stored_addresses(home: Path) -> dict[int, tuple[str, int]]:
    """The mesh addresses the table metadata in `home` holds (none before the genesis)."""
    tables = list_tables(home)
    return tables[0].addresses if tables else {}


def one_valid_log(tmp: Path, seats: int) -> None:
    """Every seat's log file is the same, and `cfnet verify` finds the game complete."""
    paths = list(tmp.glob("*/tables/*/table.cflog"))
    assert len(paths) == seats and len({path.read_bytes() for path in paths}) == 1
    verdict = cfnet_verify(paths[0])
    assert verdict.returncode == 0, verdict.stdout + verdict.stderr


async def _killed_before_go(
    tmp: Path, bot: Peer, smallest: bool
) -> tuple[list[int], dict[int, tuple[str, int]], dict[int, tuple[str, int]]]:
    """Seat 1 is a `cfnet bot` process whose key is the `smallest` of the table (it dials
    every other seat, nobody dials it) or the largest (every other seat dials it). It is killed
    once the host has its `ready`, before `go`, then resumed. The exit codes, the addresses it
    had stored when it died, and those `go` gave."""
    key = bot_home(bot.home, low=smallest)
    host, other = Seat(tmp / "h0"), Seat(tmp / "h2")
    for seat in (host, other):
        seat.identity = identity_beside(key, smaller=not smallest)
    lobby, port = await open_lobby(host, 3, timeout=30)
    bot.start(["bot", "--connect", f"{LOOPBACK}:{port}", "--interface", LOOPBACK])
    await until(lambda: bool(lobby._joiners), "the bot to sit")

    async def prepare_after_the_kill(
        genesis: bytes, seat: int, known: dict[int, tuple[str, int]]
    ) -> int:
        await until(lambda: lobby._joiners[0].ready.done(), "the bot's `ready`")
        assert bot.process is not None
        bot.process.send_signal(signal.SIGKILL)  # ...and dies before `go`
        bot.process.wait()
        return await other.prepare(genesis, seat, known)

    join = asyncio.create_task(
        join_table(other.identity, "p2", LOOPBACK, port, prepare_after_the_kill, say=quiet)
    )
    seating = await lobby.seat_all(host.prepare)
    await lobby.close()
    await join
    died = stored_addresses(bot.home)
    games = [seat.seated(seating.addresses) for seat in (host, other)]
    bot.start(["resume", "--interface", LOOPBACK])  # no --strategy: it was a computer seat
    async with asyncio.timeout(120):
        codes = await asyncio.gather(*(game.run() for game in games))
    return [*codes, await asyncio.to_thread(bot.wait, 60)], died, seating.addresses


@pytest.mark.parametrize("smallest", [False, True], ids=["others-dial-it", "it-dials-the-host"])
def test_a_joiner_killed_between_start_and_go_resumes_as_a_computer(
    tmp_path: Path, smallest: bool
) -> None:
    bot = Peer(tmp_path / "bot", ["bot"])
    try:
        codes, died, addresses = asyncio.run(_killed_before_go(tmp_path, bot, smallest))
    finally:
        bot.kill()
    assert codes == [0, 0, 0], bot.output()
    # Before its `ready` it stored where it listens and where the host's mesh listens (`start`).
    assert died == {0: addresses[0], 1: addresses[1]}
    one_valid_log(tmp_path, 3)
    assert "resuming table 'durability' as seat 1" in bot.output()


class Relay:
    """A TCP relay on 127.0.0.1 to the port `to`; once `mute`, what its callers send is
    dropped (it never arrives), while what the far end sends still goes through."""

    def __init__(self, to: int) -> None:
        self.to = to
        self.mute = False
        self.server: asyncio.Server | None = None

    async def open(self) -> int:
        """Listen; the relay's port."""
        self.server = await asyncio.start_server(self._relay, LOOPBACK, 0)
        return int(self.server.sockets[0].getsockname()[1])

    def close(self) -> None:
        if self.server is not None:
            self.server.close()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        far_reader, far_writer = await asyncio.open_connection(LOOPBACK, self.to)
        await asyncio.gather(
            self._pump(reader, far_writer, caller=True), self._pump(far_reader, writer)
        )

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, caller: bool = False
    ) -> None:
        try:
            while data := await reader.read(65536):
                if not (caller and self.mute):
                    writer.write(data)
                    await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()


async def _ready_lost(tmp: Path, bot: Peer) -> tuple[list[int], dict[int, tuple[str, int]]]:
    """Seat 1 is a `cfnet bot` process whose key is the largest of the table (every other
    seat would dial it); it reaches the host's lobby through a relay that loses what it sends
    from the `start` on, so its `ready` never arrives, and it is killed once it stored the
    genesis: `go` leaves it out. Then it resumes. The exit codes and the addresses of `go`."""
    key = bot_home(bot.home, low=False)
    host, other = Seat(tmp / "h0"), Seat(tmp / "h2")
    for seat in (host, other):
        seat.identity = identity_beside(key, smaller=True)
    lobby, port = await open_lobby(host, 3, timeout=30)
    relay = Relay(port)
    via = await relay.open()
    bot.start(["bot", "--connect", f"{LOOPBACK}:{via}", "--interface", LOOPBACK])
    await until(lambda: bool(lobby._joiners), "the bot to sit")

    async def host_prepare(genesis: bytes, seat: int, known: dict[int, tuple[str, int]]) -> int:
        relay.mute = True  # from the `start` on, nothing the bot sends reaches the host
        return await host.prepare(genesis, seat, known)

    join = asyncio.create_task(
        join_table(other.identity, "p2", LOOPBACK, port, other.prepare, say=quiet)
    )
    seating = asyncio.create_task(lobby.seat_all(host_prepare))
    await until(lambda: 0 in stored_addresses(bot.home), "the bot to store the host's address")
    assert bot.process is not None
    bot.process.send_signal(signal.SIGKILL)  # its `ready` lost on the way
    bot.process.wait()
    addresses = (await seating).addresses
    relay.close()
    await lobby.close()
    await join
    games = [seat.seated(addresses) for seat in (host, other)]
    bot.start(["resume", "--interface", LOOPBACK])
    async with asyncio.timeout(120):
        codes = await asyncio.gather(*(game.run() for game in games))
    return [*codes, await asyncio.to_thread(bot.wait, 60)], addresses


def test_a_joiner_whose_ready_never_reached_the_host_resumes_and_dials_it(tmp_path: Path) -> None:
    bot = Peer(tmp_path / "bot", ["bot"])
    try:
        codes, addresses = asyncio.run(_ready_lost(tmp_path, bot))
    finally:
        bot.kill()
    assert sorted(addresses) == [0, 2]  # nobody learnt where seat 1 listens
    assert codes == [0, 0, 0], bot.output()
    one_valid_log(tmp_path, 3)
    assert "resuming table 'durability' as seat 1" in bot.output()
