"""Timeouts by a majority (protocol.md 4.6, "Stall votes"): from protocol version 4 a seat whose
deadline for the seat due has passed does not time it out alone. It signs an off-chain `stall`
vote for that place; a `timeout` abort holds only if it carries the votes of more than half of
the seats dealt in at its seq (never counting the staller), its author among them. The check
reads signatures only, so a live peer and `cfnet verify` judge a timeout alike. Pure.

A vote is for one place (seq and prev) and stays open only while that place is its voter's
head: once anything is placed there (the staller's late entry, an abort) the voter lets it go,
neither sends it again nor posts a timeout with it, and plays on at once. So an honest timeout
is only ever posted at a place no seat has built on, and a table has one game, never two.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cfnet.protocol.wire import STALL, BodyError, Fault, check_body, is_int
from cfnet.record.entry import Entry, MalformedEntry, decode_entry

VOTES_VERSION = 4
"""From this protocol version on, only a majority of the seats dealt in times a seat out."""
MAX_VOTE_BYTES = 256
"""The largest stall vote (a real one is about 140 bytes)."""


def needed(seated: int) -> int:
    """How many votes time a seat out where `seated` seats (the staller included) are dealt in:
    more than half of them."""
    return seated // 2 + 1


def possible(seated: int) -> bool:
    """Whether the seats dealt in but the staller can ever be a majority (not with 2 seats)."""
    return needed(seated) <= seated - 1


def vote_problem(
    vote: Entry, table_id: bytes, keys: Sequence[bytes], seated: Sequence[int], staller: int
) -> str | None:
    """Why `vote` is not a valid stall vote against `staller` by a seat dealt in (`seated`) at
    its place (None if it is): kind, size, table, body, voter, signature."""
    if vote.kind != STALL or len(vote.wire) > MAX_VOTE_BYTES:
        return f"entry {vote.seq} is not a stall vote of at most {MAX_VOTE_BYTES} bytes"
    if vote.table_id != table_id:
        return f"the stall vote for entry {vote.seq} is for another table"
    try:
        check_body(STALL, vote.body, {"seat": is_int})
    except BodyError as error:
        return error.reason
    if vote.body["seat"] != staller:
        return f"the stall vote for entry {vote.seq} names seat {vote.body['seat']}, not {staller}"
    if vote.seat == staller or vote.seat not in seated:
        return f"seat {vote.seat} has no vote on seat {staller} at entry {vote.seq}"
    if not vote.verify(keys[vote.seat]):
        return f"the stall vote for entry {vote.seq}: the signature is not seat {vote.seat}'s"
    return None


def votes_problem(
    claim: Fault, abort: Entry, table_id: bytes, keys: Sequence[bytes], seated: Sequence[int]
) -> str | None:
    """Why a version-4 `timeout` abort does not hold (None if it does): its evidence must carry,
    bytewise ascending, the valid stall votes for its own place (seq and prev) against the seat
    it blames of more than half of the seats dealt in there (`seated`), its author's among them."""
    wires = claim.evidence.get("votes")
    if type(wires) is not list or not all(type(w) is bytes for w in wires):
        return "a timeout needs the stall votes of a majority of the seats dealt in"
    if wires != sorted(set(wires)):
        return "the stall votes are not each once, in bytewise order"
    voters: set[int] = set()
    for wire in wires:
        try:
            vote = decode_entry(wire)
        except MalformedEntry as error:
            return f"a stall vote is malformed: {error.reason}"
        if (vote.seq, vote.prev) != (abort.seq, abort.prev):
            return f"a stall vote is not for entry {abort.seq} of this chain"
        problem = vote_problem(vote, table_id, keys, seated, claim.seat)
        if problem is not None:
            return problem
        if vote.seat in voters:
            return f"seat {vote.seat} voted twice"
        voters.add(vote.seat)
    if abort.seat not in voters:
        return f"its author, seat {abort.seat}, did not vote"
    if len(voters) < needed(len(seated)):
        return (
            f"{len(voters)} of the {len(seated)} seats dealt in voted; a timeout needs"
            f" {needed(len(seated))}"
        )
    return None


