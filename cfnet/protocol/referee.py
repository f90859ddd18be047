"""The referee of one table (protocol.md 4.2 and 4.6): every entry, whoever sent it, is placed
on the chain by the rules or refused; the entry of the seat due is checked (`Rounds`); a proven
fault is recorded and the aborts that report faults are checked, racing ones converging. All an
observer does (`cfnet verify`); `Table` adds the local seat. Events go to one queue. Pure.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Container
from dataclasses import replace

from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.game.round import Game
from cfnet.game.rules import MIN_PLAYERS
from cfnet.protocol.chain import Chain
from cfnet.protocol.claims import PREMATURE, Judged, claim_problem
from cfnet.protocol.events import (
    Aborted,
    Appended,
    Event,
    FaultFound,
    GameOver,
    RoundScored,
    SeatLeft,
    Superseded,
)
from cfnet.protocol.genesis import parse_genesis
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.rounds import Rounds
from cfnet.protocol.schedule import Step
from cfnet.protocol.votes import VOTES_VERSION
from cfnet.protocol.wire import (
    ABORT,
    EQUIVOCATION,
    OUT_OF_TURN,
    RESIGN,
    RETURN,
    STALL,
    TIMEOUT,
    Blame,
    BodyError,
    Fault,
    blame,
    check_body,
    parse_abort,
)
from cfnet.record.entry import Entry, Equivocation, MalformedEntry, decode_entry

REDEAL_VERSION = 3
"""From this protocol version on, the game goes on without a seat that leaves."""
OFFLINE = math.inf
"""The time to give a table replaying a finished log: every deadline has long passed."""
MAX_ORDINARY_ENTRY = 9 * 1024
"""The largest entry but an abort: the largest real one, a `shuffle_a` with its proof, is
9 112 bytes (a few more once seq numbers pass 65 535)."""
MAX_ABORT_ENTRY = 2 * MAX_ORDINARY_ENTRY + 16 * 1024
"""The largest abort: an equivocation proof carries two ordinary entries, plus the detail."""


class Referee:
    """The chain, the game it holds, the first fault found and the abort that ended it."""

    def __init__(
        self,
        genesis: bytes,
        local: LocalSeat | None = None,
        now: float = 0.0,
        unproven_rounds: Container[int] = frozenset(),
    ) -> None:
        """The table `genesis` binds, with the chain at it; `local` holds a seat (None: an
        observer); `unproven_rounds`: rounds whose hop proofs an observer need not check, because
        the log holds every seat's reveal of them and the audit recomputes every hop."""
        entry, self.name, self.options, self.timeout, self.seats = parse_genesis(genesis)
        self.table_id = entry.table_id
        self.version: int = entry.body["version"]
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
        self.keys = tuple(seat.key for seat in self.seats)
        self.rounds = Rounds(
            self.table_id, entry.hash, self.options, self.players, local, unproven, self.keys
        )
        self.fault: Fault | None = None
        self.fault_time = 0.0
        self.aborted: Fault | None = None
        self.aborted_by: int | None = None
        self.rejected: dict[int, str] = {}
        self._held: Entry | None = None
        self.returning = False  # restarted, nothing posted since: see Table.returned
        self.resigning = False  # the local player leaves at its next turn: see Table.resign
        self._audits: list[int] = []  # the seq of the entry that completed each round's audit
        self._seated: list[tuple[int, ...]] = []  # the seats dealt in at each placed seq
        self.votes = self.version >= VOTES_VERSION  # timeouts need a majority's stall votes
        self._step_started = now
        self._events: deque[Event] = deque()
        self._append(entry, now, 0)
        self._events.append(Appended(entry))

    @property
    def entries(self) -> list[Entry]:
        return self.chain.entries

    @property
    def head(self) -> bytes:
        return self.chain.head

    @property
    def over(self) -> bool:
        """The game is over with a result: every round certified by every seat, or ended early
        by a departure that leaves the result standing (`_ended`; an abort may still replace
        the end)."""
        return self.rounds.over

    @property
    def finished(self) -> bool:
        """The game is over, by its last certificate or by an abort (a finished game whose
        last seats equivocated is not: its abort is still to be posted)."""
        return self.aborted is not None or (self.over and self.fault is None)

    def next_event(self) -> Event | None:
        """The oldest event not yet taken (None: none is left)."""
        return self._events.popleft() if self._events else None

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
        if entry.kind == RETURN:
            return self._return_request(entry)
        if entry.kind == STALL:
            return self._vote(entry, now)
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
        return self._take(entry, now) + self._take_queued(now)

    def _take_queued(self, now: float) -> list[Event]:
        """Place the queued entries that now follow the chain, as far as they go."""
        events: list[Event] = []
        while not self.finished and (waiting := self.chain.unqueue()):
            for queued in waiting:
                try:
                    events += self._take(queued, now, verified=True)
                except PeerProtocolError:
                    continue
        return events

    def _return_request(self, entry: Entry) -> list[Event]:
        """A seat that left asks to be dealt in again: held, to be carried in our next
        certificate (PeerProtocolError if it is not a valid request now)."""
        if self.finished or self.version < REDEAL_VERSION:
            raise PeerProtocolError("a return request where no round is to come")
        try:
            self.rounds.returns.request(entry, self.rounds.seated)
        except BodyError as error:
            raise PeerProtocolError(error.reason) from None
        return []

    def _vote(self, entry: Entry, now: float) -> list[Event]:
        """A seat's stall vote: only a seat of a version-4 table takes it (`Table`)."""
        raise PeerProtocolError("a stall vote where no seat here can use it")

    def _seated_at(self, seq: int) -> tuple[int, ...]:
        """The seats dealt in at entry `seq` (those dealt in now, at the head)."""
        return self._seated[seq] if seq < len(self._seated) else self.rounds.seated

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
            if (
                seq < length
                and _is_timeout(self.entries[seq])
                and _is_timeout(entry)
                and entry.wire >= self.entries[seq].wire
            ):
                return []  # racing claims at one seq: the bytewise smallest stands everywhere
            return self._abort(entry, now)
        if seq < length:
            there = self.entries[seq]
            same_place = there.seat == entry.seat and there.prev == entry.prev
            if same_place and len(entry.wire) <= MAX_ORDINARY_ENTRY:
                proof = Equivocation(there, entry)
                detail = f"signed two different entries for seq {seq}"
                fault = Fault(entry.seat, EQUIVOCATION, detail, seq, {"entries": proof.to_plain()})
                return self._found(fault, now)
            if entry.seat not in self.rounds.seated:
                raise self._gone(entry)
            if links and self._due_at(seq) == entry.seat:  # posted as an abort took its place
                raise PeerProtocolError(f"entry {seq} was superseded by an abort", None)
            if links:
                return self._out_of_turn(entry, now)
            raise PeerProtocolError(f"entry {seq} does not fit this chain", None)
        if not links:
            raise PeerProtocolError(f"entry {seq}: prev is not the chain head", None)
        if self.fault is not None:
            return []  # the game is ending: only the abort counts now
        if entry.seat not in self.rounds.seated:
            raise self._gone(entry)
        seat, kinds = self.rounds.due()
        if entry.seat != seat:
            return self._out_of_turn(entry, now)
        return self._accept(entry, now, seat, kinds)

    def _gone(self, entry: Entry) -> PeerProtocolError:
        """An entry of a seat that has left: it may have been signed before its seat learnt it
        was timed out, so it proves nothing (only two entries for one seq would)."""
        return PeerProtocolError(f"entry {entry.seq}: seat {entry.seat} has left the game", None)

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
        del self._seated[entry.seq :]
        self._seated.append(self.rounds.seated)
        self.chain.append(entry, now, expected)
        self._step_started = now

    def _accept(self, entry: Entry, now: float, seat: int, kinds: frozenset[str]) -> list[Event]:
        """Append the entitled seat's entry, then check what it says (a failed check is a
        fault with the entry as evidence: it stays in the chain)."""
        self._append(entry, now, seat)
        events: list[Event] = [Appended(entry)]
        try:
            if entry.kind == RESIGN:
                check_body(RESIGN, entry.body, {})
                return events + self._resigned(entry, now)
            if entry.kind not in kinds:
                raise blame(
                    seat, f"posted {entry.kind} where {'/'.join(sorted(kinds))} was due", entry.seq
                )
            applied = self.rounds.apply(entry, self._private_fault)
            if any(isinstance(event, RoundScored) for event in applied):
                self._audits.append(entry.seq)
            events += applied
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
        seated = self.rounds.seated
        posters = fault.posters or tuple(s for s in seated if s != fault.seat)
        self.fault = replace(fault, posters=posters)
        self.fault_time = now
        return [FaultFound(self.fault)]

    # ------------------------------------------------------------------ aborts

    def _abort(self, entry: Entry, now: float) -> list[Event]:
        due = self._due_at(entry.seq)  # who was due there, whatever the abort says
        try:
            claim = parse_abort(entry.body, self.players, self.votes)
        except BodyError as error:
            return self._bad_abort(entry, now, due, f"malformed abort: {error.reason}")
        if claim.seat == entry.seat:
            return self._bad_abort(entry, now, due, "its abort blames its own author")
        if entry.seat not in self.rounds.seated:
            raise self._gone(entry)
        unclocked = self.me if self.returning else None  # we were down: our clock cannot
        judged = Judged(  # deny a claim against us, nor can our entries restored from disk
            self.chain,
            self._due_at,
            self.fault,
            self.table_id,
            self.timeout,
            self._step_started,
            unclocked,
            self._seated_at if self.votes else None,
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
            if self.version >= REDEAL_VERSION:
                self._rebuild(entry.seq)  # the game goes on from the cut, not from our head
        self._append(entry, now, due)
        return [*superseded, Appended(entry), *self._ended(claim, entry.seat, entry.seq, now)]

    def _rebuild(self, seq: int) -> None:
        """The game as the chain's entries before `seq` left it, replayed from the table entry
        (their hop proofs were checked when they came)."""
        rounds = Rounds(
            self.table_id,
            self.entries[0].hash,
            self.options,
            self.players,
            self.local,
            self.rounds.unproven_rounds,
            self.keys,
            proofs=False,
        )
        audits: list[int] = []
        n = self.players
        for entry in self.entries[1:seq]:
            try:
                if entry.kind == RESIGN:
                    rounds.depart(entry.seat, entry.seq, entry.hash)
                elif entry.kind == ABORT:
                    claim = parse_abort(entry.body, n, self.votes)
                    rounds.depart(claim.seat, entry.seq, entry.hash, claim.code != TIMEOUT)
                elif any(isinstance(e, RoundScored) for e in rounds.apply(entry, lambda _: [])):
                    audits.append(entry.seq)
            except Blame:  # a fault found as it came: the abort after it in the chain removed
                continue  # its author, as the replay does when it gets there
        rounds.check_proofs_from_now()
        self.rounds, self._audits = rounds, audits

    def _resigned(self, entry: Entry, now: float) -> list[Event]:
        """The due seat's signed resignation (already appended): it leaves, blamed for nothing."""
        if entry.seat == self.me:
            self.resigning = False  # done: should it come back, it plays again
        resigned = Fault(entry.seat, RESIGN, "resigned", entry.seq)
        return self._ended(resigned, entry.seat, entry.seq, now)

    def _ended(self, claim: Fault, by: int, seq: int, now: float) -> list[Event]:
        """`by`'s abort (or resignation) at `seq`. From protocol version 3 the seat it names
        leaves, removed and disqualified if the abort proves it cheated, and the game goes on
        without it (`Rounds.depart`) while at least MIN_PLAYERS seats are left and a round is
        still to score. Otherwise the game ends: with the rounds scored before `seq` as its
        result when every round was scored (only certificates were due), or when fewer than
        MIN_PLAYERS seats are left after at least one round was scored (RULES.md); else with no
        result. A version 2 table ends at any abort, with a result only after a departure."""
        scored = sum(1 for audit in self._audits if audit < seq)
        left = len(self.rounds.seated) - 1
        redeal = self.version >= REDEAL_VERSION
        departure = claim.code in (TIMEOUT, RESIGN)
        removed = redeal and not departure
        rounds = self.rounds
        if (
            redeal
            and rounds.round is not None
            and left >= MIN_PLAYERS
            and scored < self.options.rounds
        ):
            self.fault = None  # the stall or the cheat it reported is over: the seat left
            redealt = rounds.schedule.step is not Step.CERTIFY
            try:
                events = rounds.depart(claim.seat, seq, self.entries[seq].hash, removed)
            except Blame as error:  # the audit of the deal it abandoned found a fault
                events = self._found(error.fault, now)
            left_at = SeatLeft(claim, by, rounds.game.round_number, rounds.seated, redealt)
            return [left_at, *events]
        self.aborted, self.aborted_by = claim, by
        self.rounds.over = False
        events = [Aborted(claim, by)]
        if not (departure or removed):
            return events
        if scored == self.options.rounds or (scored and left < MIN_PLAYERS):
            played = self.rounds.game
            game = Game(
                self.players,
                self.options,
                played.round_scores[:scored],
                played.round_seated[:scored],
                played.disqualified | ({claim.seat} if removed else set()),
            )
            self.rounds.game, self.rounds.over = game, True
            events.append(GameOver(game.totals, game.winners()))
        return events

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
        smaller wire bytes): it replaces ours, so that racing aborts converge. A resignation is
        the resigner's own entry: a valid abort at its seq replaces it as it would any entry."""
        mine, seq = self.entries[-1], entry.seq
        if (
            entry.kind != ABORT
            or entry.table_id != self.table_id
            or entry.seat >= self.players
            or not 0 < seq <= mine.seq
            or (seq == mine.seq and mine.kind == ABORT and entry.wire >= mine.wire)
            or entry.prev != self.entries[seq - 1].hash
            or not entry.verify(self.seats[entry.seat].key)
        ):
            return []
        try:
            return self._abort(entry, now)
        except PeerProtocolError:
            return []


def _is_timeout(entry: Entry) -> bool:
    """`entry` is an abort that claims a timeout (a departure, when it holds)."""
    body = entry.body
    return entry.kind == ABORT and isinstance(body, dict) and body.get("code") == TIMEOUT
