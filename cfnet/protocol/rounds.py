"""The game as the schedule walks it: the acceptances, each round's public checks and the local
seat's side of it, the step changes of `schedule.SCHEDULE`, the audit at the reveal and the
scores. Fed the entries the table placed for the seat due; raises Blame. Pure."""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Any

from cfnet.errors import LocalProtocolError
from cfnet.game.board import PublicRound
from cfnet.game.moves import PASS, Draw, Move, Play
from cfnet.game.round import Game
from cfnet.game.rules import RuleOptions, hand_size
from cfnet.protocol.audit import audit_abandoned, audit_round
from cfnet.protocol.events import Event, GameOver, RoundScored, SeatReturned
from cfnet.protocol.local_seat import LocalSeat, SeatRound
from cfnet.protocol.returns import Returns
from cfnet.protocol.round_checks import RoundChecks, deal_tag
from cfnet.protocol.schedule import Schedule, Step
from cfnet.protocol.wire import (
    ACCEPT,
    CERTIFY,
    DRAW,
    PLAY,
    RETURNS,
    YARD_KEY,
    Blame,
    blame,
    check_body,
    is_b32,
    request_list,
    round_body_spec,
)
from cfnet.protocol.wire import PASS as PASS_KIND
from cfnet.record.entry import Entry

Private = Callable[[Blame], list[Event]]
"""Turns a Blame found in the local seat's own openings into the events of a fault only this
seat can see (and report)."""


