"""One seat tries to make two honest seats blame each other: it fills a victim's room for
entries that come early with its own validly signed junk (modelled here by a victim's table
that has no room at all: it refuses every entry that comes before its predecessor), sends its
real entries only to the seat after it, never echoes anything and never answers the victim's
`sync`. The seat after it echoes each entry before posting its own, and a seat whose chain
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
from cfnet.protocol.events import GameOver
from cfnet.protocol.table import Table
from cfnet.record.entry import Entry, decode_entry
from cfnet.seat.session import GameAborted

ATTACKER, NEXT = 1, 2
TIMEOUT = 20


class NoRoom(Table):
    """The victim's table once the attacker's junk fills its room for early entries."""

    def _queue(self, entry: Entry) -> None:
        raise PeerProtocolError(f"entry {entry.seq}: too many entries wait ahead of the chain")


class Starving(Mesh):
    """The attacker's mesh: its own entries go to the next seat only, nothing is echoed, and
    the victim's `sync` goes unanswered."""

    next_key = b""
    victim_key = b""  # the seat after the next one

    def _send_on(self, wire: bytes, digest: bytes, skip: bytes | None) -> None:
        if digest in self._seen or decode_entry(wire).seat != ATTACKER:
            return
        self._seen.add(digest)
        if self.next_key in self._links:
            self._enqueue(self.next_key, entry_frame(wire))

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
        await game.mesh.close()
        keys = [info.key for info in game.table.seats]
        mesh = Starving(game.identity, game.table.table_id, keys, game.store, game._deliver)
        mesh.next_key, mesh.victim_key = keys[NEXT], keys[(NEXT + 1) % len(keys)]
        game.mesh = mesh
        return await game.listen("127.0.0.1", port)


async def _game(tmp: Path, seats_at_table: int) -> tuple[list[Any], list[bytes]]:
    victim = (NEXT + 1) % seats_at_table
    seats = [
        AttackerSeat(tmp / f"h{i}")
        if i == ATTACKER
        else Seat(tmp / f"h{i}", table_class=NoRoom if i == victim else Table)
        for i in range(seats_at_table)
    ]
    games = await seat_in_order(seats[0], seats[1:], timeout=TIMEOUT)
    attacker = games[ATTACKER]
    attacker.start()
    async with asyncio.timeout(300):
        await asyncio.gather(*(game.run() for game in games if game is not attacker))
    await attacker.close()  # it may wait for ever on a chain it broke
    attacker.store.close()
    return [game.result for game in games], [game.log_path.read_bytes() for game in games]


@pytest.mark.parametrize("seats", [3, 4])
def test_junk_ahead_of_the_chain_and_withheld_echoes_frame_no_honest_seat(
    tmp_path: Path, seats: int
) -> None:
    """With 3 seats the victim has no other path than the seat after the attacker; with 4,
    a third honest seat also echoes."""
    results, logs = asyncio.run(_game(tmp_path, seats))
    honest = [s for s in range(seats) if s != ATTACKER]
    for seat in honest:
        result = results[seat]
        assert isinstance(result, GameOver | GameAborted), result
        if isinstance(result, GameAborted):
            assert result.reason.startswith(f"seat {ATTACKER} "), (seat, result.reason)
    assert len({logs[s] for s in honest}) == 1
