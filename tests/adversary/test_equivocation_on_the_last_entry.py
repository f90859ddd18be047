"""The last seat signs two different last entries and sends one to each honest seat: both games
are over, their logs end differently. After the end the meshes still announce their final
heads; a peer whose head differs is sent the other's last entry, so each honest seat gets the
equivocation proof (the table then aborts, protocol.md 4.6), and a peer leaves only once every
other one announced the very chain it holds."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence

from net_helpers import LOOPBACK

from adversary.mesh_seats import DEADLINE
from cfnet.net.mesh import Mesh
from cfnet.record.entry import GENESIS_PREV, decode_entry, sign_entry
from cfnet.record.identity import Identity

SHARED = 6


class FinalChain:
    """A finished seat's log as the mesh sees it. An entry of the last seat's at the last seq,
    different from ours, is the equivocation proof: noted, and (as the abort that follows
    would) both seats end on the same entry, the smaller one."""

    def __init__(self, wires: list[bytes]) -> None:
        self.wires = wires
        self.proofs: list[bytes] = []

    def count(self) -> int:
        return len(self.wires)

    def since(self, count: int) -> Sequence[bytes]:
        return self.wires[count:]

    def deliver(self, wire: bytes, sender: bytes) -> bool:
        last = decode_entry(self.wires[-1])
        entry = decode_entry(wire)
        if (entry.seq, entry.seat) != (last.seq, last.seat) or wire in self.wires:
            return False
        self.proofs.append(wire)
        self.wires[-1] = min(self.wires[-1], wire)
        return True


async def _linger(mesh: Mesh, chain: FinalChain, others: set[bytes]) -> None:
    """What a finished game does (NetGame._linger): announce our head whenever it changes,
    until every other seat announced the same one; then leave."""
    announced = b""
    async with asyncio.timeout(DEADLINE):
        while True:
            if chain.wires[-1] != announced:  # even if the others agree: they must learn it
                mesh.announce()
                announced = chain.wires[-1]
            if mesh.agree(others):
                break
            await asyncio.sleep(0.02)


async def _equivocate() -> tuple[list[FinalChain], list[bytes]]:
    table_id = os.urandom(16)
    honest, cheat = [Identity.generate(), Identity.generate()], Identity.generate()
    keys = [i.public for i in (*honest, cheat)]
    shared, prev = [], GENESIS_PREV
    for seq in range(SHARED):
        entry = sign_entry(honest[seq % 2], table_id, seq, prev, seq % 2, "test", {"n": seq})
        shared.append(entry.wire)
        prev = entry.hash
    chains = [FinalChain(list(shared)), FinalChain(list(shared))]
    meshes = [
        Mesh(identity, table_id, keys, chain, chain.deliver, ping_interval=60.0)
        for identity, chain in zip(honest, chains, strict=True)
    ]
    try:
        ports = [await mesh.start(LOOPBACK) for mesh in meshes]
        meshes[0].set_address(honest[1].public, LOOPBACK, ports[1])
        meshes[1].set_address(honest[0].public, LOOPBACK, ports[0])
        async with asyncio.timeout(DEADLINE):  # linked, each knows the other's chain
            while not all(
                m.agree({i.public for i in honest} - {mine.public})
                for m, mine in zip(meshes, honest, strict=True)
            ):
                await asyncio.sleep(0.01)
        # The cheat's last entry: a different one for each seat (what each seat's echo of
        # it would carry is lost); both games are over.
        twins = [
            sign_entry(cheat, table_id, SHARED, prev, 2, "certify", {"n": n}).wire for n in (1, 2)
        ]
        for chain, twin in zip(chains, twins, strict=True):
            chain.wires.append(twin)
        await asyncio.gather(
            *(
                _linger(mesh, chain, {honest[1 - n].public})
                for n, (mesh, chain) in enumerate(zip(meshes, chains, strict=True))
            )
        )
        return chains, twins
    finally:
        await asyncio.gather(*(mesh.finish(2.0) for mesh in meshes))


def test_an_equivocated_last_entry_reaches_both_honest_seats_after_the_end() -> None:
    chains, twins = asyncio.run(_equivocate())
    assert chains[0].proofs == [twins[1]] and chains[1].proofs == [twins[0]]
    assert chains[0].wires == chains[1].wires  # both end on the same entry, and agree on it
