"""Offline verification of a whole log (what `cfnet verify` prints): an observer table re-checks
every signature, link, commitment, shuffle step, key and move. Pure: entries in, verdict out.

The verdict rests only on checked signatures (protocol.md 4.7): a seat is named only by an
entry it provably signed; the first proven fault decides, whatever follows it; a log that
stops, or whose next record proves nothing (unsigned, unplaceable, damaged), is unfinished with
the seat that was due; a `timeout` abort is its poster's claim, which time cannot prove offline
(version 3), or from version 4 a departure proven by the stall votes of a majority (votes.py).
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass, field

from cfnet.errors import PeerProtocolError
from cfnet.game.text import result_after_departure
from cfnet.lang import N_, Sentence
from cfnet.lang.sentence import clauses, listed
from cfnet.protocol.audit import audit_ahead
from cfnet.protocol.events import (
    Aborted,
    Disqualified,
    Event,
    FaultFound,
    GameOver,
    LateProof,
    RoundScored,
    SeatLeft,
    SeatReturned,
    drain,
)
from cfnet.protocol.genesis import parse_genesis
from cfnet.protocol.table import OFFLINE, Table
from cfnet.protocol.votes import vote_seats
from cfnet.protocol.wire import ABORT, RESIGN, REVEAL, TIMEOUT, Fault
from cfnet.record.entry import Entry
from cfnet.record.logfile import CorruptLog, LogFileError, link_problem


@dataclass
class Verdict:
    """What a log proves.

    `blamed` is the seat proven at fault by an entry whose signature was checked (None if none);
    `claim` is a `timeout` abort, only its poster's (`claimed_by`) word; `due` is the seat that
    was due where the log stops (it is not blamed for it); `problem` says, in one line, why the
    log is not a valid finished game ('' if it is); `damaged` that the file is damaged (not just
    cut short, as a crash leaves it) before the game's end; `after` what the file holds beyond the
    entry that decided (read only to report it)."""

    table: Table | None
    rounds: list[RoundScored] = field(default_factory=list)
    entries: int = 0
    problem: str = ""
    seq: int | None = None
    blamed: int | None = None
    fault: Fault | None = None
    claim: Fault | None = None
    claimed_by: int | None = None
    abort: Fault | None = None
    abort_by: int | None = None
    due: int | None = None
    damaged: bool = False  # damage no crash explains stopped the reading before the game's end
    due_kinds: tuple[str, ...] = ()
    after: str = ""
    note: str = ""  # a departure that left the result standing, in a valid finished game
    departures: list[str] = field(default_factory=list)  # "departure: ..." or "return: ..."
    removed: list[int] = field(default_factory=list)  # proven to cheat; the game went on
    late: list[str] = field(default_factory=list)  # proofs after the end: the result stands

    @property
    def valid(self) -> bool:
        """The log holds a table, no proven fault ended the game (a seat proven to cheat was
        removed, and the game went on or its result stood without it), and no damage cut it
        short."""
        return self.table is not None and self.blamed is None and not self.damaged

    @property
    def finished(self) -> bool:
        """Every round was played and certified by every seat."""
        return self.table is not None and self.table.over

    @property
    def ok(self) -> bool:
        """A valid, finished game and nothing else in the file."""
        return self.valid and self.finished and not self.problem


def _where(entry: Entry) -> Sentence:
    return Sentence(
        N_("entry {seq} (seat {seat}, {kind})"), seq=entry.seq, seat=entry.seat, kind=entry.kind
    )


def _claims(entry: Entry) -> Sentence:
    """An entry whose signature is not (or cannot be) checked: the seat is only its claim."""
    return Sentence(
        N_("entry {seq} (claims seat {seat}, {kind})"),
        seq=entry.seq,
        seat=entry.seat,
        kind=entry.kind,
    )


class Judge:
    """Feeds an observer table one entry at a time and stops judging at the first entry that
    decides the verdict (a proven fault, a refused record, the end of the game)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.verdict = Verdict(table, entries=1)
        self.judging = True
        self.reporting = False  # after a fault: the abort that follows is still shown
        self.skipped = 0
        self.notes: list[str] = []  # what the file holds after the entry that decided

    @property
    def decided(self) -> bool:
        """The verdict is settled and reported: what follows is only counted."""
        return not self.judging and not self.reporting

    def take(self, entry: Entry) -> None:
        self.verdict.entries += 1
        if self.reporting:
            self._report(entry)
        else:
            self._judge(entry)

    def _judge(self, entry: Entry) -> None:
        table = self.table
        ended = table.finished
        try:
            table.receive(entry.wire, OFFLINE)
        except PeerProtocolError as error:
            if error.seat is not None:  # raised only after the entry's signature was checked
                where = Sentence(N_("{entry}: {reason}"), entry=_where(entry), reason=error.reason)
                self._proven(error.seat, entry.seq, where)
            elif ended:
                self._after_end(entry)
            else:
                self._refused(entry, error.reason)
            return
        events = drain(table.next_event)
        self._events(entry, events)
        if any(isinstance(event, LateProof) for event in events):
            return  # reported; the game's result stands
        if table.entries[-1].wire != entry.wire and self.judging:
            if ended:
                self._after_end(entry)
            else:
                self._refused(entry, Sentence(N_("it does not extend the chain as the log claims")))

    def _events(self, entry: Entry, events: list[Event]) -> None:
        """What the table made of `entry`, into the verdict."""
        for event in events:
            if isinstance(event, RoundScored):
                self.verdict.rounds.append(event)
            elif isinstance(event, FaultFound):  # the table checked the entry's signature
                self._proven(event.fault.seat, event.fault.seq, self._fault_line(event.fault))
                self.verdict.fault = self.verdict.fault or event.fault
                self.reporting = True
            elif isinstance(event, Aborted):
                self._aborted(event)
            elif isinstance(event, SeatLeft | SeatReturned):
                names = [self._who(seat) for seat in range(self.table.players)]
                what = (
                    N_("departure: entry {seq}: {event}")
                    if isinstance(event, SeatLeft)
                    else N_("return: entry {seq}: {event}")
                )
                line = Sentence(what, seq=entry.seq, event=event.describe(names))
                self.verdict.departures.append(line)
                if isinstance(event, SeatLeft) and event.fault.code not in (RESIGN, TIMEOUT):
                    self._removed(event.fault.seat)
            elif isinstance(event, Disqualified):
                names = [self._who(seat) for seat in range(self.table.players)]
                line = Sentence(
                    N_("departure: entry {seq}: {event}"),
                    seq=entry.seq,
                    event=event.describe(names),
                )
                self.verdict.departures.append(line)
                self._removed(event.fault.seat)
            elif isinstance(event, LateProof):
                names = [self._who(seat) for seat in range(self.table.players)]
                self.verdict.late.append(
                    Sentence(N_("entry {seq}: {event}"), seq=entry.seq, event=event.describe(names))
                )
            elif isinstance(event, GameOver) and self.verdict.abort is not None:
                self._result_stands()

    def _removed(self, seat: int) -> None:
        """`seat`, proven to cheat, was removed and the game goes on: judging goes on too."""
        verdict = self.verdict
        verdict.removed.append(seat)
        if verdict.blamed == seat:  # its fault was found first: it no longer decides
            verdict.blamed = verdict.seq = verdict.fault = None
            verdict.problem = ""
            self.judging, self.reporting = True, False

    def _aborted(self, event: Aborted) -> None:
        verdict = self.verdict
        verdict.abort, verdict.abort_by = event.fault, event.by
        if self.verdict.blamed is not None:
            return
        claim = event.fault
        if claim.code == RESIGN:  # its own signed word: a departure, not a fault
            verdict.seq = claim.seq
            verdict.problem = Sentence(
                N_("{name} resigned at entry {seq}"), name=self._who(claim.seat), seq=claim.seq
            )
        elif claim.code == TIMEOUT and "votes" in claim.evidence:  # proven by a majority's votes
            voters = listed([self._who(seat) for seat in vote_seats(claim.evidence)])
            verdict.seq = self.table.entries[-1].seq
            verdict.problem = Sentence(
                N_("{name} {detail}: timed out by the votes of {voters}"),
                name=self._who(claim.seat),
                detail=claim.detail,
                voters=voters,
            )
        elif claim.code == TIMEOUT:  # the poster's word: time is not provable offline
            verdict.claim, verdict.claimed_by = claim, event.by
            verdict.seq = self.table.entries[-1].seq
            verdict.problem = Sentence(
                N_("{by} claims {name} {detail} ({code})"),
                by=self._who(event.by),
                name=self._who(claim.seat),
                detail=claim.detail,
                code=claim.code,
            )
        else:  # the abort's evidence was checked: signatures, links, points
            verdict.fault = verdict.fault or claim
            self._proven(claim.seat, self.table.entries[-1].seq, self._fault_line(claim))

    def _result_stands(self) -> None:
        """A departure (a timeout claim, a resignation, a removal for cheating) that leaves the
        result standing: the scored rounds decide the game, and the departure is only a note."""
        verdict = self.verdict
        why = verdict.problem
        if verdict.blamed is not None:  # proven to cheat: removed, and disqualified
            why = Sentence(
                N_("{name} is removed and disqualified: {why}"),
                name=self._who(verdict.blamed),
                why=why,
            )
            verdict.removed.append(verdict.blamed)
            verdict.blamed = verdict.seq = None
            self.judging = True  # what follows is judged as after any end
        verdict.note = Sentence(
            N_("{why}: {result}"), why=why, result=result_after_departure(self.table.game)
        )
        verdict.problem = ""

    def _who(self, seat: int) -> Sentence:
        return Sentence(N_("seat {number} ({name})"), number=seat, name=self.table.seats[seat].name)

    def _fault_line(self, fault: Fault) -> str:
        entries = self.table.entries
        seq = fault.seq
        if seq is not None and seq < len(entries) and entries[seq].seat == fault.seat:
            return Sentence(
                N_("{entry}: {reason}"), entry=_where(entries[seq]), reason=fault.detail
            )
        return Sentence(
            N_("seat {seat} {detail} ({code})"),
            seat=fault.seat,
            detail=fault.detail,
            code=fault.code,
        )

    def _proven(self, seat: int, seq: int | None, problem: str) -> None:
        verdict = self.verdict
        self.judging = False
        if verdict.blamed is None:
            verdict.blamed, verdict.seq, verdict.problem = seat, seq, problem

    def _refused(self, entry: Entry, reason: str) -> None:
        """A record that proves nothing: the log is judged up to the entry before it."""
        self.judging = False
        self._stops(
            Sentence(N_("{entry} is refused: {reason}"), entry=_claims(entry), reason=reason)
        )
        self.verdict.seq = entry.seq

    def _after_end(self, entry: Entry) -> None:
        """An entry the table did not take because the game had ended. A live table ignores it
        too (only an equivocation still counts after the end), so it blames nobody, even when
        its seat signed it: it is reported as not part of the game."""
        table = self.table
        self.judging = False
        signed = entry.seat < table.players and entry.verify(table.seats[entry.seat].key)
        if signed and link_problem(table.entries[-1], entry) is None:
            note = Sentence(
                N_(
                    "{entry}: {name} signed an entry after the game had ended; it is not part of"
                    " the game"
                ),
                entry=_where(entry),
                name=self._who(entry.seat),
            )
        else:
            note = Sentence(
                N_("{entry} after the end is junk: it is not signed by the seat it names"),
                entry=_claims(entry),
            )
        if self.verdict.problem:
            self.notes.append(note)
        else:
            self.verdict.problem, self.verdict.seq = note, entry.seq

    def _report(self, entry: Entry) -> None:
        """After the first proven fault: the abort that reports it, if the table takes it."""
        table = self.table
        with contextlib.suppress(PeerProtocolError):  # what it refuses is only counted
            table.receive(entry.wire, OFFLINE)
        events = drain(table.next_event)
        if table.entries[-1].wire != entry.wire:
            self.skipped += 1
            self.reporting = False
            return
        if table.finished:
            self.reporting = False
        self._events(entry, events)  # its abort, which may remove the seat and go on

    def _stops(self, why: str = "") -> None:
        """The log ends before the game does (`why`: because of the record that follows)."""
        verdict, table = self.verdict, self.table
        last = len(table.entries) - 1
        stop = Sentence(N_("the log stops after entry {seq}"), seq=last)
        due = table.due()
        if due is not None:
            verdict.due, verdict.due_kinds = due[0], tuple(sorted(due[1]))
            stop = Sentence(
                N_("the log stops after entry {seq}: {name} was due to post {kinds}"),
                seq=last,
                name=self._who(due[0]),
                kinds="/".join(verdict.due_kinds),
            )
        verdict.problem = clauses([why, stop]) if why else stop

    def damaged(self, error: LogFileError) -> None:
        """The file cannot be read on from here (`error`)."""
        damage = Sentence(
            N_("the file cannot be read on at byte {offset} (entry {index}): {reason}"),
            offset=error.offset,
            index=error.index,
            reason=error.reason,
        )
        if not self.judging:
            self.notes.append(damage)
        elif self.table.finished:
            self.judging = False
            self.verdict.problem = self.verdict.problem or Sentence(
                N_("after the end, {damage}"), damage=damage
            )
        else:
            self.judging = False
            self.verdict.damaged = isinstance(error, CorruptLog)
            self._stops(damage)

    def finish(self) -> Verdict:
        """The verdict on what was taken so far (the same each time it is asked)."""
        verdict, table = self.verdict, self.table
        if self.judging and not table.finished:
            self._stops()
        notes = list(self.notes)
        if self.skipped:
            skipped = Sentence.counted(
                "{count} more entry follows, not judged",
                "{count} more entries follow, not judged",
                self.skipped,
                count=self.skipped,
            )
            notes.insert(0, skipped)
        verdict.after = clauses(notes)
        return verdict


