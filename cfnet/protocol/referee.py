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
from cfnet.protocol.disproof import Rival, built_past, is_timeout
from cfnet.protocol.events import (
    Aborted,
    Appended,
    Disqualified,
    Event,
    FaultFound,
    GameOver,
    LateProof,
    ProofHeld,
    RoundScored,
    SeatLeft,
    Superseded,
    TimeoutDisproved,
)
from cfnet.protocol.genesis import parse_genesis
from cfnet.protocol.history import Finality
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.rounds import Rounds
from cfnet.protocol.schedule import Step
from cfnet.protocol.votes import VOTES_VERSION, votes_problem
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
FINAL_VERSION = 4
"""From this protocol version on, places every seat built on are final (a second entry for
one is proven at the head), deal secrets are bound to the chain and leaving concedes."""
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
        self.final_rule = self.version >= FINAL_VERSION
        self.finality = Finality(self.players)
        self.rounds = Rounds(
            self.table_id,
            entry.hash,
            self.options,
            self.players,
            local,
            unproven,
            self.keys,
            bound=self.final_rule,
        )
        self.fault: Fault | None = None
        self.fault_time = 0.0
        self.aborted: Fault | None = None
        self.aborted_by: int | None = None
        self.rejected: dict[int, str] = {}
        self.proof: Fault | None = None  # a proof for a built-on place, posted by the seat due
        self._held: Entry | None = None
        self.returning = False  # restarted, nothing posted since: see Table.returned
        self.resigning = False  # the local player leaves at its next turn: see Table.resign
        self._audits: list[int] = []  # the seq of the entry that completed each round's audit
        self._seated: list[tuple[int, ...]] = []  # the seats dealt in at each placed seq
        self.votes = self.version >= VOTES_VERSION  # timeouts need a majority's stall votes
        self.rival = Rival(self.keys)  # the chain a disproof of a timeout we hold brings
        self.disproof: TimeoutDisproved | None = None  # the latest one found: passed on again
        self._disproved: set[tuple[int, int]] = set()  # (seq, author) of the timeouts refused
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
        if self._completes_rival(entry):
            return self._back_to_rival(now)  # else it is judged as it would be without
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
        a seat for a seq it holds, or the abort that proves it (at the contested seq). From
        version 4, one for a place the game was built on changes nothing (`LateProof`)."""
        seq = entry.seq
        if self.final_rule and (late := self._late_proof(entry)):
            return late  # the proof may also come as an abort at the head, after the end
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

    def _proof_in(self, entry: Entry) -> Equivocation | None:
        """The proof `entry` gives that a seat signed a second entry for a place of this
        chain, one of the two being the entry there (None: it gives none): `entry` itself, or
        the `equivocation` abort carrying it. Signatures checked."""
        if entry.kind == ABORT:
            body = entry.body
            if not (isinstance(body, dict) and body.get("code") == EQUIVOCATION):
                return None
            evidence = body.get("evidence")
            try:
                proof = Equivocation.from_plain(
                    evidence.get("entries") if isinstance(evidence, dict) else None
                )
            except MalformedEntry:
                return None
        else:
            if not 0 <= entry.seq < len(self.entries):
                return None
            proof = Equivocation(self.entries[entry.seq], entry)
        seq, seat = proof.a.seq, proof.a.seat
        if (
            proof.a.table_id != self.table_id
            or seat >= self.players
            or not 0 <= seq < len(self.entries)
            or self.entries[seq].wire not in (proof.a.wire, proof.b.wire)
            or not proof.check(self.keys[seat])
        ):
            return None
        return proof

    def _late_proof(self, entry: Entry) -> list[Event]:
        """After the end: a proof of a second entry for a place every seat built on is only
        reported; the result stands (an abort at a place that is not final is judged as
        before: it may settle what honest peers saw differently)."""
        if entry.seat >= self.players or not entry.verify(self.keys[entry.seat]):
            return []
        proof = self._proof_in(entry)
        if proof is None or proof.a.seq > self.finality.built:
            return []
        if entry.kind == ABORT and entry.seq == proof.a.seq > self.finality.final:
            return []
        return [LateProof(_equivocation(proof))]

    def _proof_at_head(self, proof: Equivocation) -> list[Event]:
        """A second entry for a place every seat built on (version 4): nothing is rewound and
        the game goes on; the proof is held (`proof`, and the event `ProofHeld`, whose two
        entries the peer passes on so that every seat holds it) until a seat that holds it is
        due: that seat posts it at the head in place of its own entry, which removes the
        signer, or disqualifies it if it has already left."""
        seat = proof.a.seat
        held = self.proof is not None and self.proof.seat == seat
        if seat in self.rounds.returns.removed or held or self.finished:
            return []  # already removed for cheating, or its proof is held already
        self.proof = _equivocation(proof)
        return [ProofHeld(self.proof)]

    def _proof_fault(self, proof: Equivocation) -> Fault:
        """The fault an equivocation proof this peer holds names (version 4), posted by this
        peer first (the others may not have the proof: it must not wait for them), else by the
        seat due first, then in seat order."""
        seat = proof.a.seat
        others = [s for s in self.rounds.seated if s != seat]
        due = self.rounds.due()[0] if not self.over and self.aborted is None else None
        first = self.me if self.me in others else due
        start = others.index(first) if first in others else 0
        return replace(_equivocation(proof), posters=tuple(others[start:] + others[:start]))

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
        if self.votes and links and seq < length and (refused := self._disproved_by(entry)):
            raise refused
        if entry.kind == ABORT and links:
            if self.final_rule and seq < length and seq <= self.finality.final:
                proof = self._proof_in(entry)  # it would replace a final place: never; a
                if proof is None or proof.a.seq > self.finality.built:  # proof it carries
                    raise PeerProtocolError(f"entry {seq} is final: no abort replaces it", None)
                return self._proof_at_head(proof)  # is taken at the head instead
            racing = seq < length and (
                (is_timeout(entry) and is_timeout(self.entries[seq]))
                or (self.final_rule and _same_proof(entry, self.entries[seq]))
            )
            if racing and entry.wire >= self.entries[seq].wire:
                return []  # racing aborts at one seq: the bytewise smallest stands everywhere
            return self._abort(entry, now)
        if seq < length:
            there = self.entries[seq]
            same_place = there.seat == entry.seat and there.prev == entry.prev
            if same_place and len(entry.wire) <= MAX_ORDINARY_ENTRY:
                proof = Equivocation(there, entry)
                if self.final_rule and seq <= self.finality.built:
                    return self._proof_at_head(proof)
                if self.final_rule:
                    return self._found(self._proof_fault(proof), now)
                return self._found(_equivocation(proof), now)
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
        self.finality.placed(entry, self.rounds.seated)
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
            linked=self.final_rule,
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
            self.finality.cut(self.entries)
            superseded.append(Superseded(entry.seq))
            if self.version >= REDEAL_VERSION:
                self._rebuild(entry.seq)  # the game goes on from the cut, not from our head
        self._append(entry, now, due)
        return [*superseded, Appended(entry), *self._ended(claim, entry.seat, entry.seq, now)]

    def _disproved_by(self, entry: Entry) -> PeerProtocolError | None:
        """Why the timeout `entry`, linked below our head, is refused because its own author
        signed an entry after the staller's entry at its place (None: it is not). The first
        time such a timeout whose votes hold comes, the disproof is found and passed on
        (`TimeoutDisproved`)."""
        if not is_timeout(entry) or (segment := built_past(self.entries, entry)) is None:
            return None
        seq, author, later = entry.seq, entry.seat, segment[-1].seq
        if (seq, author) not in self._disproved and self._votes_hold(entry):
            self._disproved.add((seq, author))
            self.disproof = self._disproof(entry, segment)
            self._events.append(self.disproof)
        return PeerProtocolError(
            f"entry {seq}: a timeout by seat {author}, which signed entry {later} after the"
            " entry it would replace",
            None,
        )

    def _votes_hold(self, timeout: Entry) -> bool:
        """The stall votes `timeout` carries are a majority's for its place (signatures only)."""
        try:
            claim = parse_abort(timeout.body, self.players, self.votes)
        except BodyError:
            return False
        seq = timeout.seq
        if claim.seat != self._due_at(seq):
            return False
        return votes_problem(claim, timeout, self.table_id, self.keys, self._seated_at(seq)) is None

    def _disproof(self, timeout: Entry, segment: list[Entry]) -> TimeoutDisproved:
        """The event that names `timeout`'s author and carries the chain that disproves it."""
        staller = timeout.body["blamed"]
        wires = tuple(entry.wire for entry in segment)
        return TimeoutDisproved(timeout.seat, staller, timeout.seq, segment[-1].seq, wires)

    def _completes_rival(self, entry: Entry) -> bool:
        """`entry` is gathered beside a timeout our chain holds (version 4) and completes the
        chain that disproves it: it is signed by the timeout's author, after its place."""
        if not self.votes or entry.table_id != self.table_id or entry.seat >= self.players:
            return False
        return bool(self.rival.offer(self.entries, entry, self.finality.final))

    def _back_to_rival(self, now: float) -> list[Event]:
        """The rival chain gathered has reached an entry of the author of the timeout it
        rivals, after it: the timeout is disproved (version 4). Our chain goes back to the
        timeout's place (which is not final here) and takes the rival chain's entries."""
        timeout, rival = self.rival.timeout, self.rival.entries
        self.rival.forget()
        assert timeout is not None
        seq = timeout.seq
        self.chain.cut(seq)
        self.finality.cut(self.entries)
        self._rebuild(seq)
        self.fault, self.aborted, self.aborted_by, self._held = None, None, None, None
        self._disproved.add((seq, timeout.seat))
        self.disproof = self._disproof(timeout, rival)
        events: list[Event] = [Superseded(seq), self.disproof]
        for entry in rival:
            try:
                events += self._take(entry, now, verified=True)
            except PeerProtocolError:
                break
        return events + self._take_queued(now)

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
            bound=self.final_rule,
        )
        audits: list[int] = []
        n = self.players
        for entry in self.entries[1:seq]:
            try:
                if entry.kind == RESIGN:
                    rounds.depart(entry.seat, entry.seq, entry.hash)
                elif entry.kind == ABORT:
                    claim = parse_abort(entry.body, n, self.votes)
                    if self.final_rule and claim.seat not in rounds.seated:
                        rounds.disqualify_absent(claim.seat, entry.seq, entry.hash)
                    else:
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
        result. From version 4 a proof against a seat that had already left only disqualifies
        it, and fewer than MIN_PLAYERS seats left end the game with a result once the first
        deal began, every seat that left conceding (ranked below those still seated). A
        version 2 table ends at any abort, with a result only after a departure."""
        scored = sum(1 for audit in self._audits if audit < seq)
        left = len(self.rounds.seated) - 1
        redeal = self.version >= REDEAL_VERSION
        departure = claim.code in (TIMEOUT, RESIGN)
        removed = redeal and not departure
        rounds = self.rounds
        if removed and self.proof is not None and self.proof.seat == claim.seat:
            self.proof = None  # proven, whatever the proof: the one held is not needed
        if self.final_rule and removed and claim.seat not in rounds.seated:
            self.fault = None  # a seat that had left, proven to cheat: the game goes on
            rounds.disqualify_absent(claim.seat, seq, self.entries[seq].hash)
            return [Disqualified(claim, by)]
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
        complete = scored == self.options.rounds
        started = rounds.round is not None  # a seat that never accepted never played
        early = left < MIN_PLAYERS and (scored > 0 or (self.final_rule and started))
        if complete or early:
            played = self.rounds.game
            disqualified = played.disqualified | ({claim.seat} if removed else set())
            stay = {s for s in self.rounds.seated if s != claim.seat}
            concede = self.final_rule and not complete  # leaving concedes (RULES.md)
            game = Game(
                self.players,
                self.options,
                played.round_scores[:scored],
                played.round_seated[:scored],
                disqualified,
                frozenset(range(self.players)) - stay if concede else frozenset(),
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
        if self.final_rule and (late := self._late_proof(entry)):
            return late
        if (
            entry.kind != ABORT
            or entry.table_id != self.table_id
            or entry.seat >= self.players
            or not 0 < seq <= mine.seq
            or (seq == mine.seq and mine.kind == ABORT and entry.wire >= mine.wire)
            or entry.prev != self.entries[seq - 1].hash
            or (self.final_rule and seq <= self.finality.final)
            or not entry.verify(self.seats[entry.seat].key)
        ):
            return []
        if self.votes and seq < len(self.entries) and self._disproved_by(entry):
            return []
        try:
            return self._abort(entry, now)
        except PeerProtocolError:
            return []


def _equivocation(proof: Equivocation) -> Fault:
    """The fault a checked equivocation proof names."""
    seq = proof.a.seq
    detail = f"signed two different entries for seq {seq}"
    return Fault(proof.a.seat, EQUIVOCATION, detail, seq, {"entries": proof.to_plain()})


def _same_proof(a: Entry, b: Entry) -> bool:
    """`a` and `b` are `equivocation` aborts naming one seat: racing reports of one proof."""
    bodies = a.body, b.body
    return (
        a.kind == b.kind == ABORT
        and all(isinstance(body, dict) and body.get("code") == EQUIVOCATION for body in bodies)
        and a.body.get("blamed") == b.body.get("blamed")
    )
