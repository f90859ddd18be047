"""One table's hash chain as a peer holds it (protocol.md 4.2): the entries placed so far, when
each arrived here and which seat was due at each; and the validly signed entries a little ahead
of it, waiting for their turn within each seat's budget. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from cfnet.errors import PeerProtocolError
from cfnet.record.entry import Entry

PENDING_SLACK = 8
"""How far ahead of the chain an entry may be queued: 2 * players + PENDING_SLACK seqs."""
MAX_PENDING_BYTES = 256 * 1024
"""What one seat's entries queued ahead of the chain may hold: a seat crowds out only itself
(an honest seat has at most one entry per seq in the window, at most 25 * 9 KiB)."""


class Chain:
    """The placed entries (`entries`, seq = index), their arrival times and due seats."""

    def __init__(self, keys: Sequence[bytes]) -> None:
        """`keys`: each seat's public key, which signs its queued entries."""
        self.keys = tuple(keys)
        self.entries: list[Entry] = []
        self.times: list[float] = []
        self._wires: set[bytes] = set()
        self._expected: list[int] = []
        self._pending: dict[int, list[Entry]] = {}
        self._pending_bytes = [0] * len(self.keys)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def head(self) -> bytes:
        return self.entries[-1].hash

    def holds(self, wire: bytes) -> bool:
        """Whether this very entry is placed."""
        return wire in self._wires

    def append(self, entry: Entry, now: float, expected: int) -> None:
        """Place `entry` at the head; `expected` is the seat that was due there."""
        self.entries.append(entry)
        self.times.append(now)
        self._wires.add(entry.wire)
        self._expected.append(expected)

    def cut(self, seq: int) -> None:
        """Drop the entries from `seq` on (an abort replaces them)."""
        self._wires.difference_update(e.wire for e in self.entries[seq:])
        del self.entries[seq:]
        del self._expected[seq:]
        del self.times[seq:]

    def expected_at(self, seq: int) -> int | None:
        """The seat that was due at placed entry `seq` (None: not placed yet)."""
        return self._expected[seq] if seq < len(self._expected) else None

    def queue(self, entry: Entry) -> None:
        """Keep a validly signed entry that is a little ahead of the chain until its turn."""
        seq, length = entry.seq, len(self.entries)
        if seq > length + 2 * len(self.keys) + PENDING_SLACK:
            raise PeerProtocolError(f"entry {seq} is too far ahead of the chain ({length})")
        if entry in self._pending.get(seq, ()):
            return  # a copy (every copy comes here): no second signature check
        if not entry.verify(self.keys[entry.seat]):
            raise PeerProtocolError(f"entry {seq}: the signature is not seat {entry.seat}'s")
        if self._pending_bytes[entry.seat] + len(entry.wire) > MAX_PENDING_BYTES:
            raise PeerProtocolError(
                f"entry {seq}: too many entries of seat {entry.seat} wait ahead of the chain"
            )
        self._pending.setdefault(seq, []).append(entry)
        self._pending_bytes[entry.seat] += len(entry.wire)

    def unqueue(self) -> list[Entry]:
        """The queued entries for the next seq; those for seqs already filled are dropped."""
        length = len(self.entries)
        waiting: list[Entry] = []
        for seq in [s for s in self._pending if s <= length]:
            entries = self._pending.pop(seq)
            for queued in entries:
                self._pending_bytes[queued.seat] -= len(queued.wire)
            if seq == length:
                waiting = entries
        return waiting
