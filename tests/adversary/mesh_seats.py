"""Seats of a mesh for the adversarial tests: a real `Mesh` each (loopback TCP, the real
handshake and framing) over a signed hash chain that authors take turns to extend, and an
adversary's raw link into one seat's mesh."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence

from chain_helpers import Chain, ChainError
from net_helpers import LOOPBACK

from cfnet.net.handshake import Handshake
from cfnet.net.link import Link
from cfnet.net.mesh import Mesh
from cfnet.record.entry import Entry, MalformedEntry, decode_entry, sign_entry
from cfnet.record.identity import Identity

DEADLINE = 60.0


class Seat:
    """An honest seat: keeps the chain (holding entries that come early), authors its turns
    (seq % len(authors) == its place among `authors`) up to `total` entries."""

    def __init__(
        self,
        identity: Identity,
        table_id: bytes,
        keys: Sequence[bytes],
        authors: Sequence[bytes],
        changed: asyncio.Condition,
        **mesh_options: float,
    ) -> None:
        self.identity, self.keys, self.authors = identity, list(keys), list(authors)
        self.table_id = table_id
        self.chain = Chain(table_id)
        self.pending: dict[int, Entry] = {}
        self.total = 0
        self.pad = 0
        self.changed = changed
        self.mesh = Mesh(identity, table_id, keys, self, self.deliver, **mesh_options)
        self.port = 0

    def count(self) -> int:
        return len(self.chain)

    def since(self, count: int) -> Sequence[bytes]:
        return [entry.wire for entry in self.chain.entries[count:]]

    def deliver(self, wire: bytes, sender: bytes) -> bool:
        try:
            entry = decode_entry(wire)
        except MalformedEntry:
            return False
        if entry.seq < len(self.chain) or entry.seq > len(self.chain) + 64:
            return False
        self.pending.setdefault(entry.seq, entry)
        while len(self.chain) in self.pending:
            entry = self.pending.pop(len(self.chain))
            try:
                self.chain.append(entry, self.keys[entry.seat])
            except ChainError:
                continue
        self.author()
        return True

    def author(self) -> None:
        """Post our entries while it is our turn and the chain is below `total`."""
        me = self.authors.index(self.identity.public)
        while len(self.chain) < self.total and len(self.chain) % len(self.authors) == me:
            entry = self.sign(len(self.chain))
            self.chain.append(entry, self.identity.public)
            self.mesh.post(entry.wire)
        asyncio.get_running_loop().create_task(self._notify())

    def sign(self, seq: int) -> Entry:
        seat = self.keys.index(self.identity.public)
        body = {"n": seq, "pad": bytes(self.pad)}
        return sign_entry(self.identity, self.table_id, seq, self.chain.head, seat, "test", body)

    async def _notify(self) -> None:
        async with self.changed:
            self.changed.notify_all()


async def seat_table(
    honest: int, adversaries: int, **mesh_options: float
) -> tuple[list[Seat], list[Identity], bytes]:
    """`honest` seats linked in a mesh (started, all linked) and the identities of
    `adversaries` more seats whose keys are the smallest (so they dial the honest ones)."""
    table_id = os.urandom(16)
    identities = sorted(
        (Identity.generate() for _ in range(honest + adversaries)), key=lambda i: i.public
    )
    bad, good = identities[:adversaries], identities[adversaries:]
    keys = [i.public for i in identities]
    changed = asyncio.Condition()
    seats = [
        Seat(i, table_id, keys, [g.public for g in good], changed, **mesh_options) for i in good
    ]
    for seat in seats:
        seat.port = await seat.mesh.start(LOOPBACK)
    for seat in seats:
        for other in seats:
            if other is not seat:
                seat.mesh.set_address(other.identity.public, LOOPBACK, other.port)
    for seat in seats:
        others = [o.identity.public for o in seats if o is not seat]
        await seat.mesh.wait_connected(others, DEADLINE)
    return seats, bad, table_id


async def until(seats: Sequence[Seat], condition: Callable[[], bool]) -> None:
    """Wait (up to DEADLINE s) until `condition()` holds after some seat's chain changed."""
    changed = seats[0].changed
    async with asyncio.timeout(DEADLINE), changed:
        await changed.wait_for(condition)


async def play_to(seats: Sequence[Seat], total: int) -> None:
    """Let the honest seats extend the chain to `total` entries; all hold the same chain."""
    for seat in seats:
        seat.total = total
    for seat in seats:
        seat.author()
    await until(seats, lambda: all(len(s.chain) == total for s in seats))
    logs = [[e.wire for e in s.chain.entries] for s in seats]
    assert all(log == logs[0] for log in logs)


async def intrude(identity: Identity, table_id: bytes, victim: Seat) -> Link:
    """An adversary's authenticated mesh link to `victim` (its key is a seat's)."""
    link = await Link.connect(LOOPBACK, victim.port)
    await link.handshake(
        Handshake(identity, initiator=True, table_id=table_id, accept={victim.identity.public})
    )
    return link


async def close_all(seats: Sequence[Seat]) -> None:
    for seat in seats:
        await seat.mesh.close()
