"""The table protocol as a sans-IO state machine (protocol.md): fed signed entries and the time,
it says which entries the local seat posts next and when its next timer falls.

Inputs: `receive(wire, now)`, `choose(move)`, `handle_timer(now)`; outputs: `entries_to_send(now)`
(the local seat's entries, already placed here), `get_timer()` and the one event queue
`next_event()` (None when empty), as in h11 and aioquic.

One hash chain per table; at every moment exactly one seat is entitled to post the next entry
(`schedule`), so honest seats never fork it. A provable fault (or a stall past the deadline)
ends the game with a signed abort naming the seat. No I/O, no clock, no global randomness: the
round seeds come from `LocalSeat.entropy` (os.urandom unless a test supplies a derivation).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import replace

from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.game.engine import Game, Move, PlayerView, PublicRound
from cfnet.protocol.chain import Chain
from cfnet.protocol.claims import PREMATURE, Judged, claim_problem
from cfnet.protocol.events import Aborted, Appended, Event, FaultFound, Superseded
from cfnet.protocol.genesis import parse_genesis
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.round_checks import RoundChecks
from cfnet.protocol.rounds import Rounds
from cfnet.protocol.schedule import Step
from cfnet.protocol.wire import (
    ABORT,
    EQUIVOCATION,
    OUT_OF_TURN,
    TIMEOUT,
    TURN_KINDS,
    Blame,
    BodyError,
    Fault,
    blame,
    parse_abort,
)
from cfnet.record.entry import Entry, Equivocation, MalformedEntry, decode_entry

OFFLINE = math.inf
"""The time to give a table replaying a finished log: every deadline has long passed."""
MAX_ORDINARY_ENTRY = 9 * 1024
"""The largest entry but an abort: the largest real one, a `shuffle_a` with its proof, is
9 112 bytes (a few more once seq numbers pass 65 535)."""
MAX_ABORT_ENTRY = 2 * MAX_ORDINARY_ENTRY + 16 * 1024
"""The largest abort: an equivocation proof carries two ordinary entries, plus the detail."""


class Table:
    """One table's protocol state; `local` is None for an observer (what `cfnet verify` runs)."""

    def __init__(
        self,
        genesis: bytes,
        local: LocalSeat | None = None,
        now: float = 0.0,
        unproven_rounds: frozenset[int] = frozenset(),
    ) -> None:
        """`unproven_rounds`: rounds whose hop proofs an observer need not check, because the
        log holds every seat's reveal of them and the audit recomputes every hop."""
        entry, self.name, self.options, self.timeout, self.seats = parse_genesis(genesis)
        self.table_id = entry.table_id
        self.players = len(self.seats)
        if local is not None and (
            not 0 <= local.seat < self.players
            or self.seats[local.seat].key != local.identity.public
        ):
            raise LocalProtocolError("the local identity does not hold that seat at this table")
        self.local = local
        self.me = None if local is None else local.seat
        unproven = unproven_rounds if local is None else frozenset()
        self.chain = Chain([s.key for s in self.seats])
        self.rounds = Rounds(self.table_id, entry.hash, self.options, self.players, local, unproven)
        self.fault: Fault | None = None
        self.fault_time = 0.0
        self.aborted: Fault | None = None
        self.aborted_by: int | None = None
        self.rejected: dict[int, str] = {}
        self._held: Entry | None = None
        self._step_started = now
        self._chosen: Move | None = None
        self._events: deque[Event] = deque()
        self._append(entry, now, 0)
        self._events.append(Appended(entry))

    # ------------------------------------------------------------------ views

    @property
    def entries(self) -> list[Entry]:
        return self.chain.entries

    @property
    def head(self) -> bytes:
        return self.chain.head

    @property
    def over(self) -> bool:
        """Every round was certified by every seat (an abort may still replace the end)."""
        return self.rounds.over

    @property
    def finished(self) -> bool:
        """The game is over, by its last certificate or by an abort (a finished game whose
        last seats equivocated is not: its abort is still to be posted)."""
        return self.aborted is not None or (self.over and self.fault is None)

    @property
    def game(self) -> Game:
        """The game's rounds and scores so far."""
        return self.rounds.game

    @property
    def round(self) -> RoundChecks | None:
        """The current round's public record (None before the first deal)."""
        return self.rounds.round

    @property
    def public(self) -> PublicRound | None:
        """The current round's public state (None before the first deal)."""
        return self.rounds.public

    @property
    def step(self) -> Step:
        """Where the schedule stands."""
        return self.rounds.schedule.step

    def due(self) -> tuple[int, frozenset[str]] | None:
        """The seat entitled to post next and the kinds it may post (None: only an abort or
        nothing more)."""
        if self.finished or self.fault is not None:
            return None
        return self.rounds.due()

    @property
    def awaited(self) -> int | None:
        """The seat the table waits for (the abort's poster after a fault)."""
        if self.finished:
            return None
        if self.fault is not None:
            return self.fault.posters[0] if self.fault.posters else None
        due = self.due()
        return None if due is None else due[0]

    @property
    def awaiting_local_move(self) -> bool:
        """The local player must choose a move (then call `choose`)."""
        due = self.due()
        local_turn = due is not None and due[0] == self.me and due[1] == TURN_KINDS
        return (
            local_turn
            and self.step is Step.TURNS
            and self._chosen is None
            and not self.rounds.auto_pass
        )

    def view(self) -> PlayerView:
        """The local player's view of the current round."""
        seat, public = self.rounds.seat, self.public
        if self.me is None or seat is None or public is None:
            raise LocalProtocolError("no hand to show: this table has no local seat or round yet")
        drawn = seat.drawn_tile() if public.drawn_pending and public.turn == self.me else None
        return PlayerView(self.me, seat.hand_tiles(), drawn, public)

    def choose(self, move: Move) -> None:
        """The local player's move; it is posted by the next `entries_to_send`."""
        if not self.awaiting_local_move:
            raise LocalProtocolError("it is not your turn to move: wait for the seat shown")
        legal = self.view().legal_moves()
        if move not in legal:
            allowed = ", ".join(str(m) for m in legal[:12])
            raise LocalProtocolError(f"{move} is not a legal move now: you may {allowed}")
        self._chosen = move

    def next_event(self) -> Event | None:
        """The oldest event not yet taken (None: none is left)."""
        return self._events.popleft() if self._events else None

    # ------------------------------------------------------------------ time

    def get_timer(self) -> float | None:
        """When `handle_timer` (or `entries_to_send`) next has something to do; None: nothing."""
        if self.finished:
            return None
        if self.fault is not None:
            if self.me in self.fault.posters:
                return self.fault_time + self.fault.posters.index(self.me) * self.timeout
            return None
        due = self.due()
        if due is None or (due[0] == self.me and self._held is None):
            return None
        return self._step_started + self.timeout

    def handle_timer(self, now: float) -> None:
        """Blame the awaited seat if its deadline has passed."""
        due = self.due()
        if due is None or now < self._step_started + self.timeout:
            return
        held, self._held = self._held, None
        if held is not None and held.seq == len(self.entries):
            self._events += self._abort(held, now)  # a timeout claim now confirmed here
            return
        if due[0] == self.me:
            return
        seat, kinds = due
        why = f"did not post its {'/'.join(sorted(kinds))} within {self.timeout} s"
        if seat in self.rejected:
            why += f" (what it sent was refused: {self.rejected[seat]})"
        fault = Fault(seat, TIMEOUT, why, len(self.entries), {"seq": len(self.entries)})
        self._events += self._found(fault, self._step_started + self.timeout)

    # ------------------------------------------------------------------ receiving

    def receive(self, wire: bytes, now: float) -> None:
        """Take one entry from the network. Provable faults become events (and an abort);
        PeerProtocolError for what proves nothing (malformed, badly signed, unplaceable)."""
        self._events += self._receive(wire, now)

    def _receive(self, wire: bytes, now: float) -> list[Event]:
        if self.chain.holds(wire):
            return []  # an echo of an entry already in the chain
        try:
            entry = decode_entry(wire)
        except MalformedEntry as error:
            raise PeerProtocolError(f"malformed entry: {error.reason}") from None
        limit = MAX_ABORT_ENTRY if entry.kind == ABORT else MAX_ORDINARY_ENTRY
        if len(wire) > limit:
            raise PeerProtocolError(f"entry {entry.seq} is over {limit} bytes")
        if self.aborted is not None:
            return self._earlier_abort(entry, now)
        if self.over:
            return self._after_end(entry, now)
        if entry.table_id != self.table_id:
            raise PeerProtocolError(f"entry {entry.seq} is for another table", None)
        if entry.seat >= self.players:
            raise PeerProtocolError(f"entry {entry.seq} names seat {entry.seat}: no such seat")
        if entry.seq > len(self.entries):
            self.chain.queue(entry)
            return []
        events = self._take(entry, now)
        while not self.finished and (waiting := self.chain.unqueue()):
            for queued in waiting:
                try:
                    events += self._take(queued, now, verified=True)
                except PeerProtocolError:
                    continue
        return events

    def _after_end(self, entry: Entry, now: float) -> list[Event]:
        """After the last certificate only equivocation still counts: another signed entry of
        a seat for a seq it holds, or the abort that proves it (at the contested seq)."""
        seq = entry.seq
        if (
            entry.table_id != self.table_id
            or entry.seat >= self.players
            or not 0 < seq < len(self.entries)
        ):
            return []
        if entry.kind == ABORT:
            code = entry.body.get("code") if isinstance(entry.body, dict) else None
            if code != EQUIVOCATION:
                return []
        elif entry.seat != self.entries[seq].seat:
            return []
        try:
            return self._take(entry, now)
        except PeerProtocolError:
            return []

    def _take(self, entry: Entry, now: float, verified: bool = False) -> list[Event]:
        """Place an entry at or below the next seq; `rejected` notes why a validly signed
        one was refused (for the `timeout` detail, should its seat then stall)."""
        seq = entry.seq
        if seq < len(self.entries) and self.entries[seq].wire == entry.wire:
            return []
        if not verified and not entry.verify(self.seats[entry.seat].key):
            raise PeerProtocolError(f"entry {seq}: the signature is not seat {entry.seat}'s")
        try:
            return self._take_signed(entry, now)
        except PeerProtocolError as error:
            self.rejected[entry.seat] = f"entry {seq}: {error.reason}"
            raise

    def _take_signed(self, entry: Entry, now: float) -> list[Event]:
        seq, length = entry.seq, len(self.entries)
        links = seq > 0 and entry.prev == self.entries[seq - 1].hash
        if entry.kind == ABORT and links:
            return self._abort(entry, now)
        if seq < length:
            there = self.entries[seq]
            if there.seat == entry.seat and len(entry.wire) <= MAX_ORDINARY_ENTRY:
                proof = Equivocation(there, entry)
                detail = f"signed two different entries for seq {seq}"
                fault = Fault(entry.seat, EQUIVOCATION, detail, seq, {"entries": proof.to_plain()})
                return self._found(fault, now)
            if links:
                return self._out_of_turn(entry, now)
            raise PeerProtocolError(f"entry {seq} does not fit this chain", None)
        if not links:
            raise PeerProtocolError(f"entry {seq}: prev is not the chain head", None)
        if self.fault is not None:
            return []  # the game is ending: only the abort counts now
        seat, kinds = self.rounds.due()
        if entry.seat != seat:
            return self._out_of_turn(entry, now)
        return self._accept(entry, now, seat, kinds)

    def _out_of_turn(self, entry: Entry, now: float) -> list[Event]:
        expected = self._due_at(entry.seq)
        detail = f"posted {entry.kind} as entry {entry.seq}, where seat {expected} was due"
        return self._found(Fault(entry.seat, OUT_OF_TURN, detail, None, {"entry": entry.wire}), now)

    def _due_at(self, seq: int) -> int:
        """The seat that was due at entry `seq` (the seat due now, at the head)."""
        expected = self.chain.expected_at(seq)
        return self.rounds.due()[0] if expected is None else expected

    def _append(self, entry: Entry, now: float, expected: int) -> None:
        if self._held is not None and self._held.seq == entry.seq and entry.kind != ABORT:
            self._held = None  # the seat a premature timeout claim named did post in time
        self.chain.append(entry, now, expected)
        self._step_started = now

    def _accept(self, entry: Entry, now: float, seat: int, kinds: frozenset[str]) -> list[Event]:
        """Append the entitled seat's entry, then check what it says (a failed check is a
        fault with the entry as evidence: it stays in the chain)."""
        self._append(entry, now, seat)
        events: list[Event] = [Appended(entry)]
        try:
            if entry.kind not in kinds:
                raise blame(
                    seat, f"posted {entry.kind} where {'/'.join(sorted(kinds))} was due", entry.seq
                )
            events += self.rounds.apply(entry, self._private_fault)
        except BodyError as error:
            events += self._found(blame(seat, error.reason, entry.seq).fault, now)
        except Blame as error:
            events += self._found(error.fault, now)
        return events

    def _private_fault(self, error: Blame) -> list[Event]:
        """A bad point found in the local seat's own openings: this seat's alone to report."""
        assert self.me is not None
        fault = replace(error.fault, posters=(self.me,))
        self.fault, self.fault_time = fault, self._step_started
        return [FaultFound(fault)]

    def _found(self, fault: Fault, now: float) -> list[Event]:
        """Record the first fault; the abort's posters are the seats not blamed, lowest first."""
        if self.fault is not None or self.aborted is not None:
            return []
        posters = fault.posters or tuple(s for s in range(self.players) if s != fault.seat)
        self.fault = replace(fault, posters=posters)
        self.fault_time = now
        return [FaultFound(self.fault)]

    # ------------------------------------------------------------------ aborts

    def _abort(self, entry: Entry, now: float) -> list[Event]:
        due = self._due_at(entry.seq)  # who was due there, whatever the abort says
        try:
            claim = parse_abort(entry.body, self.players)
        except BodyError as error:
            return self._bad_abort(entry, now, due, f"malformed abort: {error.reason}")
        if claim.seat == entry.seat:
            return self._bad_abort(entry, now, due, "its abort blames its own author")
        judged = Judged(
            self.chain, self._due_at, self.fault, self.table_id, self.timeout, self._step_started
        )
        problem = claim_problem(claim, entry, now, judged)
        if problem == PREMATURE:
            self._held = entry  # taken if our own clock agrees before the seat posts
            return []
        if problem is not None:
            return self._bad_abort(entry, now, due, f"its abort does not hold: {problem}")
        superseded: list[Event] = []
        if entry.seq < len(self.entries):
            self.chain.cut(entry.seq)
            superseded.append(Superseded(entry.seq))
            self.rounds.over = False  # the final certificate, if it was there, is gone
        self._append(entry, now, due)
        self.aborted, self.aborted_by = claim, entry.seat
        return [*superseded, Appended(entry), Aborted(claim, entry.seat)]

    def _bad_abort(self, entry: Entry, now: float, due: int, why: str) -> list[Event]:
        """An abort that is malformed or does not hold: at the head of a chain with no fault
        yet it is a signed entry that breaks a rule (appended, its author blamed); elsewhere it
        supersedes nothing and proves nothing (refused)."""
        if entry.seq < len(self.entries) or self.fault is not None:
            raise PeerProtocolError(f"abort refused: {why}")
        self._append(entry, now, due)
        return [Appended(entry), *self._found(blame(entry.seat, why, entry.seq).fault, now)]

    def _earlier_abort(self, entry: Entry, now: float) -> list[Event]:
        """After an abort, only an earlier valid abort counts (a lower seq, or the same seq and
        smaller wire bytes): it replaces ours, so that racing aborts converge."""
        mine, seq = self.entries[-1], entry.seq
        if (
            entry.kind != ABORT
            or entry.table_id != self.table_id
            or entry.seat >= self.players
            or not 0 < seq <= mine.seq
            or (seq == mine.seq and entry.wire >= mine.wire)
            or entry.prev != self.entries[seq - 1].hash
            or not entry.verify(self.seats[entry.seat].key)
        ):
            return []
        try:
            return self._abort(entry, now)
        except PeerProtocolError:
            return []

    # ------------------------------------------------------------------ posting

    def entries_to_send(self, now: float) -> list[Entry]:
        """The entries the local seat posts now, signed and already placed here."""
        out: list[Entry] = []
        while self.local is not None and not self.finished:
            entry = self._next_own(now)
            if entry is None:
                break
            out.append(entry)
        return out

    def _next_own(self, now: float) -> Entry | None:
        local = self.local
        assert local is not None and self.me is not None
        fault = self.fault
        if fault is not None:
            if self.me not in fault.posters:
                return None
            if now < self.fault_time + fault.posters.index(self.me) * self.timeout:
                return None
            seq = len(self.entries)
            if fault.code == EQUIVOCATION and fault.seq:
                seq = fault.seq  # at the contested seq; a second genesis (seq 0): at the head
            entry = local.sign(
                self.table_id, seq, self.entries[seq - 1].hash, ABORT, fault.abort_body()
            )
            self._events += self._abort(entry, now)
            return entry
        due = self.due()
        if due is None or due[0] != self.me:
            return None
        try:
            own = self.rounds.own(due[1], self._chosen)
        except Blame as error:
            self._events += self._private_fault(error)
            return self._next_own(now)
        if own is None:
            return None
        self._chosen = None
        entry = local.sign(self.table_id, len(self.entries), self.head, *own)
        self._events += self._accept(entry, now, due[0], due[1])
        return entry
