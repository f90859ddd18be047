"""The games kept in the state directory, as `cfnet games` lists them, and finding one by the
name or id a person types (`cfnet verify friday`, `cfnet replay 3fa2c1`).

A game's summary is read from its own saved log without re-checking signatures (that is
`cfnet verify`'s job): the players from the table entry, the rounds every seat certified, the
totals they certified, and how the log ends. Only a log with a departure (a timeout claim, a
resignation, a cheater removed) is judged as `verify` does, to know the seats each round was
played by and whether the result stands."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cfnet.disk.store import LOG_FILE, TableMeta, list_tables, table_dir
from cfnet.lang import _, digits, ngettext
from cfnet.protocol.table import MAX_ABORT_ENTRY
from cfnet.protocol.verify import verify_entries
from cfnet.protocol.wire import ABORT, CERTIFY, MAX_NAME_CHARS, RESIGN, TABLE, TIMEOUT
from cfnet.record.entry import Entry
from cfnet.record.logfile import LogFileError, iter_log, read_log

MIN_ID_PREFIX = 4
"""The shortest table id prefix (hex digits) that names a saved game."""


MAX_LISTED = 6
"""How many saved games' names an error message lists."""


class GameLookupError(ValueError):
    """A word that names no saved game, or more than one: the message says which are there."""


@dataclass(frozen=True, slots=True)
class SavedGame:
    """One saved game: its metadata, log path and last change, and what its log holds.

    `rounds` counts the rounds every seat certified, `totals` are the totals they certified
    last; `aborted` is (blamed seat, code) when the log ends with an abort, (seat, RESIGN) when
    it ends with a resignation; `stands`: that departure left a result standing (protocol.md
    4.6), and `rounds` and `totals` are then that result's; `disqualified`: the seats removed
    for cheating; `conceded`: the seats that left a game that then ended because fewer than 2
    were left (version 4: ranked below those still seated); `unreadable` says why the log could
    not be read to its end ('' if it could)."""

    meta: TableMeta
    log: Path
    modified: float
    players: tuple[str, ...]
    rounds: int
    totals: tuple[int, ...]
    aborted: tuple[int, str] | None
    unreadable: str = ""
    stands: bool = False
    disqualified: tuple[int, ...] = ()
    conceded: tuple[int, ...] = ()

    @property
    def finished(self) -> bool:
        return self.stands or (self.aborted is None and self.rounds >= self.meta.rules.rounds)

    @property
    def date(self) -> str:
        """The log's last change, local time."""
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.modified))

    @property
    def short_id(self) -> str:
        return self.meta.table_id.hex()[:8]

    def name_of(self, seat: int) -> str:
        return self.players[seat] if seat < len(self.players) else f"seat {seat}"

    def result(self) -> str:
        """The outcome in a few words: the winner, the abort, or 'unfinished'."""
        if self.unreadable:
            return _("log unreadable")
        disqualified = _("{name} disqualified")
        notes = [disqualified.format(name=self.name_of(seat)) for seat in self.disqualified]
        if self.aborted is not None:
            seat, code = self.aborted
            if code == TIMEOUT:  # the poster's claim
                notes.append(_("{name} timed out").format(name=self.name_of(seat)))
            elif code == RESIGN:
                notes.append(_("{name} resigned").format(name=self.name_of(seat)))
            elif not self.stands:
                at_fault = _("aborted: {name} at fault ({code})")
                return at_fault.format(name=self.name_of(seat), code=code)
            if not self.stands:
                how = _("ended: {note}") if code == RESIGN else _("aborted: {note}")
                return how.format(note=notes[-1])
        if not self.finished or not self.totals:
            return _("unfinished")
        out = {*self.disqualified, *self.conceded}
        seated = [s for s in range(len(self.totals)) if s not in out]
        ranked = seated or [s for s in self.conceded if s not in self.disqualified]
        ranked = ranked or list(self.disqualified)
        best = min(self.totals[s] for s in ranked)
        winners = [self.name_of(s) for s in ranked if self.totals[s] == best]
        if len(winners) == 1:
            result = ngettext(
                "won by {name}, {count} point", "won by {name}, {count} points", best
            ).format(name=winners[0], count=digits(best))
        else:
            result = ngettext("tie: {names}, {count} point", "tie: {names}, {count} points", best)
            result = result.format(names=", ".join(winners), count=digits(best))
        if notes:
            return _("{result} ({notes})").format(result=result, notes=", ".join(notes))
        return result


def shown(name: object) -> str:
    """`name` if it is fit for a terminal (printable, at most MAX_NAME_CHARS), else '?'."""
    if isinstance(name, str) and 0 < len(name) <= MAX_NAME_CHARS and name.isprintable():
        return name
    return "?"


