"""What the table tells its user after each entry: plain, immutable event records."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cfnet.game.board import EndReason
from cfnet.game.moves import Move
from cfnet.game.text import goes_on_text, seat_name
from cfnet.game.tiles import Tile
from cfnet.lang import N_, Sentence
from cfnet.lang.sentence import listed
from cfnet.protocol.votes import vote_seats
from cfnet.protocol.wire import RESIGN, TIMEOUT, Fault
from cfnet.record.entry import Entry


@dataclass(frozen=True, slots=True)
class Appended:
    """`entry` joined the chain (a new entry, not an echo)."""

    entry: Entry


@dataclass(frozen=True, slots=True)
class Superseded:
    """An abort replaced the chain from `seq` on (a log file must drop those entries)."""

    seq: int


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """The joint draw chose who starts round `round_number`."""

    round_number: int
    starter: int


@dataclass(frozen=True, slots=True)
class HandDealt:
    """The local seat opened its hand (None: a position that opens to no tile)."""

    round_number: int
    tiles: tuple[Tile | None, ...]


@dataclass(frozen=True, slots=True)
class MoveMade:
    """`seat` made `move`; `drawn` is the tile a local draw gave (None for others' draws)."""

    round_number: int
    seat: int
    move: Move
    drawn: Tile | None = None


@dataclass(frozen=True, slots=True)
class RoundScored:
    """Round audited: who started, dealt hands, the yard as dealt, hands left at the end, the
    moves, scores and game totals, how the round ended, who went out (None if nobody) and the
    seats dealt in (a seat not among them sat the round out: no hand, the highest score)."""

    round_number: int
    starter: int
    dealt: tuple[tuple[Tile, ...], ...]
    yard: tuple[Tile, ...]
    left: tuple[tuple[Tile, ...], ...]
    moves: tuple[Move, ...]
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    end_reason: EndReason
    went_out: int | None
    seated: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameOver:
    """Every round is certified by every seat."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class FaultFound:
    """A seat is proven to have broken the protocol (or stalled); an abort will follow."""

    fault: Fault


@dataclass(frozen=True, slots=True)
class Aborted:
    """The game ended with `by`'s signed abort naming `fault.seat`."""

    fault: Fault
    by: int


@dataclass(frozen=True, slots=True)
class VoteCast:
    """The local seat's deadline for `seat` passed: it signed `vote`, a stall vote, to send to
    every peer (and again whenever a link comes back: `Table.own_vote`); `votes` of the
    `needed` votes that time `seat` out are held so far."""

    vote: Entry
    seat: int
    votes: int
    needed: int

    def describe(self, names: Sequence[str]) -> str:
        """What the local seat did and what it waits for, in one line."""
        who = seat_name(names, self.seat)
        if self.votes >= self.needed:
            return Sentence(N_("{name} did not post in time: voted to time it out"), name=who)
        return Sentence.counted(
            "{name} did not post in time: voted to time it out; waiting: cannot reach a"
            " majority yet ({votes} of the {count} vote needed): nobody is timed out until it"
            " is reached",
            "{name} did not post in time: voted to time it out; waiting: cannot reach a"
            " majority yet ({votes} of the {count} votes needed): nobody is timed out until it"
            " is reached",
            self.needed,
            name=who,
            votes=self.votes,
            count=self.needed,
        )


@dataclass(frozen=True, slots=True)
class Stalled:
    """`seat` stalled at entry `seq` where no majority can time it out (2 seats dealt in): the
    game ends here unfinished, a win for nobody."""

    seat: int
    seq: int

    def describe(self, names: Sequence[str]) -> str:
        """Why the game ends here, in one line."""
        return Sentence(
            N_(
                "{name} did not post entry {seq} in time, and with 2 seats no majority can time"
                " it out: the game ends unfinished, a win for nobody"
            ),
            name=seat_name(names, self.seat),
            seq=self.seq,
        )


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """`fault.seat` left (it resigned, `by` claimed its timeout, or `by`'s abort proved it
    cheated: it is removed and disqualified) and the game goes on among `seated`: round
    `round_number` is dealt again without it (`redealt`), or, the round left having been
    scored, begins as the next round without it."""

    fault: Fault
    by: int
    round_number: int
    seated: tuple[int, ...]
    redealt: bool

    def describe(self, names: Sequence[str]) -> str:
        """Who left, why, and how the game goes on, in one line."""
        who = seat_name(names, self.fault.seat)
        fault = self.fault
        goes_on = goes_on_text(self.round_number, self.redealt, self.seated, names)
        if fault.code == RESIGN:
            return Sentence(N_("{name} resigned: {goes_on}"), name=who, goes_on=goes_on)
        if fault.code == TIMEOUT and "votes" in fault.evidence:
            return Sentence(
                N_("{name} {detail}: timed out by the votes of {voters}: {goes_on}"),
                name=who,
                detail=fault.detail,
                voters=listed([seat_name(names, s) for s in vote_seats(fault.evidence)]),
                goes_on=goes_on,
            )
        if fault.code == TIMEOUT:
            return Sentence(
                N_("{by} claims {name} {detail}: {goes_on}"),
                by=seat_name(names, self.by),
                name=who,
                detail=fault.detail,
                goes_on=goes_on,
            )
        values = {"name": who, "detail": fault.detail, "code": fault.code, "goes_on": goes_on}
        if fault.seq is None:
            return Sentence(
                N_("{name} is removed and disqualified: {detail} ({code}): {goes_on}"), **values
            )
        return Sentence(
            N_("{name} is removed and disqualified: entry {seq}: {detail} ({code}): {goes_on}"),
            seq=fault.seq,
            **values,
        )


def _proof_text(names: Sequence[str], fault: Fault) -> Sentence:
    """Whom a proof names and for which entry, in a few words."""
    name = seat_name(names, fault.seat)
    if fault.seq is None:
        return Sentence(N_("{name} signed two different entries"), name=name)
    return Sentence(
        N_("{name} signed two different entries for entry {seq}"), name=name, seq=fault.seq
    )


@dataclass(frozen=True, slots=True)
class ProofHeld:
    """This peer holds proof that `fault.seat` signed a second entry for a place of the chain
    that every seat has built on (version 4): it is not rewound; the proof is posted at the
    head, in place of the next entry, and removes that seat."""

    fault: Fault

    def describe(self, names: Sequence[str]) -> str:
        """What was found and what comes of it, in one line."""
        return Sentence(
            N_("{proof}: the proof is posted at the head of the chain"),
            proof=_proof_text(names, self.fault),
        )


@dataclass(frozen=True, slots=True)
class Disqualified:
    """`by`'s abort proved that `fault.seat`, which had already left, cheated: it is
    disqualified (ranked last, never back) and the game goes on as it was."""

    fault: Fault
    by: int

    def describe(self, names: Sequence[str]) -> str:
        """Who is disqualified and why, in one line."""
        fault = self.fault
        values = {"name": seat_name(names, fault.seat), "detail": fault.detail, "code": fault.code}
        if fault.seq is None:
            return Sentence(
                N_("{name}, which had left, is disqualified: {detail} ({code}); the game goes on"),
                **values,
            )
        return Sentence(
            N_(
                "{name}, which had left, is disqualified: entry {seq}: {detail} ({code}); the"
                " game goes on"
            ),
            seq=fault.seq,
            **values,
        )


@dataclass(frozen=True, slots=True)
class LateProof:
    """After the game's end, proof that `fault.seat` signed a second entry for a place the
    game was built on: reported, and the result stands (a finished game stays finished)."""

    fault: Fault

    def describe(self, names: Sequence[str]) -> str:
        """What came late, in one line."""
        return Sentence(
            N_("{proof}, after the game's end: the result stands"),
            proof=_proof_text(names, self.fault),
        )


@dataclass(frozen=True, slots=True)
class TimeoutDisproved:
    """`author` signed a timeout of `seat` at entry `seq` after it had signed entry `later`,
    which follows `seat`'s own entry there (version 4): the timeout is refused, and the chain
    from `seq` to `later` (`entries`, the disproof) is passed on to every peer, so that a peer
    that took the timeout goes back to that chain."""

    author: int
    seat: int
    seq: int
    later: int
    entries: tuple[bytes, ...]

    def describe(self, names: Sequence[str]) -> str:
        """Who signed what, in one line."""
        return Sentence(
            N_(
                "{author} signed a timeout of {name} for entry {seq} after signing entry"
                " {later}, which follows {name}'s own entry there: the timeout is refused"
            ),
            author=seat_name(names, self.author),
            name=seat_name(names, self.seat),
            seq=self.seq,
            later=self.later,
        )


@dataclass(frozen=True, slots=True)
class SeatReturned:
    """`seat`, which had left, is dealt in again from round `round_number`."""

    seat: int
    round_number: int

    def describe(self, names: Sequence[str]) -> str:
        """Who came back, in one line."""
        return Sentence(
            N_("{name} is back: dealt in from round {number}"),
            name=seat_name(names, self.seat),
            number=self.round_number,
        )


Event = (
    Appended
    | Superseded
    | RoundStarted
    | HandDealt
    | MoveMade
    | RoundScored
    | GameOver
    | FaultFound
    | Aborted
    | SeatLeft
    | SeatReturned
    | ProofHeld
    | Disqualified
    | LateProof
    | TimeoutDisproved
    | VoteCast
    | Stalled
)


def drain(next_event: Callable[[], Event | None]) -> list[Event]:
    """Every event a queue (a table's `next_event`) holds, oldest first; the queue is empty."""
    events: list[Event] = []
    while (event := next_event()) is not None:
        events.append(event)
    return events