LOOKAHEAD_BYTES = 1 << 20
"""How far `Lookahead` reads past the entry being judged: many times an honest round of the
largest table (16 hop entries of at most MAX_ORDINARY_ENTRY bytes, and its turns)."""


class Lookahead(Container[int]):
    """The entries of a log (an iterator, such as `logfile.iter_log`, whose LogFileError ends
    the reading), handed on one at a time; and, as a container of round numbers, the rounds
    whose hop proofs need no check because the log holds a validly signed `reveal` of every seat
    before any seat left (a seat reveals only after checking every hop proof of its round, and
    the audit recomputes every hop from the seeds: protocol.md 4.7). Asked about a round, it
    reads ahead only until it knows: every reveal, or an entry after which none can count (an
    abort, a resignation, a later round, another table, a signature that is not the seat's,
    the end or a damaged record), or
    LOOKAHEAD_BYTES read ahead (the proofs are then checked). A deal that follows a departure is
    checked in full."""

    def __init__(self, genesis: Entry, stream: Iterable[Entry]) -> None:
        self.table_id = genesis.table_id
        self.keys = [seat.key for seat in parse_genesis(genesis.wire)[4]]
        self.read = 1  # entries taken from the stream, the genesis included
        self._stream: Iterator[Entry] | None = iter(stream)
        self._ahead: deque[Entry] = deque()
        self._ahead_bytes = 0
        self._error: LogFileError | None = None
        self._closed = False  # nothing read from here on makes a round audited
        self._revealed: dict[int, set[int]] = {}
        self._latest = 0  # the latest round an entry read so far belongs to
        self._begun: set[int] = set()  # rounds whose audit was begun ahead, a round early
        self._last: list[Entry] = []  # the entry handed on last

    def __iter__(self) -> Lookahead:
        return self

    def __next__(self) -> Entry:
        if not self._ahead:
            self._read()
        if self._ahead:
            entry = self._ahead.popleft()
            self._ahead_bytes -= len(entry.wire)
            self._last = [entry]
            return entry
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        raise StopIteration

    @property
    def pending(self) -> int:
        """Entries read ahead and not yet handed on."""
        return len(self._ahead)

    def __contains__(self, number: object) -> bool:
        if type(number) is not int:
            return False
        revealed = self._read_to_reveals(number)
        if revealed and number not in self._begun:  # its audit will recompute every hop
            audit_ahead(self.table_id, number, [*self._last, *self._ahead])
        if revealed and number + 1 not in self._begun and self._read_to_reveals(number + 1):
            audit_ahead(self.table_id, number + 1, self._ahead)  # the threads work meanwhile
            self._begun.add(number + 1)
        return revealed

    def _read_to_reveals(self, number: int) -> bool:
        """Read ahead until round `number` is known to hold every seat's reveal, or cannot."""
        while (
            len(self._revealed.get(number, ())) < len(self.keys)
            and not self._closed
            and self._latest <= number
            and self._ahead_bytes < LOOKAHEAD_BYTES
        ):
            self._read()
        return len(self._revealed.get(number, ())) == len(self.keys)

    def _read(self) -> None:
        """One more entry from the stream into the queue (none at its end or a damaged record)."""
        if self._error is not None or self._stream is None:
            return
        try:
            entry = next(self._stream)
        except StopIteration:
            self._stream, self._closed = None, True
            return
        except LogFileError as error:
            self._error, self._closed = error, True
            return
        self.read += 1
        self._ahead.append(entry)
        self._ahead_bytes += len(entry.wire)
        self._note(entry)

    def _note(self, entry: Entry) -> None:
        if self._closed:
            return
        number = entry.body.get("round")
        if (
            entry.kind in (ABORT, RESIGN)
            or entry.table_id != self.table_id
            or entry.seat >= len(self.keys)
            or not entry.verify(self.keys[entry.seat])  # remembered: judged without a check
        ):
            self._closed = True
        elif type(number) is int:
            self._latest = max(self._latest, number)
            if entry.kind == REVEAL:
                self._revealed.setdefault(number, set()).add(entry.seat)