def summarize(meta: TableMeta, log: Path) -> SavedGame:
    """Read `meta`'s log and sum it up (without checking it: `cfnet verify` does that)."""
    players: tuple[str, ...] = ()
    certified: dict[int, set[int]] = {}
    totals: tuple[int, ...] = ()
    rounds = 0
    last: Entry | None = None
    departed = False
    unreadable = ""
    try:
        modified = log.stat().st_mtime
        with log.open("rb") as f:
            for entry in iter_log(f, str(log), MAX_ABORT_ENTRY):
                last = entry
                departed = departed or entry.kind in (ABORT, RESIGN)
                body = entry.body
                if entry.kind == TABLE and entry.seq == 0:
                    players = tuple(shown(seat.get("name")) for seat in body.get("seats", ()))
                elif entry.kind == CERTIFY and type(body.get("round")) is int:
                    seats = certified.setdefault(body["round"], set())
                    seats.add(entry.seat)
                    if len(seats) == meta.seats:
                        rounds += 1
                        totals = tuple(int(t) for t in body.get("totals", ()))
    except (OSError, LogFileError, AttributeError, TypeError, ValueError) as error:
        unreadable = str(error)
        modified = 0.0 if not log.exists() else log.stat().st_mtime
    aborted = None
    if last is not None and last.kind == RESIGN:
        aborted = (last.seat, RESIGN)
    elif last is not None and last.kind == ABORT:
        blamed, code = last.body.get("blamed"), last.body.get("code")
        if type(blamed) is int and type(code) is str:
            aborted = (blamed, code)
    stands, disqualified, conceded = False, tuple[int, ...](), tuple[int, ...]()
    if departed and not unreadable:
        try:
            verdict = verify_entries(read_log(log))
        except (OSError, LogFileError):  # changed since it was read: keep the summary
            verdict = None
        if (
            verdict is not None
            and verdict.table is not None
            and (verdict.rounds or verdict.finished)
        ):
            game = verdict.table.game
            rounds = len(verdict.rounds)
            totals = verdict.rounds[-1].totals if verdict.rounds else game.totals
            disqualified = tuple(sorted(game.disqualified))
            conceded = tuple(sorted(game.conceded))
            stands = aborted is not None and verdict.finished
    return SavedGame(
        meta,
        log,
        modified,
        players,
        rounds,
        totals,
        aborted,
        unreadable,
        stands,
        disqualified,
        conceded,
    )


def saved_games(home: Path) -> list[SavedGame]:
    """Every game kept in `home`, newest (last changed) first."""
    games = [
        summarize(meta, table_dir(home, meta.table_id) / LOG_FILE)
        for meta in list_tables(home, include_finished=True)
    ]
    return sorted(games, key=lambda game: game.modified, reverse=True)


def matching(games: Sequence[SavedGame], word: str) -> list[SavedGame]:
    """The games `word` names: by table name (any case), else by a table id prefix."""
    folded = word.casefold()
    named = [game for game in games if game.meta.name.casefold() == folded]
    if named or len(word) < MIN_ID_PREFIX:
        return named
    return [game for game in games if game.meta.table_id.hex().startswith(word.lower())]


def find_log(word: str, home: Path) -> Path:
    """The log `word` names: an existing file, else the one saved game in `home` with that
    table name or id prefix; GameLookupError naming the candidates otherwise."""
    path = Path(word)
    if path.is_file():
        return path
    games = saved_games(home)
    found = matching(games, word)
    if len(found) == 1:
        return found[0].log
    if found:
        listed = ", ".join(f"{game.short_id} ({game.date})" for game in found)
        named = ngettext(
            "{count} saved game is named {name!r}: {games}; give the id instead",
            "{count} saved games are named {name!r}: {games}; give the id instead",
            len(found),
        )
        raise GameLookupError(named.format(count=digits(len(found)), name=word, games=listed))
    if path.exists():
        raise GameLookupError(_("{file} is not a file").format(file=word))
    names = sorted({shown(game.meta.name) for game in games})
    listed = ", ".join(names[:MAX_LISTED]) + (", ..." if len(names) > MAX_LISTED else "")
    missing = (
        _(
            "no file {name!r}, and no saved game with that table name or id (saved games:"
            " {games}; see cfnet games)"
        ).format(name=word, games=listed)
        if listed
        else _(
            "no file {name!r}, and no saved game with that table name or id (saved games: none;"
            " see cfnet games)"
        ).format(name=word)
    )
    raise GameLookupError(missing)