def vote_seats(evidence: dict[str, Any]) -> tuple[int, ...]:
    """The voters of a timeout's evidence (already checked), in seat order; () for none."""
    seats: list[int] = []
    for wire in evidence.get("votes", ()):
        try:
            seats.append(decode_entry(wire).seat)
        except MalformedEntry:
            continue
    return tuple(sorted(seats))


class Ballot:
    """The stall votes a seat holds (each voter's latest, signature checked: one per seat, so
    bounded), and its own latest vote. `entries`, `due_at` and `seated_at` are the chain, the
    seat due at a seq and the seats dealt in at a seq, as the table holds them."""

    def __init__(
        self,
        table_id: bytes,
        keys: Sequence[bytes],
        entries: Callable[[], list[Entry]],
        due_at: Callable[[int], int],
        seated_at: Callable[[int], tuple[int, ...]],
    ) -> None:
        self.table_id, self.keys = table_id, tuple(keys)
        self._entries, self._due_at, self._seated_at = entries, due_at, seated_at
        self.held: dict[int, Entry] = {}
        self.own: Entry | None = None
        self.majority_seen: tuple[bytes, float] | None = None  # (prev, when) of own vote's place

    def _links(self, vote: Entry) -> bool:
        """`vote` is for a place of the chain held here (its prev is the entry before it)."""
        entries = self._entries()
        return 0 < vote.seq <= len(entries) and entries[vote.seq - 1].hash == vote.prev

    def problem(self, vote: Entry, window: int) -> str | None:
        """Why a received `vote` is not kept (None: it is). One ahead of the chain (at most
        `window` seqs) is kept on its signature, and judged where it links once it does."""
        entries = self._entries()
        if vote.seq > len(entries):
            if vote.seq > len(entries) + window:
                return f"the stall vote for entry {vote.seq} is too far ahead of the chain"
            staller = vote.body.get("seat")
            everyone = range(len(self.keys))
            if vote.seat not in everyone or type(staller) is not int:
                return f"the stall vote for entry {vote.seq} names no seat of this table"
            return vote_problem(vote, self.table_id, self.keys, everyone, staller)
        if not self._links(vote):
            return f"the stall vote for entry {vote.seq} does not fit this chain"
        staller = self._due_at(vote.seq)
        return vote_problem(vote, self.table_id, self.keys, self._seated_at(vote.seq), staller)

    def keep(self, vote: Entry) -> bool:
        """Hold `vote` (checked) as its seat's latest; whether it is new here."""
        held = self.held.get(vote.seat)
        if held is not None and (held.seq > vote.seq or held == vote):
            return False
        self.held[vote.seat] = vote
        return True

    def cast(self, vote: Entry) -> None:
        """The local seat's own vote (signed for the head): held, and resent while it is open."""
        self.own = vote
        self.majority_seen = None
        self.keep(vote)

    def tally(self, seq: int) -> list[Entry]:
        """The valid votes held for place `seq` of the chain, against the seat due there."""
        entries = self._entries()
        if not 0 < seq <= len(entries):
            return []
        prev, staller, seated = entries[seq - 1].hash, self._due_at(seq), self._seated_at(seq)
        return sorted(
            (
                vote
                for vote in self.held.values()
                if (vote.seq, vote.prev) == (seq, prev)
                and vote.body.get("seat") == staller
                and vote.seat in seated
                and vote.seat != staller
            ),
            key=lambda vote: vote.wire,
        )

    def open_vote(self) -> Entry | None:
        """The local seat's vote while it can still be used: its place (seq and prev) is the
        head of the chain held here. None once anything was placed there (the staller's late
        entry, an abort) or the chain forked: the voter lets its vote go and plays on."""
        own, entries = self.own, self._entries()
        if own is None or own.seq != len(entries) or not self._links(own):
            return None
        return own

    def majority(self) -> list[Entry] | None:
        """The votes for the local seat's open vote's place once they are a majority of the
        seats dealt in there (the local seat's among them), else None."""
        own = self.open_vote()
        if own is None:
            return None
        votes = self.tally(own.seq)
        return votes if len(votes) >= needed(len(self._seated_at(own.seq))) else None