def verify_entries(entries: Iterable[Entry], rest: Callable[[], int] | None = None) -> Verdict:
    """Judge `entries` (a list, or a stream such as `logfile.iter_log`, whose LogFileError
    ends the reading) in one pass through an observer table, each entry read as it is judged
    (`Lookahead` reads a little further only to know whether a round's proofs need a check).
    Once the verdict is settled, the entries left are counted by `rest()` if given (e.g.
    `logfile.count_records` on the file, which skips their bodies), else by iterating them."""
    stream = iter(entries)
    try:
        genesis = next(stream, None)
        if genesis is None:
            return Verdict(None, problem=Sentence(N_("the log has no entries")))
        lookahead = Lookahead(genesis, stream)
        table = Table(genesis.wire, None, OFFLINE, lookahead)
    except LogFileError as error:
        return Verdict(None, problem=error.args[0])  # a Sentence
    except PeerProtocolError as error:  # a table entry is signed by the key it declares
        problem = Sentence(N_("entry 0 is not a valid table: {reason}"), reason=error.reason)
        return Verdict(None, entries=1, problem=problem)
    judge = Judge(table)
    try:
        for entry in lookahead:
            judge.take(entry)
            if judge.decided:
                more = lookahead.pending + (rest() if rest is not None else sum(1 for _ in stream))
                judge.skipped += more
                judge.verdict.entries += more
                break
    except LogFileError as error:
        judge.damaged(error)
    return judge.finish()
