"""What `cfnet watch` runs: a chain that grows (from a host, or from a log file being written)
judged entry by entry by the observer table `cfnet verify` uses, shown as it comes.

`Spectator` takes entries' wire bytes in log order and prints plain lines (every seat's key
first, then moves as they come, each round's end with the hands revealed), then the final
board and `cfnet verify`'s report. After an abort that supersedes entries it shows only the
final chain: a round scored in what was dropped no longer counts, and the report is what
`cfnet verify` says of the log as it now stands. `LogFollower` reads what a log file gained
since the last look, starting again where a rewrite after an abort changed it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.game.text import escaped, render_board
from cfnet.lang import _, digits
from cfnet.protocol.table import MAX_ABORT_ENTRY
from cfnet.protocol.verify import Lookahead
from cfnet.record.entry import Entry, MalformedEntry, decode_entry
from cfnet.record.identity import fingerprint
from cfnet.record.logfile import (
    MAGIC,
    RECORD_HEADER_BYTES,
    RECORD_TRAILER_BYTES,
    TornTail,
    iter_log,
    iter_log_from,
)
from cfnet.review.timeline import Timeline
from cfnet.ui.report import scored_lines, verify_report

Say = Callable[[str], None]


class WatchError(LocalProtocolError):
    """What we were sent is not a table's chain (the message says what)."""


class Spectator:
    """A chain judged as it grows; `say` gets plain lines (None: quiet, for the viewer).
    `on_timeline` is told when an abort that dropped a scored round made `timeline` a new one
    (the final chain judged again)."""

    def __init__(self, say: Say | None = None, table_id: bytes | None = None) -> None:
        self.timeline: Timeline | None = None
        self.on_timeline: Callable[[Timeline], None] = lambda _: None
        self._say = say
        self._table_id = table_id
        self._shown = 0  # positions printed
        self._scored = 0  # rounds printed
        self._scored_at: list[int] = []  # the seq of the entry that scored each round

    @property
    def finished(self) -> bool:
        """The game is over (by its last certificate, or an abort)."""
        return self.timeline is not None and self.timeline.table.finished

    def take(self, wire: bytes) -> None:
        """The next entry of the chain (the first must be the table entry)."""
        try:
            entry = decode_entry(wire)
        except MalformedEntry as error:
            raise WatchError(
                _("a malformed entry: {reason}").format(reason=escaped(error.reason))
            ) from None
        self.take_entry(entry)

    def take_entry(self, entry: Entry) -> None:
        """As `take`, for an entry already decoded."""
        timeline = self.timeline
        if timeline is None:
            if entry.seq != 0 or (self._table_id not in (None, entry.table_id)):
                raise WatchError(_("the chain does not start with this table's entry"))
            try:
                self.timeline = Timeline(entry.wire)
            except PeerProtocolError as error:
                reason = escaped(error.reason)  # it may quote the entry
                raise WatchError(
                    _("entry 0 is not a valid table: {reason}").format(reason=reason)
                ) from None
            for line in self._header():
                self._line(line)
            return
        held, scored = len(timeline.table.entries), len(timeline.rounds)
        timeline.take(entry)
        chain = timeline.table.entries
        self._note_scored(timeline, entry.seq)
        if len(chain) <= held and chain[-1].wire == entry.wire:  # it superseded the rest
            self._superseded(entry.seq, scored)
        self._show()

    def _note_scored(self, timeline: Timeline, seq: int) -> None:
        """The rounds `timeline` scored since the last look were scored by entry `seq`."""
        self._scored_at += [seq] * (len(timeline.rounds) - len(self._scored_at))

    def _superseded(self, seq: int, scored: int) -> None:
        """An abort replaced the chain from entry `seq` on (`scored`: the rounds scored before
        it came). A round scored in what it dropped no longer counts: the final chain is
        judged again from its table entry, as `cfnet verify` will judge the log."""
        dropped = [n for n, at in enumerate(self._scored_at[:scored]) if at >= seq]
        if dropped:
            assert self.timeline is not None
            rounds = self.timeline.rounds
            for n in dropped:
                replaced = _(
                    "an abort replaced the chain from entry {seq} on: the result of round"
                    " {number} shown above does not count"
                )
                number = digits(rounds[n].round_number)
                self._line("\n== " + replaced.format(seq=digits(seq), number=number))
            self._rebuild()
        timeline = self.timeline
        assert timeline is not None
        self._shown = sum(position.seq < seq for position in timeline.positions)
        self._scored = sum(at < seq for at in self._scored_at)

    def _rebuild(self) -> None:
        """Judge the chain as it now stands again, from its table entry, in a new timeline."""
        assert self.timeline is not None
        chain = list(self.timeline.table.entries)
        entries = Lookahead(chain[0], chain[1:])  # the rounds whose proofs need no check
        fresh = Timeline(chain[0].wire, entries)
        self._scored_at = []
        for entry in entries:
            fresh.take(entry)
            self._note_scored(fresh, entry.seq)
        self.timeline = fresh
        self.on_timeline(fresh)

    def _header(self) -> list[str]:
        """The table, its rules, and every seat with its player's key (to compare with what
        each player's own screen shows)."""
        assert self.timeline is not None
        table = self.timeline.table
        names = self.timeline.names  # escaped: a peer chose them
        head = _("table {name!r}: {rules}; the seats and their keys:")
        lines = [head.format(name=escaped(table.name), rules=table.options.describe())]
        for seat, info in enumerate(table.seats):
            line = (
                _("seat {number}: {name} {key} (the host)")
                if seat == 0
                else _("seat {number}: {name} {key}")
            )
            key = fingerprint(info.key)
            lines.append("  " + line.format(number=digits(seat), name=names[seat], key=key))
        return lines

    def _line(self, text: str) -> None:
        if self._say is not None:
            self._say(text)

    def _show(self) -> None:
        """Print the moves and round ends that are new."""
        timeline = self.timeline
        assert timeline is not None
        for position in timeline.positions[self._shown :]:
            prefix = f"{position.number}. " if position.move is not None else "\n== "
            self._line(prefix + timeline.describe(position))
        self._shown = len(timeline.positions)
        for scored in timeline.rounds[self._scored :]:
            names = [
                _("seat {number} ({name})").format(number=digits(s), name=n)
                for s, n in enumerate(timeline.names)
            ]
            for line in scored_lines(scored, names, timeline.table):
                self._line(line)
        self._scored = len(timeline.rounds)

    def final_lines(self) -> list[str]:
        """The last board, then `cfnet verify`'s report on the chain taken."""
        timeline = self.timeline
        if timeline is None:
            return [_("no table entry was received")]
        lines = []
        if timeline.positions:
            lines = [_("final board:"), render_board(timeline.positions[-1].public)]
        return lines + verify_report(timeline.verdict())


