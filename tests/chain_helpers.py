"""The verified, append-only chain of one table's entries, as a test double for what a mesh
delivers to (the live table does the real placing); with its errors."""

from __future__ import annotations

import enum
from collections.abc import Sequence

from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.record.entry import GENESIS_PREV, TABLE_ID_BYTES, Entry, Equivocation


class ChainProblem(enum.Enum):
    """Why an entry does not extend the chain."""

    BAD_SIGNATURE = "bad signature"
    WRONG_TABLE = "wrong table"
    GAP = "gap"
    SEQ_TAKEN = "seq taken"
    WRONG_PREV = "wrong prev"
    EQUIVOCATION = "equivocation"


class ChainError(PeerProtocolError):
    """An entry that does not extend the chain.

    `signer` is the entry's seat when its signature verified (authentic but maybe stale or
    replayed: the table layer decides); `seat` (blame) is set only with a proof (equivocation).
    """

    def __init__(
        self, reason: str, problem: ChainProblem, signer: int | None, seat: int | None = None
    ) -> None:
        super().__init__(reason, seat)
        self.problem = problem
        self.signer = signer


class EquivocationError(ChainError):
    """A seat signed two different entries for one place; `proof` shows it to anyone."""

    def __init__(self, proof: Equivocation) -> None:
        seat = proof.a.seat
        super().__init__(
            f"signed two different entries for seq {proof.a.seq}",
            ChainProblem.EQUIVOCATION,
            signer=seat,
            seat=seat,
        )
        self.proof = proof


class Chain:
    """The verified, append-only entries of one table: seq 0, 1, ... each linked to the last."""

    def __init__(self, table_id: bytes) -> None:
        if len(table_id) != TABLE_ID_BYTES:
            raise LocalProtocolError(f"table id must be {TABLE_ID_BYTES} bytes")
        self.table_id = table_id
        self._entries: list[Entry] = []

    @property
    def entries(self) -> Sequence[Entry]:
        return self._entries

    @property
    def head(self) -> bytes:
        """The hash the next entry must name as prev (32 zero bytes while empty)."""
        return self._entries[-1].hash if self._entries else GENESIS_PREV

    @property
    def next_seq(self) -> int:
        return len(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def append(self, entry: Entry, public_key: bytes) -> bool:
        """Add `entry`, signed by `public_key` (its seat's key): True if added, False if already
        there (an echo). ChainError if it does not extend the chain; EquivocationError if its
        seat already signed a different entry at that seq."""
        if entry.seq < len(self._entries) and self._entries[entry.seq] == entry:
            return False
        where = f"entry {entry.seq} (seat {entry.seat}, {entry.kind})"
        if not entry.verify(public_key):
            raise ChainError(
                f"{where}: signature is not valid for the seat's key",
                ChainProblem.BAD_SIGNATURE,
                signer=None,
            )
        signer = entry.seat
        if entry.table_id != self.table_id:
            raise ChainError(
                f"{where}: is for table {entry.table_id.hex()}, this is {self.table_id.hex()}",
                ChainProblem.WRONG_TABLE,
                signer,
            )
        if entry.seq < len(self._entries):
            there = self._entries[entry.seq]
            if there.seat == entry.seat:
                raise EquivocationError(Equivocation(there, entry))
            raise ChainError(
                f"{where}: seq {entry.seq} already holds seat {there.seat}'s entry",
                ChainProblem.SEQ_TAKEN,
                signer,
            )
        if entry.seq > len(self._entries):
            raise ChainError(
                f"{where}: the chain has only {len(self._entries)} entries (next seq"
                f" {len(self._entries)})",
                ChainProblem.GAP,
                signer,
            )
        if entry.prev != self.head:
            raise ChainError(
                f"{where}: prev {entry.prev.hex()[:16]}... is not the head"
                f" {self.head.hex()[:16]}...",
                ChainProblem.WRONG_PREV,
                signer,
            )
        self._entries.append(entry)
        return True
