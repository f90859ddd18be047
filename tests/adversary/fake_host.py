"""A scripted table host for the watcher attacks: it listens on 127.0.0.1, runs the real
handshake as the responder with an identity of its own, and answers a `watch` with the frames
its script gives (entries it made up, a flood), then `done`; a game it makes up (real table id
and names, keys of its own) played by honest in-memory seats; the real table entry, read as
any watcher reads it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field

from cfnet.game.bots import make_bot
from cfnet.net.framing import encode_frame, entry_frame
from cfnet.net.handshake import Handshake
from cfnet.net.link import Link, LinkClosed
from cfnet.protocol.genesis import SeatInfo, make_genesis, parse_genesis
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.table import Table
from cfnet.protocol.testing import Network, sim_entropy
from cfnet.record.entry import Entry, decode_entry
from cfnet.record.identity import Identity

LOOPBACK = "127.0.0.1"

Script = Callable[[], Iterable[bytes]]
"""The frames to send a watcher, in order (`entry_frames` of made-up wires, a flood...)."""


def entry_frames(wires: Iterable[bytes]) -> Iterable[bytes]:
    """`entry` frames of `wires`, then `done`."""
    for wire in wires:
        yield entry_frame(wire)
    yield encode_frame({"t": "done"})


@dataclass
class FakeHost:
    """What the fake host saw: `sent` bytes of frames, how each watcher's link ended."""

    identity: Identity
    table_id: bytes
    script: Script
    sent: int = 0
    ended: list[str] = field(default_factory=list)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(reader, writer)
        try:
            await link.handshake(Handshake(self.identity, initiator=False, table_id=self.table_id))
            message = await link.receive()
            assert message["t"] == "watch", message
            for frame in self.script():
                await link.send_frames(frame)
                self.sent += len(frame)
            while True:  # until the watcher leaves
                await link.receive()
        except LinkClosed as closed:
            self.ended.append(closed.reason)
        finally:
            await link.close("the fake host is done")


@contextlib.asynccontextmanager
async def fake_host(host: FakeHost) -> AsyncIterator[int]:
    """Serve `host` on 127.0.0.1 until the block ends; yields its port."""
    server = await asyncio.start_server(host._serve, LOOPBACK, 0)
    try:
        yield int(server.sockets[0].getsockname()[1])
    finally:
        server.close()


async def real_genesis(port: int) -> Entry:
    """The table entry of the table whose lobby listens at `port`, read as a watcher (with a
    key of its own, like anyone on the LAN) once the game has started."""
    reader, writer = await asyncio.open_connection(LOOPBACK, port)
    link = Link(reader, writer)
    try:
        await link.handshake(Handshake(Identity.generate(), initiator=True, table_id=None))
        await link.send({"t": "watch", "name": "onlooker"})
        while (message := await link.receive())["t"] != "entry":
            pass
        return decode_entry(message["wire"])
    finally:
        await link.close("seen enough")


def made_up_game(real: Entry, seat0: Identity, seed: int) -> list[Entry]:
    """A whole game at the table of `real` (its id, name, rules, timeout and player names),
    every seat's key a new one (`seat0` in seat 0), played by honest in-memory seats."""
    _, name, options, timeout, seats = parse_genesis(real.wire)
    keys = [seat0] + [Identity.generate() for _ in seats[1:]]
    infos = [SeatInfo(seat.name, key.public) for seat, key in zip(seats, keys, strict=True)]
    genesis = make_genesis(seat0, real.table_id, name, options, infos, timeout)
    tables = [
        Table(genesis.wire, LocalSeat(key, s, sim_entropy(seed, s))) for s, key in enumerate(keys)
    ]
    network = Network(tables, [make_bot("greedy", seed * 1009 + s) for s in range(len(keys))])
    network.run()
    assert tables[0].finished
    return list(tables[0].entries)
