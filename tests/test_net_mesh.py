"""The mesh: four peers on loopback pass signed entries around a real hash chain, survive a cut
link without stalling, resync a peer that went away, and refuse strangers."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Sequence

import pytest
from chain_helpers import Chain, ChainError
from net_helpers import LOOPBACK, link_server

from cfnet.net.handshake import Handshake
from cfnet.net.link import Link, LinkClosed
from cfnet.net.mesh import Mesh
from cfnet.record.entry import Entry, MalformedEntry, decode_entry, sign_entry
from cfnet.record.identity import Identity

TABLE = os.urandom(16)
TIMEOUT = 20.0


class Peer:
    """A seat: a chain store (entries may arrive out of order) that authors entries in turn."""

    def __init__(
        self,
        identity: Identity,
        seat: int,
        keys: Sequence[bytes],
        authors: int,
        changed: asyncio.Condition,
    ) -> None:
        self.identity, self.seat, self.keys, self.authors = identity, seat, keys, authors
        self.chain = Chain(TABLE)
        self.pending: dict[int, Entry] = {}
        self.total = 0
        self.changed = changed
        self.mesh: Mesh | None = None
        self.port = 0
        self.cut: tuple[int, bytes] | None = None  # (log length, peer): cut that link once
        self.cut_when = 0  # log length when the cut was done

    # EntryStore
    def count(self) -> int:
        return len(self.chain)

    def since(self, count: int) -> Sequence[bytes]:
        return [entry.wire for entry in self.chain.entries[count:]]

    def deliver(self, wire: bytes, sender: bytes) -> bool:
        """Hold the entry until its predecessors are in (then the mesh echoes it on)."""
        try:
            entry = decode_entry(wire)
        except MalformedEntry:
            return False
        if entry.seq < len(self.chain):
            return False
        self.pending.setdefault(entry.seq, entry)
        while len(self.chain) in self.pending:
            entry = self.pending.pop(len(self.chain))
            try:
                self.chain.append(entry, self.keys[entry.seat])
            except ChainError:
                continue
        self.author()
        if self.cut is not None and len(self.chain) >= self.cut[0]:
            asyncio.get_running_loop().create_task(self._cut(self.cut[1]))
            self.cut = None
        return True

    async def _cut(self, key: bytes) -> None:
        assert self.mesh is not None
        await self.mesh.disconnect(key, "cut by test")
        self.cut_when = len(self.chain)

    def author(self) -> None:
        """Post our entries while it is our turn (seq % authors == seat) and below `total`."""
        assert self.mesh is not None
        while len(self.chain) < self.total and len(self.chain) % self.authors == self.seat:
            entry = sign_entry(
                self.identity,
                TABLE,
                len(self.chain),
                self.chain.head,
                self.seat,
                "test",
                {"n": len(self.chain)},
            )
            self.chain.append(entry, self.identity.public)
            self.mesh.post(entry.wire)
        asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        async with self.changed:
            self.changed.notify_all()

    async def join(self, retry: tuple[float, float], port: int = 0) -> None:
        self.mesh = Mesh(self.identity, TABLE, self.keys, self, self.deliver, retry=retry)
        self.port = await self.mesh.start(LOOPBACK, port)


async def make_peers(n: int, authors: int, retry: tuple[float, float]) -> list[Peer]:
    identities = [Identity.generate() for _ in range(n)]
    keys = [i.public for i in identities]
    changed = asyncio.Condition()
    peers = [Peer(ident, seat, keys, authors, changed) for seat, ident in enumerate(identities)]
    for peer in peers:
        await peer.join(retry)
    for peer in peers:
        introduce(peer, peers)
    return peers


def introduce(peer: Peer, peers: Sequence[Peer]) -> None:
    assert peer.mesh is not None
    for other in peers:
        if other is not peer:
            peer.mesh.set_address(other.identity.public, LOOPBACK, other.port)


async def until(peers: Sequence[Peer], condition: Callable[[], bool]) -> None:
    changed = peers[0].changed
    async with asyncio.timeout(TIMEOUT), changed:
        await changed.wait_for(condition)


async def all_connected(peers: Sequence[Peer]) -> None:
    for peer in peers:
        assert peer.mesh is not None
        await peer.mesh.wait_connected([p.identity.public for p in peers if p is not peer], TIMEOUT)


def play(peers: Sequence[Peer], total: int) -> None:
    for peer in peers:
        peer.total = total
    for peer in peers:
        peer.author()


def assert_same_logs(peers: Sequence[Peer], total: int) -> None:
    logs = [[e.wire for e in peer.chain.entries] for peer in peers]
    assert len(logs[0]) == total and all(log == logs[0] for log in logs)


async def close_all(peers: Sequence[Peer]) -> None:
    for peer in peers:
        assert peer.mesh is not None
        await peer.mesh.close()


async def _cut_link_mid_game(caplog: pytest.LogCaptureFixture) -> None:
    # The retry delay is longer than the test: the cut link stays cut, echoes carry the entries.
    peers = await make_peers(4, authors=4, retry=(60.0, 60.0))
    try:
        await all_connected(peers)
        a, b = peers[0], peers[1]
        assert a.mesh is not None
        a.cut = (40, b.identity.public)
        play(peers, 200)
        await until(peers, lambda: all(len(p.chain) == 200 for p in peers))
        assert_same_logs(peers, 200)
        assert b.identity.public not in a.mesh.connected
        assert 40 <= a.cut_when < 100  # cut early: most of the game went round the cut
        assert any("cut by test" in r.getMessage() for r in caplog.records)
    finally:
        await close_all(peers)


def test_four_peers_deliver_everything_with_a_link_cut_mid_way(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="cfnet.net")
    asyncio.run(_cut_link_mid_game(caplog))


async def _peer_leaves_and_resyncs() -> None:
    peers = await make_peers(4, authors=3, retry=(0.05, 0.2))  # seat 3 only listens
    try:
        await all_connected(peers)
        play(peers, 30)
        await until(peers, lambda: all(len(p.chain) == 30 for p in peers))
        gone, first = peers[3], peers[0]
        assert gone.mesh is not None and first.mesh is not None
        key = gone.identity.public
        assert first.mesh.down_since(key) is None  # linked
        closed = time.monotonic()
        await gone.mesh.close()  # as if it crashed: its store survives (on disk, really)
        async with asyncio.timeout(TIMEOUT):  # the others see the link go down, and since when
            while first.mesh.down_since(key) is None:
                await asyncio.sleep(0.01)
        since = first.mesh.down_since(key)
        assert since is not None and closed <= since <= time.monotonic()
        play(peers[:3], 90)
        await until(peers, lambda: all(len(p.chain) == 90 for p in peers[:3]))
        assert len(gone.chain) == 30
        await gone.join(retry=(0.05, 0.2), port=gone.port)
        introduce(gone, peers)
        await until(peers, lambda: len(gone.chain) == 90)  # resynced, nothing posted meanwhile
        await all_connected(peers)
        assert first.mesh.down_since(key) is None  # linked again
        play(peers, 120)
        await until(peers, lambda: all(len(p.chain) == 120 for p in peers))
        assert_same_logs(peers, 120)
        started = time.monotonic()  # every peer says it is done: nobody waits out the grace
        await asyncio.gather(*(p.mesh.finish(grace=30.0) for p in peers if p.mesh is not None))
        assert time.monotonic() - started < 30.0  # the grace not waited out
    finally:
        await close_all(peers)


def test_a_peer_that_went_away_resyncs_on_return() -> None:
    asyncio.run(_peer_leaves_and_resyncs())


class Forgetful(Peer):
    """Takes the entry at seq `lose` the first time it comes, then lets it go, as a table
    does with an entry held ahead of its chain that an abort in between made unplaceable."""

    def __init__(self, lose: int, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.lose, self.lost = lose, False

    def deliver(self, wire: bytes, sender: bytes) -> bool:
        if not self.lost and decode_entry(wire).seq == self.lose:
            self.lost = True
            asyncio.get_running_loop().create_task(self._notify())
            return True
        return super().deliver(wire, sender)


async def _lost_entry_comes_back() -> None:
    identities = [Identity.generate() for _ in range(2)]
    keys = [i.public for i in identities]
    changed = asyncio.Condition()
    author = Peer(identities[0], 0, keys, 2, changed)
    forgetful = Forgetful(4, identities[1], 1, keys, 2, changed)
    peers = [author, forgetful]
    for peer in peers:
        await peer.join(retry=(0.05, 0.2))
        introduce(peer, peers)
    try:
        await all_connected(peers)
        play(peers, 10)
        await until(peers, lambda: forgetful.lost and len(author.chain) == 5)
        assert len(forgetful.chain) == 4  # and nobody posts: seat 1 waits for entry 4
        assert forgetful.mesh is not None
        forgetful.mesh.announce()  # as its keepalive would: "I hold 4 entries"
        await until(peers, lambda: all(len(p.chain) == 10 for p in peers))
        assert_same_logs(peers, 10)
    finally:
        await close_all(peers)


def test_an_entry_the_table_let_go_is_delivered_again_by_a_sync_answer() -> None:
    """The mesh echoes an entry once, but hands every copy to the table: the copy a `sync`
    answer brings may be the only way back for an entry the table took and then let go."""
    asyncio.run(_lost_entry_comes_back())


async def _stranger_is_refused() -> LinkClosed:
    peers = await make_peers(2, authors=2, retry=(0.05, 0.2))
    try:
        target = max(peers, key=lambda p: p.identity.public)  # the one that accepts
        link = await Link.connect(LOOPBACK, target.port)
        with pytest.raises(LinkClosed) as info:
            await link.handshake(Handshake(Identity.generate(), initiator=True, table_id=TABLE))
        return info.value
    finally:
        await close_all(peers)


def test_a_stranger_cannot_join_the_mesh() -> None:
    closed = asyncio.run(_stranger_is_refused())
    assert "is not one we accept here" in closed.reason


# ---------------------------------------------------------------- either side dials; one link kept


def pair_of_peers() -> tuple[Peer, Peer]:
    """Two seats, the one with the smaller key first (it is the pair's dialler)."""
    identities = sorted((Identity.generate() for _ in range(2)), key=lambda i: i.public)
    keys = [i.public for i in identities]
    changed = asyncio.Condition()
    small, large = (Peer(ident, seat, keys, 2, changed) for seat, ident in enumerate(identities))
    return small, large


async def _only_the_larger_knows() -> None:
    small, large = pair_of_peers()
    peers = [small, large]
    await small.join(retry=(0.05, 0.2))
    await large.join(retry=(0.05, 0.2))
    assert large.mesh is not None
    large.mesh.set_address(small.identity.public, LOOPBACK, small.port)  # small never learns
    try:
        await all_connected(peers)
        play(peers, 20)
        await until(peers, lambda: all(len(p.chain) == 20 for p in peers))
        assert_same_logs(peers, 20)
    finally:
        await close_all(peers)


def test_the_peer_with_the_larger_key_dials_when_only_it_knows_the_address() -> None:
    asyncio.run(_only_the_larger_knows())


async def _which_link_is_kept() -> dict[str, str]:
    """The smaller-keyed peer runs a mesh; the test plays the larger one with bare links."""
    small, large = pair_of_peers()
    await small.join(retry=(0.05, 0.2))
    mesh = small.mesh
    assert mesh is not None
    them = large.identity.public

    def handshake(initiator: bool) -> Handshake:
        return Handshake(
            large.identity, initiator=initiator, table_id=TABLE, accept={small.keys[0]}
        )

    async def dial_back() -> Link:  # a link the larger key dials
        link = await Link.connect(LOOPBACK, small.port)
        await link.handshake(handshake(initiator=True))
        return link

    async def linked(link: Link) -> None:  # the mesh serves `link`: its first `sync` came
        async with asyncio.timeout(TIMEOUT):
            assert (await link.receive())["t"] == "sync"

    async def closed(link: Link) -> str:
        with pytest.raises(LinkClosed) as info:
            async with asyncio.timeout(TIMEOUT):
                while True:
                    await link.receive()
        return info.value.reason

    reasons = {}
    try:
        async with link_server() as (port, accepted):
            first = await dial_back()
            await linked(first)
            second = await dial_back()  # its dialler saw no link: the newer one is kept
            await linked(second)
            reasons["a second link dialled by the larger key"] = await closed(first)
            mesh.set_address(them, LOOPBACK, port)  # no dialling while a link is up
            await second.close("test: gone")
            forward = await accepted.get()  # the mesh dials now: the handshake waits...
            third = await dial_back()  # ...while the larger key dials too
            await linked(third)
            await forward.handshake(handshake(initiator=False))
            await linked(forward)
            reasons["the link the smaller key dialled"] = await closed(third)
            fourth = await dial_back()
            reasons["a later link dialled by the larger key"] = await closed(fourth)
            assert mesh.connected == {them} and forward.closed is None
            await forward.close("test over")
    finally:
        await mesh.close()
    return reasons


def test_of_two_links_of_a_pair_the_one_the_smaller_key_dialled_is_kept() -> None:
    replaced = f"peer said goodbye: {'replaced by a new connection'!r}"
    refused = "a link dialled by the peer with the smaller key is up already"
    assert asyncio.run(_which_link_is_kept()) == {
        "a second link dialled by the larger key": replaced,
        "the link the smaller key dialled": replaced,
        "a later link dialled by the larger key": f"peer said goodbye: {refused!r}",
    }


# ---------------------------------------------------------------- closing


class Slow(Peer):
    """Takes each entry only when the test lets it (`release`); says how each delivery ended."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.ended: list[str] = []

    async def slow_deliver(self, wire: bytes, sender: bytes) -> bool:
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.ended.append("cut short")
            raise
        self.ended.append("taken")
        return super().deliver(wire, sender)

    async def join(self, retry: tuple[float, float], port: int = 0) -> None:
        self.mesh = Mesh(self.identity, TABLE, self.keys, self, self.slow_deliver, retry=retry)
        self.port = await self.mesh.start(LOOPBACK, port)


async def _close_during_a_delivery() -> list[str]:
    identities = [Identity.generate() for _ in range(2)]
    keys = [i.public for i in identities]
    changed = asyncio.Condition()
    author = Peer(identities[0], 0, keys, 1, changed)
    slow = Slow(identities[1], 1, keys, 1, changed)
    peers = [author, slow]
    for peer in peers:
        await peer.join(retry=(60.0, 60.0))  # no dialling again once the link is closed
    for peer in peers:
        introduce(peer, peers)
    assert author.mesh is not None and slow.mesh is not None
    try:
        await all_connected(peers)
        play(peers, 3)
        async with asyncio.timeout(TIMEOUT):
            await slow.started.wait()
            closing = asyncio.create_task(slow.mesh.close())
            while author.mesh.down_since(slow.identity.public) is None:  # its links are closed
                await asyncio.sleep(0.01)
            slow.release.set()
            await closing
        assert len(slow.chain) <= 1  # what came after the close was not delivered
        return slow.ended
    finally:
        await close_all(peers)


def test_closing_the_mesh_lets_the_delivery_under_way_end_and_starts_none() -> None:
    """A table appends an entry on another thread while its delivery waits: cut short, the
    table would hold an entry its log file never gets."""
    assert asyncio.run(_close_during_a_delivery()) == ["taken"]


async def _woken_by_an_announce() -> int:
    small, large = pair_of_peers()
    peers = [small, large]
    for peer in peers:
        await peer.join(retry=(0.05, 0.2))
    introduce(small, peers)
    introduce(large, peers)
    try:
        await all_connected(peers)
        play(peers, 2)
        await until(peers, lambda: all(len(p.chain) == 2 for p in peers))
        assert small.mesh is not None and large.mesh is not None
        large.mesh.announce()  # its chain as it is now: the `sync` a seat sends at the end
        looks = 0
        async with asyncio.timeout(TIMEOUT):  # each look would wait far longer than this
            while not small.mesh.agree([large.identity.public]):
                await small.mesh.changed(TIMEOUT * 10)
                looks += 1
        return looks
    finally:
        await close_all(peers)


def test_a_lingering_seat_is_woken_by_a_peers_announcement_not_its_timeout() -> None:
    """`Mesh.changed` (what a seat lingering at the end waits on between its looks) returns
    when a peer's `sync` arrives, long before its own timeout: the seat sees the peer agree."""
    assert asyncio.run(_woken_by_an_announce()) <= 3
