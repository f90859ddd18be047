"""`cfnet verify FILE`: check a game log offline and print the rounds, scores and winner.

Exit 0 for a complete, valid game; 1 otherwise (an invalid or unfinished log, an abort). A seat
is named "to blame" only when the log proves it; a `timeout` abort is reported as the claim of
the seat that posted it, which no one can check offline (protocol.md 4.6-4.7)."""

from __future__ import annotations

import argparse

HELP = "check a saved game log offline: every signature, shuffle, key and move"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the game log to check")


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from cfnet.errors import describe
    from cfnet.logfile import LogFileError, read_log
    from cfnet.table_verify import verify_entries

    try:
        entries = read_log(Path(args.file))
    except (OSError, LogFileError) as error:
        print(f"cfnet verify: {describe(error)}", file=sys.stderr)
        return 1
    verdict = verify_entries(entries)
    table = verdict.table
    if table is not None:
        names = ", ".join(f"{s}={info.name}" for s, info in enumerate(table.seats))
        print(f"table {table.name!r} ({table.table_id.hex()}), seats {names}")
        print(f"rules: {table.options.describe()}; {len(entries)} entries")
    for scored in verdict.rounds:
        print(f"round {scored.round_number}: scores {list(scored.scores)}")
    if verdict.ok:
        assert table is not None
        winners = table.game.winners()
        print(f"totals: {list(table.game.totals)}")
        who = " and ".join(f"seat {s} ({table.seats[s].name})" for s in winners)
        print(f"winner: {who}")
        print("the log is valid")
        return 0
    print(f"INVALID: {verdict.problem}")

    def named(seat: int) -> str:
        return f"seat {seat} ({table.seats[seat].name if table is not None else '?'})"

    if verdict.claimed and verdict.abort is not None and verdict.abort_by is not None:
        print(
            f"{named(verdict.abort_by)} claims {named(verdict.abort.seat)} did not post in time; "
            "this cannot be proven offline"
        )
        return 1
    if verdict.blamed is not None:
        print(f"to blame: {named(verdict.blamed)}")
    else:
        print("to blame: no seat can be proven at fault")
    if verdict.abort is not None and verdict.abort_by is not None:
        claim = verdict.abort
        print(
            f"the game ends with seat {verdict.abort_by}'s abort: seat {claim.seat}, {claim.code}"
        )
    return 1
