"""The table protocol as a sans-IO state machine (protocol.md): fed signed entries and the time,
it says which entries the local seat posts next and when its next deadline falls.

One hash chain per table; at every moment exactly one seat is entitled to post the next entry,
so honest seats never fork it. A provable fault (or a stall past the deadline) ends the game
with a signed abort naming the seat. No I/O, no clock, no global randomness: the round seeds
come from `LocalSeat.entropy` (os.urandom unless a test supplies a derivation).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cfnet.deck.sra import is_valid_point
from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.game.engine import PASS, Draw, Game, Move, Play, PlayerView, PublicRound
from cfnet.game.rules import RuleOptionError, RuleOptions, hand_size
from cfnet.protocol.audit import audit_round
from cfnet.protocol.events import (
    Aborted,
    Appended,
    Event,
    FaultFound,
    GameOver,
    RoundScored,
    Superseded,
)
from cfnet.protocol.round_state import DECK_SIZE, RoundState, Step
from cfnet.protocol.wire import (
    ABORT,
    ACCEPT,
    BAD_ENTRY,
    BAD_POINT,
    BAD_PROOF,
    DEFAULT_TIMEOUT,
    DRAW,
    EQUIVOCATION,
    OUT_OF_TURN,
    PLAY,
    PROTOCOL_VERSION,
    REVEAL,
    SHUFFLE_A,
    SHUFFLE_B,
    TABLE,
    TIMEOUT,
    YARD_KEY,
    Blame,
    BodyError,
    Fault,
    blame,
    check_body,
    check_display_name,
    genesis_spec,
    is_b32,
    packed,
    parse_abort,
    round_body_spec,
    unpack,
)
from cfnet.protocol.wire import (
    PASS as PASS_KIND,
)
from cfnet.record.entry import (
    GENESIS_PREV,
    Entry,
    Equivocation,
    MalformedEntry,
    decode_entry,
    sign_entry,
)
from cfnet.record.identity import Identity

SEED_BYTES = 32
PREMATURE = "premature"
OFFLINE = math.inf
"""The time to give a table replaying a finished log: every deadline has long passed."""
MAX_ORDINARY_ENTRY = 9 * 1024
"""The largest entry but an abort: the largest real one, a `shuffle_a` with its proof, is
9 112 bytes (a few more once seq numbers pass 65 535)."""
MAX_ABORT_ENTRY = 2 * MAX_ORDINARY_ENTRY + 16 * 1024
"""The largest abort: an equivocation proof carries two ordinary entries, plus the detail."""
PENDING_SLACK = 8
"""How far ahead of the chain an entry may be queued: 2 * players + PENDING_SLACK seqs."""
MAX_PENDING_BYTES = 256 * 1024
"""What one seat's entries queued ahead of the chain may hold: a seat crowds out only itself
(an honest seat has at most one entry per seq in the window, at most 25 * 9 KiB)."""


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat as the genesis lists it: the player's name and Ed25519 public key."""

    name: str
    key: bytes


@dataclass(slots=True)
class LocalSeat:
    """The local player's identity, seat and round secrets (`seeds`: round -> 32-byte seed).

    `seeds` is what the net layer persists (mode 0600) to resume; `entropy(n)` gives fresh
    secret bytes (os.urandom; tests pass a cryptographic derivation for reproducible games)."""

    identity: Identity
    seat: int
    entropy: Callable[[int], bytes] = os.urandom
    seeds: dict[int, bytes] = field(default_factory=dict)

    def seed(self, round_number: int) -> bytes:
        """This seat's seed for a round, drawn on first use."""
        if round_number not in self.seeds:
            seed = self.entropy(SEED_BYTES)
            if len(seed) != SEED_BYTES:
                raise LocalProtocolError(f"entropy gave {len(seed)} bytes, not {SEED_BYTES}")
            self.seeds[round_number] = seed
        return self.seeds[round_number]

    def sign(
        self, table_id: bytes, seq: int, prev: bytes, kind: str, body: dict[str, Any]
    ) -> Entry:
        """This seat's signed entry."""
        return sign_entry(self.identity, table_id, seq, prev, self.seat, kind, body)

    def secrets_to_plain(self) -> dict[str, Any]:
        return {"seat": self.seat, "seeds": {str(r): s for r, s in sorted(self.seeds.items())}}

    @classmethod
    def from_plain(cls, identity: Identity, plain: Any) -> LocalSeat:
        """The seat `secrets_to_plain` saved; LocalProtocolError if malformed."""
        try:
            seeds = {int(r): s for r, s in plain["seeds"].items()}
            seat = plain["seat"]
        except (KeyError, TypeError, ValueError, AttributeError):
            raise LocalProtocolError("malformed saved seat secrets") from None
        if type(seat) is not int or not all(is_b32(s) for s in seeds.values()):
            raise LocalProtocolError("malformed saved seat secrets")
        return cls(identity, seat, seeds=seeds)


