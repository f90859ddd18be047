"""The table protocol as a sans-IO state machine (protocol.md): fed signed entries and the time,
it says which entries the local seat posts next and when its next timer falls.

Inputs: `receive(wire, now)`, `choose(move)`, `handle_timer(now)`; outputs: `entries_to_send(now)`
(the local seat's entries, already placed here), `get_timer()` and the one event queue
`next_event()` (None when empty), as in h11 and aioquic.

One hash chain per table; at every moment exactly one seat is entitled to post the next entry
(`schedule`), so honest seats never fork it. A provable fault (or a stall past the deadline)
ends the game with a signed abort naming the seat (from version 4 a stall needs a majority's
stall votes first: votes.py). No I/O, no clock, no global randomness: the
round seeds come from `LocalSeat.entropy` (os.urandom unless a test supplies a derivation).
"""

from __future__ import annotations

from collections.abc import Container

from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.game.board import PublicRound
from cfnet.game.moves import Move
from cfnet.game.round import Game, PlayerView
from cfnet.protocol.chain import PENDING_SLACK
from cfnet.protocol.events import Event, Stalled, VoteCast
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.referee import MAX_ABORT_ENTRY, MAX_ORDINARY_ENTRY, OFFLINE, Referee
from cfnet.protocol.round_checks import RoundChecks
from cfnet.protocol.schedule import Step
from cfnet.protocol.votes import MAX_VOTE_BYTES, Ballot, needed, possible
from cfnet.protocol.wire import (
    ABORT,
    EQUIVOCATION,
    RESIGN,
    RETURN,
    STALL,
    TIMEOUT,
    TURN_KINDS,
    Blame,
    Fault,
)
from cfnet.record.entry import Entry

__all__ = ["MAX_ABORT_ENTRY", "MAX_ORDINARY_ENTRY", "OFFLINE", "Table"]
"""The size limits and the offline time are the referee's; callers find them here too."""


