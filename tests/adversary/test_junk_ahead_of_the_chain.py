"""One seat tries to make two honest seats blame each other: it floods a victim with its own
validly signed junk a little ahead of the chain (more than its budget for entries that come
early holds), sends its real entries only to the seat after it, never echoes anything and never
answers the victim's `sync`. Each seat's junk crowds out only that seat's room ahead of the
chain, the seat after it echoes each entry before posting its own, and a seat whose chain
stalls asks its peers again (`sync`), so the honest seats finish the game (or blame only the
attacker). Before, the seat after it posted first; the victim refused that entry, nobody sent
it again, and the victim and that seat ended blaming each other."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from test_lan_durability import Seat, seat_in_order

from cfnet.errors import PeerProtocolError
from cfnet.net.framing import entry_frame
from cfnet.net.mesh import Mesh
from cfnet.protocol.chain import MAX_PENDING_BYTES, PENDING_SLACK
from cfnet.protocol.events import GameOver
from cfnet.protocol.referee import MAX_ORDINARY_ENTRY
from cfnet.protocol.table import Table
from cfnet.protocol.verify import verify_entries
from cfnet.record.entry import decode_entry, sign_entry
from cfnet.record.identity import Identity
from cfnet.record.logfile import read_log
from cfnet.seat.net_game import NetGame
from cfnet.seat.session import GameAborted

ATTACKER, NEXT = 1, 2
TIMEOUT = 20
JUNK_SIZE = MAX_ORDINARY_ENTRY - 400
JUNK_PER_POST = MAX_PENDING_BYTES // JUNK_SIZE + 4  # more than the attacker's room holds


class Watched(Table):
    """An honest seat's table that counts the attacker's junk it is given, and how much of it
    it refused for want of room."""

    junk = 0
    refused = 0

    def receive(self, wire: bytes, now: float) -> None:
        entry = decode_entry(wire)
        is_junk = entry.seat == ATTACKER and isinstance(entry.body, dict) and "junk" in entry.body
        self.junk += is_junk
        try:
            super().receive(wire, now)
        except PeerProtocolError:
            self.refused += is_junk
            raise


class Starving(Mesh):
    """The attacker's mesh: its own entries go to the next seat only, each with a flood of junk
    to the victim; nothing is echoed, and the victim's `sync` goes unanswered."""

    identity: Identity
    table_id = b""
    next_key = b""
    victim_key = b""  # the seat after the next one
    floods = 0

    def _send_on(self, wire: bytes, digest: bytes, skip: bytes | None) -> None:
        entry = decode_entry(wire)
        if digest in self._sent or entry.seat != ATTACKER:
            return
        self._sent.add(digest)
        if self.next_key in self._links:
            self._enqueue(self.next_key, entry_frame(wire))
        if self.victim_key in self._links:
            self._flood(entry.seq + 1)

    def _flood(self, start: int) -> None:
        """Validly signed junk for the seqs just ahead of the chain, over the room it has."""
        window = 2 * len(self._peers | {self.identity.public}) + PENDING_SLACK
        for n in range(JUNK_PER_POST):
            seq = start + n % window
            body = {"junk": bytes(JUNK_SIZE), "n": n, "flood": self.floods}
            junk = sign_entry(self.identity, self.table_id, seq, bytes(32), ATTACKER, "pass", body)
            self._enqueue(self.victim_key, entry_frame(junk.wire))
        self.floods += 1

    async def _on_message(self, key: bytes, *rest: Any) -> None:
        if key == self.victim_key and rest[-1]["t"] == "sync":
            return
        await super()._on_message(key, *rest)  # type: ignore[arg-type]


class AttackerSeat(Seat):
    """The attacking seat: a computer player whose mesh is `Starving`."""

    async def prepare(self, genesis: bytes, seat: int, known: dict[int, tuple[str, int]]) -> int:
        port = await super().prepare(genesis, seat, known)
        game = self.game
        assert game is not None
        mesh = game.mesh
        mesh.__class__ = Starving  # before anything is posted: the same mesh, now starving
        assert isinstance(mesh, Starving)
        keys = [info.key for info in game.table.seats]
        mesh.identity, mesh.table_id = game.identity, game.table.table_id
        mesh.next_key, mesh.victim_key = keys[NEXT], keys[(NEXT + 1) % len(keys)]
        return port


async def _game(tmp: Path, seats_at_table: int) -> list[NetGame]:
    seats = [
        AttackerSeat(tmp / f"h{i}") if i == ATTACKER else Seat(tmp / f"h{i}", table_class=Watched)
        for i in range(seats_at_table)
    ]
    games = await seat_in_order(seats[0], seats[1:], timeout=TIMEOUT)
    attacker = games[ATTACKER]
    attacker.start()
    task = attacker._task
    assert task is not None
    async with asyncio.timeout(300):
        await asyncio.gather(*(game.run() for game in games if game is not attacker))
    if task.done():  # the attacker may wait for ever on a chain it broke; it must not fail
        assert task.exception() is None, task.exception()
    await attacker.close()
    attacker.store.close()
    return games


@pytest.mark.parametrize("seats", [3, 4])
def test_junk_ahead_of_the_chain_and_withheld_echoes_frame_no_honest_seat(
    tmp_path: Path, seats: int
) -> None:
    """With 3 seats the victim has no other path than the seat after the attacker; with 4,
    a third honest seat also echoes."""
    games = asyncio.run(_game(tmp_path, seats))
    victim = (NEXT + 1) % seats
    mesh = games[ATTACKER].mesh
    assert isinstance(mesh, Starving) and mesh.floods > 0
    table = games[victim].table
    assert isinstance(table, Watched)
    assert table.junk >= JUNK_PER_POST, table.junk  # the junk reached the victim...
    assert table.refused > 0, table.refused  # ...over the room the attacker has there
    honest = [s for s in range(seats) if s != ATTACKER]
    for seat in honest:
        result = games[seat].result
        assert isinstance(result, GameOver | GameAborted), result
        if isinstance(result, GameAborted):
            assert result.reason.startswith(f"seat {ATTACKER} "), (seat, result.reason)
    logs = [games[s].log_path.read_bytes() for s in honest]
    assert len(set(logs)) == 1
    verdict = verify_entries(read_log(games[honest[0]].log_path))
    assert verdict.ok, verdict.problem
    assert not set(verdict.removed) - {ATTACKER}, verdict.removed