def make_genesis(
    identity: Identity,
    table_id: bytes,
    name: str,
    options: RuleOptions,
    seats: Sequence[SeatInfo],
    timeout: int = DEFAULT_TIMEOUT,
) -> Entry:
    """The host's `table` entry (seq 0, seat 0) that every seat then accepts."""
    if not seats or seats[0].key != identity.public:
        raise LocalProtocolError("the host must sit in seat 0 with its own key")
    options.check(len(seats))
    try:
        check_display_name(name, "table name")
        for seat in seats:
            check_display_name(seat.name, "player name")
    except ValueError as error:
        raise LocalProtocolError(str(error)) from None
    body = {
        "version": PROTOCOL_VERSION,
        "name": name,
        "options": options.to_plain(),
        "timeout": timeout,
        "seats": [{"name": s.name, "key": s.key} for s in seats],
    }
    check_body(TABLE, body, genesis_spec())
    return sign_entry(identity, table_id, 0, GENESIS_PREV, 0, TABLE, body)


def parse_genesis(wire: bytes) -> tuple[Entry, str, RuleOptions, int, tuple[SeatInfo, ...]]:
    """The genesis entry and what it binds; PeerProtocolError if it is not a valid one."""
    entry = decode_entry(wire)
    if entry.seq != 0 or entry.kind != TABLE or entry.seat != 0:
        raise PeerProtocolError("the first entry must be the host's table entry (seq 0, seat 0)")
    check_body(TABLE, entry.body, genesis_spec())
    body = entry.body
    seats = tuple(SeatInfo(s["name"], s["key"]) for s in body["seats"])
    try:
        options = RuleOptions.from_plain(body["options"])
        options.check(len(seats))
    except RuleOptionError as error:
        raise PeerProtocolError(f"the table's rule options: {error}", 0) from None
    if len({s.key for s in seats}) != len(seats):
        raise PeerProtocolError("two seats have the same key", 0)
    if not entry.verify(seats[0].key):
        raise PeerProtocolError("the table entry is not signed by seat 0's key")
    return entry, body["name"], options, body["timeout"], seats


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
        self.unproven_rounds = unproven_rounds if local is None else frozenset()
        self.entries: list[Entry] = []
        self._times: list[float] = []
        self._held: Entry | None = None
        self._wires: set[bytes] = set()
        self._expected: list[int] = []
        self.accepts = 0
        self.game = Game(self.players, self.options)
        self.round: RoundState | None = None
        self.fault: Fault | None = None
        self.fault_time = 0.0
        self.aborted: Fault | None = None
        self.aborted_by: int | None = None
        self.over = False
        self.rejected: dict[int, str] = {}
        self._pending: dict[int, list[Entry]] = {}
        self._pending_bytes = [0] * self.players
        self._step_started = now
        self._chosen: Move | None = None
        self._events: list[Event] = []
        self._append(entry, now, 0)
        self._events.append(Appended(entry))

    # ------------------------------------------------------------------ views

    @property
    def head(self) -> bytes:
        return self.entries[-1].hash

    @property
    def finished(self) -> bool:
        """The game is over, by its last certificate or by an abort (a finished game whose
        last seats equivocated is not: its abort is still to be posted)."""
        return self.aborted is not None or (self.over and self.fault is None)

    @property
    def public(self) -> PublicRound | None:
        """The current round's public state (None before the first deal)."""
        return None if self.round is None else self.round.public

    def due(self) -> tuple[int, frozenset[str]] | None:
        """The seat entitled to post next and the kinds it may post (None: only an abort or
        nothing more)."""
        if self.finished or self.fault is not None:
            return None
        return self._scheduled()

    def _scheduled(self) -> tuple[int, frozenset[str]]:
        if self.accepts < self.players - 1:
            return self.accepts + 1, frozenset({ACCEPT})
        assert self.round is not None
        return self.round.due()

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
        return self._local_turn() and self._chosen is None and not self._auto_pass()

    def _local_turn(self) -> bool:
        due = self.due()
        return (
            due is not None
            and due[0] == self.me
            and due[1] == frozenset({PLAY, DRAW, PASS_KIND})
            and self.round is not None
            and self.round.step is Step.TURNS
        )

    def _auto_pass(self) -> bool:
        """The local seat drew a position that opens to no tile: only a pass is possible."""
        r = self.round
        return (
            r is not None
            and r.public is not None
            and r.public.drawn_pending
            and (r.drawn_tile() is None)
        )

    def view(self) -> PlayerView:
        """The local player's view of the current round."""
        r = self.round
        if self.me is None or r is None or r.public is None:
            raise LocalProtocolError("no hand to show: this table has no local seat or round yet")
        drawn = r.drawn_tile() if r.public.drawn_pending and r.public.turn == self.me else None
        return PlayerView(self.me, r.hand_tiles(), drawn, r.public)

    def choose(self, move: Move) -> None:
        """The local player's move; it is posted by the next `outgoing`."""
        if not self.awaiting_local_move:
            raise LocalProtocolError("it is not your turn to move: wait for the seat shown")
        legal = self.view().legal_moves()
        if move not in legal:
            allowed = ", ".join(str(m) for m in legal[:12])
            raise LocalProtocolError(f"{move} is not a legal move now: you may {allowed}")
        self._chosen = move

    @property
    def deadline(self) -> float | None:
        """When the seat now due (local or not) must have posted; None when none is due."""
        return None if self.due() is None else self._step_started + self.timeout

    def drain_events(self) -> list[Event]:
        """Events not returned by `receive`: from the local seat's own entries (posted by
        `outgoing`) and from `handle_timeout`, since the last call."""
        events, self._events = self._events, []
        return events

    # ------------------------------------------------------------------ time

    def next_deadline(self) -> float | None:
        """When `handle_timeout` (or `outgoing`) next has something to do; None: nothing."""
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

    def handle_timeout(self, now: float) -> None:
        """Blame the awaited seat if its deadline has passed (events: `drain_events`)."""
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

    def receive(self, wire: bytes, now: float) -> list[Event]:
        """Take one entry from the network. Provable faults become events (and an abort);
        PeerProtocolError for what proves nothing (malformed, badly signed, unplaceable)."""
        if wire in self._wires:
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
            self._queue(entry)
            return []
        events = self._take(entry, now)
        while not self.finished and (waiting := self._unqueue()):
            for queued in waiting:
                try:
                    events += self._take(queued, now, verified=True)
                except PeerProtocolError:
                    continue
        return events

    def _unqueue(self) -> list[Entry]:
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

    def _queue(self, entry: Entry) -> None:
        """Keep a validly signed entry that is a little ahead of the chain until its turn."""
        seq, length = entry.seq, len(self.entries)
        if seq > length + 2 * self.players + PENDING_SLACK:
            raise PeerProtocolError(f"entry {seq} is too far ahead of the chain ({length})")
        if not entry.verify(self.seats[entry.seat].key):
            raise PeerProtocolError(f"entry {seq}: the signature is not seat {entry.seat}'s")
        if entry in self._pending.get(seq, ()):
            return
        if self._pending_bytes[entry.seat] + len(entry.wire) > MAX_PENDING_BYTES:
            raise PeerProtocolError(
                f"entry {seq}: too many entries of seat {entry.seat} wait ahead of the chain"
            )
        self._pending.setdefault(seq, []).append(entry)
        self._pending_bytes[entry.seat] += len(entry.wire)

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
        due = self._scheduled()
        if entry.seat != due[0]:
            return self._out_of_turn(entry, now)
        return self._accept(entry, now, due[0], due[1])

    def _out_of_turn(self, entry: Entry, now: float) -> list[Event]:
        expected = self._expected_at(entry.seq)
        detail = f"posted {entry.kind} as entry {entry.seq}, where seat {expected} was due"
        return self._found(Fault(entry.seat, OUT_OF_TURN, detail, None, {"entry": entry.wire}), now)

    def _expected_at(self, seq: int) -> int:
        return self._expected[seq] if seq < len(self._expected) else self._scheduled()[0]

    def _append(self, entry: Entry, now: float, expected: int) -> None:
        if self._held is not None and self._held.seq == entry.seq and entry.kind != ABORT:
            self._held = None  # the seat a premature timeout claim named did post in time
        self.entries.append(entry)
        self._times.append(now)
        self._wires.add(entry.wire)
        self._expected.append(expected)
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
            events += self._apply(entry)
        except BodyError as error:
            events += self._found(blame(seat, error.reason, entry.seq).fault, now)
        except Blame as error:
            events += self._found(error.fault, now)
        return events

    def _apply(self, entry: Entry) -> list[Event]:
        if entry.kind == ACCEPT:
            check_body(ACCEPT, entry.body, {"genesis": is_b32})
            if entry.body["genesis"] != self.entries[0].hash:
                raise blame(entry.seat, "accepted a different table entry", entry.seq)
            self.accepts += 1
            if self.accepts == self.players - 1:
                self._start_round()
            return []
        r = self.round
        assert r is not None
        check_body(entry.kind, entry.body, round_body_spec(entry.kind, self.players, r.hand))
        if entry.body["round"] != r.number:
            raise blame(entry.seat, f"its entry is for round {entry.body['round']}", entry.seq)
        before = r.step
        events = r.apply(entry)
        if r.step is Step.TURNS and before is Step.DEAL and self.me is not None:
            events += self._private(r.open_hand)
        elif (
            entry.kind == YARD_KEY
            and r.draw is not None
            and not r.draw.waiting
            and r.draw.drawer == self.me
        ):
            events += self._private(r.open_drawn)
        elif entry.kind == REVEAL and len(r.seeds) == self.players:
            events += self._audit(r)
        elif r.step is Step.DONE:
            if self.game.is_over:
                self.over = True
                events.append(GameOver(self.game.totals, self.game.winners()))
            else:
                self._start_round()
        return events

    def _private(self, opening: Callable[[], list[Event]]) -> list[Event]:
        """Run a local opening; a bad point found there is this seat's alone to report."""
        try:
            return opening()
        except Blame as error:
            return self._private_fault(error)

    def _private_fault(self, error: Blame) -> list[Event]:
        assert self.me is not None
        fault = replace(error.fault, posters=(self.me,))
        self.fault, self.fault_time = fault, self._step_started
        return [FaultFound(fault)]

    def _audit(self, r: RoundState) -> list[Event]:
        result = audit_round(r, self.me)
        replayed = result.replayed
        r.scores = self.game.finish_round(replayed)
        r.totals = self.game.totals
        r.step = Step.CERTIFY
        h = hand_size(self.players)
        dealt = tuple(tuple(result.tiles[s * h : (s + 1) * h]) for s in range(self.players))
        yard = result.tiles[self.players * h :]
        left = tuple(tuple(hand) for hand in replayed.hands)
        public = replayed.public
        assert public.end_reason is not None  # the audit replays the round to its end
        scored = RoundScored(
            r.number,
            r.starter,
            dealt,
            yard,
            left,
            tuple(public.moves),
            r.scores,
            r.totals,
            public.end_reason,
            public.went_out,
        )
        return [scored]

    def _start_round(self) -> None:
        number = self.game.round_number
        seed = None if self.local is None else self.local.seed(number)
        self.round = RoundState.start(
            self.table_id,
            self.players,
            number,
            self.options,
            self.me,
            seed,
            check_proofs=number not in self.unproven_rounds,
        )

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
        due = self._expected_at(entry.seq)  # who was due there, whatever the abort says
        try:
            claim = parse_abort(entry.body, self.players)
        except BodyError as error:
            return self._bad_abort(entry, now, due, f"malformed abort: {error.reason}")
        if claim.seat == entry.seat:
            return self._bad_abort(entry, now, due, "its abort blames its own author")
        problem = self._check_claim(claim, entry, now)
        if problem == PREMATURE:
            self._held = entry  # taken if our own clock agrees before the seat posts
            return []
        if problem is not None:
            return self._bad_abort(entry, now, due, f"its abort does not hold: {problem}")
        superseded: list[Event] = []
        if entry.seq < len(self.entries):
            self._wires.difference_update(e.wire for e in self.entries[entry.seq :])
            del self.entries[entry.seq :]
            del self._expected[entry.seq :]
            del self._times[entry.seq :]
            superseded.append(Superseded(entry.seq))
            self.over = False  # the final certificate, if it was there, is gone
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

    def _check_claim(self, claim: Fault, abort: Entry, now: float) -> str | None:
        """Why an abort's claim does not hold (None if it does; PREMATURE for a timeout that
        this table's own clock has not seen yet)."""
        evidence = claim.evidence
        if claim.code in (BAD_ENTRY, BAD_PROOF):
            mine = self.fault
            if mine is None or (mine.code, mine.seat, mine.seq) != (
                claim.code,
                claim.seat,
                claim.seq,
            ):
                return (
                    f"this table finds no {claim.code} fault of seat {claim.seat} at entry "
                    f"{claim.seq}"
                )
            return None
        if claim.code == TIMEOUT:
            seq = abort.seq
            if evidence["seq"] != seq or self._expected_at(seq) != claim.seat:
                return f"seat {claim.seat} was not the seat due at entry {seq}"
            if seq < len(self.entries):
                if self._times[seq] - self._times[seq - 1] < self.timeout:
                    return f"seat {claim.seat}'s entry {seq} arrived here in time"
            elif now < self._step_started + self.timeout:
                return PREMATURE
            return None
        if claim.code == BAD_POINT:
            seq, index = evidence["seq"], evidence["index"]
            if seq >= abort.seq or index >= DECK_SIZE:
                return "the evidence names no earlier deck position"
            target = self.entries[seq]
            if (
                target.kind not in (SHUFFLE_A, SHUFFLE_B)
                or target.seat != claim.seat
                or not packed(DECK_SIZE)(target.body.get("deck"))
            ):
                return f"entry {seq} is not a deck posted by seat {claim.seat}"
            if is_valid_point(unpack(target.body["deck"])[index]):
                return f"position {index} of entry {seq} is a valid point"
            return None
        if claim.code == OUT_OF_TURN:
            return self._check_out_of_turn(claim, evidence["entry"], abort.seq)
        try:
            proof = Equivocation.from_plain(evidence["entries"])
        except MalformedEntry as error:
            return error.reason
        if proof.a.seat != claim.seat or proof.a.table_id != self.table_id:
            return "the two entries are not the blamed seat's at this table"
        if not proof.check(self.seats[claim.seat].key):
            return "the two entries are not two signed entries for one place"
        return None

    def _check_out_of_turn(self, claim: Fault, wire: bytes, limit: int) -> str | None:
        try:
            other = decode_entry(wire)
        except MalformedEntry as error:
            return error.reason
        seq = other.seq
        if (
            other.seat != claim.seat
            or other.table_id != self.table_id
            or other.kind == ABORT
            or not 0 < seq <= min(limit, len(self.entries))
            or other.prev != self.entries[seq - 1].hash
            or not other.verify(self.seats[claim.seat].key)
        ):
            return "the evidence is not the blamed seat's entry linked into this chain"
        if self._expected_at(seq) == other.seat:
            return f"seat {other.seat} was due at entry {seq}"
        return None

    # ------------------------------------------------------------------ posting

    def outgoing(self, now: float) -> list[Entry]:
        """The entries the local seat posts now, signed and already appended here."""
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
            self._events.extend(self._abort(entry, now))
            return entry
        due = self.due()
        if due is None or due[0] != self.me:
            return None
        kinds = due[1]
        move: Move | None = None
        if kinds == frozenset({ACCEPT}):
            kind, body = ACCEPT, {"genesis": self.entries[0].hash}
        else:
            r = self.round
            assert r is not None
            if r.step is Step.TURNS and YARD_KEY not in kinds:
                move = PASS if self._auto_pass() else self._chosen
                if move is None:
                    return None
                kind = (
                    PLAY
                    if isinstance(move, Play)
                    else DRAW
                    if isinstance(move, Draw)
                    else (PASS_KIND)
                )
            else:
                kind = next(iter(kinds))
            try:
                body = r.local_body(kind, move)
            except Blame as error:
                self._events.extend(self._private_fault(error))
                return self._next_own(now)
        self._chosen = None
        entry = local.sign(self.table_id, len(self.entries), self.head, kind, body)
        self._events.extend(self._take_own(entry, now))
        return entry

    def _take_own(self, entry: Entry, now: float) -> list[Event]:
        due = self._scheduled()
        return self._accept(entry, now, due[0], due[1])
