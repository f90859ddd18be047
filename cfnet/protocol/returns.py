"""Coming back after leaving (protocol.md 4.6, "Returns"): a seat that left signs a `return`
request bound to its departure entry; a seat still dealt in carries it in its `certify`, and the
seat is dealt in again from the next round that starts. The request is never a chain entry of
its own, so it never races the schedule. Pure."""

from __future__ import annotations

from dataclasses import dataclass, field

from cfnet.protocol.wire import RETURN, BodyError
from cfnet.record.entry import Entry, MalformedEntry, decode_entry

MAX_REQUEST_BYTES = 256
"""A return request's wire is about 130 bytes; anything larger is not one."""


@dataclass(slots=True)
class Returns:
    """The seats that left (each with the seq and hash of its latest departure), those of them
    removed for cheating (never back), the return requests this peer holds, and the seats a
    certificate of this round has brought back."""

    table_id: bytes
    keys: tuple[bytes, ...]
    left_at: dict[int, tuple[int, bytes]] = field(default_factory=dict)
    removed: set[int] = field(default_factory=set)
    requests: dict[int, bytes] = field(default_factory=dict)
    coming_back: set[int] = field(default_factory=set)

    def left(self, seat: int, seq: int, entry_hash: bytes, removed: bool = False) -> None:
        """`seat` left at entry `seq` (whose hash is `entry_hash`); `removed`: for cheating."""
        self.left_at[seat] = (seq, entry_hash)
        if removed:
            self.removed.add(seat)
        self.requests.pop(seat, None)
        self.coming_back.discard(seat)

    def seat_of(self, wire: bytes, seated: tuple[int, ...]) -> int:
        """The seat whose valid return request `wire` is; BodyError why it is not one: it must
        be a `return` of a seat not dealt in, with the seq and `prev` of that seat's latest
        departure, an empty body, signed by the seat."""
        if len(wire) > MAX_REQUEST_BYTES:
            raise BodyError(f"a return request is at most {MAX_REQUEST_BYTES} bytes")
        try:
            entry = decode_entry(wire)
        except MalformedEntry as error:
            raise BodyError(f"a return request that does not decode: {error.reason}") from None
        if entry.kind != RETURN or entry.table_id != self.table_id or entry.body != {}:
            raise BodyError("not a return request (kind return, empty body) for this table")
        seat = entry.seat
        if not 0 <= seat < len(self.keys) or seat in seated or seat not in self.left_at:
            raise BodyError(f"seat {entry.seat} is not a seat that has left")
        if seat in self.removed:
            raise BodyError(f"seat {seat} was removed for cheating: it cannot come back")
        if (entry.seq, entry.prev) != self.left_at[seat]:
            raise BodyError(f"seat {seat}'s return request is not bound to its latest departure")
        if not entry.verify(self.keys[seat]):
            raise BodyError(f"the return request is not signed by seat {seat}")
        return seat

    def request(self, entry: Entry, seated: tuple[int, ...]) -> int:
        """Hold a return request received (to carry in our next certificate); its seat.
        BodyError if it is not a valid one now."""
        seat = self.seat_of(entry.wire, seated)
        self.requests[seat] = entry.wire
        return seat

    def to_carry(self, seated: tuple[int, ...]) -> list[bytes]:
        """The requests still valid that no certificate of this round has carried yet."""
        carry = []
        for seat, wire in sorted(self.requests.items()):
            if seat in self.coming_back:
                continue
            try:
                self.seat_of(wire, seated)
            except BodyError:
                continue
            carry.append(wire)
        return carry

    def carried(self, wires: list[bytes], seated: tuple[int, ...]) -> None:
        """A certificate carried `wires`: their seats come back at the next round (BodyError
        if one is not a valid request, or two are of one seat)."""
        seats = [self.seat_of(wire, seated) for wire in wires]
        if len(set(seats)) != len(seats):
            raise BodyError("a certificate carries two return requests of one seat")
        self.coming_back.update(seats)

    def back(self) -> list[int]:
        """The seats dealt in again now that the next round starts (the requests used up)."""
        seats = sorted(self.coming_back)
        for seat in seats:
            self.requests.pop(seat, None)
            self.left_at.pop(seat, None)
        self.coming_back.clear()
        return seats
