"""A game as a sequence of positions, built from its log entries as they come (pure).

What the replay viewer steps through and what `cfnet watch` shows: entries are judged by the
observer table `cfnet verify` runs (`protocol.verify.Judge`), and each move the table takes adds
a position (the public board after it). A departure, a return and the abort that ends a game
add a position too, with the board as it stood and the sentence `cfnet verify` says of it.
Once a round is revealed, every hand at each of its positions and the tile each draw gave are
known too; never before. Names and every sentence that holds a peer's words are escaped.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass, replace
from typing import BinaryIO

from cfnet.game.board import PublicRound
from cfnet.game.moves import Draw, Move
from cfnet.game.round import Round
from cfnet.game.text import SENTENCE_CHARS, escaped, move_text, round_start, shown_names
from cfnet.game.tiles import Tile
from cfnet.lang import _, digits, said
from cfnet.protocol.events import RoundScored
from cfnet.protocol.table import MAX_ABORT_ENTRY, OFFLINE, Table
from cfnet.protocol.verify import Judge, Lookahead, Verdict
from cfnet.protocol.wire import RESIGN, Fault
from cfnet.record.entry import Entry
from cfnet.record.logfile import LogFileError, iter_log


@dataclass(frozen=True, slots=True)
class Position:
    """The board after `index` moves of round `round_number` (0: the round's start); `number`
    counts the moves of the whole game; `seat` made `move` to get here (None at a start);
    `seq` is the entry that made it. `note`: what happened instead of a move (a departure, a
    return, the abort that ended the game), the board left as it stood ('' for a move or a
    start)."""

    seq: int
    round_number: int
    index: int
    number: int
    seat: int | None
    move: Move | None
    public: PublicRound
    note: str = ""


def abort_text(fault: Fault, by: int, names: Sequence[str]) -> str:
    """The abort that ended a game, in one line (`names`: as shown, e.g. `seat 1 (bob)`)."""
    if fault.code == RESIGN:
        return _("{name} resigned: the game ends here").format(name=names[fault.seat])
    return _("aborted by seat {by}: seat {seat}, {detail}").format(
        by=digits(by), seat=digits(fault.seat), detail=escaped(fault.detail)
    )


class Timeline:
    """Every position of a game so far: `take` each entry after the genesis, in log order."""

    def __init__(self, genesis: bytes, audited: Container[int] = frozenset()) -> None:
        self.table = Table(genesis, None, OFFLINE, audited)
        self.judge = Judge(self.table)
        self.names = shown_names([info.name for info in self.table.seats])
        """The seats' names as shown (escaped)."""
        self.positions: list[Position] = []
        self.revealed: dict[int, RoundScored] = {}
        self._replica: PublicRound | None = None
        self._hands: dict[int, list[tuple[tuple[Tile, ...], ...]]] = {}
        self._drawn: dict[int, list[Tile | None]] = {}

    @property
    def rounds(self) -> list[RoundScored]:
        """The rounds scored so far, in order."""
        return self.judge.verdict.rounds

    def take(self, entry: Entry) -> bool:
        """Judge one entry (as `cfnet verify` does) and add the positions it made; False once
        the verdict is settled (what follows is not judged)."""
        if self.judge.decided:
            return False
        held = len(self.table.entries)
        told = len(self.judge.verdict.departures)
        ended = self.table.aborted is not None
        self.judge.take(entry)
        if len(self.table.entries) <= held and self.table.entries[-1].wire == entry.wire:
            self._supersede(entry.seq)
        for line in self.judge.verdict.departures[told:]:
            self._note(line)
        aborted, by = self.table.aborted, self.table.aborted_by
        if aborted is not None and by is not None and not ended:
            seats = [
                _("seat {number} ({name})").format(number=digits(s), name=n)
                for s, n in enumerate(self.names)
            ]
            self._note(abort_text(aborted, by, seats))
        if self.table.aborted is None:
            self._follow()
        for scored in self.rounds[len(self.revealed) :]:
            self.revealed[scored.round_number] = scored
        return not self.judge.decided

    def verdict(self) -> Verdict:
        """What the entries taken so far prove (as `cfnet verify` reports it)."""
        verdict = self.judge.finish()
        verdict.entries = len(self.table.entries)
        return verdict

    def _follow(self) -> None:
        public = self.table.public
        if public is None:
            return
        replica = self._replica
        if replica is None or (replica.round_number, replica.seated) != (
            public.round_number,
            public.seated,
        ):
            replica = PublicRound(
                self.table.players,
                public.round_number,
                public.starter,
                self.table.options,
                seated=public.seated,
            )
            self._replica = replica
            self._add(replica, None, None)
        for move in public.moves[len(replica.moves) :]:
            seat = replica.turn
            replica.apply_public(move)
            self._add(replica, seat, move)

    def _supersede(self, seq: int) -> None:
        """An abort replaced the chain from entry `seq` on: the positions made there are gone
        (the deal they were in is over: the game ended, or it goes on with a new deal)."""
        while self.positions and self.positions[-1].seq >= seq:
            self.positions.pop()
        public = self.table.public  # the deal as the entries before `seq` left it
        self._replica = None if public is None else public.copy()

    def _add(self, public: PublicRound, seat: int | None, move: Move | None) -> None:
        number = (self.positions[-1].number if self.positions else 0) + (move is not None)
        seq = len(self.table.entries) - 1
        self.positions.append(
            Position(seq, public.round_number, len(public.moves), number, seat, move, public.copy())
        )

    def _note(self, text: str) -> None:
        """A departure, return or abort (`text`, as `cfnet verify` says it), as a position on
        the board it left (none before the first deal)."""
        if not self.positions:
            return
        last = self.positions[-1]
        seq = len(self.table.entries) - 1
        shown = escaped(said(text), SENTENCE_CHARS)
        self.positions.append(replace(last, seq=seq, seat=None, move=None, note=shown))

    def round_starts(self) -> list[int]:
        """The index in `positions` of each deal's start (a deal again after a departure too)."""
        return [
            i
            for i, p in enumerate(self.positions)
            if p.index == 0 and p.move is None and not p.note
        ]

    def scored(self, position: Position) -> RoundScored | None:
        """The audit of `position`'s round, if that round is revealed (None otherwise, and for
        a deal abandoned when a seat left: only the deal played to its end is revealed)."""
        scored = self.revealed.get(position.round_number)
        if scored is None or scored.seated != position.public.seated:
            return None
        return scored

    def hands(self, position: Position) -> tuple[tuple[Tile, ...], ...] | None:
        """Every hand at `position`, if its round is revealed (None otherwise)."""
        if self.scored(position) is None:
            return None
        return self._replayed(position.round_number)[0][position.index]

    def drawn(self, position: Position) -> Tile | None:
        """The tile the draw that led to `position` gave, if its round is revealed."""
        if self.scored(position) is None or not isinstance(position.move, Draw):
            return None
        return self._replayed(position.round_number)[1][position.index - 1]

    def describe(self, position: Position) -> str:
        """The move that led to `position`, with names (and the drawn tile once revealed), or
        what happened instead (`note`)."""
        if position.note:
            return position.note
        if position.move is None or position.seat is None:
            public = position.public
            starter = self.names[public.starter]
            return round_start(position.round_number, starter, public.centre)
        return move_text(self.names[position.seat], position.move, self.drawn(position))

    def _replayed(
        self, number: int
    ) -> tuple[list[tuple[tuple[Tile, ...], ...]], list[Tile | None]]:
        """Round `number` replayed from its revealed deal: the hands at each position, the tile
        each move drew (None for plays and passes)."""
        if number not in self._hands:
            scored = self.revealed[number]
            replay = Round(
                self.table.players,
                number,
                scored.starter,
                scored.dealt,
                scored.yard,
                self.table.options,
                scored.seated,
            )
            hands = [tuple(tuple(h) for h in replay.hands)]
            drawn: list[Tile | None] = []
            for move in scored.moves:
                drawn.append(replay.apply(move))
                hands.append(tuple(tuple(h) for h in replay.hands))
            self._hands[number], self._drawn[number] = hands, drawn
        return self._hands[number], self._drawn[number]


def read_timeline(f: BinaryIO, name: str) -> Timeline:
    """The timeline of the log file open in `f`, read as `cfnet verify` reads it (a damaged
    record ends it); LogFileError or PeerProtocolError if it holds no readable table."""
    stream = iter_log(f, name, MAX_ABORT_ENTRY)
    genesis = next(stream, None)
    if genesis is None:
        raise LogFileError(name, 0, 0, _("the log holds no entries"))
    lookahead = Lookahead(genesis, stream)  # the rounds whose hop proofs need no check
    timeline = Timeline(genesis.wire, lookahead)
    try:
        for entry in lookahead:
            if not timeline.take(entry):
                break
    except LogFileError as error:
        timeline.judge.damaged(error)
    return timeline
