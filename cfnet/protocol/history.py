"""Which places of the chain can no longer change (protocol.md, "Version 4: finality"): for
each seat the last seq it signed in the chain, and from that two latches. A place is *built on*
once every seat dealt in has signed an entry after it; it is *final* once the entry that made it
built on is built on in turn. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from cfnet.record.entry import Entry


class Finality:
    """The latches of one chain as entries are placed (`placed`) and cut (`cut`).

    `built` is the highest place every seat dealt in has built on (-1: none); `final` the
    highest final place. Both only grow while the chain grows (from version 4 a cut never
    reaches `final`: only places above it may be replaced)."""

    def __init__(self, players: int) -> None:
        self.players = players
        self._last = [-1] * players
        self._built: list[int] = []  # `built` after each placed entry, by seq

    @property
    def built(self) -> int:
        return self._built[-1] if self._built else -1

    @property
    def final(self) -> int:
        built = self.built
        return self._built[built] if built >= 0 else -1

    def placed(self, entry: Entry, seated: Sequence[int]) -> None:
        """`entry` was placed at the head; `seated` are the seats dealt in after it."""
        assert entry.seq == len(self._built)
        self._last[entry.seat] = entry.seq
        least = min((self._last[seat] for seat in seated), default=entry.seq + 1)
        self._built.append(max(self.built, least - 1))

    def cut(self, entries: Sequence[Entry]) -> None:
        """The chain was cut back to `entries` (an abort replaces what followed them; from
        version 4 never at or below `final`)."""
        del self._built[len(entries) :]
        self._last = [-1] * self.players
        for entry in entries:
            self._last[entry.seat] = entry.seq
