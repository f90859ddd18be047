"""`cfnet verify LOG`: check a game log offline and print the rounds, scores and winner.

A seat is named "to blame" only on evidence whose signature was checked; a log that stops is
unfinished (the seat that was due is not blamed); a `timeout` abort is reported as the claim of
the seat that posted it, which no one can check offline (protocol.md 4.7)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from cfnet.lang import N_, _, said

if TYPE_CHECKING:
    from cfnet.protocol.verify import Verdict

HELP = N_("check a saved game log offline: every signature, shuffle, key and move")
READ_BUFFER = 1 << 20
"""Bytes read from the log at a time: few reads, each of which lets the deck's threads in."""
EPILOG = N_(
    "Exit status: 0 for a valid, finished game; 1 for anything else (a seat proven at fault, "
    "an unfinished or aborted game, a damaged or unreadable file, junk after the end)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.cli.options import add_home_argument

    parser.epilog = _(EPILOG)
    parser.add_argument(
        "log", metavar="LOG", help=_("a game log file, or a table name or id from `cfnet games`")
    )
    parser.add_argument(
        "--json", action="store_true", help=_("print one JSON object, for scripts, instead of text")
    )
    add_home_argument(parser)


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from cfnet.deck.pool import helper_process
    from cfnet.disk.home import default_home
    from cfnet.disk.saved_games import GameLookupError, find_log
    from cfnet.errors import describe
    from cfnet.game.text import SENTENCE_CHARS, escaped
    from cfnet.protocol.table import MAX_ABORT_ENTRY
    from cfnet.protocol.verify import verify_entries
    from cfnet.record.logfile import count_records, iter_log
    from cfnet.ui.report import verify_report

    try:
        path = find_log(args.log, (args.home or default_home()).expanduser())
        with path.open("rb", buffering=READ_BUFFER) as f, helper_process():
            stream = iter_log(f, str(path), MAX_ABORT_ENTRY)
            verdict = verify_entries(stream, lambda: count_records(f))
    except (OSError, GameLookupError) as error:
        problem = escaped(describe(error), SENTENCE_CHARS, isolates=True)
        print(f"cfnet verify: {problem}", file=sys.stderr)
        return 1
    if args.json:  # JSON strings escape every control character themselves
        print(json.dumps(as_json(verdict, str(path))))
    elif verdict.table is None:  # the problem may quote the file: escaped, like the report
        problem = escaped(said(verdict.problem), SENTENCE_CHARS, isolates=True)
        print(f"cfnet verify: {problem}", file=sys.stderr)
    else:
        print("\n".join(verify_report(verdict)))
    return 0 if verdict.ok else 1


def as_json(verdict: Verdict, path: str) -> dict[str, Any]:
    """The verdict as plain data (the `--json` object)."""
    table = verdict.table

    def fault(claim: Any, by: int | None) -> dict[str, Any] | None:
        if claim is None:
            return None
        return {"by": by, "seat": claim.seat, "code": claim.code, "detail": claim.detail}

    rounds = [
        {
            "round": scored.round_number,
            "scores": list(scored.scores),
            "totals": list(scored.totals),
            "end": scored.end_reason.value,
            "went_out": scored.went_out,
            "seated": list(scored.seated),
        }
        for scored in verdict.rounds
    ]
    return {
        "log": path,
        "table": None if table is None else table.name,
        "table_id": None if table is None else table.table_id.hex(),
        "players": [] if table is None else [seat.name for seat in table.seats],
        "entries": verdict.entries,
        "valid": verdict.valid,
        "finished": verdict.finished,
        "damaged": verdict.damaged,
        "rounds": rounds,
        "totals": [] if table is None else list(table.game.totals),
        "winners": list(table.game.winners()) if table is not None and verdict.finished else [],
        "conceded": [] if table is None else sorted(table.game.conceded),
        "blamed": verdict.blamed,
        "problem": verdict.problem or None,
        "claim": fault(verdict.claim, verdict.claimed_by),
        "abort": fault(verdict.abort, verdict.abort_by),
        "due": verdict.due,
        "after": verdict.after or None,
        "note": verdict.note or None,
        "departures": verdict.departures,
        "removed": verdict.removed,
        "late_proofs": verdict.late,
    }