class LogFollower:
    """The entries of a log file that is being written, as they are added (`poll`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: list[Entry] = []
        self._offset = 0  # the end of the last whole record read

    def poll(self) -> list[Entry]:
        """The entries added since the last poll; after a rewrite (an abort supersedes the
        tail), those from the first that differs. CorruptLog if the file is damaged."""
        try:
            f = self.path.open("rb")
        except FileNotFoundError:
            return []
        with f:
            size = os.fstat(f.fileno()).st_size
            if self.entries and size >= self._offset:
                last = self.entries[-1]
                f.seek(self._offset - RECORD_TRAILER_BYTES - len(last.wire))
                if f.read(len(last.wire)) == last.wire:
                    f.seek(self._offset)
                    stream = iter_log_from(
                        f, self._offset, last, len(self.entries), str(self.path), MAX_ABORT_ENTRY
                    )
                    new = _whole(stream)
                    self.entries += new
                    self._offset += _size(new)
                    return new
            f.seek(0)
            fresh = _whole(iter_log(f, str(self.path), MAX_ABORT_ENTRY))
        same = 0
        while same < min(len(fresh), len(self.entries)) and fresh[same] == self.entries[same]:
            same += 1
        self.entries = fresh
        self._offset = len(MAGIC) + _size(fresh)
        return fresh[same:]


def _whole(stream: Iterator[Entry]) -> list[Entry]:
    """The entries of `stream` up to a torn tail (a record being written: read it next time)."""
    entries: list[Entry] = []
    try:
        for entry in stream:
            entries.append(entry)
    except TornTail:
        pass
    return entries


def _size(entries: list[Entry]) -> int:
    return sum(RECORD_HEADER_BYTES + len(e.wire) + RECORD_TRAILER_BYTES for e in entries)
