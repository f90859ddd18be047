"""Offline verification of a whole log (what `cfnet verify` prints): an observer table re-checks
every signature, link, commitment, shuffle step, key and move. Pure: entries in, verdict out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cfnet.errors import PeerProtocolError
from cfnet.log import Entry
from cfnet.table import OFFLINE, Table
from cfnet.table_events import Aborted, FaultFound, RoundScored
from cfnet.table_wire import REVEAL, TIMEOUT, Fault


@dataclass
class Verdict:
    """The outcome: `ok` for a complete, valid game; otherwise the first problem found.

    `blamed` is the seat the log names: proven at fault, the seat due where the log stops, or
    the seat a `timeout` abort names; that last is only its poster's claim, which cannot be
    checked offline (4.6): then `claimed` is set."""

    ok: bool
    table: Table | None
    rounds: list[RoundScored] = field(default_factory=list)
    problem: str = ""
    seq: int | None = None
    blamed: int | None = None
    abort: Fault | None = None
    abort_by: int | None = None
    claimed: bool = False


def _where(entry: Entry) -> str:
    return f"entry {entry.seq} (seat {entry.seat}, {entry.kind})"


def audited_rounds(entries: Sequence[Entry]) -> frozenset[int]:
    """The rounds for which the log holds a reveal by every seat: their audit recomputes every
    hop from the seeds, so their hop proofs need no check (protocol.md 4.7)."""
    revealed: dict[int, set[int]] = {}
    for entry in entries[1:]:
        if entry.kind == REVEAL and isinstance(entry.body.get("round"), int):
            revealed.setdefault(entry.body["round"], set()).add(entry.seat)
    players = len(entries[0].body.get("seats", ())) if isinstance(entries[0].body, dict) else 0
    return frozenset(r for r, seats in revealed.items() if len(seats) == players)


def verify_entries(entries: Sequence[Entry]) -> Verdict:
    """Replay `entries` through an observer table and judge them."""
    if not entries:
        return Verdict(False, None, problem="the log has no entries")
    try:
        table = Table(entries[0].wire, None, OFFLINE, audited_rounds(entries))
    except PeerProtocolError as error:
        return Verdict(False, None, problem=f"entry 0: {error.reason}", seq=0, blamed=error.seat)
    verdict = Verdict(False, table)
    first: Fault | None = None
    for entry in entries[1:]:
        if table.finished:
            verdict.problem = f"{_where(entry)}: the game had already ended"
            verdict.seq, verdict.blamed = entry.seq, entry.seat
            return verdict
        try:
            events = table.receive(entry.wire, OFFLINE)
        except PeerProtocolError as error:
            verdict.problem = f"{_where(entry)}: {error.reason}"
            verdict.seq, verdict.blamed = entry.seq, error.seat
            return verdict
        if table.fault is None and table.entries[-1].wire != entry.wire:
            verdict.problem = f"{_where(entry)}: it does not extend the chain as the log claims"
            verdict.seq = entry.seq
            return verdict
        for event in events:
            if isinstance(event, RoundScored):
                verdict.rounds.append(event)
            elif isinstance(event, FaultFound) and first is None:
                first = event.fault
            elif isinstance(event, Aborted):
                verdict.abort, verdict.abort_by = event.fault, event.by
    if first is not None:
        verdict.seq, verdict.blamed = first.seq, first.seat
        where = "" if first.seq is None else f"{_where(entries[first.seq])}: "
        verdict.problem = f"{where}{first.detail}"
    elif verdict.abort is not None:
        claim = verdict.abort
        verdict.seq, verdict.blamed = claim.seq, claim.seat
        verdict.claimed = claim.code == TIMEOUT  # the poster's word: time is not provable
        said = f"seat {verdict.abort_by} claims " if verdict.claimed else ""
        verdict.problem = f"{said}seat {claim.seat} {claim.detail} ({claim.code})"
    elif not table.over:
        due = table.due()
        verdict.seq = len(table.entries)
        if due is not None:
            verdict.blamed = due[0]
            kinds = "/".join(sorted(due[1]))
            verdict.problem = (
                f"the log ends after entry {len(table.entries) - 1}: seat {due[0]} was due to "
                f"post {kinds}"
            )
        else:
            verdict.problem = f"the log ends after entry {len(table.entries) - 1} unfinished"
    else:
        verdict.ok = True
    return verdict