class Table(Referee):
    """One table's protocol state, `Table(genesis, local, now)`: the referee's chain and game,
    and the local seat's view, moves, posts and timers (`local` None: an observer, what
    `cfnet verify` runs)."""

    def __init__(
        self,
        genesis: bytes,
        local: LocalSeat | None = None,
        now: float = 0.0,
        unproven_rounds: Container[int] = frozenset(),
    ) -> None:
        """As `Referee`, with the stall votes the local seat holds (`ballot`, version 4)."""
        super().__init__(genesis, local, now, unproven_rounds)
        self.ballot = Ballot(
            self.table_id, self.keys, lambda: self.entries, self._due_at, self._seated_at
        )
        self._stall_why = ""  # the detail of the timeout the local seat's vote may prove
        self._proof_now = False  # the seat a held proof blames stalled and no majority can vote

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
            and not self.resigning
            and self.step is Step.TURNS
            and self.rounds.chosen is None
            and not self.rounds.auto_pass
        )

    @property
    def departed(self) -> bool:
        """The local seat has left (resigned, or was timed out) and the game goes on without
        it: it posts nothing more."""
        return self.me is not None and self.me not in self.rounds.seated

    @property
    def removed(self) -> bool:
        """The local seat was removed for cheating: it never comes back."""
        return self.me is not None and self.me in self.rounds.returns.removed

    def return_request(self) -> Entry:
        """The local seat's signed request to be dealt in again from the next round (after it
        left: resigned, or timed out); peers carry it in their next certificate."""
        local = self.local
        if self.removed:
            raise LocalProtocolError("a seat removed for cheating cannot come back")
        if local is None or not self.departed or self.finished:
            raise LocalProtocolError("only a seat that has left a game still going on can return")
        seq, entry_hash = self.rounds.returns.left_at[local.seat]
        return local.sign(self.table_id, seq, entry_hash, RETURN, {})

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
        self.rounds.chosen = move

    # ------------------------------------------------------------------ time

    def get_timer(self) -> float | None:
        """When `handle_timer` (or `entries_to_send`) next has something to do; None: nothing."""
        if self.finished:
            return None
        if self.votes and (post := self._timeout_post_time()) is not None:
            return post
        if self.fault is not None:
            if self.me in self.fault.posters:
                return self.fault_time + self.fault.posters.index(self.me) * self.timeout
            return None
        due = self.due()
        if due is None or (due[0] == self.me and self._held is None):
            return None
        if self.own_vote() is not None:
            return None  # voted here: nothing more to do until the place moves or a majority
        return self.turn_deadline()

    def turn_deadline(self) -> float | None:
        """By when the seat due must post (after that it may be blamed); None: nobody is due."""
        if self.finished or self.fault is not None or self.due() is None:
            return None
        return self._step_started + self.timeout

    def handle_timer(self, now: float) -> None:
        """Blame the awaited seat if its deadline has passed."""
        due = self.due()
        if due is None or now < self._step_started + self.timeout:
            return
        if self.votes:
            self._events += self._stall(due[0], due[1], now)
            return
        held, self._held = self._held, None
        if held is not None and held.seq == len(self.entries):
            self._events += self._abort(held, now)  # a timeout claim now confirmed here
            self._events += self._take_queued(now)  # what followed it may have come already
            return
        if due[0] == self.me:
            return
        seat, kinds = due
        seq = len(self.entries)
        fault = Fault(seat, TIMEOUT, self._why(seat, kinds), seq, {"seq": seq})
        self._events += self._found(fault, self._step_started + self.timeout)

    def _why(self, seat: int, kinds: frozenset[str]) -> str:
        """A timeout's detail: what `seat` did not post in time (and what of it was refused)."""
        why = f"did not post its {'/'.join(sorted(kinds))} within {self.timeout} s"
        if seat in self.rejected:
            why += f" (what it sent was refused: {self.rejected[seat]})"
        return why

    # ------------------------------------------------------------------ stall votes (v4)

    def own_vote(self) -> Entry | None:
        """The local seat's stall vote while it is open, its place the head (None: none): to be
        sent again whenever a link comes back, as no `sync` brings back what is not an entry."""
        return self.ballot.open_vote() if self.votes else None

    def _stall(self, seat: int, kinds: frozenset[str], now: float) -> list[Event]:
        """The seat due stalled past its deadline: vote to time it out, once per place."""
        if self.local is None or seat == self.me or self.own_vote() is not None:
            return []
        seq = len(self.entries)
        self._stall_why = self._why(seat, kinds)
        self.ballot.cast(self.local.sign(self.table_id, seq, self.head, STALL, {"seat": seat}))
        self._note_majority(now)
        seated = len(self._seated_at(seq))
        own = self.ballot.own
        assert own is not None
        events: list[Event] = [VoteCast(own, seat, len(self.ballot.tally(seq)), needed(seated))]
        if not possible(seated):
            if self.proof is not None and self.proof.seat == seat:
                self._proof_now = True  # a proof needs no majority: posted at the head here
            else:
                events.append(Stalled(seat, seq))
        return events

    def _vote(self, entry: Entry, now: float) -> list[Event]:
        """A peer's stall vote: held (one per seat, its latest) if valid where it links, or
        signed by its seat a little ahead of the chain; PeerProtocolError otherwise."""
        if not self.votes or self.local is None or self.finished:
            raise PeerProtocolError("a stall vote where no seat here can use it")
        if len(entry.wire) > MAX_VOTE_BYTES:
            raise PeerProtocolError(f"a stall vote is over {MAX_VOTE_BYTES} bytes")
        problem = self.ballot.problem(entry, 2 * self.players + PENDING_SLACK)
        if problem is not None:
            raise PeerProtocolError(problem)
        self.ballot.keep(entry)
        self._note_majority(now)
        return []

    def _note_majority(self, now: float) -> None:
        """Remember when the votes for the local seat's open vote first made a majority."""
        own = self.ballot.open_vote()
        seen = self.ballot.majority_seen
        if own is not None and (seen is None or seen[0] != own.prev) and self.ballot.majority():
            self.ballot.majority_seen = (own.prev, now)

    def _timeout_post_time(self) -> float | None:
        """When the local seat posts the timeout its majority of votes proves: at once if it is
        the lowest voter, each next voter `timeout` s later (as 4.6 orders abort posters)."""
        votes, seen = self.ballot.majority(), self.ballot.majority_seen
        if votes is None or seen is None:
            return None
        voters = sorted(vote.seat for vote in votes)
        return seen[1] + voters.index(self.me) * self.timeout if self.me in voters else None

    def _timeout_abort(self, now: float) -> Entry | None:
        """The timeout abort the local seat posts now, at its vote's place, with the votes."""
        local, when = self.local, self._timeout_post_time()
        votes, own = self.ballot.majority(), self.ballot.own
        if local is None or when is None or now < when or votes is None or own is None:
            return None
        seq, seat = own.seq, own.body["seat"]
        evidence = {"seq": seq, "votes": [vote.wire for vote in votes]}
        fault = Fault(seat, TIMEOUT, self._stall_why, seq, evidence)
        entry = local.sign(self.table_id, seq, own.prev, ABORT, fault.abort_body())
        try:
            self._events += self._abort(entry, now)
        except PeerProtocolError:
            return None
        return entry

    # ------------------------------------------------------------------ posting

    def returned(self) -> None:
        """The local seat has just restarted (`cfnet resume`): until it posts again, a peer's
        timeout claim against it is taken as soon as it comes, not once this (new) clock
        agrees: the seat was down, and the claim blames no one else."""
        self.returning = True

    def resign(self) -> None:
        """The local player leaves the game: a signed `resign` is posted in place of its next
        due entry (at once if it is due now), so the others need not wait out its deadline."""
        if self.local is None:
            raise LocalProtocolError("an observer has no seat to resign")
        self.resigning = True

    def entries_to_send(self, now: float) -> list[Entry]:
        """The entries the local seat posts now, signed and already placed here."""
        out: list[Entry] = []
        while self.local is not None and not self.finished:
            entry = self._next_own(now)
            if entry is None:
                break
            out.append(entry)
        if out:
            self.returning = False
        return out

    def _next_own(self, now: float) -> Entry | None:
        local = self.local
        assert local is not None and self.me is not None
        if self.votes and (timed_out := self._timeout_abort(now)) is not None:
            return timed_out
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
        if due is None:
            return None
        # A proof held for a built-on place goes in place of our entry (never one blaming us:
        # the next seat due posts it), or now if its signer, due, stalled in a 2-seat game.
        proof = self.proof
        if proof is not None and proof.seat != self.me and (due[0] == self.me or self._proof_now):
            self._proof_now = False
            abort = local.sign(
                self.table_id, len(self.entries), self.head, ABORT, proof.abort_body()
            )
            self._events += self._abort(abort, now)
            return abort
        if due[0] != self.me:
            return None
        try:
            own = (RESIGN, {}) if self.resigning else self.rounds.own(due[1])
        except Blame as error:
            self._events += self._private_fault(error)
            return self._next_own(now)
        if own is None:
            return None
        entry = local.sign(self.table_id, len(self.entries), self.head, *own)
        self._events += self._accept(entry, now, due[0], due[1])
        return entry
