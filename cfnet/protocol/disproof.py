"""A timeout disproved by its own author (protocol.md 4.6, "A timeout its author built past"):
the author of a `timeout` abort at place n (seq and prev) had signed an entry after the staller's
own entry at n, on the chain that holds that entry. An honest voter never does (its vote is
open only while n is its head), so the timeout is refused wherever the chain shows it, and the
chain from n to the author's entry (the *disproof*) is passed on: a peer that had taken the
timeout gathers that chain beside its own (`Rival`) and, once it reaches the author's entry, goes
back to it. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from cfnet.errors import PeerProtocolError
from cfnet.protocol.wire import ABORT, TIMEOUT
from cfnet.record.entry import Entry

MAX_DISPROOF = 64
"""The longest disproof gathered, in entries: from the staller's entry to the author's next one
an honest chain holds a few laps of the table (at most 8 seats, one to three entries each)."""


def is_timeout(entry: Entry) -> bool:
    """`entry` is an abort that claims a timeout (a departure, when it holds)."""
    body = entry.body
    return entry.kind == ABORT and isinstance(body, dict) and body.get("code") == TIMEOUT


def built_past(entries: Sequence[Entry], timeout: Entry) -> list[Entry] | None:
    """The disproof of `timeout`, which links into the chain `entries` below its head (None:
    it has none): the entries from its seq to the first one its author signed after it, when
    the entry at its place is not an abort."""
    seq = timeout.seq
    if not 0 < seq < len(entries) or entries[seq].kind == ABORT:
        return None
    for index in range(seq + 1, min(len(entries), seq + MAX_DISPROOF)):
        if entries[index].seat == timeout.seat:
            return list(entries[seq : index + 1])
    return None


class Rival:
    """The chain a disproof brings, gathered beside a peer's own chain that holds the timeout:
    it starts with the staller's entry at the timeout's place and follows it, entry by entry,
    each signed by its seat. `offer` says when it has reached the timeout's author."""

    def __init__(self, keys: Sequence[bytes]) -> None:
        self.keys = tuple(keys)
        self.timeout: Entry | None = None
        self.entries: list[Entry] = []

    def offer(self, entries: Sequence[Entry], entry: Entry, final: int) -> bool | None:
        """Take `entry` if it starts a rival chain at a timeout of `entries` above `final`
        (the staller's own entry at that place) or follows the one gathered: True once the
        rival chain holds an entry of the timeout's author after its place, False while it
        grows (or for a copy), None if `entry` is not for it. PeerProtocolError: a bad
        signature, or a rival chain longer than MAX_DISPROOF."""
        if any(held.wire == entry.wire for held in self.entries):
            return False
        follows = self._follows(entries, entry)
        timeout = None if follows else self._started_by(entries, entry, final)
        if not follows and timeout is None:
            return None
        if not entry.verify(self.keys[entry.seat]):
            raise PeerProtocolError(f"entry {entry.seq}: the signature is not seat {entry.seat}'s")
        if timeout is not None:
            self.timeout, self.entries = timeout, []
        self.entries.append(entry)
        if len(self.entries) > MAX_DISPROOF:
            self.forget()
            raise PeerProtocolError(f"entry {entry.seq}: the chain beside a timeout is too long")
        assert self.timeout is not None
        return len(self.entries) > 1 and entry.seat == self.timeout.seat

    def forget(self) -> None:
        """Drop what was gathered."""
        self.timeout, self.entries = None, []

    def _follows(self, entries: Sequence[Entry], entry: Entry) -> bool:
        timeout, gathered = self.timeout, self.entries
        if timeout is None or not gathered:
            return False
        if not (timeout.seq < len(entries) and entries[timeout.seq] == timeout):
            self.forget()  # our chain no longer holds that timeout
            return False
        return entry.seq == gathered[-1].seq + 1 and entry.prev == gathered[-1].hash

    def _started_by(self, entries: Sequence[Entry], entry: Entry, final: int) -> Entry | None:
        """The timeout of `entries` whose place `entry`, the staller's own, is for (None)."""
        seq = entry.seq
        if not final < seq < len(entries) or entry.kind == ABORT:
            return None
        there = entries[seq]
        if not is_timeout(there) or there.prev != entry.prev or entry.seat != there.body["blamed"]:
            return None
        return there