class Rounds:
    """Where the game stands (`schedule`), the scores (`game`), the current round's public
    checks (`round`) and the local seat's side of it (`seat`; None for an observer), with the
    move the local player chose (`chosen`) until it is posted."""

    def __init__(
        self,
        table_id: bytes,
        genesis: bytes,
        options: RuleOptions,
        players: int,
        local: LocalSeat | None,
        unproven_rounds: Container[int],
        keys: tuple[bytes, ...],
        proofs: bool = True,
    ) -> None:
        """`genesis`: the hash of the table entry each seat accepts; `unproven_rounds`: the
        deal tags whose hop proofs are not checked; `proofs` False: none are (a replay of
        entries already checked)."""
        self.table_id, self.genesis = table_id, genesis
        self.options, self.players = options, players
        self.local = local
        self.unproven_rounds = unproven_rounds
        self.proofs = proofs
        self.schedule = Schedule(players)
        self.seated = tuple(range(players))
        self.deal = 0
        self.abandoned = False  # a seat left mid-deal: the others reveal it, then it is dealt again
        self.returns = Returns(table_id, keys)
        self.game = Game(players, options)
        self.round: RoundChecks | None = None
        self.seat: SeatRound | None = None
        self.chosen: Move | None = None
        self.over = False

    def due(self) -> tuple[int, frozenset[str]]:
        """The seat entitled to post next and the kinds it may post (the schedule's step)."""
        turn = self.round.turn() if self.schedule.step is Step.TURNS and self.round else None
        return self.schedule.due(turn)

    @property
    def auto_pass(self) -> bool:
        """The local seat drew a position that opens to no tile: only a pass is possible."""
        public = self.public
        return (
            public is not None
            and public.drawn_pending
            and (self.seat is None or self.seat.drawn_tile() is None)
        )

    @property
    def public(self) -> PublicRound | None:
        return None if self.round is None else self.round.public

    # -- taking an entry of the seat due

    def apply(self, entry: Entry, private: Private) -> list[Event]:
        """Check what the due seat's entry says and take the schedule's step it completes."""
        if entry.kind == ACCEPT:
            check_body(ACCEPT, entry.body, {"genesis": is_b32})
            if entry.body["genesis"] != self.genesis:
                raise blame(entry.seat, "accepted a different table entry", entry.seq)
            if self.schedule.count():
                self.schedule.advance()
                return self._start_round()
            return []
        r = self.round
        assert r is not None
        spec = round_body_spec(entry.kind, self.players, r.hand, len(r.seated))
        carries = entry.kind == CERTIFY and RETURNS in entry.body
        if carries:
            spec = {**spec, RETURNS: request_list(self.players)}
        check_body(entry.kind, entry.body, spec)
        if entry.body["round"] != r.number:
            raise blame(entry.seat, f"its entry is for round {entry.body['round']}", entry.seq)
        events = r.apply(entry)
        if carries:
            self.returns.carried(entry.body[RETURNS], self.seated)
        if self.schedule.step is Step.TURNS:
            draw, seat = r.draw, self.seat
            if (
                entry.kind == YARD_KEY
                and draw is not None
                and not draw.waiting
                and seat is not None
                and draw.drawer == seat.me
            ):
                events += self._open(private, SeatRound.open_drawn)
            if r.turns_over:
                self.schedule.advance()
        elif self.schedule.count():
            events += self._complete(private)
        return events

    def _complete(self, private: Private) -> list[Event]:
        """Every seat posted the current step: run what ends it and enter the next."""
        if self.schedule.step is Step.REVEAL and self.abandoned:
            return self._redeal()
        if self.schedule.step is Step.REVEAL:
            events = self._audit()
            self.schedule.advance()
            return events
        step = self.schedule.advance()
        if step is Step.TURNS:
            return self._open(private, SeatRound.open_hand)
        if step is Step.DONE:
            if self.game.is_over:
                self.over = True
                return [GameOver(self.game.totals, self.game.winners())]
            self.deal = 0
            return self._start_round()
        return []

    def _open(self, private: Private, opening: Callable[[SeatRound], list[Event]]) -> list[Event]:
        """Run one of the local seat's openings (nothing for an observer)."""
        if self.seat is None:
            return []
        try:
            return opening(self.seat)
        except Blame as error:
            return private(error)

    def _audit(self) -> list[Event]:
        r = self.round
        assert r is not None
        result = audit_round(r, None if self.seat is None else self.seat.me)
        replayed = result.replayed
        r.scores = self.game.finish_round(replayed)
        r.totals = self.game.totals
        h, seated = hand_size(len(r.seated)), r.seated
        dealt = tuple(
            tuple(result.tiles[seated.index(s) * h : (seated.index(s) + 1) * h])
            if s in seated
            else ()
            for s in range(self.players)
        )
        yard = result.tiles[len(seated) * h :]
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
            seated,
        )
        return [scored]

    def check_proofs_from_now(self) -> None:
        """After a replay without proof checks: check the hop proofs that come from now on."""
        self.proofs = True
        r = self.round
        if r is not None:
            r.check_proofs = r.tag not in self.unproven_rounds

    def depart(self, seat: int, seq: int, entry_hash: bytes, removed: bool = False) -> list[Event]:
        """`seat` leaves (`removed`: proven to cheat, it is disqualified) and the game goes on
        among the others (RULES.md, "When a player leaves"): a round already scored stands and
        the next one starts without it; a round under way is abandoned and dealt again among
        them, with fresh secrets."""
        if self.schedule.step is Step.ACCEPT:
            raise LocalProtocolError("a departure before the first deal ends the game")
        self.seated = tuple(s for s in self.seated if s != seat)
        self.returns.left(seat, seq, entry_hash, removed)
        if removed:
            self.game.disqualify(seat)
        self.chosen = None
        if self.schedule.step is Step.CERTIFY:  # the round was audited: its scores stand
            self.deal = 0
            return self._start_round()
        r = self.round
        assert r is not None
        revealing = tuple(s for s in self.seated if r.committed(s) and s not in r.seeds)
        self.abandoned = True
        if not revealing:
            return self._redeal()
        self.schedule.reveal_abandoned(revealing)
        return []

    def _redeal(self) -> list[Event]:
        """Audit the abandoned deal as far as its reveals allow, then deal the round again."""
        assert self.round is not None
        audit_abandoned(self.round, self.seated)
        self.abandoned = False
        self.deal += 1
        return self._start_round()

    def _start_round(self) -> list[Event]:
        """Begin the next deal; a new round first deals in again the seats a certificate of
        the round before brought back."""
        events: list[Event] = []
        if self.deal == 0:
            back = self.returns.back()
            self.seated = tuple(sorted({*self.seated, *back}))
            events = [SeatReturned(seat, self.game.round_number) for seat in back]
        number = self.game.round_number
        me = None if self.local is None else self.local.seat
        self.round = RoundChecks.start(
            self.table_id,
            self.players,
            number,
            self.options,
            me,
            check_proofs=self.proofs and deal_tag(number, self.deal) not in self.unproven_rounds,
            seated=self.seated,
            deal=self.deal,
        )
        self.seat = None
        if self.local is not None and self.local.seat in self.seated:
            seed = self.local.seed(self.round.tag)
            self.seat = SeatRound(self.round, self.local.seat, seed)
        self.schedule.next_round(self.seated)
        return events

    # -- what the local seat posts

    def own(self, kinds: frozenset[str]) -> tuple[str, dict[str, Any]] | None:
        """The kind and body of the local seat's next entry when it is due with `kinds` (the
        chosen move is then used up); None while it must still choose its move. Blame if an
        input of its body is bad."""
        if kinds == frozenset({ACCEPT}):
            return ACCEPT, {"genesis": self.genesis}
        seat = self.seat
        assert seat is not None
        move: Move | None = None
        if self.schedule.step is Step.TURNS and YARD_KEY not in kinds:
            move = PASS if self.auto_pass else self.chosen
            if move is None:
                return None
            kind = PLAY if isinstance(move, Play) else DRAW if isinstance(move, Draw) else PASS_KIND
        else:
            kind = next(iter(kinds))
        body = seat.body(kind, move)
        if kind == CERTIFY and (carry := self.returns.to_carry(self.seated)):
            body[RETURNS] = carry
        self.chosen = None
        return kind, body
